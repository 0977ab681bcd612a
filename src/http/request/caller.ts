/**
 * Who is calling, checked in the order of docs/api.md: key present (401 missing_key) → key valid
 * (401 invalid_key) → website restriction (403 origin_not_allowed) → account suspended (403).
 */
import type { Exchange } from './exchange.js';
import { ApiError } from '../../errors.js';
import { allowanceClient, clientAddress } from '../../address/clientAddress.js';
import { effectivePlanCode, type Plan } from '../../plans/plans.js';
import type { Account, ApiKey, Meter } from '../../store/store.js';
import { presentedKey, requestingHost, websiteAllowed } from './apiKey.js';
import { whenReady, type Eventually } from './eventually.js';
import type { ServiceDeps } from '../serviceDeps.js';

export interface Caller {
  account: Account;
  key: ApiKey;
  /** the plan in force now: an expired paid plan acts as free */
  plan: Plan;
  /** the instant this request is answered for: one clock reading for its checks, quota and record */
  now: Date;
  /** a HEAD request: answered as GET is, without a body, and counted nowhere (docs/api.md "HEAD") */
  probe: boolean;
}

const NO_QUERY: Record<string, unknown> = Object.freeze({});

/** `secret`: the key as the request presents it (SPEC 5.3's three ways unless the route knows more). */
export function identifyCaller(
  ctx: Exchange,
  deps: ServiceDeps,
  secret = presentedKey(ctx.headers, ctx.querystring === '' ? NO_QUERY : ctx.query),
): Eventually<Caller> {
  if (secret === null) throw new ApiError('missing_key');
  const { accounts } = deps.store;
  const found = accounts.immediate
    ? accounts.immediate.authenticate(secret)
    : (accounts.cachedAuthentication?.(secret) ?? accounts.authenticate(secret));
  return whenReady(found, (f) => callerOf(ctx, deps, f));
}

function callerOf(ctx: Exchange, deps: ServiceDeps, found: { key: ApiKey; account: Account } | null): Eventually<Caller> {
  if (!found) throw new ApiError('invalid_key');
  const { key, account } = found;
  const now = deps.now();
  // The key authenticated: its last use (kept in the process, written in bulk) whatever the checks below decide.
  deps.store.accounts.noteKeyUse(key.id, now);
  const probe = ctx.method === 'HEAD';
  if (key.websites.length > 0 && !websiteAllowed(key.websites, requestingHost(ctx.headers)))
    return refused(deps.store.meter, account, now, probe, 'origin_not_allowed');
  if (account.suspended) return refused(deps.store.meter, account, now, probe, 'account_suspended');
  ctx.state.accountId = account.id;
  return { account, key, plan: planInForce(deps, account, now), now, probe };
}

/** The plan in force: an expired paid plan acts as free. */
export function planInForce(deps: ServiceDeps, account: Account, now: Date): Plan {
  return deps.plans[effectivePlanCode(account.plan, expiryOf(account), now)];
}

/** The client's address: the peer, or what trusted proxies say in X-Forwarded-For (NETLOOKUP_TRUST_PROXY). */
export function clientOf(ctx: Pick<Exchange, 'req' | 'headers'>, deps: ServiceDeps): string {
  return clientAddress(ctx.req.socket.remoteAddress ?? '', ctx.headers['x-forwarded-for'], deps.config.trustProxy);
}

/**
 * The client a per-client allowance or throttle counts: its address, or for IPv6 its /64, which
 * one subscriber holds whole and can rotate through.
 */
export function countedClientOf(ctx: Pick<Exchange, 'req' | 'headers'>, deps: ServiceDeps): string {
  return allowanceClient(clientOf(ctx, deps));
}

/**
 * The end of an account's plan, parsed once per account object: the stores hand out the same
 * (frozen) object while the account is unchanged, and a change makes a new one.
 */
const expiries = new WeakMap<Account, Date>();

function expiryOf(account: Account): Date | null {
  if (account.expires_at === null) return null;
  let expiry = expiries.get(account);
  if (expiry === undefined) expiries.set(account, (expiry = new Date(account.expires_at)));
  return expiry;
}

/** A refusal of a known account: counted as rejected (and written) before it is answered, unless a probe. */
async function refused(
  meter: Meter,
  account: Account,
  now: Date,
  probe: boolean,
  code: 'origin_not_allowed' | 'account_suspended',
): Promise<never> {
  if (!probe) await meter.countRejected(account.id, now);
  throw new ApiError(code);
}
