/**
 * The cases of the HTTP bench: what each sends, to which server, and how each answer is checked.
 * Two workloads: `random` (every request a fresh address, bench/httpRandom.ts: the headline) and
 * `pool` (rotating over 10,000 fixed addresses, which per-range caches answer after warm-up).
 */
import type { LoadRequest, LoadSpec } from './httpLoad.js';
import { ipPaths, type HttpInputs } from './httpInputs.js';
import type { RandomKind, RandomRequests, RandomSpaces } from './httpRandom.js';
import type { ServerKind } from './httpServerProcesses.js';
import { STATIC_FULL_RECORD, STATIC_RECORD } from './httpServers.js';
import { CONNECTIONS, TARGETS } from './httpSettings.js';

export type Validator = (status: number, headers: Headers, body: unknown, request: LoadRequest) => string | null;

export type Workload = 'random' | 'pool';

/** A target: ratios to the node:http ceiling and to nginx of the same workload, p99, or a batch's p50. */
export type Target =
  | { kind: 'single'; primary: boolean; vsNode: number; vsNginx: number | null; p99Us: number | null }
  | { kind: 'batch-p50'; primary: boolean };

export interface CaseDef {
  id: string;
  name: string;
  server: ServerKind;
  ours: boolean;
  workload: Workload;
  /** the node:http ceiling and the nginx peer answering the same workload (ids), for the ratios */
  ceiling: string | null;
  nginx: string | null;
  connections: number;
  /** addresses per request (batch) */
  addresses: number;
  spec: LoadSpec;
  validate: Validator;
  /** answers checked before timing: the first requests of the timed run */
  samples: number;
  target?: Target;
}

/** Answers checked per random case (single lookups), and per batch case. */
const RANDOM_SAMPLES = 200;
const BATCH_SAMPLES = 5;
const POOL_SAMPLES = 5;

function random(
  spaces: RandomSpaces,
  kinds: RandomKind[],
  paths: Partial<Record<RandomKind, string>>,
  suffixes: string[] = [],
  batch: RandomRequests['batch'] = null,
): RandomRequests {
  return { spaces, kinds, paths, suffixes, batch };
}

const dummyKey = `nlk_${'0'.repeat(40)}`;
const json = (body: unknown) => body as Record<string, unknown>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function jsonContentType(headers: Headers): string | null {
  return (headers.get('content-type') ?? '').startsWith('application/json') ? null : `content-type ${headers.get('content-type')}`;
}

const validateBare: Validator = (status, headers, body) =>
  status !== 200
    ? `status ${status}`
    : (jsonContentType(headers) ?? (JSON.stringify(body) === JSON.stringify(STATIC_RECORD) ? null : 'not the static record'));

const validateBareFull: Validator = (status, headers, body) =>
  status !== 200
    ? `status ${status}`
    : (jsonContentType(headers) ??
      (JSON.stringify(body) !== JSON.stringify(STATIC_FULL_RECORD)
        ? 'not the static full record'
        : headers.get('x-quota-remaining') === null
          ? 'no quota headers'
          : null));

const validateMaxmind: Validator = (status, headers, body) => {
  if (status !== 200) return `status ${status}`;
  const b = json(body);
  return (
    jsonContentType(headers) ??
    ((typeof b.country_code === 'string' && 'latitude' in b) || b.found === false
      ? null
      : `not a DB-IP city record: ${JSON.stringify(body).slice(0, 200)}`)
  );
};

/** nginx + GeoIP2: the record of the address asked, in our basic record's shape. */
const validateNginx: Validator = (status, headers, body, request) => {
  if (status !== 200) return `status ${status}`;
  const b = json(body);
  const ip = request.path.slice('/ip/'.length);
  if (b.success !== true || b.ip !== ip) return `ip ${String(b.ip)} for ${ip}`;
  const location = b.location as Record<string, unknown> | undefined;
  if (!isObject(location) || !('country_code' in location) || !('latitude' in location))
    return `no location: ${JSON.stringify(body).slice(0, 200)}`;
  return jsonContentType(headers);
};

function meteredHeaders(headers: Headers, plan: string): string | null {
  if (headers.get('x-plan') !== plan) return `X-Plan ${headers.get('x-plan')}`;
  for (const h of ['x-ratelimit-limit', 'x-quota-limit', 'x-quota-remaining', 'x-quota-reset']) if (!headers.get(h)) return `no ${h}`;
  return headers.get('access-control-allow-origin') === '*' ? null : 'no Access-Control-Allow-Origin';
}

/**
 * What is wrong with an IP record, or null. Special-purpose addresses are never drawn by the random
 * workload, so a reserved answer there is wrong; not-found answers are valid records, counted.
 */
