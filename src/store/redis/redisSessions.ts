/**
 * The shared store's dashboard sessions (the `SessionStore` of RedisStore, on its connection; key
 * layout in redisStore.ts): one key per session, `session:<sha256 hex of the token>`, holding its
 * JSON and expiring with it (the TTL runs from the session's created_at, the instant of the sign-in,
 * to its expires_at; `get` also compares expires_at with its `now`, so the TTL is for space only).
 *
 * Each owner's sessions are also listed, for the cap of `create`, in a sorted set scored by their
 * expires_at (milliseconds): `{acct:<id>}:sessions` for an account's, `operator-sessions` for the
 * operator's; it expires with its last session (its TTL, like theirs, runs from the sign-in). A new session's key is written before it is listed,
 * so a session ended by the cap is always deleted after it was written. The set and a session's key
 * are in different cluster slots: each command touches one of them (the set's trimming is one
 * MULTI on the set alone).
 *
 * There is no outage fallback here: while Redis is away, creating, reading and ending a session
 * fail with StoreUnavailableError, so a sign-in never seems to succeed without being stored and a
 * signed-out session never seems ended while it is not.
 */
import { checkedKeep, checkedSession, isTokenHash, sessionExpired } from '../storeInput.js';
import { execResult, type RedisGuard } from './redisFailures.js';
import type { StoreRedis } from './redisScripts.js';
import type { DashboardSession, SessionStore } from '../store.js';

export class RedisSessions implements SessionStore {
  constructor(
    private readonly redis: StoreRedis,
    private readonly prefix: string,
    private readonly guard: RedisGuard,
  ) {}

  private sessionKey = (tokenHash: string) => `${this.prefix}session:${tokenHash}`;

  private ownerKey = (session: DashboardSession) =>
    session.kind === 'operator' ? `${this.prefix}operator-sessions` : `${this.prefix}{acct:${session.account_id}}:sessions`;

  async create(tokenHash: string, session: DashboardSession, keep: number): Promise<number> {
    const stored = checkedSession(tokenHash, session);
    checkedKeep(keep);
    const createdMs = Date.parse(stored.created_at);
    const expiresMs = Date.parse(stored.expires_at);
    const owner = this.ownerKey(stored);
    return this.guard('create session', async () => {
      await this.redis.set(this.sessionKey(tokenHash), JSON.stringify(stored), 'PX', expiresMs - createdMs);
      // listed, then the expired and those past `keep` taken off the list (the ones ending first)
      const [, , ended, , last] = execResult(
        await this.redis
          .multi()
          .zadd(owner, expiresMs, tokenHash)
          .zremrangebyscore(owner, '-inf', createdMs)
          .zrange(owner, 0, String(-(keep + 1)))
          .zremrangebyrank(owner, 0, -(keep + 1))
          .zrange(owner, -1, '-1', 'WITHSCORES')
          .exec(),
      ) as [number, number, string[], number, string[]];
      // on the sessions' clock, as their own keys' TTLs
      if (last.length === 2) await this.redis.pexpire(owner, Number(last[1]) - createdMs);
      let deleted = 0;
      for (const hash of ended) deleted += await this.redis.del(this.sessionKey(hash));
      return deleted;
    });
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
    await this.guard('delete session', async () => {
      const json = await this.redis.get(this.sessionKey(tokenHash));
      if (json === null) return;
      await this.redis.del(this.sessionKey(tokenHash));
      // off its owner's list, so that a signed-out session no longer counts against the cap
      await this.redis.zrem(this.ownerKey(JSON.parse(json) as DashboardSession), tokenHash);
    });
  }
}
