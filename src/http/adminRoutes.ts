/**
 * The admin API (docs/api.md "Administration"), mounted only when NETLOOKUP_ADMIN_TOKEN is set,
 * authenticated by `Authorization: Bearer <token>` compared in constant time; failed attempts are
 * throttled per client address.
 */
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.js';
import { planCodes, type PlanCode } from '../plans/plans.js';
import { KeyLimitError, type AccountPatch, type KeyPatch } from '../store/store.js';
import { StoreInputError } from '../store/keyWebsites.js';
import { sendJson } from './respond.js';
import { clientAddress } from '../address/clientAddress.js';
import { parseBlacklistAddress } from '../blacklist/address.js';
import type { ServiceDeps } from './serviceDeps.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Admin bodies are JSON; another content type is refused rather than silently ignored. */
async function requireJsonBody(ctx: Context, next: Next) {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('json')) throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
  await next();
}

/**
 * Failed admin authentications per client address: a token bucket of `burst` failures refilled at
 * `perSecond`. While a bucket is empty every admin request from that address is refused, the right
 * token included, so a guesser learns nothing from the answers.
 */
const adminFailureLimit = { burst: 10, perSecond: 1 };
/** addresses remembered at most; beyond it the oldest entry goes (a flood of addresses cannot grow memory) */
const MAX_TRACKED_ADDRESSES = 10_000;

class FailureThrottle {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(private readonly limit = adminFailureLimit) {}

  private level(address: string, nowMs: number): number {
    const bucket = this.buckets.get(address);
    if (!bucket) return this.limit.burst;
    return Math.min(this.limit.burst, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * this.limit.perSecond);
  }

  /** Seconds until the address may try again; 0 when it may now. */
  waitSeconds(address: string, nowMs: number): number {
    const tokens = this.level(address, nowMs);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.limit.perSecond);
  }

  fail(address: string, nowMs: number): void {
    const tokens = this.level(address, nowMs) - 1;
    this.buckets.delete(address);
    if (this.buckets.size >= MAX_TRACKED_ADDRESSES) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(address, { tokens, atMs: nowMs });
  }
}

function requireToken(deps: ServiceDeps, token: string) {
  const expected = digest(token);
  const throttle = new FailureThrottle();
  return async (ctx: Context, next: Next) => {
    const address = clientAddress(ctx.req.socket.remoteAddress ?? '', ctx.headers['x-forwarded-for'], deps.config.trustProxy);
    const nowMs = deps.now().getTime();
    const wait = throttle.waitSeconds(address, nowMs);
    if (wait > 0) throw new ApiError('admin_throttled', undefined, { 'Retry-After': String(wait) });
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      throttle.fail(address, nowMs);
      deps.logger.warn({ client: address }, 'admin authentication failed');
      throw new ApiError('admin_unauthorized');
    }
    await next();
  };
}

function body(ctx: Context): Record<string, unknown> {
  const value = (ctx.request as { body?: unknown }).body;
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError('invalid_input', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}

function invalid(message: string): never {
  throw new ApiError('invalid_input', message);
}

function planOf(value: unknown): PlanCode {
  if (typeof value !== 'string' || !planCodes.includes(value as PlanCode)) invalid(`plan must be one of ${planCodes.join(', ')}`);
  return value as PlanCode;
}

function dateOrNull(value: unknown, name: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) invalid(`${name} must be an ISO 8601 date or null`);
  return new Date(value as string).toISOString();
}

function websitesOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) invalid('websites must be an array of host names');
  return value as string[];
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > 100)
    invalid('name must be a non-empty string of at most 100 characters');
  return (value as string).trim();
}

/** Store errors about input (bad website syntax) become invalid_input; the rest stay what they are. */
async function storeCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof KeyLimitError)
      throw new ApiError('key_limit', `The plan allows ${error.maxKeys} key${error.maxKeys === 1 ? '' : 's'}.`);
    if (error instanceof StoreInputError) invalid(error.message);
    throw error;
  }
}

