/**
 * The shared store's connection to Redis — one server, a Redis Cluster or the master a Sentinel
 * names: its options (fail fast while Redis is away or hangs, reconnect on its own, follow a
 * failover), connecting with the store's scripts, and the watchdog that finds a hang.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisAuth, RedisTarget } from '../../config/redisSettings.js';
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

/** The credentials and TLS of a Cluster's nodes or a Sentinel's master and replicas. */
function authOptions(auth: RedisAuth): RedisOptions {
  return { username: auth.username, password: auth.password, ...(auth.tls ? { tls: {} } : {}) };
}

/**
 * A Cluster client with the store's connection options on every node. Reads go to the masters
 * (`scaleReads`): a replica lags, and a quota or a key read there could miss the last write. A
 * node that falls ("Connection is closed") or a cluster between a master's failure and its
 * replica's promotion (CLUSTERDOWN, TRYAGAIN) is retried every eighth of the deadline after the
 * slots are read again, at most `maxRedirections` times (MOVED and ASK count too): a command gives
 * up after about the deadline, and the outage fallback answers, as for a single Redis.
 */
function clusterOptions(timeoutMs: number, auth: RedisAuth, extra: RedisOptions): ClusterOptions {
  const retryMs = Math.max(10, Math.round(timeoutMs / 8));
  const { enableOfflineQueue, lazyConnect, enableAutoPipelining, autoPipeliningIgnoredCommands, retryStrategy, ...node } = {
    ...storeConnectionOptions(timeoutMs, extra),
    ...authOptions(auth),
  };
  return {
    lazyConnect,
    enableOfflineQueue,
    enableAutoPipelining,
    autoPipeliningIgnoredCommands,
    clusterRetryStrategy: retryStrategy,
    scaleReads: 'master',
    maxRedirections: 8,
    retryDelayOnFailover: retryMs,
    retryDelayOnClusterDown: retryMs,
    retryDelayOnTryAgain: retryMs,
    slotsRefreshTimeout: timeoutMs,
    redisOptions: node,
  };
}

/**
 * Sentinel: the master of the group `name`, asked of the sentinels at each connection, with the
 * sentinels' +switch-master followed at once (`failoverDetector`): a failover closes the
 * connection and the next one goes to the new master. A write that reaches a master turned replica
 * (READONLY) closes the connection the same way.
 */
function sentinelOptions(target: Extract<RedisTarget, { kind: 'sentinel' }>, timeoutMs: number, extra: RedisOptions): RedisOptions {
  const { auth } = target;
  return {
    ...storeConnectionOptions(timeoutMs, extra),
    ...authOptions(auth),
    sentinels: target.sentinels,
    name: target.name,
    role: 'master',
    sentinelPassword: auth.sentinelPassword,
    ...(auth.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    failoverDetector: true,
    sentinelRetryStrategy: (times: number) => Math.min(50 * times, 1000),
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  };
}

/** The client of a target, not yet connected. */
function clientOf(target: RedisTarget, timeoutMs: number, options: RedisOptions): Redis | Cluster {
  switch (target.kind) {
    case 'url':
      return new Redis(target.url, storeConnectionOptions(timeoutMs, options));
    case 'cluster':
      return new Cluster(target.nodes, clusterOptions(timeoutMs, target.auth, options));
    case 'sentinel':
      return new Redis(sentinelOptions(target, timeoutMs, options));
  }
}

/** Connects a client for `target` with the store's scripts, once it is ready. */
export async function connectRedis(target: RedisTarget, timeoutMs: number, options: RedisOptions = {}): Promise<StoreRedis> {
  const redis = clientOf(target, timeoutMs, options);
  // Connection errors are retried by ioredis; without a listener each would be an unhandled 'error'.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw unavailable(`cannot connect to Redis at ${describedTarget(target)}`, e);
  }
  defineStoreCommands(redis);
  return redis as StoreRedis;
}

/**
 * Runs `send` with the connections corked, so that the commands it sends leave in one write per
 * connection: the one connection (as fast as a bare cork), or every master's of a Cluster, each
 * sending the commands of its slots in one write.
 */
export function inOneWrite<T>(redis: Redis | Cluster, send: () => T): T {
  if (redis instanceof Redis) {
    const stream = redis.stream;
    stream?.cork();
    try {
      return send();
    } finally {
      stream?.uncork();
    }
  }
  const streams = redis.nodes('master').flatMap((node) => (node.stream ? [node.stream] : []));
  for (const stream of streams) stream.cork();
  try {
    return send();
  } finally {
    for (const stream of streams) stream.uncork();
  }
}

/**
 * Closes a connection: QUIT (what was sent is answered first), or cut after `timeoutMs` when Redis
 * does not answer it (a Cluster waits on a node that fell).
 */
export async function closeConnection(redis: Redis | Cluster, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([
    redis.quit().then(
      () => undefined,
      () => undefined,
    ),
    cut,
  ]);
  clearTimeout(timer);
  redis.disconnect();
}

/** Where a target points, for messages: no password. */
function describedTarget(target: RedisTarget): string {
  switch (target.kind) {
    case 'url':
      return redactedUrl(target.url);
    case 'cluster':
      return `the Cluster of ${target.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`;
    case 'sentinel':
      return `the master ${target.name} of the sentinels ${target.sentinels.map((node) => `${node.host}:${node.port}`).join(',')}`;
  }
}

/**
 * The watchdog of a connection: a PING every quarter of `timeoutMs` while it is ready, so that a
 * hang is found (the connection's `socketTimeout` ends it) within 1.25 × `timeoutMs` even when no
 * request is waiting, and on a subscribed connection, which sends nothing else. Stopped by
 * clearInterval.
 */
export function watchConnection(redis: Redis | Cluster, timeoutMs: number): NodeJS.Timeout {
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
