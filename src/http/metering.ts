/**
 * The metered part of a request, after the caller is known: per-second rate (429 rate_limited)
 * → plan (402 plan_required) → input (400) → quota (429 quota_exceeded), as one store decision.
 * Plan and input refusals are found before the store is asked, but reported only when the rate
 * check passes, so that the order of docs/api.md "Order of the checks" holds and no refusal touches the quota.
 */
import type { Exchange } from './exchange.js';
import { ApiError } from '../errors.js';
import { quotaHeaders } from '../records/metaRecord.js';
import type { Api } from '../plans/plans.js';
import type { QuotaState } from '../plans/quota.js';
import type { AdmitDecision, AdmitRequest, QuotaRule } from '../store/store.js';
import type { Caller } from './caller.js';
import { whenReady, type Eventually } from './eventually.js';
import type { ServiceDeps } from './serviceDeps.js';

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
    now: caller.now,
  };
}

export function admit(deps: ServiceDeps, caller: Caller, request: MeteredRequest): Eventually<QuotaState> {
  const admitRequest = admitRequestOf(caller, request);
  const { meter } = deps.store;
  return whenReady(meter.immediate ? meter.immediate.admit(admitRequest) : meter.admit(admitRequest), (decision) =>
    quotaOf(deps, request, decision),
  );
}

/**
 * Runs the answer of an admitted request. When it fails (the blacklist cannot be read, ...) the
 * admission is given back and the request counts as rejected: only served answers are charged.
 */
export function servedOrRefunded<T>(deps: ServiceDeps, caller: Caller, request: MeteredRequest, serve: () => Eventually<T>): Eventually<T> {
  const refundThenThrow = async (error: unknown): Promise<never> => {
    try {
      await deps.store.meter.refund(admitRequestOf(caller, request));
    } catch {
      // The store that failed the answer may fail the refund too: the answer's error is the one to report.
    }
    throw error;
  };
  let result: Eventually<T>;
  try {
    result = serve();
  } catch (error) {
    return refundThenThrow(error);
  }
  return result instanceof Promise ? result.catch(refundThenThrow) : result;
}

/** The quota of an admitted request, or its refusal. */
function quotaOf(deps: ServiceDeps, request: MeteredRequest, decision: AdmitDecision): QuotaState {
  switch (decision.outcome) {
    case 'admitted':
      return decision.quota;
    case 'rate_limited':
      deps.metrics.rejections.inc({ reason: 'rate_limited' });
      throw new ApiError('rate_limited', undefined, { 'Retry-After': '1' });
    case 'quota_exceeded':
      deps.metrics.rejections.inc({ reason: 'quota_exceeded' });
      throw new ApiError('quota_exceeded', undefined, { 'X-Quota-Reset': String(Math.floor(decision.quota.resets_at.getTime() / 1000)) });
    case 'refused':
      throw request.refusal ?? new ApiError('invalid_input');
  }
}

/** The quota headers of a metered success (SPEC 8.3), the same numbers as its meta.quota. */
export function setQuotaHeaders(ctx: Exchange, caller: Caller, quota: QuotaState): void {
  const headers = quotaHeaders(caller.plan.code, caller.plan.rate_limit_per_second, quota);
  ctx.set('X-Plan', headers['X-Plan']);
  ctx.set('X-RateLimit-Limit', headers['X-RateLimit-Limit']);
  ctx.set('X-Quota-Limit', headers['X-Quota-Limit']);
  ctx.set('X-Quota-Remaining', headers['X-Quota-Remaining']);
  ctx.set('X-Quota-Reset', headers['X-Quota-Reset']);
}
