/**
 * Workers on the embedded store (`netlookup serve --workers N` without Redis): the counting that must
 * be decided in one place — the meter (per-second window, quotas, usage counters), the blacklist's
 * report rate window and the keyless legacy endpoints' daily allowance — runs in the primary, on its
 * SqliteStore; each worker asks it over the cluster's IPC channel. Everything else (accounts, keys,
 * reports, sessions) the workers read and write in the SQLite file themselves, as the admin commands
 * do beside a server.
 *
 * This module is the protocol: the operations, the two messages, and the primary's side. The calls a
 * worker makes in one turn of its event loop leave as one message, and the primary answers them in
 * one, in order; the channel is a cluster worker's (`process.send` / `worker.send`, with
 * `serialization: 'advanced'` so that Dates cross as Dates).
 */
import type { BlacklistStore } from '../blacklistStore.js';
import { StoreUnavailableError, type Meter, type Store } from '../store.js';

/** What a worker asks the primary: the operations of its store that count in one place. */
export interface StoreCalls {
  admit: Meter['admit'];
  refund: Meter['refund'];
  countRejected: Meter['countRejected'];
  usage: Meter['usage'];
  usageHistory: Meter['usageHistory'];
  admitReport: BlacklistStore['admitReport'];
  countDaily: BlacklistStore['countDaily'];
  uncountDaily: BlacklistStore['uncountDaily'];
  healthy: Store['healthy'];
}

export type StoreCallName = keyof StoreCalls;

export interface StoreCall {
  id: number;
  name: StoreCallName;
  args: unknown[];
}

/** A call's outcome; a failure crosses as its message and whether it was the store's unavailability. */
export type StoreAnswer = { id: number; value: unknown } | { id: number; failure: { message: string; unavailable: boolean } };

interface StoreCallsMessage {
  netlookup: 'store-calls';
  calls: StoreCall[];
}

export interface StoreAnswersMessage {
  netlookup: 'store-answers';
  answers: StoreAnswer[];
}

/** The side of a channel that sends; messages arrive through `on('message')`. */
export interface StoreChannelEnd {
  /** `done` hears of a failure (a closed channel) that would otherwise be an 'error' event */
  send(message: unknown, done: (error: Error | null) => void): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

const isStoreCalls = (message: unknown): message is StoreCallsMessage => (message as StoreCallsMessage | null)?.netlookup === 'store-calls';

export const isStoreAnswers = (message: unknown): message is StoreAnswersMessage =>
  (message as StoreAnswersMessage | null)?.netlookup === 'store-answers';

/** The primary's answers: its own store's operations. */
export function storeCallsOf(store: Store): StoreCalls {
  const { meter, blacklist } = store;
  return {
    admit: (request) => (meter.immediate ? Promise.resolve(meter.immediate.admit(request)) : meter.admit(request)),
    refund: (request) => meter.refund(request),
    countRejected: (accountId, now) => meter.countRejected(accountId, now),
    usage: (accountId, now) => meter.usage(accountId, now),
    usageHistory: (accountId, days, now) => meter.usageHistory(accountId, days, now),
    admitReport: (reporter, limit, windowMs, now) => blacklist.admitReport(reporter, limit, windowMs, now),
    countDaily: (bucket, client, limit, now) => blacklist.countDaily(bucket, client, limit, now),
    uncountDaily: (bucket, client, now) => blacklist.uncountDaily(bucket, client, now),
    healthy: () => store.healthy(),
  };
}

/**
 * Answers a worker's calls on `calls` (the primary's store). The calls of one message start in the
 * order they were made, each before the next (the embedded meter decides at once), so admissions are
 * decided in the order the worker made them; their answers leave together.
 */
export function answerStoreCalls(end: StoreChannelEnd, calls: StoreCalls): void {
  end.on('message', (message) => {
    if (!isStoreCalls(message)) return;
    const pending = message.calls.map(async (call): Promise<StoreAnswer> => {
      try {
        if (!Object.hasOwn(calls, call.name)) throw new Error(`no store call ${String(call.name)}`);
        const run = calls[call.name] as (...args: unknown[]) => Promise<unknown>;
        return { id: call.id, value: await run(...call.args) };
      } catch (error) {
        return { id: call.id, failure: { message: (error as Error).message, unavailable: error instanceof StoreUnavailableError } };
      }
    });
    void Promise.all(pending).then((answers) => {
      // a worker gone meanwhile: its calls have no one to answer
      end.send({ netlookup: 'store-answers', answers } satisfies StoreAnswersMessage, () => {});
    });
  });
}
