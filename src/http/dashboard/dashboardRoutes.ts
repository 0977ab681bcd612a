/**
 * The dashboard (docs/dashboard.md): its page at /dashboard/ (the static files of dist/dashboard,
 * written by `npm run build:web`) and its JSON endpoints under /dashboard/api, for account holders
 * signed in with a key and for the operator signed in with the admin token. No CORS here: the
 * page is same-origin, and a preflight from another site is never granted. Every change goes
 * through src/http/admin/accountChanges.ts, as the admin API's do.
 *
 * Each endpoint checks, in this order: the origin, then the session (a request without one is
 * answered 401 before its body is read), then the body. The sign-in reads its body (the key is in
 * it) after the client's throttle, and with a small limit.
 */
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../../errors.js';
import { packageRoot } from '../../engine/node.js';
import type { Plan } from '../../plans/plans.js';
import { usageRecord } from '../../records/usageRecord.js';
import { REPORTS_PAGE_LIMIT } from '../../store/blacklistStore.js';
import { USAGE_HISTORY_DAYS, type Account } from '../../store/store.js';
import {
  createKey,
  deleteBlacklistAddress,
  deleteKey,
  rollKey,
  updateAccount,
  updateKey,
  withdrawReport,
} from '../admin/accountChanges.js';
import { DashboardSessions, sameOriginOnly, sessionView, type SignedIn } from './dashboardSession.js';
import { dataCredits } from '../v1/endpointList.js';
import { jsonBodyOf, jsonBodyOnly } from '../admin/jsonBody.js';
import { planInForce } from '../request/caller.js';
import { firstQueryValue, wholeNumber } from '../request/queryParameters.js';
import { sendJson } from '../request/respond.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { sendFile } from '../request/staticFiles.js';

/** A sign-in's body holds a key or the admin token: a few hundred bytes at most. */
const SIGN_IN_BODY_LIMIT = '4kb';

const defaultDashboardDir = () => process.env.NETLOOKUP_DASHBOARD_DIR ?? path.join(packageRoot, 'dist', 'dashboard');

/** The page runs only its own script and style, talks only to its own origin, and is never framed. */
const PAGE_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export const isDashboardPath = (p: string) => p === '/dashboard' || p.startsWith('/dashboard/');

function page(dir: string) {
  return (ctx: Context, name: string) => {
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Content-Type-Options', 'nosniff');
    sendFile(ctx, dir, name);
  };
}

/** A whole number from the query between `min` and `max`, `fallback` when absent. */
function queryInteger(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const value = wholeNumber(ctx.query[name], fallback);
  if (value === null || value < min || value > max)
    throw new ApiError('invalid_input', `${name} must be a whole number from ${min} to ${max}`);
  return value;
}

function queryText(ctx: Context, name: string, maxLength: number): string {
  const text = firstQueryValue(ctx, name) ?? '';
  if (text.length > maxLength) throw new ApiError('invalid_input', `${name} must be at most ${maxLength} characters`);
  return text.trim();
}

/** The plan's limits as the page shows them, from the plan table that meters requests. */
function planView(plan: Plan, expiresAt: string | null) {
  const quota = plan.quota.period === 'day' ? { daily_quota: { ...plan.quota.per_api } } : { monthly_quota: { limit: plan.quota.pooled } };
  return {
    code: plan.code,
    name: plan.name,
    expires_at: plan.code === 'free' ? null : expiresAt,
    rate_limit_per_second: plan.rate_limit_per_second,
    max_keys: plan.max_keys,
    batch_size: plan.max_batch,
    ...quota,
  };
}

/** SPEC 8.2.9: the free plan's visible credit, naming the service and linking to it, with the data's credits. */
function attribution(ctx: Context, deps: ServiceDeps, plan: Plan) {
  if (plan.code !== 'free') return { required: false };
  const site = `${ctx.protocol}://${ctx.host}/`;
  const credits = dataCredits(deps);
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return {
    required: true,
    text: [`IP and MAC data by netlookup (${site})`, ...credits].join('. '),
    html: `<p class="netlookup-credit">IP and MAC data by <a href="${escape(site)}">netlookup</a>${credits.map((c) => `. ${escape(c)}`).join('')}</p>`,
  };
}

