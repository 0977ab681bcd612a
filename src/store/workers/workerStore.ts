/**
 * The store of a worker on the embedded store (storeCalls.ts says why): the SQLite file opened as the
 * admin commands open it (the primary holds the data directory's lock), with the meter, the report
 * rate window and the keyless daily allowance asked of the primary.
 */
import type { BlacklistAddress } from '../../blacklist/address.js';
import type { ExportFilter, ReportInput } from '../../blacklist/listing.js';
import type { BlacklistStore } from '../blacklistStore.js';
import { StoreUnavailableError, type AdmitRequest, type Meter, type Store } from '../store.js';
import {
  callToWire,
  failureFromWire,
  isStoreAnswers,
  valueFromWire,
  type StoreCallName,
  type StoreCalls,
  type StoreChannelEnd,
  type WireAnswer,
  type WireCall,
} from './storeCalls.js';

/**
 * Calls waiting in one turn that leave at once, before the turn ends: the primary starts on them
 * while the rest of the turn is read (as the shared store's admission batches do with Redis).
 */
const CALLS_PER_MESSAGE = 64;

/** The worker's end of the channel: calls made in one turn leave as one message. */
export class StoreCallChannel {
  private nextId = 0;
  private waiting: WireCall[] = [];
  private scheduled = false;
  private readonly unanswered = new Map<
    number,
    { name: StoreCallName; resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private closedBecause: string | null = null;

  constructor(private readonly end: StoreChannelEnd & { connected?: boolean }) {
    end.on('message', (message) => {
      if (isStoreAnswers(message)) for (const answer of message.answers) this.settle(answer);
    });
  }

  /** The primary is gone: every call waiting, and every later one, fails as the store's unavailability. */
  close(reason: string): void {
    this.closedBecause = reason;
    for (const [id, call] of this.unanswered) {
      this.unanswered.delete(id);
      call.reject(new StoreUnavailableError(reason));
    }
  }

  call<N extends StoreCallName>(name: N, ...args: Parameters<StoreCalls[N]>): ReturnType<StoreCalls[N]> {
    return new Promise<unknown>((resolve, reject) => {
      if (this.closedBecause !== null || this.end.connected === false) {
        reject(new StoreUnavailableError(this.closedBecause ?? 'the primary process is gone'));
        return;
      }
      const id = this.nextId++;
      this.unanswered.set(id, { name, resolve, reject });
      this.waiting.push(callToWire(id, name, args));
      if (this.waiting.length >= CALLS_PER_MESSAGE) this.sendWaiting();
      else if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not nextTick: the requests read from every socket in this turn join the message.
        setImmediate(this.endOfTurn);
      }
    }) as ReturnType<StoreCalls[N]>;
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.sendWaiting();
  };

  private sendWaiting(): void {
    if (this.waiting.length === 0) return;
    const calls = this.waiting;
    this.waiting = [];
    this.end.send({ netlookup: 'store-calls', calls }, (error) => {
      if (error) for (const [id] of calls) this.settle([id, 1, error.message, 'StoreUnavailableError']);
    });
  }

  private settle(answer: WireAnswer): void {
    const call = this.unanswered.get(answer[0]);
    if (call === undefined) return;
    this.unanswered.delete(answer[0]);
    if (answer[1] === 0) call.resolve(valueFromWire(call.name, answer[2]));
    else call.reject(failureFromWire(answer[2], answer[3]));
  }
}

/** The meter, decided in the primary. */
class PrimaryMeter implements Meter {
  constructor(private readonly channel: StoreCallChannel) {}

  admit(request: AdmitRequest) {
    return this.channel.call('admit', request);
  }

  refund(request: AdmitRequest) {
    return this.channel.call('refund', request);
  }

  countRejected(accountId: string, now: Date) {
    return this.channel.call('countRejected', accountId, now);
  }

  usage(accountId: string, now: Date) {
    return this.channel.call('usage', accountId, now);
  }

  usageHistory(accountId: string, days: number, now: Date) {
    return this.channel.call('usageHistory', accountId, days, now);
  }
}

/** The blacklist in the SQLite file, with its two counters in the primary. */
class WorkerBlacklist implements BlacklistStore {
  constructor(
    private readonly file: BlacklistStore,
    private readonly channel: StoreCallChannel,
  ) {}

  get policy() {
    return this.file.policy;
  }

  report(input: ReportInput, now: Date) {
    return this.file.report(input, now);
  }

  reportMany(inputs: readonly ReportInput[], now: Date) {
    return this.file.reportMany(inputs, now);
  }

  threatFacts(address: BlacklistAddress, now: Date) {
    return this.file.threatFacts(address, now);
  }

  listing(address: BlacklistAddress, now: Date, reportLimit: number) {
    return this.file.listing(address, now, reportLimit);
  }

  exportRows(filter: ExportFilter, now: Date) {
    return this.file.exportRows(filter, now);
  }

  version() {
    return this.file.version();
  }

  deleteAddress(address: BlacklistAddress, now: Date) {
    return this.file.deleteAddress(address, now);
  }

  reportsBy(reporter: string, page: { offset: number; limit: number }, now: Date) {
    return this.file.reportsBy(reporter, page, now);
  }

  withdrawReport(reporter: string, reportId: string, now: Date) {
    return this.file.withdrawReport(reporter, reportId, now);
  }

  purgeExpired(now: Date) {
    return this.file.purgeExpired(now);
  }

  admitReport(reporter: string, limit: number, windowMs: number, now: Date) {
    return this.channel.call('admitReport', reporter, limit, windowMs, now);
  }

  countDaily(bucket: string, client: string, limit: number, now: Date) {
    return this.channel.call('countDaily', bucket, client, limit, now);
  }

  uncountDaily(bucket: string, client: string, now: Date) {
    return this.channel.call('uncountDaily', bucket, client, now);
  }
}

export class WorkerStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly accounts: Store['accounts'];
  readonly meter: Meter;
  readonly blacklist: BlacklistStore;
  readonly sessions: Store['sessions'];

  /** `file`: the SQLite store opened without the data directory's lock; `channel`: to the primary. */
  constructor(
    private readonly file: Store,
    private readonly channel: StoreCallChannel,
  ) {
    this.accounts = file.accounts;
    this.meter = new PrimaryMeter(channel);
    this.blacklist = new WorkerBlacklist(file.blacklist, channel);
    this.sessions = file.sessions;
  }

  /** Healthy when the file answers here and the primary's store is healthy (its counts written). */
  async healthy(): Promise<boolean> {
    if (!(await this.file.healthy())) return false;
    return this.channel.call('healthy').catch(() => false);
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}
