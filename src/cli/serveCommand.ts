/**
 * `netlookup serve`: the HTTP API on the embedded store, or on Redis with REDIS_URL (docs/shared-deployments.md).
 * `--workers N` runs N processes sharing the port through Node's cluster module: the primary
 * creates the first account if needed, forks the workers, restarts one that dies, and passes
 * SIGTERM/SIGINT (graceful stop) and SIGHUP (table reload) on to them. On the embedded store the
 * primary also holds the SQLite store and counts for every worker (src/store/workers/storeCalls.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { configFromEnv, sharedRedis, type ServiceConfig } from '../config/config.js';
import { createFirstAccount, startService, type RunningService } from '../http/server.js';
import { openStore } from '../store/openStore.js';
import { defaultTablesDir } from '../engine/node.js';
import { answerStoreCalls, storeCallsOf, type StoreChannelEnd } from '../store/workers/storeCalls.js';
import { StoreCallChannel } from '../store/workers/workerStore.js';
import { scheduleUpdates } from './updateSchedule.js';

export interface ServeFlags {
  port?: number;
  host?: string;
  /** 1 or more (optionValues.ts workerCount) */
  workers: number;
}

/** What a worker tells its primary once it listens. */
interface ListeningMessage {
  netlookup: 'listening';
  url: string;
}

export async function runServe(flags: ServeFlags): Promise<void> {
  const config = configFromEnv({
    ...process.env,
    ...(flags.port !== undefined ? { PORT: String(flags.port) } : {}),
    ...(flags.host ? { HOST: flags.host } : {}),
  });
  if (cluster.isWorker) return runWorker(config);
  if (flags.workers === 1) return runSingle(config);
  return runPrimary(config, flags.workers);
}

/**
 * NETLOOKUP_UPDATE_INTERVAL and NETLOOKUP_FEEDS_INTERVAL: one schedule each per deployment host, in
 * the single process or the primary. With both, the first updates the table sources only and the
 * second the feeds (Tor hourly, say, and the tables daily).
 */
function startUpdates(config: ServiceConfig): void {
  const tablesDir = path.resolve(config.tablesDir ?? defaultTablesDir());
  const log = (level: 'info' | 'warn', message: string) =>
    (level === 'info' ? process.stdout : process.stderr).write(`netlookup: ${message}\n`);
  if (config.updateIntervalMs) scheduleUpdates(tablesDir, config.updateIntervalMs, log, config.feedsIntervalMs ? 'tables' : 'all');
  if (config.feedsIntervalMs) scheduleUpdates(tablesDir, config.feedsIntervalMs, log, 'feeds');
}

async function runSingle(config: ServiceConfig): Promise<void> {
  const service = await startService(config);
  printStart(service.url, service.firstKey);
  startUpdates(config);
  onStopSignals((signal) => stopService(service, signal));
  process.on('SIGHUP', () => reloadTables(service));
}

async function runWorker(config: ServiceConfig): Promise<void> {
  // On the embedded store the primary counts (src/store/workers/storeCalls.ts); on Redis, Redis does.
  const primary = sharedRedis(config) ? undefined : new StoreCallChannel(process as StoreChannelEnd);
  process.once('disconnect', () => primary?.close('the primary process is gone'));
  const service = await startService(config, { firstStart: false, store: await openStore(config, { primary }) });
  onStopSignals((signal) => stopService(service, signal, false));
  process.on('SIGHUP', () => reloadTables(service));
  // Announced only now: the primary sends SIGHUP to listening workers at once, and a signal that
  // came before its handler would end the process.
  process.send?.({ netlookup: 'listening', url: service.url } satisfies ListeningMessage);
}

