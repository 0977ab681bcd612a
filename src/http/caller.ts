/**
 * Who is calling, checked in ARCHITECTURE's order: key present (401 missing_key) → key valid
 * (401 invalid_key) → website restriction (403 origin_not_allowed) → account suspended (403).
 */
import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import { effectivePlanCode, type Plan } from '../plans/plans.js';
import type { Account, ApiKey } from '../store/store.js';
import { presentedKey, requestingHost, websiteAllowed } from './apiKey.js';
import type { ServiceDeps } from './serviceDeps.js';

export interface Caller {
  account: Account;
  key: ApiKey;
  /** the plan in force now: an expired paid plan acts as free */
  plan: Plan;
  /** the instant this request is answered for: one clock reading for its checks, quota and record */
  now: Date;
}

export async function identifyCaller(ctx: Context, deps: ServiceDeps): Promise<Caller> {
  const secret = presentedKey(ctx.headers, ctx.query);
  if (secret === null) throw new ApiError('missing_key');
  const found = await deps.store.authenticate(secret);
  if (!found) throw new ApiError('invalid_key');
  const { key, account } = found;
  const now = deps.now();
  if (!websiteAllowed(key.websites, requestingHost(ctx.headers))) {
    await deps.store.countRejected(account.id, now);
    throw new ApiError('origin_not_allowed');
  }
  if (account.suspended) {
    await deps.store.countRejected(account.id, now);
    throw new ApiError('account_suspended');
  }
  const code = effectivePlanCode(account.plan, account.expires_at ? new Date(account.expires_at) : null, now);
  ctx.state.accountId = account.id;
  return { account, key, plan: deps.plans[code], now };
}
