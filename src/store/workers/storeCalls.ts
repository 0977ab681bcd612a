/**
 * Workers on the embedded store (`netlookup serve --workers N` without Redis): the counting that must
 * be decided in one place — the meter (per-second window, quotas, usage counters), the blacklist's
 * report rate window and the keyless legacy endpoints' daily allowance — runs in the primary, on its
 * SqliteStore; each worker asks it over the cluster's IPC channel. Everything else (accounts, keys,
 * reports, sessions) the workers read and write in the SQLite file themselves, as the admin commands
 * do beside a server.
 *
 * This module is the protocol: the calls, their form on the channel, and the primary's side. The
 * calls a worker makes in one turn of its event loop leave as one message, and the primary answers
 * them in one, in order. On the channel (the cluster's, JSON) a call is a flat array and an instant
 * is epoch milliseconds: measured in a loop, an admission and its decision as nested objects cost
 * 10 µs to encode and decode, as arrays under 2.
 */
import type { Api } from '../../plans/plans.js';
import type { QuotaPeriod } from '../../plans/quota.js';
import type { BlacklistStore, DailyAllowance } from '../blacklistStore.js';
import { StoreUnavailableError, type AdmitDecision, type AdmitOutcome, type AdmitRequest, type Meter, type Store } from '../store.js';

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

/** A call on the channel: `[id, name, ...its arguments' wire form]`. */
export type WireCall = [number, StoreCallName, ...unknown[]];

/** An answer on the channel: `[id, 0, the value's wire form]`, or `[id, 1, message, the failure's class]`. */
export type WireAnswer = [number, 0, unknown] | [number, 1, string, FailureClass];

/** The failures a call can end in, as the worker rebuilds them: the store's unavailability, a refused argument, any other. */
const failureClasses = { StoreUnavailableError, RangeError, TypeError, Error } as const;
type FailureClass = keyof typeof failureClasses;

const classOf = (error: unknown): FailureClass =>
  error instanceof StoreUnavailableError
    ? 'StoreUnavailableError'
    : error instanceof RangeError
      ? 'RangeError'
      : error instanceof TypeError
        ? 'TypeError'
        : 'Error';

/** A failure as the worker takes it from its answer. */
export function failureFromWire(message: string, kind: FailureClass): Error {
  return new (Object.hasOwn(failureClasses, kind) ? failureClasses[kind] : Error)(message);
}

interface StoreCallsMessage {
  netlookup: 'store-calls';
  calls: WireCall[];
}