async function runPrimary(config: ServiceConfig, workers: number): Promise<void> {
  // One process creates the first account, before any worker can count an empty store. On the
  // embedded store the primary keeps the store open, holding the data directory's lock, and counts
  // for every worker; on Redis it lets go.
  const store = await openStore(config, { writer: true });
  let firstKey: RunningService['firstKey'];
  try {
    firstKey = await createFirstAccount(store.accounts);
  } catch (error) {
    await store.close();
    throw error;
  }
  const counting = store.kind === 'sqlite' ? store : null;
  if (counting === null) await store.close();
  let stopping = false;
  let listening = 0;
  // SIGHUP goes to the workers that listen; one still starting gets it once it listens (before,
  // the signal's default action would end it, and it may be loading the tables the reload replaces).
  const started = new WeakSet<Worker>();
  const reloadWhenStarted = new WeakSet<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    if (counting !== null) answerStoreCalls(worker, storeCallsOf(counting));
    worker.on('message', (message: ListeningMessage) => {
      if (message?.netlookup !== 'listening') return;
      started.add(worker);
      if (reloadWhenStarted.delete(worker)) worker.process.kill('SIGHUP');
      // Announced once, when every worker listens (a restarted worker is not announced again).
      if (++listening !== workers) return;
      process.stdout.write(
        `${workers} workers on the ${counting ? 'embedded store (sqlite), counted in the primary' : 'shared store (redis)'}\n`,
      );
      printStart(message.url, firstKey);
    });
    return worker;
  };
  for (let i = 0; i < workers; i++) fork();
  startUpdates(config);
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) void stopPrimary();
      return;
    }
    process.stderr.write(`netlookup: worker ${worker.process.pid} exited (${code ?? signal}); starting another\n`);
    fork();
  });
  onStopSignals((signal) => {
    stopping = true;
    process.stdout.write(`${signal}: finishing in-flight requests in ${workers} workers\n`);
    const running = Object.values(cluster.workers ?? {});
    if (running.length === 0) void stopPrimary();
    for (const worker of running) worker?.process.kill('SIGTERM');
  });
  process.on('SIGHUP', () => {
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker === undefined) continue;
      if (started.has(worker)) worker.process.kill('SIGHUP');
      else reloadWhenStarted.add(worker);
    }
  });
  /** Once every worker has finished: the counts they were given, written (the embedded store). */
  const stopPrimary = async () => {
    try {
      await counting?.close();
      process.exit(0);
    } catch (error) {
      process.stderr.write(`netlookup: ${(error as Error).message}\n`);
      process.exit(1);
    }
  };
}

function printStart(url: string, firstKey: RunningService['firstKey']): void {
  process.stdout.write(`netlookup listening on ${url}\n`);
  if (!firstKey) return;
  process.stdout.write(
    [
      '',
      'First start: created a free account and its API key (shown only now, stored only hashed):',
      `  account ${firstKey.account}`,
      `  key     ${firstKey.secret}`,
      '',
      'Try:',
      `  curl -H 'X-API-Key: ${firstKey.secret}' ${url}/v1/ip/8.8.8.8`,
      `  curl -H 'X-API-Key: ${firstKey.secret}' ${url}/v1/mac/00:00:0c:12:34:56`,
      `  curl -H 'X-API-Key: ${firstKey.secret}' ${url}/v1/blacklist/1.2.3.4`,
      '',
    ].join('\n'),
  );
}

function onStopSignals(stop: (signal: string) => void): void {
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** Stops accepting, finishes in-flight requests, writes the store's buffered counters, exits. */
function stopService(service: RunningService, signal: string, announce = true): void {
  if (announce) process.stdout.write(`${signal}: finishing in-flight requests\n`);
  service.stop().then(
    () => process.exit(0),
    (error: Error) => {
      process.stderr.write(`netlookup: ${error.message}\n`);
      process.exit(1);
    },
  );
}

/** Reloads already reported: SIGHUPs that arrive during a reload share one (src/engine/liveEngine.ts), reported once. */
const reported = new WeakSet<Promise<unknown>>();

function reloadTables(service: RunningService): void {
  const reload = service.deps.engine.reload();
  if (reported.has(reload)) return;
  reported.add(reload);
  reload.then(
    (engine) => service.deps.logger.info({ tables: engine.tables().map((t) => `${t.kind}:${t.checksum}`) }, 'tables reloaded'),
    (error: Error) => service.deps.logger.error({ err: error.message }, 'table reload refused; the loaded tables stay in use'),
  );
}