function ipRecordProblem(record: Record<string, unknown>, level: 'basic' | 'full', workload: Workload): string | null {
  if (record.success !== true) return 'success is not true';
  if (record.reserved === true) return workload === 'random' ? `reserved answer for ${String(record.ip)}` : null;
  if (record.found === false) return null;
  for (const k of ['ip', 'version', 'location', 'timezone', 'network']) if (!(k in record)) return `no ${k}`;
  const full = ['country_info', 'security', 'abuse'];
  if (level === 'full') {
    for (const k of full) if (!(k in record)) return `full record without ${k}`;
    const network = record.network as Record<string, unknown>;
    if (!('range' in network) || !('asn_name' in network)) return 'full record without network.range / asn_name';
    if (!('current_time' in (record.timezone as Record<string, unknown>))) return 'full record without timezone.current_time';
  } else {
    for (const k of full) if (k in record) return `basic record with ${k}`;
  }
  return null;
}

function validateIp(level: 'basic' | 'full', plan: string, listedIps: Set<string>, workload: Workload): Validator {
  return (status, headers, body, request) => {
    if (status !== 200) return `status ${status}: ${JSON.stringify(body).slice(0, 200)}`;
    const b = json(body);
    const ip = request.path.slice('/v1/ip/'.length).split('?')[0];
    if (b.ip !== ip) return `ip ${String(b.ip)} for ${ip}`;
    const meta = b.meta as Record<string, unknown> | undefined;
    if (!meta || meta.plan !== plan || meta.fields !== level) return `meta ${JSON.stringify(meta)}`;
    if (level === 'full') {
      const threat = (b.security as Record<string, unknown> | undefined)?.is_threat;
      if (threat !== listedIps.has(ip)) return `security.is_threat ${String(threat)} for ${ip}, ${listedIps.has(ip) ? '' : 'not '}reported`;
    }
    return jsonContentType(headers) ?? meteredHeaders(headers, plan) ?? ipRecordProblem(b, level, workload);
  };
}

const validateMac: Validator = (status, headers, body) => {
  if (status !== 200) return `status ${status}: ${JSON.stringify(body).slice(0, 200)}`;
  const b = json(body);
  if (b.success !== true || typeof b.mac !== 'string' || typeof b.found !== 'boolean' || !('vendor' in b) || !('block' in b))
    return `not a MAC record: ${JSON.stringify(body).slice(0, 200)}`;
  if (b.found && !isObject(b.vendor)) return 'found without vendor';
  const meta = b.meta as Record<string, unknown> | undefined;
  if (!meta || meta.plan !== 'business' || meta.fields !== 'full') return `meta ${JSON.stringify(meta)}`;
  return jsonContentType(headers) ?? meteredHeaders(headers, 'business');
};

function validateBatch(size: number, workload: Workload): Validator {
  return (status, headers, body, request) => {
    if (status !== 200) return `status ${status}: ${JSON.stringify(body).slice(0, 200)}`;
    const b = json(body);
    const sent = (JSON.parse(request.body!) as { ips: string[] }).ips;
    if (b.success !== true || b.count !== size || !Array.isArray(b.results) || b.results.length !== size)
      return `count ${String(b.count)}, results ${Array.isArray(b.results) ? b.results.length : 'none'} for ${size}`;
    for (let i = 0; i < size; i++) {
      const r = b.results[i] as Record<string, unknown>;
      if (r.ip !== sent[i]) return `result ${i} is ${String(r.ip)}, sent ${sent[i]}`;
      const problem = ipRecordProblem(r, 'full', workload);
      if (problem) return `result ${i}: ${problem}`;
    }
    const meta = b.meta as Record<string, unknown> | undefined;
    if (!meta || meta.plan !== 'business' || meta.fields !== 'full') return `meta ${JSON.stringify(meta)}`;
    return jsonContentType(headers) ?? meteredHeaders(headers, 'business');
  };
}