export function adminRouter(deps: ServiceDeps, token: string): Router {
  const router = new Router({ prefix: '/admin' });
  const { accounts } = deps.store;
  // Per route rather than router.use(): a prefixed router.use() layer would also see every other path.
  const guard = [
    requireToken(deps, token),
    requireJsonBody,
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '64kb',
      onerror: (e) => {
        throw e;
      },
    }),
  ];

  router.post('/accounts', ...guard, async (ctx) => {
    const input = body(ctx);
    const created = await storeCall(() =>
      accounts.createAccount({
        plan: planOf(input.plan ?? 'free'),
        expires_at: input.expires_at === undefined ? null : dateOrNull(input.expires_at, 'expires_at'),
        email: input.email === undefined || input.email === null ? null : String(input.email),
      }),
    );
    deps.logger.info({ account: created.account.id, plan: created.account.plan }, 'account created');
    sendJson(ctx, 201, created);
  });

  router.get('/accounts/:id', ...guard, async (ctx) => {
    const account = await accounts.getAccount(ctx.params.id);
    if (!account) throw new ApiError('not_found', 'No such account.');
    sendJson(ctx, 200, { account, keys: await accounts.listKeys(account.id) });
  });

  router.patch('/accounts/:id', ...guard, async (ctx) => {
    const input = body(ctx);
    const patch: AccountPatch = {};
    if ('plan' in input) patch.plan = planOf(input.plan);
    if ('expires_at' in input) patch.expires_at = dateOrNull(input.expires_at, 'expires_at');
    if ('suspended' in input) {
      if (typeof input.suspended !== 'boolean') invalid('suspended must be true or false');
      patch.suspended = input.suspended as boolean;
    }
    if ('email' in input) patch.email = input.email === null ? null : String(input.email);
    const account = await storeCall(() => accounts.updateAccount(ctx.params.id, patch));
    if (!account) throw new ApiError('not_found', 'No such account.');
    deps.logger.info({ account: account.id, changed: Object.keys(patch) }, 'account changed');
    sendJson(ctx, 200, { account });
  });

  router.post('/accounts/:id/keys', ...guard, async (ctx) => {
    const input = body(ctx);
    const account = await accounts.getAccount(ctx.params.id);
    if (!account) throw new ApiError('not_found', 'No such account.');
    const key = await storeCall(() =>
      accounts.createKey(
        account.id,
        { name: nameOf(input.name ?? 'key'), websites: input.websites === undefined ? [] : websitesOf(input.websites) },
        deps.plans[account.plan].max_keys,
      ),
    );
    deps.logger.info({ account: account.id, key: key.id }, 'key created');
    sendJson(ctx, 201, { key });
  });

  router.patch('/keys/:id', ...guard, async (ctx) => {
    const input = body(ctx);
    const patch: KeyPatch = {};
    if ('name' in input) patch.name = nameOf(input.name);
    if ('websites' in input) patch.websites = websitesOf(input.websites);
    const key = await storeCall(() => accounts.updateKey(ctx.params.id, patch));
    if (!key) throw new ApiError('not_found', 'No such key.');
    sendJson(ctx, 200, { key });
  });

  router.post('/keys/:id/roll', ...guard, async (ctx) => {
    const key = await accounts.rollKey(ctx.params.id);
    if (!key) throw new ApiError('not_found', 'No such key.');
    deps.logger.info({ key: key.id }, 'key rolled');
    sendJson(ctx, 200, { key });
  });

  router.delete('/keys/:id', ...guard, async (ctx) => {
    if (!(await accounts.deleteKey(ctx.params.id))) throw new ApiError('not_found', 'No such key.');
    deps.logger.info({ key: ctx.params.id }, 'key deleted');
    sendJson(ctx, 200, { success: true, deleted: ctx.params.id });
  });

  // False-positive review: every report of the address goes, and the log records who asked when.
  router.delete('/blacklist/:ip', ...guard, async (ctx) => {
    const address = parseBlacklistAddress(ctx.params.ip);
    if (!address) throw new ApiError('invalid_ip');
    const deleted = await deps.store.blacklist.deleteAddress(address, deps.now());
    if (deleted === 0) throw new ApiError('not_found', 'No reports for this address.');
    deps.logger.info({ ip: address.text, reports: deleted, peer: ctx.req.socket.remoteAddress }, 'blacklist address deleted');
    sendJson(ctx, 200, { success: true, ip: address.text, deleted_reports: deleted });
  });

  return router;
}
