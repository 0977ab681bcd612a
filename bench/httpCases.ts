/** The cases of the HTTP bench: what each sends, to which server, and how each answer is checked. */
import type { LoadRequest, LoadSpec } from './httpLoad.js';
import { batchBodies, ipPaths, type HttpInputs } from './httpInputs.js';
import type { ServerKind } from './httpServerProcesses.js';
import { STATIC_FULL_RECORD, STATIC_RECORD } from './httpServers.js';
import { CONNECTIONS } from './httpSettings.js';

export type Validator = (status: number, headers: Headers, body: unknown, request: LoadRequest) => string | null;

export interface CaseDef {
  id: string;
  name: string;
  server: ServerKind;
  ours: boolean;
  connections: number;
  /** addresses per request (batch) */
  addresses: number;
  spec: LoadSpec;
  validate: Validator;
  /** the case the judge names for the target, and the target's text */
  target?: { kind: 'single' | 'batch-p50'; primary: boolean };
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
    (typeof b.country_code === 'string' && 'latitude' in b ? null : `not a DB-IP city record: ${JSON.stringify(body).slice(0, 200)}`)
  );
};

function meteredHeaders(headers: Headers, plan: string): string | null {
  if (headers.get('x-plan') !== plan) return `X-Plan ${headers.get('x-plan')}`;
  for (const h of ['x-ratelimit-limit', 'x-quota-limit', 'x-quota-remaining', 'x-quota-reset']) if (!headers.get(h)) return `no ${h}`;
  return headers.get('access-control-allow-origin') === '*' ? null : 'no Access-Control-Allow-Origin';
}

function ipRecordProblem(record: Record<string, unknown>, level: 'basic' | 'full'): string | null {
  if (record.success !== true) return 'success is not true';
  if (record.found === false || record.reserved === true) return null; // a valid record of another kind; counted in the pool check
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

function validateIp(level: 'basic' | 'full', plan: string, listedIps: Set<string>): Validator {
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
    return jsonContentType(headers) ?? meteredHeaders(headers, plan) ?? ipRecordProblem(b, level);
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

function validateBatch(size: number): Validator {
  return (status, headers, body, request) => {
    if (status !== 200) return `status ${status}: ${JSON.stringify(body).slice(0, 200)}`;
    const b = json(body);
    const sent = (JSON.parse(request.body!) as { ips: string[] }).ips;
    if (b.success !== true || b.count !== size || !Array.isArray(b.results) || b.results.length !== size)
      return `count ${String(b.count)}, results ${Array.isArray(b.results) ? b.results.length : 'none'} for ${size}`;
    for (let i = 0; i < size; i++) {
      const r = b.results[i] as Record<string, unknown>;
      if (r.ip !== sent[i]) return `result ${i} is ${String(r.ip)}, sent ${sent[i]}`;
      const problem = ipRecordProblem(r, 'full');
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

export function serviceCases({ ips, macs, listedIps }: HttpInputs, { free: freeKey, paid: paidKey, many }: BenchKeys): CaseDef[] {
  const paid = { 'X-API-Key': paidKey };
  const post = { 'X-API-Key': paidKey, 'Content-Type': 'application/json' };
  const batch = (size: number, connections: number): CaseDef => ({
    id: `batch-${size}${connections === 1 ? '-c1' : ''}`,
    name: `POST /v1/ip/batch, ${size} addresses, full (business)${connections === 1 ? ', 1 connection' : ''}`,
    server: 'service',
    ours: true,
    connections,
    addresses: size,
    spec: { port: 0, headers: post, requests: batchBodies(ips, size).map((body) => ({ method: 'POST', path: '/v1/ip/batch', body })) },
    validate: validateBatch(size),
    target: size === 1000 && connections === 1 ? { kind: 'batch-p50', primary: true } : undefined,
  });
  return [
    {
      id: 'ip-free',
      name: 'GET /v1/ip/{ip}, free key (basic)',
      server: 'service',
      ours: true,
      connections: CONNECTIONS,
      addresses: 1,
      spec: { port: 0, headers: { 'X-API-Key': freeKey }, requests: ipPaths(ips, '/v1/ip/') },
      validate: validateIp('basic', 'free', listedIps),
      target: { kind: 'single', primary: false },
    },
    {
      id: 'ip-paid',
      name: 'GET /v1/ip/{ip}, business key (full)',
      server: 'service',
      ours: true,
      connections: CONNECTIONS,
      addresses: 1,
      spec: { port: 0, headers: paid, requests: ipPaths(ips, '/v1/ip/') },
      validate: validateIp('full', 'business', listedIps),
      target: { kind: 'single', primary: true },
    },
    {
      id: 'ip-free-many',
      name: `GET /v1/ip/{ip}?key=, ${MANY_ACCOUNTS} free accounts in turn (basic)`,
      server: 'service',
      ours: true,
      connections: CONNECTIONS,
      addresses: 1,
      spec: {
        port: 0,
        headers: {},
        requests: ipPaths(ips, '/v1/ip/').map((r, i) => ({ ...r, path: `${r.path}?key=${many[i % many.length] ?? ''}` })),
      },
      validate: validateIp('basic', 'free', listedIps),
    },
    {
      id: 'mac',
      name: 'GET /v1/mac/{mac}, business key (full)',
      server: 'service',
      ours: true,
      connections: CONNECTIONS,
      addresses: 1,
      spec: { port: 0, headers: paid, requests: macs.map((m) => ({ method: 'GET', path: `/v1/mac/${m}` })) },
      validate: validateMac,
      target: { kind: 'single', primary: false },
    },
    batch(100, CONNECTIONS),
    batch(1000, CONNECTIONS),
    batch(100, 1),
    batch(1000, 1),
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

/** The ceiling and the peer; the same requests (paths, X-API-Key header) as ours. */
export function peerCases({ ips }: HttpInputs, port: number): CaseDef[] {
  const headers = { 'X-API-Key': dummyKey };
  return [
    {
      id: 'bare',
      name: 'bare Koa, static ~600-byte JSON (ceiling)',
      server: 'bare',
      ours: false,
      connections: CONNECTIONS,
      addresses: 1,
      spec: { port, headers, requests: ipPaths(ips, '/ip/') },
      validate: validateBare,
    },
    {
      id: 'bare-full',
      name: 'bare Koa, static ~1.2 KB full record + quota headers (same-bytes ceiling)',
      server: 'bare',
      ours: false,
      connections: CONNECTIONS,
      addresses: 1,
      spec: { port, headers, requests: ipPaths(ips, '/full/') },
      validate: validateBareFull,
    },
    {
      id: 'maxmind',
      name: 'Koa + maxmind reader, GET /ip/{ip} (record as JSON)',
      server: 'maxmind',
      ours: false,
      connections: CONNECTIONS,
      addresses: 1,
      spec: { port, headers, requests: ipPaths(ips, '/ip/') },
      validate: validateMaxmind,
    },
  ];
}
