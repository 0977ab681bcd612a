/**
 * The metered part of a request, after the caller is known: per-second rate (429 rate_limited)
 * → plan (402 plan_required) → input (400) → quota (429 quota_exceeded), as one store decision.
 * Plan and input refusals are found before the store is asked, but reported only when the rate
 * check passes, so that the order of docs/api.md "Order of the checks" holds and no refusal touches the quota.
 */
import type { Exchange } from './exchange.js';
import { ApiError } from '../../errors.js';
import { isoUtc, quotaHeaders } from '../../records/metaRecord.js';
import type { Api } from '../../plans/plans.js';
import type { QuotaState } from '../../plans/quota.js';
import type { AdmitDecision, AdmitRequest, QuotaRule, RateWindowState } from '../../store/store.js';
import type { Caller } from './caller.js';
import { whenReady, type Eventually } from './eventually.js';
import type { ServiceDeps } from '../serviceDeps.js';

export interface MeteredRequest {
  api: Api;
  /** lookups used when the request succeeds */
  cost: number;
  /** a plan or input refusal already found for this request */
  refusal?: ApiError;
}

export function quotaRule(caller: Caller, api: Api): QuotaRule {
  const { quota } = caller.plan;
  return quota.period === 'day'
    ? { period: 'day', limit: quota.per_api[api], pooled: false }
    : { period: 'month', limit: quota.pooled, pooled: true };
}

function admitRequestOf(caller: Caller, request: MeteredRequest): AdmitRequest {
  return {
    account_id: caller.account.id,
    api: request.api,
    cost: request.cost,
    rate_limit_per_second: caller.plan.rate_limit_per_second,
    quota: quotaRule(caller, request.api),
    consume: request.refusal === undefined,
    probe: caller.probe,
    now: caller.now,
  };
}

/** An admitted request's quota, with the rate window as its admission left it: what its answer reports. */
export interface Admission extends QuotaState {
  rate: RateWindowState;
}

export function admit(deps: ServiceDeps, caller: Caller, request: MeteredRequest): Eventually<Admission> {
  const admitRequest = admitRequestOf(caller, request);
  const { meter } = deps.store;
  return whenReady(meter.immediate ? meter.immediate.admit(admitRequest) : meter.admit(admitRequest), (decision) =>
    admissionOf(deps, caller, request, decision),
  );
}

/**
 * Runs the answer of an admitted request (`serve`, of `self` when given). When it fails (the
 * blacklist cannot be read, ...) the admission is given back and the request counts as rejected:
 * only served answers are charged.
 */
export function servedOrRefunded<T, S = undefined>(
  deps: ServiceDeps,
  caller: Caller,
  request: MeteredRequest,
  serve: (this: S) => Eventually<T>,
  self?: S,
): Eventually<T> {
  let result: Eventually<T>;
  try {
    result = serve.call(self as S);
  } catch (error) {
    return refundThenThrow(deps, caller, request, error);
  }
  return result instanceof Promise ? result.catch((error: unknown) => refundThenThrow(deps, caller, request, error)) : result;
}

async function refundThenThrow(deps: ServiceDeps, caller: Caller, request: MeteredRequest, error: unknown): Promise<never> {
  // A probe (HEAD) was charged nothing: nothing to give back.
  if (caller.probe) throw error;
  try {
    await deps.store.meter.refund(admitRequestOf(caller, request));
  } catch {
    // The store that failed the answer may fail the refund too: the answer's error is the one to report.
  }
  throw error;
}

/** The quota of an admitted request, or its refusal: a 429 carries the same headers as a success, and Retry-After. */
function admissionOf(deps: ServiceDeps, caller: Caller, request: MeteredRequest, decision: AdmitDecision): Admission {
  switch (decision.outcome) {
    case 'admitted': {
      // Written out rather than spread: this runs on every lookup, and a literal keeps one object shape.
      const { quota } = decision;
      return {
        limit: quota.limit,
        used: quota.used,
        remaining: quota.remaining,
        period: quota.period,
        resets_at: quota.resets_at,
        rate: decision.rate,
      };
    }
    case 'rate_limited':
      deps.metrics.rejections.inc({ reason: 'rate_limited' });
      throw new ApiError('rate_limited', undefined, { ...meterHeaders(caller, decision.quota, decision.rate), 'Retry-After': '1' });
    case 'quota_exceeded': {
      deps.metrics.rejections.inc({ reason: 'quota_exceeded' });
      const { quota } = decision;
      // A batch may be refused with lookups left: it says how many, so that a smaller one can be sent.
      const message =
        request.cost > 1
          ? `This batch needs ${request.cost} lookups; ${quota.remaining} left until the reset at ${isoUtc(quota.resets_at)}.`
          : undefined;
      throw new ApiError('quota_exceeded', message, {
        ...meterHeaders(caller, decision.quota, decision.rate),
        'Retry-After': secondsUntil(quota.resets_at, caller.now),
      });
    }
    case 'refused':
      throw request.refusal ?? new ApiError('invalid_input');
  }
}

/** Retry-After of a quota refusal: whole seconds until the reset, at least 1. */
export function secondsUntil(resetsAt: Date, now: Date): string {
  return String(Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000)));
}

/** Where meter headers go: an exchange, or the headers of a refusal. */
interface HeaderTarget {
  set(name: string, value: string): void;
}

/**
 * The headers of a metered answer (docs/api.md "Quota headers"), each handed to `set`: the plan,
 * the per-second window (X-RateLimit-*) and the quota (X-Quota-*), the same numbers as its
 * meta.quota. Handed over one by one: every lookup sets them, and no object is built on the way.
 */
function eachMeterHeader(caller: Caller, quota: QuotaState, rate: RateWindowState, target: HeaderTarget): void {
  const headers = quotaHeaders(caller.plan.code, caller.plan.rate_limit_per_second, quota);
  target.set('X-Plan', headers['X-Plan']);
  target.set('X-RateLimit-Limit', headers['X-RateLimit-Limit']);
  target.set('X-Quota-Limit', headers['X-Quota-Limit']);
  target.set('X-Quota-Remaining', headers['X-Quota-Remaining']);
  target.set('X-Quota-Reset', headers['X-Quota-Reset']);
  target.set('X-RateLimit-Remaining', String(rate.remaining));
  target.set('X-RateLimit-Reset', rateResetText(rate.resets_at));
}

/** X-RateLimit-Reset of the last window asked: it moves by whole seconds, and formatting costs. */
let lastRateReset = { seconds: NaN, text: '' };

function rateResetText(resetsAt: Date): string {
  const seconds = Math.ceil(resetsAt.getTime() / 1000);
  if (seconds !== lastRateReset.seconds) lastRateReset = { seconds, text: String(seconds) };
  return lastRateReset.text;
}

/** The headers of a metered refusal (429), as one object for the ApiError that carries them. */
function meterHeaders(caller: Caller, quota: QuotaState, rate: RateWindowState): Record<string, string> {
  const headers: Record<string, string> = {};
  eachMeterHeader(caller, quota, rate, {
    set: (name, value) => {
      headers[name] = value;
    },
  });
  return headers;
}

/** The headers of a metered success (SPEC 8.3). */
export function setQuotaHeaders(ctx: Exchange, caller: Caller, admission: Admission): void {
  eachMeterHeader(caller, admission, admission.rate, ctx);
}
