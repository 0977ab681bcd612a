/**
 * The shared store: Redis through ioredis — one server (`REDIS_URL`), a Redis Cluster or a master
 * found through Sentinel (redisConnection.ts) — shared by any number of instances and cluster
 * workers. On one connection (one client of a Cluster): the accounts and keys
 * (redisAccounts.ts), the meter (redisMeter.ts), the blacklist (redisBlacklist.ts) and the
 * dashboard's sessions (redisSessions.ts, never answered from the outage fallback). The
 * authentication cache and the addresses with reports (src/store/redis/redisListedAddresses.ts) are
 * copies in the process, kept current by one change feed (src/store/redis/redisChangeFeed.ts). While
 * Redis is away, the accounts and the meter answer from one outage fallback (redisFallback.ts);
 * a Redis silent for the deadline (`timeoutMs`) is away (redisConnection.ts, `watchConnection`).
 * Reports and account changes are written on a connection of their own when replicas must
 * confirm them (redisReplicas.ts).
 *
 * Key layout (all under `prefix`, default `nl:`; `{acct:<id>}` is a Redis Cluster hash tag, so
 * every key one script touches lives in one slot):
 *   {acct:<id>}:account           JSON of the account
 *   {acct:<id>}:keys              list of the account's key ids, in creation order
 *   {acct:<id>}:key:<keyId>       JSON of the key, with its SHA-256 hash (never the secret)
 *   {acct:<id>}:rate              sorted set: instants admitted by the rate window (TTL window + 10 s)
 *   {acct:<id>}:day:<YYYY-MM-DD>  hash ip/blacklist/mac/rejected (TTL: end of the day + 90 days, the
 *                                 usage history's USAGE_HISTORY_DAYS and a day of grace)
 *   {acct:<id>}:month:<YYYY-MM>   hash ip/blacklist/mac (TTL: end of the month + 7 days)
 *   accounts                      set of account ids (countAccounts, listAccounts)
 *   keyacct:<keyId>               the account id of a key
 *   secret:<sha256 hex>           "<accountId> <keyId>" of a key's current secret
 *   key-last-used                 hash: key id → when the key was last used (ISO 8601, to the minute)
 *   session:<sha256 hex>          JSON of a dashboard session, by its token's hash (TTL: until it expires)
 *   {acct:<id>}:sessions          sorted set: the account's session hashes by expiry (the cap per account)
 *   operator-sessions             the same for the operator's sessions
 *   changes, acks:<change>        the cache invalidation channel and its acknowledgements
 *   first-start                   set by the one process that created the first account
 *   bl:...                        the blacklist (redisBlacklist.ts)
 */
import crypto from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import { RedisAccounts } from './redisAccounts.js';
import { RedisBlacklist, type RedisBlacklistOptions } from './redisBlacklist.js';
import { ChangeFeed } from './redisChangeFeed.js';
import { OutageFallback } from './redisFallback.js';
import { RedisMeter } from './redisMeter.js';
import { RedisSessions } from './redisSessions.js';
import { closeConnection, connectRedis, DEFAULT_REDIS_TIMEOUT_MS, watchConnection } from './redisConnection.js';
import { redisGuard, type RedisGuard } from './redisFailures.js';
import { ConfirmedWrites } from './redisReplicas.js';
import type { RedisTarget } from '../../config/redisSettings.js';
import type { StoreRedis } from './redisScripts.js';
import type { Store } from '../store.js';

const KEY_USE_INTERVAL_MS = 5000;

