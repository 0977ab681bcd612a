/**
 * The store a configuration names: Redis when REDIS_URL, NETLOOKUP_REDIS_CLUSTER or
 * NETLOOKUP_REDIS_SENTINELS is set (shared by every instance), else the
 * embedded SQLite file under the data directory. The server and the admin commands open it here;
 * `writer` (the server, or the primary of its workers) also takes the data directory's one-server
 * lock; `primary` (a worker on the embedded store) opens the file beside it and counts through the
 * primary (src/store/workers/storeCalls.ts).
 */
import { blacklistSettings, sharedRedis, type ServiceConfig } from '../config/config.js';
import { SqliteStore } from './sqlite/sqliteStore.js';
import type { Store } from './store.js';
import { WorkerStore, type StoreCallChannel } from './workers/workerStore.js';

/** The embedded store's database file in the data directory (the CLI checks it before opening). */
export { DATABASE_FILE } from './sqlite/sqliteStore.js';

export async function openStore(config: ServiceConfig, options: { writer?: boolean; primary?: StoreCallChannel } = {}): Promise<Store> {
  const blacklist = { retentionDays: blacklistSettings(config).retentionDays };
  const redis = sharedRedis(config);
  if (redis) {
    // loaded only when named: ioredis is most of an embedded-store admin command's start-up time
    const { RedisStore } = await import('./redis/redisStore.js');
    const { target, waitReplicas } = redis;
    return RedisStore.open(target, { prefix: config.redisPrefix, timeoutMs: config.redisTimeoutMs, blacklist, waitReplicas });
  }
  if (options.primary) return new WorkerStore(SqliteStore.open(config.dataDir, { blacklist }), options.primary);
  return SqliteStore.open(config.dataDir, { blacklist, writer: options.writer });
}
