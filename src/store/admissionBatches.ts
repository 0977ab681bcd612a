/**
 * The shared store's admissions, gathered per account over one turn of the event loop and sent as
 * one run of the admit script (src/store/redisScripts.ts takes a list of requests). Redis then
 * reads and writes the window, the quota and the counters once per batch instead of once per
 * request, and the process sends and parses one command; the decisions are still made one by one
 * in arrival order, atomically, as if the requests had come alone. A batch never mixes groups: one
 * account (one Redis Cluster slot), one quota rule, one period.
 */

/** More in one group are sent at once: the script's argument list and ZADD stay small. */
export const MAX_ADMISSION_BATCH = 256;

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class AdmissionBatches<T, R> {
  private open = new Map<string, Waiting<T, R>[]>();
  private scheduled = false;

  /**
   * `send` takes the batches of one turn (so that they can go out in one write) and answers, per
   * batch, one result per item in order, or a failure of that batch.
   */
  constructor(
    private readonly send: (batches: T[][]) => Promise<R[]>[],
    private readonly maxSize = MAX_ADMISSION_BATCH,
  ) {}

  add(group: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let waiting = this.open.get(group);
      if (waiting === undefined) this.open.set(group, (waiting = []));
      waiting.push({ item, resolve, reject });
      if (waiting.length >= this.maxSize) {
        this.open.delete(group);
        this.dispatch([waiting]);
      } else if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not nextTick: the requests read from every socket in this turn join the batch.
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const open = this.open;
    this.open = new Map();
    this.dispatch([...open.values()]);
  };

  private dispatch(batches: Waiting<T, R>[][]): void {
    let sent: Promise<R[]>[];
    try {
      sent = this.send(batches.map((waiting) => waiting.map((w) => w.item)));
    } catch (error) {
      sent = batches.map(() => Promise.reject(error));
    }
    batches.forEach((waiting, b) => {
      sent[b].then(
        (results) => {
          for (let i = 0; i < waiting.length; i++) waiting[i].resolve(results[i]);
        },
        (error: unknown) => {
          for (const w of waiting) w.reject(error);
        },
      );
    });
  }
}
