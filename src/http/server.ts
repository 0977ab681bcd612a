/**
 * Starting and stopping the service: load the engine and the store, create the first account on
 * an empty store (SPEC 5.2: its key is printed once, so a newcomer can call the API at once),
 * listen, and on SIGTERM/SIGINT stop accepting, finish in-flight requests and flush the store.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  answerClientError,
  answeredHere,
  ConnectionSlots,
  connectionSettings,
  lingerIfBodyUnread,
  refuseConnect,
  refuseExpectation,
  timeoutOptions,
} from './transport/connections.js';
import { LiveEngine } from '../engine/liveEngine.js';
import { defaultTablesDir, loadEngine } from '../engine/node.js';
import { CURRENT_POINTER, setNameOfTables } from '../tables/tableSets.js';
import { FEEDS_FOLDER, FeedSet } from '../feeds/feedSet.js';
import { createRdapAbuse } from '../enrichment/rdapAbuse.js';
import { createReverseDns } from '../enrichment/reverseDns.js';
import { rdapSettingsFromEnv } from '../config/rdapSettings.js';
import { DEFAULT_DNS_SETTINGS } from '../config/dnsSettings.js';
import { loadPlans } from '../plans/plans.js';
import { openStore } from '../store/openStore.js';
import type { AccountStore, Store } from '../store/store.js';
import { requestHandling } from './app.js';
import { answerDirectly, directConnectionsUnavailable, NO_DIRECT_CONNECTIONS } from './transport/directConnections.js';
import { sharedReadsAvailable } from './transport/socketReads.js';
import type { ServiceConfig } from '../config/config.js';
import type { Logger } from 'pino';
import { createLogger } from './operations/logger.js';
import { createMetrics } from './operations/metrics.js';
import { dataStatus } from './operations/dataStatus.js';
import type { ServiceDeps } from './serviceDeps.js';

export interface RunningService {
  deps: ServiceDeps;
  server: http.Server;
  url: string;
  /** the secret of the account created on first start, when this start created one */
  firstKey: { account: string; secret: string } | null;
  stop(): Promise<void>;
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
export async function createFirstAccount(accounts: AccountStore): Promise<RunningService['firstKey']> {
  if ((await accounts.countAccounts()) !== 0) return null;
  if (accounts.claimFirstStart && !(await accounts.claimFirstStart())) return null;
  const created = await accounts.createAccount({ plan: 'free' });
  return { account: created.account.id, secret: created.key.secret };
}

/** How often the pointers to the table set and the feed set in force are looked at (a stat), for sets another process swaps in. */
const SET_POINTER_POLL_MS = 1000;

/** Calls `changed` whenever the pointer file is replaced (a new inode or time), until stopped. */
function followPointer(pointer: string, changed: () => void): { stop(): void } {
  const seen = (now: fs.Stats, before: fs.Stats) => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino) changed();
  };
  fs.watchFile(pointer, { interval: SET_POINTER_POLL_MS, persistent: false }, seen);
  return { stop: () => fs.unwatchFile(pointer, seen) };
}

/**
 * `netlookup update` swaps a new table set in by replacing the `current` pointer; every serving
 * process (workers included) sees the change at its next poll and reloads, without a restart.
 */
function followTableSets(tablesRoot: string, engine: LiveEngine, logger: Logger): { stop(): void } {
  return followPointer(path.join(tablesRoot, CURRENT_POINTER), () => {
    engine.reload().then(
      (loaded) =>
        logger.info(
          { set: setNameOfTables(tablesRoot, loaded.tables()), tables: loaded.tables().map((t) => `${t.kind}:${t.checksum}`) },
          'table set swapped in',
        ),
      (error: Error) => logger.error({ err: error.message }, 'table set refused; the loaded tables stay in use'),
    );
  });
}

/**
 * The feed set `feeds/current` names, loaded at start and again whenever the pointer changes (a
 * feed update, hourly for Tor): a set that does not load is logged and the loaded one stays.
 */
function followFeedSets(tablesRoot: string, feeds: ServiceDeps['feeds'], logger: Logger): { stop(): void } {
  const load = () => {
    try {
      feeds.current = FeedSet.load(tablesRoot);
      if (feeds.current.name !== null) logger.info({ feeds: feeds.current.name }, 'feed set in force');
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'feed set refused; the loaded feeds stay in use');
    }
  };
  load();
  return followPointer(path.join(tablesRoot, FEEDS_FOLDER, CURRENT_POINTER), load);
}

