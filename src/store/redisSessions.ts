/**
 * The shared store's dashboard sessions (the `SessionStore` of RedisStore, on its connection; key
 * layout in redisStore.ts): one key per session, `session:<sha256 hex of the token>`, holding its
 * JSON and expiring with it (the TTL runs from the session's created_at, the instant of the sign-in,
 * to its expires_at; `get` also compares expires_at with its `now`, so the TTL is for space only).
 *
 * There is no outage fallback here: while Redis is away, creating, reading and ending a session
 * fail with StoreUnavailableError, so a sign-in never seems to succeed without being stored and a
 * signed-out session never seems ended while it is not.
 */
import { checkedSession, isTokenHash, sessionExpired } from './storeInput.js';
import type { RedisGuard, StoreRedis } from './redisScripts.js';
import type { DashboardSession, SessionStore } from './store.js';

export class RedisSessions implements SessionStore {
  constructor(
    private readonly redis: StoreRedis,
    private readonly prefix: string,
    private readonly guard: RedisGuard,
  ) {}

  private sessionKey = (tokenHash: string) => `${this.prefix}session:${tokenHash}`;

  async create(tokenHash: string, session: DashboardSession): Promise<void> {
    const stored = checkedSession(tokenHash, session);
    const lifetimeMs = Date.parse(stored.expires_at) - Date.parse(stored.created_at);
    await this.guard('create session', () => this.redis.set(this.sessionKey(tokenHash), JSON.stringify(stored), 'PX', lifetimeMs));
  }

  async get(tokenHash: string, now: Date): Promise<DashboardSession | null> {
    if (!isTokenHash(tokenHash)) return null;
    const json = await this.guard('read session', () => this.redis.get(this.sessionKey(tokenHash)));
    if (json === null) return null;
    const session = JSON.parse(json) as DashboardSession;
    return sessionExpired(session, now) ? null : session;
  }

  async delete(tokenHash: string): Promise<void> {
    if (!isTokenHash(tokenHash)) return;
    await this.guard('delete session', () => this.redis.del(this.sessionKey(tokenHash)));
  }
}