export interface RedisStoreOptions {
  /** prefix of every key (default `nl:`); tests give each run its own */
  prefix?: string;
  /** `redis` (default): the rate window runs on the Redis server's clock; `request`: on AdmitRequest.now */
  rateClock?: 'redis' | 'request';
  blacklist?: RedisBlacklistOptions;
  /**
   * the deadline (ms, default 1000): no command waits longer for Redis, and a Redis that hangs is
   * taken for away within 1.25 times it (NETLOOKUP_REDIS_TIMEOUT_MS, docs/shared-deployments.md)
   */
  timeoutMs?: number;
  redisOptions?: RedisOptions;
  /** how often the keys' last use noted in the process is written (default 5 s; also at close) */
  keyUseIntervalMs?: number;
  /**
   * replicas that must have a report or an account or key change before it answers (redisReplicas.ts;
   * default 0: the master's answer is enough)
   */
  waitReplicas?: number;
  /**
   * false: no change feed, so no in-process copies (the authentication cache and the listed-address
   * set): every request reads its key, and every paid lookup its threat facts, from Redis
   */
  localCopies?: boolean;
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly accounts: RedisAccounts;
  readonly meter: RedisMeter;
  /** The blacklist (src/store/redis/redisBlacklist.ts) on the same connection. */
  readonly blacklist: RedisBlacklist;
  readonly sessions: RedisSessions;
  private closed = false;
  private readonly guard: RedisGuard = redisGuard(() => this.closed);
  private readonly watchdog: NodeJS.Timeout;
  private readonly timeoutMs: number;

  private constructor(
    readonly redis: StoreRedis,
    private readonly feed: ChangeFeed | null,
    private readonly confirmed: ConfirmedWrites,
    prefix: string,
    options: RedisStoreOptions,
  ) {
    // unique among instances: the members of the rate window's sorted sets, the first start's claim
    const instance = crypto.randomBytes(6).toString('hex');
    const fallback = new OutageFallback();
    const keyUseIntervalMs = options.keyUseIntervalMs ?? KEY_USE_INTERVAL_MS;
    this.accounts = new RedisAccounts(redis, confirmed, prefix, this.guard, feed, fallback, instance, keyUseIntervalMs);
    this.blacklist = new RedisBlacklist(redis, confirmed, prefix, this.guard, feed, options.blacklist ?? {});
    this.meter = new RedisMeter(redis, prefix, this.guard, fallback, instance, options.rateClock ?? 'redis');
    this.sessions = new RedisSessions(redis, prefix, this.guard);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    this.watchdog = watchConnection(redis, this.timeoutMs);
  }

  /** Connects to `target` (a string: a redis:// URL) and opens the store on it. */
  static async open(target: RedisTarget | string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const prefix = options.prefix ?? 'nl:';
    if (/[{}]/.test(prefix)) throw new RangeError('the Redis key prefix must not contain braces (they are hash tags)');
    if (options.keyUseIntervalMs !== undefined && !(options.keyUseIntervalMs > 0))
      throw new RangeError('keyUseIntervalMs must be positive');
    const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
    const redis = await connectRedis(typeof target === 'string' ? { kind: 'url', url: target } : target, timeoutMs, options.redisOptions);
    let feed: ChangeFeed | null = null;
    let confirmed: ConfirmedWrites | null = null;
    try {
      confirmed = await ConfirmedWrites.open(redis, options.waitReplicas ?? 0, timeoutMs);
      if (options.localCopies !== false) feed = await ChangeFeed.open(redis, prefix, timeoutMs);
      return new RedisStore(redis, feed, confirmed, prefix, options);
    } catch (e) {
      await feed?.close();
      await confirmed?.close();
      redis.disconnect();
      throw e;
    }
  }

  /**
   * Without a round trip of its own, so /health answers at once whatever Redis does: the
   * connection stays 'ready' only while Redis answers (a command or the watchdog's PING left
   * unanswered for the deadline ends it, redisConnection.ts).
   */
  async healthy(): Promise<boolean> {
    return !this.closed && this.redis.status === 'ready' && !this.meter.owesCounts;
  }

  /** Redis is away (or counts of its absence are still owed to it): lookups are answered from the fallback. */
  degraded(): boolean {
    return !this.closed && (this.redis.status !== 'ready' || this.meter.owesCounts);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.meter.close();
    await this.accounts.close();
    this.closed = true;
    clearInterval(this.watchdog);
    this.blacklist.close();
    await this.feed?.close();
    await this.confirmed.close();
    await closeConnection(this.redis, this.timeoutMs);
  }
}