export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  const logger = createLogger(config.logLevel, config.adminToken ? [config.adminToken] : []);
  const tablesRoot = config.tablesDir ?? defaultTablesDir();
  const loadTables = () => loadEngine({ tablesDir: tablesRoot });
  const engine = new LiveEngine(await loadTables(), loadTables);
  const followSets = followTableSets(tablesRoot, engine, logger);
  const feeds = { current: FeedSet.EMPTY };
  const followFeeds = followFeedSets(tablesRoot, feeds, logger);
  const store = options.store ?? (await openStore(config, { writer: true }));
  const reverseDns = createReverseDns(config.dns ?? { ...DEFAULT_DNS_SETTINGS, servers: 'off' });
  const rdap = createRdapAbuse(config.rdap ?? { ...rdapSettingsFromEnv({}, config.dataDir), enabled: false }, {
    mirror: config.updateMirror ?? null,
    // redirects only to the registries' services the bootstrap in force names
    isRdapHost: (host) => feeds.current.rdap?.valueList.some((base) => new URL(base).host === host) === true,
    onCacheError: (error) => logger.warn({ err: error.message }, 'RDAP cache unavailable; abuse contacts are asked without it'),
  });
  const deps: ServiceDeps = {
    engine,
    feeds,
    reverseDns,
    rdap,
    store,
    plans: loadPlans(config.plansFile),
    config,
    logger,
    metrics: createMetrics(
      () => dataStatus({ config, engine, feeds, now: options.now ?? (() => new Date()) }),
      () => ({ reverseDns: reverseDns.stats(), rdap: rdap.stats() }),
    ),
    now: options.now ?? (() => new Date()),
  };
  const firstKey = options.firstStart === false ? null : await createFirstAccount(store.accounts);
  // Retention needs no manual job: reads already ignore expired reports; this reclaims their space.
  const purge = setInterval(() => {
    store.blacklist.purgeExpired(deps.now()).catch((err) => logger.warn({ err }, 'blacklist purge failed'));
  }, PURGE_INTERVAL_MS);
  purge.unref();
  const handling = requestHandling(deps);
  let stopping: Promise<void> | null = null;
  const connections = connectionSettings(config);
  const serverOptions = timeoutOptions(connections);
  const server = http.createServer(serverOptions, (req, res) => {
    // A connection refused or timed out may still deliver a request: it has had its answer.
    if (answeredHere(req.socket)) return;
    slots.noteRequest(req, res);
    // While stopping, every answer closes its connection so that keep-alive clients let go.
    if (stopping) res.shouldKeepAlive = false;
    lingerIfBodyUnread(req);
    handling.listener(req, res);
  });
  server.on('clientError', (error: Error, socket: Duplex) => answerClientError(error, socket, slots.answerBegun(socket)));
  server.on('connect', refuseConnect);
  server.on('checkExpectation', refuseExpectation);
  const checkEveryMs = serverOptions.connectionsCheckingInterval ?? 1000;
  // the fast path where it is on and this Node has what it relies on; else node:http alone, said in the log
  const unavailable = connections.directConnections ? directConnectionsUnavailable(server) : null;
  if (unavailable !== null) logger.warn({ reason: unavailable }, 'direct connections unavailable: node:http answers every request');
  const directOn = connections.directConnections && unavailable === null;
  const direct = directOn ? answerDirectly(server, handling.answerSingleLookup, connections, checkEveryMs, logger) : NO_DIRECT_CONNECTIONS;
  deps.transport = {
    direct_connections: directOn,
    socket_reads: directOn ? (connections.socketReads === 'shared' && sharedReadsAvailable ? 'shared' : 'events') : null,
  };
  const slots = new ConnectionSlots(server, connections, config.trustProxy, (socket) => direct.answering(socket), checkEveryMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  // Once listening, a failed accept (out of file descriptors) is logged, not fatal.
  server.on('error', (err) => logger.warn({ err }, 'server error'));
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info(
    { url, store: store.kind, tables: engine.engine.tables().map((t) => `${t.kind}:${t.checksum}`), ...deps.transport },
    'listening',
  );
  const stop = () => {
    stopping ??= (async () => {
      // close() stops accepting and closes the idle connections; a connection whose request was in
      // flight becomes idle when its answer is sent, and is closed at the next sweep. (Watching every
      // response for this would cost each request a listener.)
      await new Promise<void>((resolve) => {
        direct.stop();
        const sweep = setInterval(() => {
          server.closeIdleConnections();
          direct.closeIdle();
        }, IDLE_SWEEP_MS);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
      clearInterval(purge);
      followSets.stop();
      followFeeds.stop();
      reverseDns.close();
      rdap.close();
      await store.close();
      logger.info('stopped');
    })();
    return stopping;
  };
  return { deps, server, url, firstKey, stop };
}