/** An account's plan in force and its /v1/usage record at `now`, built by the same code as /v1/usage. */
async function usageOf(deps: ServiceDeps, account: Account, now: Date) {
  const plan = planInForce(deps, account, now);
  return { plan, usage: usageRecord(plan, account.expires_at, await deps.store.meter.usage(account.id, now)) };
}

export function dashboardRouter(deps: ServiceDeps, dir: string = defaultDashboardDir()): Router {
  const router = new Router();
  const sessions = new DashboardSessions(deps);
  const { accounts } = deps.store;
  const send = page(dir);
  const signedIn = (ctx: Context) => ctx.state.signedIn as SignedIn;
  const body = jsonBodyOnly();
  const holder = [sameOriginOnly, sessions.require('account'), ...body];
  const operator = [sameOriginOnly, sessions.require('operator'), ...body];

  /** The account holder's own key, or 404 as for a key that does not exist. */
  async function ownKey(ctx: Context) {
    const me = signedIn(ctx);
    const key = await accounts.getKey(ctx.params.id);
    if (!key || key.account_id !== me.account!.id) throw new ApiError('not_found', 'No such key.');
    return key;
  }

  router.get('/dashboard/', (ctx) => send(ctx, 'index.html'));
  // The page's asset URLs are relative: they need the trailing slash. (Registered second: this
  // route also matches /dashboard/, and the router runs the first match.)
  router.get('/dashboard', (ctx) => ctx.redirect('/dashboard/'));

  router.post('/dashboard/api/session', sameOriginOnly, sessions.signInAllowed, ...jsonBodyOnly(SIGN_IN_BODY_LIMIT), async (ctx) => {
    const me = await sessions.signIn(ctx, jsonBodyOf(ctx));
    sendJson(ctx, 200, { success: true, session: sessionView(me) });
  });
  router.get('/dashboard/api/session', sameOriginOnly, sessions.require('any'), (ctx) => {
    sendJson(ctx, 200, { success: true, session: sessionView(signedIn(ctx)) });
  });
  // Signing out needs no body, and none is read.
  router.delete('/dashboard/api/session', sameOriginOnly, async (ctx) => {
    await sessions.signOut(ctx);
    sendJson(ctx, 200, { success: true });
  });

  router.get('/dashboard/api/account', ...holder, async (ctx) => {
    const { account } = signedIn(ctx);
    const { plan, usage } = await usageOf(deps, account!, deps.now());
    sendJson(ctx, 200, {
      success: true,
      account: { id: account!.id, email: account!.email, created_at: account!.created_at, suspended: account!.suspended },
      plan: planView(plan, account!.expires_at),
      usage,
      attribution: attribution(ctx, deps, plan),
    });
  });
  router.get('/dashboard/api/usage/history', ...holder, async (ctx) => {
    const days = queryInteger(ctx, 'days', USAGE_HISTORY_DAYS, 1, USAGE_HISTORY_DAYS);
    sendJson(ctx, 200, { success: true, days: await deps.store.meter.usageHistory(signedIn(ctx).account!.id, days, deps.now()) });
  });

  router.get('/dashboard/api/keys', ...holder, async (ctx) => {
    const { account } = signedIn(ctx);
    sendJson(ctx, 200, {
      success: true,
      keys: await accounts.listKeys(account!.id),
      max_keys: planInForce(deps, account!, deps.now()).max_keys,
    });
  });
  router.post('/dashboard/api/keys', ...holder, async (ctx) => {
    const me = signedIn(ctx);
    sendJson(ctx, 201, { success: true, key: await createKey(deps, me.account!, jsonBodyOf(ctx), me.actor) });
  });
  router.patch('/dashboard/api/keys/:id', ...holder, async (ctx) => {
    const key = await ownKey(ctx);
    sendJson(ctx, 200, { success: true, key: await updateKey(deps, key.id, jsonBodyOf(ctx), signedIn(ctx).actor) });
  });
  router.post('/dashboard/api/keys/:id/roll', ...holder, async (ctx) => {
    const key = await ownKey(ctx);
    const me = signedIn(ctx);
    const rolled = await rollKey(deps, key.id, me.actor);
    if (key.id === me.key!.id) await sessions.end(ctx, me);
    sendJson(ctx, 200, { success: true, key: rolled });
  });
  router.delete('/dashboard/api/keys/:id', ...holder, async (ctx) => {
    const key = await ownKey(ctx);
    const me = signedIn(ctx);
    await deleteKey(deps, key.id, me.actor);
    if (key.id === me.key!.id) await sessions.end(ctx, me);
    sendJson(ctx, 200, { success: true, deleted: key.id });
  });

  router.get('/dashboard/api/reports', ...holder, async (ctx) => {
    const offset = queryInteger(ctx, 'offset', 0, 0, 1_000_000_000);
    const limit = queryInteger(ctx, 'limit', 50, 1, REPORTS_PAGE_LIMIT);
    const page = await deps.store.blacklist.reportsBy(signedIn(ctx).account!.id, { offset, limit }, deps.now());
    sendJson(ctx, 200, { success: true, ...page });
  });
  router.delete('/dashboard/api/reports/:id', ...holder, async (ctx) => {
    const me = signedIn(ctx);
    await withdrawReport(deps, me.account!.id, ctx.params.id, me.actor);
    sendJson(ctx, 200, { success: true, withdrawn: ctx.params.id });
  });

  router.get('/dashboard/api/admin/accounts', ...operator, async (ctx) => {
    const search = queryText(ctx, 'search', 200);
    const offset = queryInteger(ctx, 'offset', 0, 0, 1_000_000_000);
    const limit = queryInteger(ctx, 'limit', 50, 1, 100);
    sendJson(ctx, 200, { success: true, ...(await accounts.listAccounts({ search, offset, limit })) });
  });
  router.get('/dashboard/api/admin/accounts/:id', ...operator, async (ctx) => {
    const account = await accounts.getAccount(ctx.params.id);
    if (!account) throw new ApiError('not_found', 'No such account.');
    const now = deps.now();
    const [{ plan, usage }, days, keys] = await Promise.all([
      usageOf(deps, account, now),
      deps.store.meter.usageHistory(account.id, USAGE_HISTORY_DAYS, now),
      accounts.listKeys(account.id),
    ]);
    sendJson(ctx, 200, { success: true, account, plan: planView(plan, account.expires_at), keys, usage, days });
  });
  router.patch('/dashboard/api/admin/accounts/:id', ...operator, async (ctx) => {
    sendJson(ctx, 200, { success: true, account: await updateAccount(deps, ctx.params.id, jsonBodyOf(ctx), signedIn(ctx).actor) });
  });
  router.post('/dashboard/api/admin/keys/:id/roll', ...operator, async (ctx) => {
    sendJson(ctx, 200, { success: true, key: await rollKey(deps, ctx.params.id, signedIn(ctx).actor) });
  });
  router.delete('/dashboard/api/admin/keys/:id', ...operator, async (ctx) => {
    await deleteKey(deps, ctx.params.id, signedIn(ctx).actor);
    sendJson(ctx, 200, { success: true, deleted: ctx.params.id });
  });
  router.delete('/dashboard/api/admin/blacklist/:ip', ...operator, async (ctx) => {
    sendJson(ctx, 200, { success: true, ...(await deleteBlacklistAddress(deps, ctx.params.ip, signedIn(ctx).actor)) });
  });

  // Registered last: the page's assets by plain file name (the API paths above match first).
  router.get('/dashboard/:file', (ctx) => send(ctx, ctx.params.file));
  return router;
}
