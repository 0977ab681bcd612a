/**
 * `netlookup serve`: the HTTP API on the embedded store, or on Redis with REDIS_URL (docs/shared-deployments.md).
 * `--workers N` runs N processes sharing the port through Node's cluster module: the primary
 * creates the first account if needed, forks the workers, restarts one that dies, and passes
 * SIGTERM/SIGINT (graceful stop) and SIGHUP (table reload) on to them. More than one worker needs
 * the shared store: the embedded one keeps rate windows and counters in its process's memory.
 */
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { configFromEnv, type ServiceConfig } from '../config/config.js';
import { createFirstAccount, startService, type RunningService } from '../http/server.js';
import { openStore } from '../store/openStore.js';
import { defaultTablesDir } from '../engine/node.js';
import { scheduleUpdates } from './updateSchedule.js';

export interface ServeFlags {
  port?: number;
  host?: string;
  /** 1 to MAX_WORKERS (optionValues.ts) */
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
  const workers = flags.workers;
  if (workers > 1 && !config.redisUrl) {
    throw new Error(
      `--workers ${workers} needs the shared store: set REDIS_URL. The embedded SQLite store keeps the per-second windows and usage counters in one process's memory, so several workers on it would each let the full limits through.`,
    );
  }
  if (workers === 1) return runSingle(config);
  return runPrimary(config, workers);
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
  const service = await startService(config, { firstStart: false });
  process.send?.({ netlookup: 'listening', url: service.url } satisfies ListeningMessage);
  onStopSignals((signal) => stopService(service, signal, false));
  process.on('SIGHUP', () => reloadTables(service));
}

async function runPrimary(config: ServiceConfig, workers: number): Promise<void> {
  // One process creates the first account, before any worker can count an empty store.
  const store = await openStore(config);
  let firstKey: RunningService['firstKey'];
  try {
    firstKey = await createFirstAccount(store.accounts);
  } finally {
    await store.close();
  }
  let stopping = false;
  let listening = 0;
  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (message: ListeningMessage) => {
      // Announced once, when every worker listens (a restarted worker is not announced again).
      if (message?.netlookup !== 'listening' || ++listening !== workers) return;
      process.stdout.write(`${workers} workers on the shared store (${config.redisUrl ? 'redis' : 'sqlite'})\n`);
      printStart(message.url, firstKey);
    });
    return worker;
  };
  for (let i = 0; i < workers; i++) fork();
  startUpdates(config);
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`netlookup: worker ${worker.process.pid} exited (${code ?? signal}); starting another\n`);
    fork();
  });
  onStopSignals((signal) => {
    stopping = true;
    process.stdout.write(`${signal}: finishing in-flight requests in ${workers} workers\n`);
    const running = Object.values(cluster.workers ?? {});
    if (running.length === 0) process.exit(0);
    for (const worker of running) worker?.process.kill('SIGTERM');
  });
  process.on('SIGHUP', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
  });
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
