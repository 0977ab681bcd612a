/**
 * Dashboard sessions (docs/dashboard.md "Sessions"): an API key without a website list, or the
 * admin token, exchanged for a random token held only in an HttpOnly, SameSite=Strict cookie scoped
 * to /dashboard; the store keeps the token's SHA-256. Sign-ins are throttled per client and per
 * key, and each account (and the operator) keeps a capped number of sessions. Every request
 * re-reads the session's key and account, so a roll, a deletion, a website list or a suspension
 * ends the session at once. Requests that come from another site are refused before anything
 * else, a change must show that it comes from the dashboard's own origin, and changes need a JSON
 * body (src/http/admin/jsonBody.ts): together with SameSite=Strict, a cross-site request can never act
 * with someone's session.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.js';
import { isTrusted } from '../../address/clientAddress.js';
import { dashboardSettings } from '../../config/config.js';
import { clientOf, countedClientOf } from '../request/caller.js';
import type { Account, ApiKey, DashboardSession } from '../../store/store.js';
import { adminTokenMatcher } from '../admin/adminRoutes.js';
import type { Actor, ChangeBody } from '../admin/accountChanges.js';
import { failedAuthenticationLimit, perMinute, TokenBuckets } from '../request/tokenBuckets.js';
import type { ServiceDeps } from '../serviceDeps.js';

const SESSION_COOKIE = 'nl_dashboard';
const COOKIE_PATH = '/dashboard';
/** How long a session lasts from its sign-in. */
const SESSION_LIFETIME_MS = 8 * 3_600_000;
/** Requests of one session: 40 at once, then 10 a second. */
const SESSION_REQUEST_LIMIT = { burst: 40, perSecond: 10 };

/** What a signed-in request knows: the session, and for an account holder its key and account as they are now. */
export interface SignedIn {
  session: DashboardSession;
  tokenHash: string;
  key: ApiKey | null;
  account: Account | null;
  actor: Actor;
}

const tokenHashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** The session as the endpoints show it (no token, no hash). */
export function sessionView({ session }: Pick<SignedIn, 'session'>) {
  return { kind: session.kind, account_id: session.account_id, key_id: session.key_id, expires_at: session.expires_at };
}

/** Over TLS: directly, or through a trusted proxy that says so. */
function overTls(ctx: Context, deps: ServiceDeps): boolean {
  if ((ctx.req.socket as { encrypted?: boolean }).encrypted) return true;
  const proto = ctx.get('x-forwarded-proto').split(',')[0].trim().toLowerCase();
  return proto === 'https' && isTrusted(deps.config.trustProxy, ctx.req.socket.remoteAddress ?? '');
}

function setCookie(ctx: Context, deps: ServiceDeps, value: string, maxAgeSeconds: number): void {
  const secure = overTls(ctx, deps) ? '; Secure' : '';
  ctx.set('Set-Cookie', `${SESSION_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`);
}

