/**
 * Starting and stopping the service: load the engine and the store, create the first account on
 * an empty store (SPEC 5.2: its key is printed once, so a newcomer can call the API at once),
 * listen, and on SIGTERM/SIGINT stop accepting, finish in-flight requests and flush the store.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorTable } from '../errors.js';
import { errorEnvelope } from './respond.js';
import { LiveEngine } from '../engine/liveEngine.js';
import { loadEngine } from '../engine/node.js';
import { loadPlans } from '../plans/plans.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/store.js';
import { requestListener } from './app.js';
import type { ServiceConfig } from './config.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';
import type { ServiceDeps } from './serviceDeps.js';

export interface RunningService {
  deps: ServiceDeps;
  server: http.Server;
  url: string;
  /** the secret of the account created on first start, when this start created one */
  firstKey: { account: string; secret: string } | null;
  stop(): Promise<void>;
}

/**
 * Requests Node's parser refuses never reach Koa; they still get the JSON envelope and the CORS
 * header (SPEC 1.1, 1.3), and their connection is closed.
 */
export function answerUnparsableRequest(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = error.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'invalid_request';
  const { status, message } = errorTable[code];
  const body = JSON.stringify(errorEnvelope(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Access-Control-Allow-Origin: *\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** How often a stopping server closes the connections whose last answer has been sent. */
const IDLE_SWEEP_MS = 20;
const PURGE_INTERVAL_MS = 3600_000;

export interface StartOptions {
  now?: () => Date;
  store?: Store;
  /** false in cluster workers: their primary created the first account before forking them */
  firstStart?: boolean;
}

/**
 * SPEC 5.2: on an empty store, a free account and its key, so a newcomer can call the API at once.
 * Null when the store already has accounts.
 */
export async function createFirstAccount(store: Store): Promise<RunningService['firstKey']> {
  if ((await store.countAccounts()) !== 0) return null;
  if (store.claimFirstStart && !(await store.claimFirstStart())) return null;
  const created = await store.createAccount({ plan: 'free' });
  return { account: created.account.id, secret: created.key.secret };
}

export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  const logger = createLogger(config.logLevel, config.adminToken ? [config.adminToken] : []);
  const loadTables = () => loadEngine({ tablesDir: config.tablesDir });
  const engine = new LiveEngine(await loadTables(), loadTables);
  const store = options.store ?? (await openStore(config, { writer: true }));
  const deps: ServiceDeps = { engine, store, plans: loadPlans(config.plansFile), config, logger, metrics: createMetrics(), now: options.now ?? (() => new Date()) };
  const firstKey = options.firstStart === false ? null : await createFirstAccount(store);
  // Retention needs no manual job: reads already ignore expired reports; this reclaims their space.
  const purge = setInterval(() => {
    store.blacklist.purgeExpired(deps.now()).catch((err) => logger.warn({ err }, 'blacklist purge failed'));
  }, PURGE_INTERVAL_MS);
  purge.unref();
  const handle = requestListener(deps);
  let stopping: Promise<void> | null = null;
  const server = http.createServer((req, res) => {
    // While stopping, every answer closes its connection so that keep-alive clients let go.
    if (stopping) res.shouldKeepAlive = false;
    handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerUnparsableRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info({ url, store: store.kind, tables: engine.engine.tables().map((t) => `${t.kind}:${t.checksum}`) }, 'listening');
  const stop = () => {
    stopping ??= (async () => {
      // close() stops accepting and closes the idle connections; a connection whose request was in
      // flight becomes idle when its answer is sent, and is closed at the next sweep. (Watching every
      // response for this would cost each request a listener.)
      await new Promise<void>((resolve) => {
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
      clearInterval(purge);
      await store.close();
      logger.info('stopped');
    })();
    return stopping;
  };
  return { deps, server, url, firstKey, stop };
}
