/**
 * The admin API (docs/api.md "Administration"), mounted only when NETLOOKUP_ADMIN_TOKEN is set,
 * authenticated by `Authorization: Bearer <token>` compared in constant time, before any body is
 * read; failed attempts are throttled per client (an IPv4 address, an IPv6 /64). The changes themselves are src/http/admin/accountChanges.ts, shared with
 * the dashboard.
 */
import Router from '@koa/router';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.js';
import { sendJson } from '../request/respond.js';
import { clientOf, countedClientOf } from '../request/caller.js';
import {
  createAccount,
  createKey,
  deleteBlacklistAddress,
  deleteKey,
  rollKey,
  updateAccount,
  updateKey,
  type Actor,
} from './accountChanges.js';
import { failedAuthenticationLimit, TokenBuckets } from '../request/tokenBuckets.js';
import { jsonBodyOf, jsonBodyOnly } from './jsonBody.js';
import type { ServiceDeps } from '../serviceDeps.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether a presented secret is the admin token, compared in constant time (digests of equal length). */
export function adminTokenMatcher(token: string): (presented: string) => boolean {
  const expected = digest(token);
  return (presented) => timingSafeEqual(digest(presented), expected);
}

function requireToken(deps: ServiceDeps, token: string) {
  const isAdminToken = adminTokenMatcher(token);
  const throttle = new TokenBuckets(failedAuthenticationLimit);
  return async (ctx: Context, next: Next) => {
    const address = clientOf(ctx, deps);
    const counted = countedClientOf(ctx, deps);
    const nowMs = deps.now().getTime();
    const wait = throttle.waitSeconds(counted, nowMs);
    if (wait > 0) throw new ApiError('admin_throttled', undefined, { 'Retry-After': String(wait) });
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match || !isAdminToken(match[1])) {
      throttle.take(counted, nowMs);
      deps.logger.warn({ client: address }, 'admin authentication failed');
      throw new ApiError('admin_unauthorized');
    }
    ctx.state.actor = { via: 'admin-api', by: 'operator', client: address } satisfies Actor;
    await next();
  };
}

export function adminRouter(deps: ServiceDeps, token: string): Router {
  const router = new Router({ prefix: '/admin' });
  const { accounts } = deps.store;
  // Per route rather than router.use(): a prefixed router.use() layer would also see every other path.
  // The token first: a caller without it never has its body read.
  const guard = [requireToken(deps, token), ...jsonBodyOnly()];
  const actor = (ctx: Context) => ctx.state.actor as Actor;

  router.post('/accounts', ...guard, async (ctx) => {
    sendJson(ctx, 201, await createAccount(deps, jsonBodyOf(ctx), actor(ctx)));
  });

  router.get('/accounts/:id', ...guard, async (ctx) => {
    const account = await accounts.getAccount(ctx.params.id);
    if (!account) throw new ApiError('not_found', 'No such account.');
    sendJson(ctx, 200, { account, keys: await accounts.listKeys(account.id) });
  });

  router.patch('/accounts/:id', ...guard, async (ctx) => {
    sendJson(ctx, 200, { account: await updateAccount(deps, ctx.params.id, jsonBodyOf(ctx), actor(ctx)) });
  });

  router.post('/accounts/:id/keys', ...guard, async (ctx) => {
    const account = await accounts.getAccount(ctx.params.id);
    if (!account) throw new ApiError('not_found', 'No such account.');
    sendJson(ctx, 201, { key: await createKey(deps, account, jsonBodyOf(ctx), actor(ctx)) });
  });

  router.patch('/keys/:id', ...guard, async (ctx) => {
    sendJson(ctx, 200, { key: await updateKey(deps, ctx.params.id, jsonBodyOf(ctx), actor(ctx)) });
  });

  router.post('/keys/:id/roll', ...guard, async (ctx) => {
    sendJson(ctx, 200, { key: await rollKey(deps, ctx.params.id, actor(ctx)) });
  });

  router.delete('/keys/:id', ...guard, async (ctx) => {
    await deleteKey(deps, ctx.params.id, actor(ctx));
    sendJson(ctx, 200, { success: true, deleted: ctx.params.id });
  });

  router.delete('/blacklist/:ip', ...guard, async (ctx) => {
    sendJson(ctx, 200, { success: true, ...(await deleteBlacklistAddress(deps, ctx.params.ip, actor(ctx))) });
  });

  return router;
}