function clearCookie(ctx: Context, deps: ServiceDeps): void {
  setCookie(ctx, deps, '', 0);
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a request another site started: its Origin names another host, or (without Origin) the
 * browser's Sec-Fetch-Site says cross-site or same-site (a sibling subdomain is another origin).
 * A change (any other method, signing in and out included) must also prove where it comes from:
 * an Origin naming this host (browsers send it on every such fetch), or else
 * `Sec-Fetch-Site: same-origin`. `none` (a request the user started, from the address bar or a
 * bookmark) is no page of ours, and a request with neither header may come from anywhere.
 */
export async function sameOriginOnly(ctx: Context, next: Next): Promise<void> {
  const origin = ctx.get('origin');
  const site = ctx.get('sec-fetch-site');
  const sameOrigin = origin !== '' ? hostOf(origin)?.toLowerCase() === ctx.host.toLowerCase() : site === 'same-origin';
  const crossSite = origin !== '' ? !sameOrigin : site === 'cross-site' || site === 'same-site';
  if (crossSite) throw new ApiError('origin_not_allowed', 'The dashboard answers only its own pages.');
  if (!sameOrigin && !READS.has(ctx.method))
    throw new ApiError(
      'origin_not_allowed',
      'A change to the dashboard must come from its own page: send an Origin header naming this host.',
    );
  ctx.set('Cache-Control', 'no-store');
  await next();
}

export class DashboardSessions {
  private readonly failures = new TokenBuckets(failedAuthenticationLimit);
  /** every sign-in attempt, per client */
  private readonly clientSignIns: TokenBuckets;
  /** successful sign-ins, per key (the operator's as one) */
  private readonly keySignIns: TokenBuckets;
  /** sessions kept per account, and for the operator */
  private readonly sessionsKept: number;
  /** Each session's requests: the page makes a few per action; a script looping on the store's reads does not get far. */
  private readonly requests = new TokenBuckets(SESSION_REQUEST_LIMIT);
  private readonly isAdminToken: ((presented: string) => boolean) | null;
  /**
   * The operator's sessions are bound to the admin token they were made with: a new token (the old
   * one leaked, say) ends them. A fingerprint only: 64 bits of a hash of the token's hash.
   */
  private readonly adminStamp: string | null;

  constructor(private readonly deps: ServiceDeps) {
    const settings = dashboardSettings(deps.config);
    this.clientSignIns = new TokenBuckets(perMinute(settings.signInsPerClient));
    this.keySignIns = new TokenBuckets(perMinute(settings.signInsPerKey));
    this.sessionsKept = settings.sessionsPerAccount;
    const token = deps.config.adminToken;
    this.isAdminToken = token ? adminTokenMatcher(token) : null;
    this.adminStamp = token ? `admin:${tokenHashOf(tokenHashOf(token)).slice(0, 16)}` : null;
  }

  /**
   * The sign-in's first step, before its body is read: a client past its failures or its sign-ins
   * is refused at once; else the attempt counts.
   */
  readonly signInAllowed = async (ctx: Context, next: Next): Promise<void> => {
    const counted = countedClientOf(ctx, this.deps);
    const nowMs = this.deps.now().getTime();
    const failuresWait = this.failures.waitSeconds(counted, nowMs);
    if (failuresWait > 0) throw new ApiError('sign_in_throttled', undefined, { 'Retry-After': String(failuresWait) });
    const clientWait = this.clientSignIns.waitSeconds(counted, nowMs);
    if (clientWait > 0)
      throw new ApiError('sign_in_throttled', 'Too many dashboard sign-ins from this address; retry later.', {
        'Retry-After': String(clientWait),
      });
    this.clientSignIns.take(counted, nowMs);
    await next();
  };

  /**
   * POST /dashboard/api/session, after `signInAllowed`: a key or the admin token for a new session
   * and its cookie. Successful sign-ins count per key.
   */
  async signIn(ctx: Context, input: ChangeBody): Promise<SignedIn> {
    const { deps } = this;
    const client = clientOf(ctx, deps);
    const counted = countedClientOf(ctx, deps);
    const nowMs = deps.now().getTime();
    const refuse = (code: 'missing_key' | 'invalid_key' | 'admin_unauthorized'): never => {
      this.failures.take(counted, nowMs);
      deps.logger.warn({ client }, 'dashboard sign-in failed');
      throw new ApiError(code);
    };
    const now = new Date(nowMs);
    const expiresAt = new Date(nowMs + SESSION_LIFETIME_MS);
    let session: DashboardSession;
    let key: ApiKey | null = null;
    let account: Account | null = null;
    if ('admin_token' in input) {
      const token = input.admin_token;
      if (typeof token !== 'string' || this.isAdminToken === null || !this.isAdminToken(token)) refuse('admin_unauthorized');
      session = {
        kind: 'operator',
        account_id: null,
        key_id: null,
        credential_stamp: this.adminStamp,
        created_at: now.toISOString(),
        expires_at: expiresAt.toISOString(),
      };
    } else if ('key' in input) {
      const secret = input.key;
      if (typeof secret !== 'string' || secret.trim() === '') refuse('missing_key');
      const found = await deps.store.accounts.authenticate((secret as string).trim());
      if (!found) refuse('invalid_key');
      ({ key, account } = found!);
      if (account!.suspended) throw new ApiError('account_suspended');
      // Such a key sits in web pages, public by design: it must not open the account's data.
      if (key!.websites.length > 0)
        throw new ApiError(
          'origin_not_allowed',
          'This key is restricted to websites, so it may be public in a web page: it cannot sign in to the dashboard. Sign in with a key without a website list.',
        );
      session = {
        kind: 'account',
        account_id: account!.id,
        key_id: key!.id,
        credential_stamp: key!.rolled_at,
        created_at: now.toISOString(),
        expires_at: expiresAt.toISOString(),
      };
    } else {
      throw new ApiError('invalid_input', 'Send {"key": "<API key>"} or {"admin_token": "<token>"}.');
    }
    const credential = key?.id ?? 'operator';
    const keyWait = this.keySignIns.waitSeconds(credential, nowMs);
    if (keyWait > 0)
      throw new ApiError('sign_in_throttled', 'Too many dashboard sign-ins with this key; retry later.', {
        'Retry-After': String(keyWait),
      });
    this.keySignIns.take(credential, nowMs);
    const token = randomBytes(32).toString('base64url');
    const tokenHash = tokenHashOf(token);
    const ended = await deps.store.sessions.create(tokenHash, session, this.sessionsKept);
    setCookie(ctx, deps, token, Math.floor(SESSION_LIFETIME_MS / 1000));
    const signedIn = this.signedIn(session, tokenHash, key, account, client);
    deps.logger.info({ ...signedIn.actor, kind: session.kind, ended_sessions: ended }, 'dashboard sign-in');
    return signedIn;
  }

  /** DELETE /dashboard/api/session: the session ends (if there was one) and the cookie goes. */
  async signOut(ctx: Context): Promise<void> {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (token) await this.deps.store.sessions.delete(tokenHashOf(token));
    clearCookie(ctx, this.deps);
  }

  /** Ends the request's session (its key was just rolled or deleted by the session itself). */
  async end(ctx: Context, signedIn: SignedIn): Promise<void> {
    await this.deps.store.sessions.delete(signedIn.tokenHash);
    clearCookie(ctx, this.deps);
  }

  /** The middleware of every endpoint behind sign-in: `kind` the session must be. */
  require(kind: DashboardSession['kind'] | 'any') {
    return async (ctx: Context, next: Next) => {
      const signedIn = await this.current(ctx);
      const nowMs = this.deps.now().getTime();
      const wait = this.requests.waitSeconds(signedIn.tokenHash, nowMs);
      if (wait > 0) throw new ApiError('rate_limited', 'Too many dashboard requests; retry in a moment.', { 'Retry-After': String(wait) });
      this.requests.take(signedIn.tokenHash, nowMs);
      if (kind !== 'any' && signedIn.session.kind !== kind) throw new ApiError('session_forbidden');
      ctx.state.signedIn = signedIn;
      await next();
    };
  }

  private async current(ctx: Context): Promise<SignedIn> {
    const { deps } = this;
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (!token) throw new ApiError('session_required');
    const tokenHash = tokenHashOf(token);
    const session = await deps.store.sessions.get(tokenHash, deps.now());
    const ended = async (): Promise<never> => {
      await deps.store.sessions.delete(tokenHash);
      clearCookie(ctx, deps);
      throw new ApiError('session_required');
    };
    if (!session) {
      clearCookie(ctx, deps);
      throw new ApiError('session_required');
    }
    const client = clientOf(ctx, deps);
    if (session.kind === 'operator') {
      if (this.adminStamp === null || session.credential_stamp !== this.adminStamp) return ended();
      return this.signedIn(session, tokenHash, null, null, client);
    }
    const key = await deps.store.accounts.getKey(session.key_id!);
    // a key given a website list since the sign-in can no longer open the dashboard
    if (!key || key.rolled_at !== session.credential_stamp || key.account_id !== session.account_id || key.websites.length > 0)
      return ended();
    const account = await deps.store.accounts.getAccount(key.account_id);
    if (!account || account.suspended) return ended();
    return this.signedIn(session, tokenHash, key, account, client);
  }

  private signedIn(session: DashboardSession, tokenHash: string, key: ApiKey | null, account: Account | null, client: string): SignedIn {
    return {
      session,
      tokenHash,
      key,
      account,
      actor: { via: 'dashboard', by: session.kind === 'operator' ? 'operator' : `${session.account_id}/${session.key_id}`, client },
    };
  }
}
