/**
 * Hot reload: the engine in use is replaced only by a fully loaded and validated one. A load that
 * fails leaves the current engine answering, so a bad table file never replaces good tables.
 *
 * One load at a time: a load holds a whole set of tables in memory beside the set in use, so
 * reloads asked for while one runs (a burst of SIGHUPs) share one more load after it, which sees
 * whatever files are there by then. Memory stays at two sets at most.
 */
import type { LookupEngine } from './lookupEngine.js';

export class LiveEngine {
  private current: LookupEngine;
  private loading: Promise<LookupEngine> | null = null;
  private next: Promise<LookupEngine> | null = null;

  constructor(
    initial: LookupEngine,
    private readonly load: () => Promise<LookupEngine>,
  ) {
    this.current = initial;
  }

  get engine(): LookupEngine {
    return this.current;
  }

  /** Loads new tables beside the current ones and swaps them in; throws, keeping the old, on failure. */
  reload(): Promise<LookupEngine> {
    if (this.next) return this.next;
    if (!this.loading) return this.start();
    const after = this.loading.then(
      () => undefined,
      () => undefined,
    );
    this.next = after.then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<LookupEngine> {
    const loading = this.load().then((engine) => {
      this.current = engine;
      return engine;
    });
    this.loading = loading;
    const done = () => {
      if (this.loading === loading) this.loading = null;
    };
    loading.then(done, done);
    return loading;
  }
}
