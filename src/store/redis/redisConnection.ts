/**
 * The shared store's connection to Redis: its options (fail fast while Redis is away or hangs,
 * reconnect on its own), connecting with the store's scripts, and the watchdog that finds a hang.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { unavailable } from './redisFailures.js';
import { defineStoreCommands, type StoreRedis } from './redisScripts.js';

/**
 * How long the store waits for Redis (NETLOOKUP_REDIS_TIMEOUT_MS): well above a healthy Redis's
 * latency (under a millisecond nearby, a few across a data centre, tens during a fork for a
 * snapshot), and short enough that an instance whose feed hangs has dropped its in-process copies
 * (within 1.25 times this, `watchConnection`) before a change stops waiting for its
 * acknowledgement (2 s, redisChangeFeed.ts).
 */
export const DEFAULT_REDIS_TIMEOUT_MS = 1000;

/**
 * The connection options of the store: fail fast while Redis is away or hangs, reconnect on its
 * own. `timeoutMs`: the deadline of every command and of the connection's silence.
 */
function storeConnectionOptions(timeoutMs: number, extra: RedisOptions = {}): RedisOptions {
  return {
    lazyConnect: true,
    // Commands issued in one tick go out as one write: many concurrent requests, few syscalls.
    enableAutoPipelining: true,
    // Except the counting commands that carry a receipt: they are written at once, in the order of
    // their sequence numbers (the admissions of a turn corked into one write, redisMeter.ts), which
    // the receipts rely on; left to auto-pipelining, a count could go out after a later one.
    autoPipeliningIgnoredCommands: ['netlookupAddCounts', 'netlookupAdmit'],
    // A command issued while Redis is away fails at once (the caller answers unavailable or falls
    // back) rather than waiting in a queue; ioredis keeps reconnecting meanwhile.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    // A Redis that hangs (stopped, or a network that drops everything while TCP stays up) answers
    // nothing: once a command has waited this long with no byte from Redis, ioredis destroys the
    // connection, rejects every command on it and reconnects. Until the new connection's ready
    // check is answered its status is not 'ready', so every command fails at once (above) and the
    // outage fallback answers; the handshake of each new attempt is held to the same deadline.
    socketTimeout: timeoutMs,
    retryStrategy: (times) => Math.min(50 * times, 1000),
    ...extra,
  };
}

/** Connects a client for `url` with the store's scripts, once it is ready. */
export async function connectRedis(url: string, timeoutMs: number, options: RedisOptions = {}): Promise<StoreRedis> {
  const redis = new Redis(url, storeConnectionOptions(timeoutMs, options));
  // Connection errors are retried by ioredis; without a listener each would be an unhandled 'error'.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw unavailable(`cannot connect to Redis at ${redactedUrl(url)}`, e);
  }
  defineStoreCommands(redis);
  return redis as StoreRedis;
}

/**
 * The watchdog of a connection: a PING every quarter of `timeoutMs` while it is ready, so that a
 * hang is found (the connection's `socketTimeout` ends it) within 1.25 × `timeoutMs` even when no
 * request is waiting, and on a subscribed connection, which sends nothing else. Stopped by
 * clearInterval.
 */
export function watchConnection(redis: Redis, timeoutMs: number): NodeJS.Timeout {
  let waiting = false;
  const answered = () => {
    waiting = false;
  };
  const timer = setInterval(() => {
    if (waiting || redis.status !== 'ready') return;
    waiting = true;
    redis.ping().then(answered, answered);
  }, timeoutMs / 4);
  timer.unref();
  return timer;
}

/** The URL without its password, for messages and logs. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an invalid REDIS_URL';
  }
}