interface StoreAnswersMessage {
  netlookup: 'store-answers';
  answers: WireAnswer[];
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

type Value<N extends StoreCallName> = Awaited<ReturnType<StoreCalls[N]>>;

/** How a call's arguments and value cross the channel; absent: as they are (JSON-safe already). */
interface Codec<N extends StoreCallName> {
  args(args: Parameters<StoreCalls[N]>): unknown[];
  fromArgs(wire: unknown[]): Parameters<StoreCalls[N]>;
  value?(value: Value<N>): unknown;
  fromValue?(wire: unknown): Value<N>;
}

type WireRequest = [string, Api, number, number, QuotaPeriod, number, 0 | 1, 0 | 1, 0 | 1, number];

const requestToWire = (r: AdmitRequest): WireRequest => [
  r.account_id,
  r.api,
  r.cost,
  r.rate_limit_per_second,
  r.quota.period,
  r.quota.limit,
  r.quota.pooled ? 1 : 0,
  r.consume ? 1 : 0,
  r.probe ? 1 : 0,
  r.now.getTime(),
];

const requestFromWire = ([account_id, api, cost, rate, period, limit, pooled, consume, probe, now]: WireRequest): AdmitRequest => ({
  account_id,
  api,
  cost,
  rate_limit_per_second: rate,
  quota: { period, limit, pooled: pooled === 1 },
  consume: consume === 1,
  ...(probe === 1 ? { probe: true } : {}),
  now: new Date(now),
});

type WireDecision = [AdmitOutcome, number, number, number, QuotaPeriod, number, number, number];

/** Calls whose last argument is the request's instant, and nothing else needs a wire form. */
const nowLast = <N extends StoreCallName>(): Codec<N> => ({
  args: (args) => args.map((arg) => (arg instanceof Date ? arg.getTime() : arg)),
  fromArgs: (wire) => [...wire.slice(0, -1), new Date(wire[wire.length - 1] as number)] as Parameters<StoreCalls[N]>,
});

const request = <N extends 'admit' | 'refund'>(): Pick<Codec<N>, 'args' | 'fromArgs'> => ({
  args: ([r]) => requestToWire(r),
  fromArgs: (wire) => [requestFromWire(wire as WireRequest)] as Parameters<StoreCalls[N]>,
});

const codecs: { [N in StoreCallName]: Codec<N> } = {
  admit: {
    ...request<'admit'>(),
    value: ({ outcome, quota, rate }): WireDecision => [
      outcome,
      quota.limit,
      quota.used,
      quota.remaining,
      quota.period,
      quota.resets_at.getTime(),
      rate.remaining,
      rate.resets_at.getTime(),
    ],
    fromValue: (wire): AdmitDecision => {
      const [outcome, limit, used, remaining, period, resets, rateRemaining, rateResets] = wire as WireDecision;
      return {
        outcome,
        quota: { limit, used, remaining, period, resets_at: new Date(resets) },
        rate: { remaining: rateRemaining, resets_at: new Date(rateResets) },
      };
    },
  },
  refund: request<'refund'>(),
  countRejected: nowLast(),
  usage: nowLast(),
  usageHistory: nowLast(),
  admitReport: nowLast(),
  countDaily: {
    ...nowLast<'countDaily'>(),
    value: (a) => [a.allowed ? 1 : 0, a.used, a.limit, a.resets_at.getTime()],
    fromValue: (wire): DailyAllowance => {
      const [allowed, used, limit, resets] = wire as [0 | 1, number, number, number];
      return { allowed: allowed === 1, used, limit, resets_at: new Date(resets) };
    },
  },
  uncountDaily: nowLast(),
  healthy: { args: () => [], fromArgs: () => [] },
};

/** A call as it leaves the worker. */
export function callToWire<N extends StoreCallName>(id: number, name: N, args: Parameters<StoreCalls[N]>): WireCall {
  return [id, name, ...codecs[name].args(args)];
}

/** A value as the worker takes it from its answer. */
export function valueFromWire<N extends StoreCallName>(name: N, wire: unknown): Value<N> {
  const codec = codecs[name];
  return codec.fromValue ? codec.fromValue(wire) : (wire as Value<N>);
}

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

/** One call run on the primary's store, its answer in wire form. */
async function answerOf(calls: StoreCalls, [id, name, ...wire]: WireCall): Promise<WireAnswer> {
  try {
    if (!Object.hasOwn(codecs, name)) throw new Error(`no store call ${String(name)}`);
    const codec = codecs[name] as Codec<StoreCallName>;
    const run = calls[name] as (...args: unknown[]) => Promise<unknown>;
    const value = await run(...codec.fromArgs(wire));
    return [id, 0, codec.value ? codec.value(value as never) : (value ?? null)];
  } catch (error) {
    return [id, 1, (error as Error).message, classOf(error)];
  }
}

/**
 * Answers a worker's calls on `calls` (the primary's store). The calls of one message start in the
 * order they were made, each before the next (the embedded meter decides at once), so admissions are
 * decided in the order the worker made them; their answers leave together.
 */
export function answerStoreCalls(end: StoreChannelEnd, calls: StoreCalls): void {
  end.on('message', (message) => {
    if (!isStoreCalls(message)) return;
    void Promise.all(message.calls.map((call) => answerOf(calls, call))).then((answers) => {
      // a worker gone meanwhile: its calls have no one to answer
      end.send({ netlookup: 'store-answers', answers } satisfies StoreAnswersMessage, () => {});
    });
  });
}