export async function post(
  port: number,
  pathName: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${pathName}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function get(port: number, pathName: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${pathName}`, { headers });
  return { status: response.status, text: await response.text() };
}

/** The accounts of a bench run: one free, one business, and MANY_ACCOUNTS free ones. */
export interface BenchKeys {
  free: string;
  paid: string;
  many: string[];
}

/** Case lists before the accounts exist (ids only). */
export const NO_KEYS: BenchKeys = { free: '', paid: '', many: [] };

/** Accounts of the many-accounts case: requests spread over them, each account's rate far below one batch per turn. */
export const MANY_ACCOUNTS = 200;

export function serviceCases({ spaces, ips, macs, listedIps }: HttpInputs, { free: freeKey, paid: paidKey, many }: BenchKeys): CaseDef[] {
  const paid = { 'X-API-Key': paidKey };
  const post = { 'X-API-Key': paidKey, 'Content-Type': 'application/json' };
  const ours = (def: Omit<CaseDef, 'server' | 'ours' | 'connections' | 'addresses' | 'nginx'> & Partial<CaseDef>): CaseDef => ({
    server: 'service',
    ours: true,
    connections: CONNECTIONS,
    addresses: 1,
    nginx: null,
    ...def,
  });
  const batch = (size: number, connections: number): CaseDef =>
    ours({
      id: `batch-${size}${connections === 1 ? '-c1' : ''}`,
      name: `POST /v1/ip/batch, ${size} random IPv4 addresses, full (business)${connections === 1 ? ', 1 connection' : ''}`,
      workload: 'random',
      ceiling: null,
      connections,
      addresses: size,
      spec: { port: 0, headers: post, requests: [], random: random(spaces, ['ipv4'], {}, [], { path: '/v1/ip/batch', size }) },
      validate: validateBatch(size, 'random'),
      samples: BATCH_SAMPLES,
      target: size === 1000 && connections === 1 ? { kind: 'batch-p50', primary: true } : undefined,
    });
  const ipv4 = random(spaces, ['ipv4'], { ipv4: '/v1/ip/' });
  return [
    ours({
      id: 'ip-free',
      name: 'GET /v1/ip/{ip}, random IPv4, free key (basic)',
      workload: 'random',
      ceiling: 'node',
      nginx: 'nginx',
      spec: { port: 0, headers: { 'X-API-Key': freeKey }, requests: [], random: ipv4 },
      validate: validateIp('basic', 'free', listedIps, 'random'),
      samples: RANDOM_SAMPLES,
      target: { kind: 'single', primary: false, vsNode: TARGETS.ipv4VsNode, vsNginx: TARGETS.ipv4VsNginx, p99Us: TARGETS.singleP99Us },
    }),
    ours({
      id: 'ip-paid',
      name: 'GET /v1/ip/{ip}, random IPv4, business key (full)',
      workload: 'random',
      ceiling: 'node',
      nginx: 'nginx',
      spec: { port: 0, headers: paid, requests: [], random: ipv4 },
      validate: validateIp('full', 'business', listedIps, 'random'),
      samples: RANDOM_SAMPLES,
      target: { kind: 'single', primary: true, vsNode: TARGETS.ipv4VsNode, vsNginx: TARGETS.ipv4VsNginx, p99Us: TARGETS.singleP99Us },
    }),
    ours({
      id: 'ip-free-many',
      name: `GET /v1/ip/{ip}?key=, random IPv4, ${MANY_ACCOUNTS} free accounts in turn (basic)`,
      workload: 'random',
      ceiling: 'node',
      nginx: 'nginx',
      spec: {
        port: 0,
        headers: {},
        requests: [],
        random: random(
          spaces,
          ['ipv4'],
          { ipv4: '/v1/ip/' },
          many.map((k) => `?key=${k}`),
        ),
      },
      validate: validateIp('basic', 'free', listedIps, 'random'),
      samples: RANDOM_SAMPLES,
    }),
    ours({
      id: 'ipv6-paid',
      name: 'GET /v1/ip/{ip}, random announced IPv6, business key (full)',
      workload: 'random',
      ceiling: 'node-ipv6',
      nginx: 'nginx-ipv6',
      spec: { port: 0, headers: paid, requests: [], random: random(spaces, ['ipv6'], { ipv6: '/v1/ip/' }) },
      validate: validateIp('full', 'business', listedIps, 'random'),
      samples: RANDOM_SAMPLES,
      target: { kind: 'single', primary: true, vsNode: TARGETS.ipv6MacVsNode, vsNginx: null, p99Us: null },
    }),
    ours({
      id: 'mac',
      name: 'GET /v1/mac/{mac}, random MAC, business key (full)',
      workload: 'random',
      ceiling: 'node-mac',
      spec: { port: 0, headers: paid, requests: [], random: random(spaces, ['mac'], { mac: '/v1/mac/' }) },
      validate: validateMac,
      samples: RANDOM_SAMPLES,
      target: { kind: 'single', primary: true, vsNode: TARGETS.ipv6MacVsNode, vsNginx: null, p99Us: null },
    }),
    batch(100, CONNECTIONS),
    batch(1000, CONNECTIONS),
    batch(100, 1),
    batch(1000, 1),
    ours({
      id: 'pool-ip-free',
      name: 'GET /v1/ip/{ip}, 10,000-address pool, free key (basic)',
      workload: 'pool',
      ceiling: 'pool-node',
      nginx: 'pool-nginx',
      spec: { port: 0, headers: { 'X-API-Key': freeKey }, requests: ipPaths(ips, '/v1/ip/') },
      validate: validateIp('basic', 'free', listedIps, 'pool'),
      samples: POOL_SAMPLES,
    }),
    ours({
      id: 'pool-ip-paid',
      name: 'GET /v1/ip/{ip}, 10,000-address pool, business key (full)',
      workload: 'pool',
      ceiling: 'pool-node',
      nginx: 'pool-nginx',
      spec: { port: 0, headers: paid, requests: ipPaths(ips, '/v1/ip/') },
      validate: validateIp('full', 'business', listedIps, 'pool'),
      samples: POOL_SAMPLES,
    }),
    ours({
      id: 'pool-mac',
      name: 'GET /v1/mac/{mac}, 10,000-MAC pool, business key (full)',
      workload: 'pool',
      ceiling: 'pool-node',
      spec: { port: 0, headers: paid, requests: macs.map((m) => ({ method: 'GET', path: `/v1/mac/${m}` })) },
      validate: validateMac,
      samples: POOL_SAMPLES,
    }),
  ];
}

/** Single lookups on the Redis store: in one process (`redis-…`, pinned as the others) or in two cluster workers (`redis2-…`, unpinned). */
export function redisCases(inputs: HttpInputs, keys: BenchKeys, workers: 1 | 2): CaseDef[] {
  return serviceCases(inputs, keys)
    .filter((d) => d.id === 'ip-free' || d.id === 'ip-paid' || (d.id === 'ip-free-many' && workers === 1))
    .map((d) => ({
      ...d,
      id: `redis${workers === 1 ? '' : '2'}-${d.id}`,
      name: `${d.name}, Redis store${workers === 1 ? '' : ', 2 workers (unpinned)'}`,
      server: workers === 1 ? 'service' : 'workers',
      target: undefined,
    }));
}

/** Admin-created free and business accounts on a running service, their keys; and the listed addresses reported. */
export async function benchKeys(port: number, adminToken: string, listedIps: Set<string>): Promise<BenchKeys> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const free = await post(port, '/admin/accounts', { plan: 'free' }, auth);
  const business = await post(port, '/admin/accounts', { plan: 'business' }, auth);
  if (free.status !== 201 || business.status !== 201)
    throw new Error(`admin API: ${free.status} ${JSON.stringify(free.body)} / ${business.status} ${JSON.stringify(business.body)}`);
  const many: string[] = [];
  for (let i = 0; i < MANY_ACCOUNTS; i++) {
    const account = await post(port, '/admin/accounts', { plan: 'free' }, auth);
    if (account.status !== 201) throw new Error(`admin API: ${account.status} ${JSON.stringify(account.body)}`);
    many.push((account.body.key as { secret: string }).secret);
  }
  const reporter = { 'X-API-Key': (business.body.key as { secret: string }).secret };
  for (const ip of listedIps) {
    const reported = await post(port, '/v1/blacklist/report', { ip, threat_type: 'scanner' }, reporter);
    if (reported.status !== 201) throw new Error(`report of ${ip}: ${reported.status} ${JSON.stringify(reported.body)}`);
  }
  return { free: (free.body.key as { secret: string }).secret, paid: (business.body.key as { secret: string }).secret, many };
}

/**
 * The ceilings and the peers, on the same workloads as ours (the same X-API-Key header on every
 * request, so that the load generator's work is the same): node:http on each random kind and on the
 * pool, nginx + GeoIP2, Koa + maxmind, bare Koa.
 */
export function peerCases({ spaces, ips }: HttpInputs, port: number): CaseDef[] {
  const headers = { 'X-API-Key': dummyKey };
  const peer = (def: Omit<CaseDef, 'ours' | 'connections' | 'addresses' | 'ceiling' | 'nginx'> & Partial<CaseDef>): CaseDef => ({
    ours: false,
    connections: CONNECTIONS,
    addresses: 1,
    ceiling: null,
    nginx: null,
    ...def,
  });
  const ipv4 = random(spaces, ['ipv4'], { ipv4: '/ip/' });
  const ipv6 = random(spaces, ['ipv6'], { ipv6: '/ip/' });
  const samples = RANDOM_SAMPLES;
  return [
    peer({
      id: 'node',
      name: 'node:http, static ~600-byte JSON, random IPv4 paths (ceiling)',
      server: 'node',
      workload: 'random',
      spec: { port, headers, requests: [], random: ipv4 },
      validate: validateBare,
      samples,
    }),
    peer({
      id: 'node-full',
      name: 'node:http, static ~1.2 KB full record + quota headers, random IPv4 paths (same-bytes ceiling)',
      server: 'node',
      workload: 'random',
      ceiling: 'node',
      spec: { port, headers, requests: [], random: random(spaces, ['ipv4'], { ipv4: '/full/' }) },
      validate: validateBareFull,
      samples,
    }),
    peer({
      id: 'node-ipv6',
      name: 'node:http, static JSON, random IPv6 paths (ceiling)',
      server: 'node',
      workload: 'random',
      spec: { port, headers, requests: [], random: ipv6 },
      validate: validateBare,
      samples,
    }),
    peer({
      id: 'node-mac',
      name: 'node:http, static JSON, random MAC paths (ceiling)',
      server: 'node',
      workload: 'random',
      spec: { port, headers, requests: [], random: random(spaces, ['mac'], { mac: '/mac/' }) },
      validate: validateBare,
      samples,
    }),
    peer({
      id: 'nginx',
      name: 'nginx + GeoIP2, 1 worker, GET /ip/{ip}, random IPv4',
      server: 'nginx',
      workload: 'random',
      ceiling: 'node',
      spec: { port, headers, requests: [], random: ipv4 },
      validate: validateNginx,
      samples,
    }),
    peer({
      id: 'nginx-ipv6',
      name: 'nginx + GeoIP2, 1 worker, GET /ip/{ip}, random IPv6',
      server: 'nginx',
      workload: 'random',
      ceiling: 'node-ipv6',
      spec: { port, headers, requests: [], random: ipv6 },
      validate: validateNginx,
      samples,
    }),
    peer({
      id: 'maxmind',
      name: 'Koa + maxmind reader, GET /ip/{ip}, random IPv4 (record as JSON)',
      server: 'maxmind',
      workload: 'random',
      ceiling: 'node',
      nginx: 'nginx',
      spec: { port, headers, requests: [], random: ipv4 },
      validate: validateMaxmind,
      samples,
    }),
    peer({
      id: 'bare',
      name: 'bare Koa, static ~600-byte JSON, random IPv4 paths',
      server: 'bare',
      workload: 'random',
      ceiling: 'node',
      spec: { port, headers, requests: [], random: ipv4 },
      validate: validateBare,
      samples,
    }),
    peer({
      id: 'bare-full',
      name: 'bare Koa, static ~1.2 KB full record + quota headers (same-bytes reference)',
      server: 'bare',
      workload: 'random',
      ceiling: 'node',
      spec: { port, headers, requests: [], random: random(spaces, ['ipv4'], { ipv4: '/full/' }) },
      validate: validateBareFull,
      samples: POOL_SAMPLES,
    }),
    peer({
      id: 'pool-node',
      name: 'node:http, static JSON, 10,000-address pool paths (ceiling)',
      server: 'node',
      workload: 'pool',
      spec: { port, headers, requests: ipPaths(ips, '/ip/') },
      validate: validateBare,
      samples: POOL_SAMPLES,
    }),
    peer({
      id: 'pool-nginx',
      name: 'nginx + GeoIP2, 1 worker, 10,000-address pool',
      server: 'nginx',
      workload: 'pool',
      ceiling: 'pool-node',
      spec: { port, headers, requests: ipPaths(ips, '/ip/') },
      validate: validateNginx,
      samples: POOL_SAMPLES,
    }),
  ];
}

/** The memory soak's traffic: random IPv4, IPv6 and MAC lookups in turn, business key, against `npm start`'s process. */
export function soakCase({ spaces, listedIps }: HttpInputs, { paid }: BenchKeys): CaseDef {
  const ip = validateIp('full', 'business', listedIps, 'random');
  return {
    id: 'soak',
    name: 'GET /v1/ip/{ip} (random IPv4, random IPv6) and /v1/mac/{mac} (random MAC) in turn, business key',
    server: 'serve',
    ours: true,
    workload: 'random',
    ceiling: null,
    nginx: null,
    connections: CONNECTIONS,
    addresses: 1,
    spec: {
      port: 0,
      headers: { 'X-API-Key': paid },
      requests: [],
      random: random(spaces, ['ipv4', 'ipv6', 'mac'], { ipv4: '/v1/ip/', ipv6: '/v1/ip/', mac: '/v1/mac/' }),
    },
    validate: (status, headers, body, request) =>
      request.path.startsWith('/v1/mac/') ? validateMac(status, headers, body, request) : ip(status, headers, body, request),
    samples: RANDOM_SAMPLES,
  };
}
