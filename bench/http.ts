/**
 * HTTP benchmark: our service against a bare Koa JSON handler (the ceiling) and Koa + the `maxmind`
 * reader (what a Node user would write instead), all in one run, loopback only, each server in its
 * own child process (pinned to CPU 0 when taskset exists), the load generator in its own process
 * (wrk, pinned to CPU 1; autocannon only if wrk is missing and autocannon is installed).
 *
 *   npm run bench:http              (node --import tsx bench/http.ts)
 *
 * Environment: BENCH_HTTP_DURATION (seconds per timed run, default 10), BENCH_HTTP_WARMUP (seconds
 * of a warm-up round, default 2; rounds are repeated, up to 5, until every input of the case has
 * been requested 3 times), BENCH_HTTP_CONNECTIONS (default 50), BENCH_SEED (default
 * 20260617), BENCH_HTTP_ONLY (comma-separated case ids), BENCH_HTTP_PROFILE (case ids to run once
 * more under `node --cpu-prof`, default bare,ip-paid,redis-ip-free-many; 0 to skip), BENCH_HTTP_PIN (0: no taskset),
 * BENCH_REDIS_URL (the Redis of the shared-store cases, default redis://127.0.0.1:6379; `none` skips
 * them; keys under a prefix of their own, removed at the end), BENCH_HTTP_PAIRS and
 * BENCH_HTTP_PAIR_SECONDS (the interleaved embedded/Redis runs the Redis target is judged on,
 * default 3 pairs of 5 s; 0 pairs skips them).
 * Writes bench/results/http.json and bench/results/http.md. See bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import maxmind, { type CityResponse } from 'maxmind';
import { ipv4Inputs, macInputs } from './inputs.js';
import { findLoadGenerator, which, type LoadGenerator, type LoadRequest, type LoadResult, type LoadSpec, type RunOptions } from './httpLoad.js';
import { profileMarkdown, summariseProfile, type ProfileSummary } from './httpProfile.js';
import { MMDB_IPV4, STATIC_FULL_RECORD, STATIC_RECORD } from './httpServers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const SERVERS = path.join(ROOT, 'bench', 'httpServers.ts');
const OUI_JSON = path.join(ROOT, 'node_modules', 'oui-data', 'index.json');

const env = process.env;
const DURATION = Number(env.BENCH_HTTP_DURATION ?? 10);
const WARMUP = Number(env.BENCH_HTTP_WARMUP ?? 2);
const WARMUP_PASSES = 3;
const WARMUP_MAX_ROUNDS = 5;
const CONNECTIONS = Number(env.BENCH_HTTP_CONNECTIONS ?? 50);
const SEED = Number(env.BENCH_SEED ?? 20260617);
const ONLY = env.BENCH_HTTP_ONLY ? new Set(env.BENCH_HTTP_ONLY.split(',').map((s) => s.trim())) : null;
/** cases run once more under `node --cpu-prof` (a fresh server child each); bare gives the baseline of node + Koa, the Redis case what the shared store adds */
const PROFILE_CASES: string[] =
  env.BENCH_HTTP_PROFILE === undefined ? ['bare', 'ip-paid', 'redis-ip-free-many'] : ['0', 'none', 'false', ''].includes(env.BENCH_HTTP_PROFILE) ? [] : env.BENCH_HTTP_PROFILE.split(',').map((s) => s.trim());
const PROFILE_INTERVAL_US = Number(env.BENCH_HTTP_PROFILE_INTERVAL ?? 500);
const PIN = env.BENCH_HTTP_PIN !== '0';
const IP_POOL = 10_000;
const MAC_POOL = 10_000;
const BATCH_BODIES = 32;
const TIMEOUT_S = 10;
/** Interleaved runs of the embedded and the Redis store (BENCH_HTTP_PAIRS pairs of PAIR_SECONDS each). */
const PAIRS = Number(env.BENCH_HTTP_PAIRS ?? 3);
const PAIR_SECONDS = Number(env.BENCH_HTTP_PAIR_SECONDS ?? 5);
const SAMPLE_CHECKS = 5;

const TARGETS = {
  singleVsCeiling: 0.8,
  singleP99Us: 10_000,
  batch1000P50Us: 10_000,
};

const runStarted = performance.now();
const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits;

// ---------------------------------------------------------------------------------------------
// Load generator, machine, pinning

const found = findLoadGenerator();
if ('missing' in found) {
  log(`bench:http skipped: ${found.missing}`);
  log('bench/results/http.json and http.md are left as they are.');
  process.exit(0);
}
const generator: LoadGenerator = found.generator;
const loadAverageAtStart = os.loadavg().map((l) => round(l, 2));
const cores = os.cpus().length;
const tasksetPath = which('taskset');
const pinning =
  PIN && tasksetPath && cores >= 2
    ? { taskset: tasksetPath, server_cpu: 0, generator_cpu: 1, bench_process_cpu: 1, note: 'servers on CPU 0; the load generator and this orchestrating process on CPU 1' }
    : {
        taskset: tasksetPath,
        server_cpu: null,
        generator_cpu: null,
        bench_process_cpu: null,
        note: !PIN ? 'pinning switched off (BENCH_HTTP_PIN=0)' : !tasksetPath ? 'no taskset: processes are not pinned' : `only ${cores} CPU: processes are not pinned`,
      };
if (pinning.bench_process_cpu !== null) {
  // All threads of this process (tsx's loader thread too) away from the server's CPU.
  const r = await run('taskset', ['-a', '-p', '-c', String(pinning.bench_process_cpu), String(process.pid)]);
  if (r.code !== 0) log(`could not pin this process: ${r.stderr.trim()}`);
}
log(`load generator: ${generator.version}; ${pinning.note}`);

// A shared machine makes every number here noisy: wait (up to BENCH_HTTP_QUIET_WAIT seconds) for the
// CPUs to be nearly idle, and record how busy they were.
const QUIET_WAIT_S = Number(env.BENCH_HTTP_QUIET_WAIT ?? 15);
const QUIET_BUSY = 0.15;
let busyBefore = await machineBusy(1000);
const quietStarted = performance.now();
while (busyBefore && busyBefore.some((b) => b > QUIET_BUSY) && performance.now() - quietStarted < QUIET_WAIT_S * 1000) {
  log(`machine busy (${busyBefore.map((b) => `${Math.round(b * 100)} %`).join(', ')} per CPU); waiting for it to quieten (at most ${QUIET_WAIT_S} s)`);
  busyBefore = await machineBusy(2000);
}
const quiet = { cpu_busy_before_start: busyBefore, waited_s: round((performance.now() - quietStarted) / 1000, 1), quiet: busyBefore ? busyBefore.every((b) => b <= QUIET_BUSY) : null };
if (quiet.quiet === false) log('the machine is still busy: other processes will share the CPUs and the numbers will be noisy (see others_on_server_cpu in the JSON)');

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// ---------------------------------------------------------------------------------------------
// Inputs: public IPv4 addresses the DB-IP database holds (so that every contender answers a record),
// MACs as in the engine bench, batch bodies drawn from the same pool.

const reader = await maxmind.open<CityResponse>(MMDB_IPV4);
const candidates = ipv4Inputs(IP_POOL * 2, SEED).texts;
const ips = candidates.filter((ip) => reader.get(ip) !== null).slice(0, IP_POOL);
if (ips.length < IP_POOL) throw new Error(`only ${ips.length} of ${candidates.length} candidates are in the mmdb`);
const ouiPrefixes = Object.keys(JSON.parse(fs.readFileSync(OUI_JSON, 'utf8')) as Record<string, string>);
const macs = macInputs(MAC_POOL, SEED + 2, ouiPrefixes);
function batchBodies(size: number): string[] {
  const bodies: string[] = [];
  for (let b = 0; b < BATCH_BODIES; b++) {
    const start = (b * size) % ips.length;
    const chosen: string[] = [];
    for (let k = 0; k < size; k++) chosen.push(ips[(start + k) % ips.length]);
    bodies.push(JSON.stringify({ ips: chosen }));
  }
  return bodies;
}
log(`inputs: ${ips.length} IPv4 addresses held by the mmdb (of ${candidates.length} drawn), ${macs.length} MACs, ${BATCH_BODIES} bodies per batch size`);

// ---------------------------------------------------------------------------------------------
// Child servers

interface Server {
  kind: string;
  child: ChildProcess;
  port: number;
  pid: number;
  /** the server's processes: the child, and its cluster workers */
  pids: number[];
  info: Record<string, unknown>;
  stderr: () => string;
}

type ServerKind = 'bare' | 'maxmind' | 'service' | 'workers';

/** Cluster workers are not pinned: they are there to use both CPUs (the load generator then floats too). */
const pinnedKind = (kind: ServerKind) => kind !== 'workers';

/**
 * taskset's CPU list for a server of `kind`, or for the load generator against it (`cpu`: its CPU
 * when pinned); null when nothing is pinned. The unpinned get every CPU explicitly: they would
 * otherwise inherit this process's own pinning to the generator's CPU.
 */
function cpuList(kind: ServerKind, cpu: number | null): string | null {
  if (cpu === null) return null;
  return pinnedKind(kind) ? String(cpu) : `0-${cores - 1}`;
}

function startServer(kind: ServerKind, extraEnv: Record<string, string>, nodeFlags: string[] = []): Promise<Server> {
  const args = [...nodeFlags, '--import', 'tsx', SERVERS, kind];
  const cpus = cpuList(kind, pinning.server_cpu);
  const [command, argv] = cpus === null ? [process.execPath, args] : ['taskset', ['-c', cpus, process.execPath, ...args]];
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d).slice(-8000)));
  return new Promise((resolve, reject) => {
    let out = '';
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start in 60 s: ${err}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (ready) return; // keep draining the pipe (pino's lines), nothing more to read
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('BENCH_READY '));
      if (!line) return;
      ready = true;
      clearTimeout(timer);
      const info = JSON.parse(line.slice('BENCH_READY '.length)) as { port: number; pid: number; worker_pids?: number[] } & Record<string, unknown>;
      out = '';
      resolve({ kind, child, port: info.port, pid: info.pid, pids: [info.pid, ...(info.worker_pids ?? [])], info, stderr: () => err });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited (${code}) before it was ready: ${err}`));
    });
  });
}

async function stopServer(server: Server): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

const running = new Set<Server>();
const cleanup = () => {
  for (const s of running) s.child.kill('SIGKILL');
};
process.once('SIGINT', () => {
  cleanup();
  process.exit(130);
});

// ---------------------------------------------------------------------------------------------
// CPU use during a run (Linux /proc): per CPU busy share, and the server process's CPU time.

function cpuTicks(): { busy: number; total: number }[] | null {
  try {
    return fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((l) => /^cpu\d+ /.test(l))
      .map((l) => {
        const v = l.split(/\s+/).slice(1).map(Number);
        const idle = v[3] + (v[4] ?? 0);
        const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
        return { busy: total - idle, total };
      });
  } catch {
    return null;
  }
}

function processTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

const CLOCK_TICKS = 100;

// ---------------------------------------------------------------------------------------------
// Cases

type Validator = (status: number, headers: Headers, body: unknown, request: LoadRequest) => string | null;

interface CaseDef {
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

interface CaseResult {
  id: string;
  name: string;
  server: string;
  ours: boolean;
  connections: number;
  addresses_per_request: number;
  req_per_s: number;
  addresses_per_s: number | null;
  latency_ms: { mean: number; p50: number; p75: number; p90: number; p99: number; p999: number; max: number };
  requests: number;
  duration_s: number;
  bytes_per_response: number;
  errors: LoadResult['errors'];
  error_total: number;
  warmup: { requests: number; req_per_s: number; errors: number } | null;
  /**
   * Shares of one CPU over the timed run: busy time of the server's and the generator's CPU (all
   * processes), the server process's own CPU time, and what other processes took on the server's CPU
   * (server CPU busy − server process: > 0.05 means the machine was not quiet).
   */
  cpu_busy: { server_cpu: number | null; generator_cpu: number | null; server_process: number | null; others_on_server_cpu: number | null };
  /**
   * Cores in use over the timed run (CPU time / wall time): the whole machine, the server's
   * processes (with its cluster workers), redis-server (shared-store cases), and the rest, which is
   * the load generator plus anything else running (an upper bound on the generator's share).
   */
  cores: { machine: number | null; server: number | null; redis_server: number | null; generator_and_others: number | null };
  vs_ceiling: number | null;
  vs_maxmind: number | null;
  /** batch only: addresses/s over Koa + maxmind's req/s (one lookup each) */
  lookups_vs_maxmind: number | null;
  samples_checked: number;
  target: { text: string; pass: boolean; primary: boolean; details: string } | null;
}

const dummyKey = `nlk_${'0'.repeat(40)}`;
const json = (body: unknown) => body as Record<string, unknown>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function jsonContentType(headers: Headers): string | null {
  return (headers.get('content-type') ?? '').startsWith('application/json') ? null : `content-type ${headers.get('content-type')}`;
}

const validateBare: Validator = (status, headers, body) =>
  status !== 200 ? `status ${status}` : jsonContentType(headers) ?? (JSON.stringify(body) === JSON.stringify(STATIC_RECORD) ? null : 'not the static record');

const validateBareFull: Validator = (status, headers, body) =>
  status !== 200
    ? `status ${status}`
    : jsonContentType(headers) ?? (JSON.stringify(body) !== JSON.stringify(STATIC_FULL_RECORD) ? 'not the static full record' : headers.get('x-quota-remaining') === null ? 'no quota headers' : null);

const validateMaxmind: Validator = (status, headers, body) => {
  if (status !== 200) return `status ${status}`;
  const b = json(body);
  return jsonContentType(headers) ?? (typeof b.country_code === 'string' && 'latitude' in b ? null : `not a DB-IP city record: ${JSON.stringify(body).slice(0, 200)}`);
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

function validateIp(level: 'basic' | 'full', plan: string): Validator {
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
  if (b.success !== true || typeof b.mac !== 'string' || typeof b.found !== 'boolean' || !('vendor' in b) || !('block' in b)) return `not a MAC record: ${JSON.stringify(body).slice(0, 200)}`;
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
    if (b.success !== true || b.count !== size || !Array.isArray(b.results) || b.results.length !== size) return `count ${String(b.count)}, results ${Array.isArray(b.results) ? b.results.length : 'none'} for ${size}`;
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

async function checkSamples(def: CaseDef, port: number): Promise<number> {
  const count = Math.min(SAMPLE_CHECKS, def.spec.requests.length);
  for (let i = 0; i < count; i++) {
    const request = def.spec.requests[i];
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, { method: request.method, headers: def.spec.headers, body: request.body });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${def.id}: ${request.method} ${request.path} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
    }
    const problem = def.validate(response.status, response.headers, body, request);
    if (problem) throw new Error(`${def.id}: ${request.method} ${request.path} → ${problem}`);
  }
  return count;
}

/**
 * Steady state, for every server alike: each input requested WARMUP_PASSES times (our service makes
 * a range's JSON template at its second request), in rounds of WARMUP seconds; null when WARMUP is 0.
 */
async function warmUp(def: CaseDef, prepared: unknown, options: Omit<RunOptions, 'seconds'>): Promise<CaseResult['warmup']> {
  if (WARMUP <= 0) return null;
  const wanted = WARMUP_PASSES * def.spec.requests.length;
  let requests = 0;
  let seconds = 0;
  let errors = 0;
  for (let rounds = 0; rounds < WARMUP_MAX_ROUNDS && (rounds === 0 || requests < wanted); rounds++) {
    const w = await generator.run(prepared, { ...options, seconds: WARMUP });
    requests += w.requests;
    seconds += WARMUP;
    errors += totalErrors(w);
  }
  return { requests, req_per_s: round(requests / seconds), errors };
}

async function measure(def: CaseDef, server: Server, prepared: unknown): Promise<Omit<CaseResult, 'vs_ceiling' | 'vs_maxmind' | 'lookups_vs_maxmind' | 'target'> & { window: LoadResult }> {
  const samples = await checkSamples(def, server.port);
  const options = { connections: def.connections, timeoutSeconds: TIMEOUT_S, cpu: cpuList(def.server, pinning.generator_cpu) };
  const warmup = await warmUp(def, prepared, options);
  const cpuBefore = cpuTicks();
  const procBefore = ticksOf(server.pids);
  const redisBefore = redisPid === null ? null : processTicks(redisPid);
  const r = await generator.run(prepared, { ...options, seconds: DURATION });
  const cpuAfter = cpuTicks();
  const procAfter = ticksOf(server.pids);
  const redisAfter = redisPid === null ? null : processTicks(redisPid);
  const share = (cpu: number | null) => {
    if (cpu === null || !cpuBefore || !cpuAfter || !cpuBefore[cpu] || !cpuAfter[cpu]) return null;
    const total = cpuAfter[cpu].total - cpuBefore[cpu].total;
    return total > 0 ? round((cpuAfter[cpu].busy - cpuBefore[cpu].busy) / total, 3) : null;
  };
  const wallS = Number(r.ended_ns - r.started_ns) / 1e9;
  const ms = (us: number) => round(us / 1000, 3);
  const result = {
    id: def.id,
    name: def.name,
    server: def.server,
    ours: def.ours,
    connections: def.connections,
    addresses_per_request: def.addresses,
    req_per_s: round(r.req_per_s, 1),
    addresses_per_s: def.addresses > 1 ? round(r.req_per_s * def.addresses) : null,
    latency_ms: { mean: ms(r.latency_us.mean), p50: ms(r.latency_us.p50), p75: ms(r.latency_us.p75), p90: ms(r.latency_us.p90), p99: ms(r.latency_us.p99), p999: ms(r.latency_us.p999), max: ms(r.latency_us.max) },
    requests: r.requests,
    duration_s: round(r.duration_s, 3),
    bytes_per_response: r.requests > 0 ? round(r.bytes / r.requests) : 0,
    errors: r.errors,
    error_total: totalErrors(r),
    warmup,
    cpu_busy: cpuBusy(
      pinnedKind(def.server) ? share(pinning.server_cpu) : null,
      pinnedKind(def.server) ? share(pinning.generator_cpu) : null,
      procBefore !== null && procAfter !== null ? round((procAfter - procBefore) / CLOCK_TICKS / wallS, 3) : null,
    ),
    cores: coresUsed(
      cpuBefore && cpuAfter ? cpuAfter.reduce((sum, a, i) => sum + (a.busy - cpuBefore[i].busy), 0) / CLOCK_TICKS / wallS : null,
      procBefore !== null && procAfter !== null ? (procAfter - procBefore) / CLOCK_TICKS / wallS : null,
      redisBefore !== null && redisAfter !== null ? (redisAfter - redisBefore) / CLOCK_TICKS / wallS : null,
    ),
    samples_checked: samples,
    window: r,
  };
  log(
    `  ${def.id.padEnd(14)} ${fmtRate(result.req_per_s).padStart(8)} req/s  p50 ${result.latency_ms.p50.toFixed(2)} ms  p99 ${result.latency_ms.p99.toFixed(2)} ms  ` +
      `errors ${result.error_total}  server CPU ${result.cpu_busy.server_process === null ? '?' : `${Math.round(result.cpu_busy.server_process * 100)} %`}` +
      (result.cpu_busy.others_on_server_cpu !== null && result.cpu_busy.others_on_server_cpu > 0.05 ? ` (others took ${Math.round(result.cpu_busy.others_on_server_cpu * 100)} % of its CPU)` : '') +
      (result.addresses_per_s ? `  ${fmtRate(result.addresses_per_s)} addresses/s` : ''),
  );
  return result;
}

function coresUsed(machine: number | null, server: number | null, redis: number | null): CaseResult['cores'] {
  const rest = machine !== null && server !== null ? Math.max(0, machine - server - (redis ?? 0)) : null;
  const r2 = (n: number | null) => (n === null ? null : round(n, 2));
  return { machine: r2(machine), server: r2(server), redis_server: r2(redis), generator_and_others: r2(rest) };
}

function ticksOf(pids: number[]): number | null {
  let sum = 0;
  for (const pid of pids) {
    const ticks = processTicks(pid);
    if (ticks === null) return null;
    sum += ticks;
  }
  return sum;
}

function cpuBusy(serverCpu: number | null, generatorCpu: number | null, serverProcess: number | null): CaseResult['cpu_busy'] {
  const others = serverCpu !== null && serverProcess !== null ? round(Math.max(0, serverCpu - serverProcess), 3) : null;
  return { server_cpu: serverCpu, generator_cpu: generatorCpu, server_process: serverProcess, others_on_server_cpu: others };
}

/** Busy share of each CPU over `ms` (Linux), to tell a quiet machine from a shared one. */
async function machineBusy(ms: number): Promise<number[] | null> {
  const before = cpuTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = cpuTicks();
  if (!before || !after) return null;
  return after.map((a, i) => round((a.busy - before[i].busy) / Math.max(1, a.total - before[i].total), 3));
}

function totalErrors(r: LoadResult): number {
  const e = r.errors;
  return e.connect + e.read + e.write + e.timeout + e.non_2xx_3xx;
}

function fmtRate(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return n.toFixed(1);
}

// ---------------------------------------------------------------------------------------------
// The run

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-http-bench-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const adminToken = crypto.randomBytes(16).toString('hex');
const hugePlans = {
  free: { name: 'Free (bench)', price_eur_month: 0, quota: { period: 'day', per_api: { ip: 1e12, blacklist: 1e12, mac: 1e12 } }, rate_limit_per_second: 1_000_000, max_batch: 0, max_keys: 1, field_level: 'basic' },
  starter: { name: 'Starter (bench)', price_eur_month: 9, quota: { period: 'month', pooled: 1e12 }, rate_limit_per_second: 1_000_000, max_batch: 100, max_keys: 3, field_level: 'full' },
  pro: { name: 'Pro (bench)', price_eur_month: 29, quota: { period: 'month', pooled: 1e12 }, rate_limit_per_second: 1_000_000, max_batch: 100, max_keys: 5, field_level: 'full' },
  business: { name: 'Business (bench)', price_eur_month: 79, quota: { period: 'month', pooled: 1e12 }, rate_limit_per_second: 1_000_000, max_batch: 1000, max_keys: 10, field_level: 'full' },
};
const plansFile = path.join(tmp, 'plans.json');
fs.writeFileSync(plansFile, JSON.stringify(hugePlans, null, 2));
const serviceEnv = {
  NETLOOKUP_DATA_DIR: path.join(tmp, 'data'),
  NETLOOKUP_PLANS: plansFile,
  NETLOOKUP_ADMIN_TOKEN: adminToken,
  NETLOOKUP_REPORTS_PER_MINUTE: '1000000',
  LOG_LEVEL: 'info',
};

/**
 * Every LISTED_EVERY-th address of the pool is reported (by the business account) before the cases
 * run, so that paid lookups meet listed addresses as well as the many that are not: their validator
 * checks `security.is_threat` against this set on every answer.
 */
const LISTED_EVERY = 100;
const listedIps = new Set(ips.filter((_, i) => i % LISTED_EVERY === 0));

/** The shared-store cases' Redis (`none`: skipped) and its server's pid while they run (for its CPU time). */
const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
let redisPid: number | null = null;

const ipPaths = (prefix: string): LoadRequest[] => ips.map((ip) => ({ method: 'GET', path: `${prefix}${ip}` }));
const wanted = (id: string) => ONLY === null || ONLY.has(id);

const results: CaseResult[] = [];
const windows = new Map<string, LoadResult>();
const servers: Record<string, Record<string, unknown>> = {};
const checks: Record<string, unknown> = {};
type ProfileResult = ProfileSummary & { case: string; req_per_s_under_profiler: number; req_per_s_without: number | null; profile_copy: string };
const profiles: ProfileResult[] = [];

async function runCases(server: Server, defs: CaseDef[]): Promise<void> {
  for (const def of defs) {
    if (!wanted(def.id)) continue;
    const prepared = generator.prepare(def.spec, tmp, def.id);
    const { window, ...result } = await measure(def, server, prepared);
    windows.set(def.id, window);
    results.push({ ...result, vs_ceiling: null, vs_maxmind: null, lookups_vs_maxmind: null, target: null });
  }
}

/** One more run of a case, in a fresh server child under `node --cpu-prof`, summarised into `profiles`. */
async function profileCase(def: CaseDef, extraEnv?: Record<string, string>): Promise<void> {
  log(`profile: ${def.id} under node --cpu-prof (${PROFILE_INTERVAL_US} µs sampling)`);
  const profDir = path.join(tmp, `profile-${def.id}`);
  let window = null as LoadResult | null;
  const code = await withServer(
    def.server,
    async (s) => {
      const d = { ...def, spec: { ...def.spec, port: s.port } };
      window = (await measure(d, s, generator.prepare(d.spec, tmp, `${d.id}-profile`))).window;
    },
    ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`],
    extraEnv,
  );
  const files = fs.existsSync(profDir) ? fs.readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')) : [];
  if (files.length === 0 || window === null) {
    log(`  no profile written (server exit ${code})`);
    return;
  }
  // The main thread's profile is the big one (tsx's loader thread writes a small one too).
  const largest = files.map((f) => path.join(profDir, f)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  const w: LoadResult = window;
  const summary = summariseProfile(largest, { startNs: w.started_ns, endNs: w.ended_ns }, w.requests);
  const copy = path.join(os.tmpdir(), `netlookup-http-${def.id}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
  fs.copyFileSync(largest, copy);
  const without = results.find((r) => r.id === def.id)?.req_per_s ?? null;
  profiles.push({ case: def.id, req_per_s_under_profiler: round(w.req_per_s, 1), req_per_s_without: without, profile_copy: copy, ...summary });
  log(`  busy ${summary.busy_us_per_request} µs per request under the profiler; profile kept at ${copy}`);
}

/** What the interleaved runs gave: the embedded and the Redis store's rate in each pair, and their ratios. */
interface InterleavedPairs {
  lookup: string;
  seconds_per_run: number;
  embedded_req_per_s: number[];
  redis_req_per_s: number[];
  ratios: number[];
  median_ratio: number;
}
const interleaved: InterleavedPairs[] = [];

/**
 * The same lookup on both stores, both servers running, in alternating short runs (E R, R E, E R…):
 * on a machine whose pace changes by tens of percent within a minute, each pair's ratio compares two
 * runs seconds apart, and the median of the pairs is what the 25 % target is judged on.
 */
async function interleave(embedded: CaseDef, redis: CaseDef): Promise<void> {
  const prepared = [embedded, redis].map((d) => generator.prepare(d.spec, tmp, `${d.id}-pairs`));
  const options = { connections: embedded.connections, timeoutSeconds: TIMEOUT_S, cpu: cpuList(embedded.server, pinning.generator_cpu) };
  for (const [i, d] of [embedded, redis].entries()) {
    await checkSamples(d, d.spec.port);
    await warmUp(d, prepared[i], options);
  }
  const rates: [number[], number[]] = [[], []];
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const i of pair % 2 === 0 ? [0, 1] : [1, 0]) {
      const r = await generator.run(prepared[i], { ...options, seconds: PAIR_SECONDS });
      if (totalErrors(r) > 0) throw new Error(`interleaved ${[embedded, redis][i].id}: ${totalErrors(r)} errors`);
      rates[i].push(round(r.req_per_s, 1));
    }
  }
  const ratios = rates[1].map((r, pair) => round(r / rates[0][pair], 3));
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  interleaved.push({ lookup: embedded.id, seconds_per_run: PAIR_SECONDS, embedded_req_per_s: rates[0], redis_req_per_s: rates[1], ratios, median_ratio: median });
  log(`  ${embedded.id}: Redis / embedded per pair ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median.toFixed(2)})`);
}

async function withServer(
  kind: ServerKind,
  body: (server: Server) => Promise<void>,
  nodeFlags: string[] = [],
  extraEnv: Record<string, string> = kind === 'bare' || kind === 'maxmind' ? {} : serviceEnv,
  label: string = kind,
): Promise<number | null> {
  const server = await startServer(kind, extraEnv, nodeFlags);
  running.add(server);
  servers[label] ??= server.info;
  try {
    await body(server);
  } finally {
    running.delete(server);
  }
  return stopServer(server);
}

async function post(port: number, pathName: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${pathName}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function get(port: number, pathName: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${pathName}`, { headers });
  return { status: response.status, text: await response.text() };
}

/** The accounts of a bench run: one free, one business, and MANY_ACCOUNTS free ones. */
interface BenchKeys {
  free: string;
  paid: string;
  many: string[];
}

/** Case lists before the accounts exist (ids only). */
const NO_KEYS: BenchKeys = { free: '', paid: '', many: [] };

/** Accounts of the many-accounts case: requests spread over them, each account's rate far below one batch per turn. */
const MANY_ACCOUNTS = 200;

function serviceCases({ free: freeKey, paid: paidKey, many }: BenchKeys): CaseDef[] {
  const paid = { 'X-API-Key': paidKey };
  const post = { 'X-API-Key': paidKey, 'Content-Type': 'application/json' };
  const batch = (size: number, connections: number): CaseDef => ({
    id: `batch-${size}${connections === 1 ? '-c1' : ''}`,
    name: `POST /v1/ip/batch, ${size} addresses, full (business)${connections === 1 ? ', 1 connection' : ''}`,
    server: 'service',
    ours: true,
    connections,
    addresses: size,
    spec: { port: 0, headers: post, requests: batchBodies(size).map((body) => ({ method: 'POST', path: '/v1/ip/batch', body })) },
    validate: validateBatch(size),
    target: size === 1000 && connections === 1 ? { kind: 'batch-p50', primary: true } : undefined,
  });
  return [
    { id: 'ip-free', name: 'GET /v1/ip/{ip}, free key (basic)', server: 'service', ours: true, connections: CONNECTIONS, addresses: 1, spec: { port: 0, headers: { 'X-API-Key': freeKey }, requests: ipPaths('/v1/ip/') }, validate: validateIp('basic', 'free'), target: { kind: 'single', primary: false } },
    { id: 'ip-paid', name: 'GET /v1/ip/{ip}, business key (full)', server: 'service', ours: true, connections: CONNECTIONS, addresses: 1, spec: { port: 0, headers: paid, requests: ipPaths('/v1/ip/') }, validate: validateIp('full', 'business'), target: { kind: 'single', primary: true } },
    {
      id: 'ip-free-many',
      name: `GET /v1/ip/{ip}?key=, ${MANY_ACCOUNTS} free accounts in turn (basic)`,
      server: 'service',
      ours: true,
      connections: CONNECTIONS,
      addresses: 1,
      spec: { port: 0, headers: {}, requests: ipPaths('/v1/ip/').map((r, i) => ({ ...r, path: `${r.path}?key=${many[i % many.length] ?? ''}` })) },
      validate: validateIp('basic', 'free'),
    },
    { id: 'mac', name: 'GET /v1/mac/{mac}, business key (full)', server: 'service', ours: true, connections: CONNECTIONS, addresses: 1, spec: { port: 0, headers: paid, requests: macs.map((m) => ({ method: 'GET', path: `/v1/mac/${m}` })) }, validate: validateMac, target: { kind: 'single', primary: false } },
    batch(100, CONNECTIONS),
    batch(1000, CONNECTIONS),
    batch(100, 1),
    batch(1000, 1),
  ];
}

/** Single lookups on the Redis store: in one process (`redis-…`, pinned as the others) or in two cluster workers (`redis2-…`, unpinned). */
function redisCases(keys: BenchKeys, workers: 1 | 2): CaseDef[] {
  return serviceCases(keys)
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
async function benchKeys(port: number): Promise<BenchKeys> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const free = await post(port, '/admin/accounts', { plan: 'free' }, auth);
  const business = await post(port, '/admin/accounts', { plan: 'business' }, auth);
  if (free.status !== 201 || business.status !== 201) throw new Error(`admin API: ${free.status} ${JSON.stringify(free.body)} / ${business.status} ${JSON.stringify(business.body)}`);
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
function peerCases(port: number): CaseDef[] {
  const headers = { 'X-API-Key': dummyKey };
  return [
    { id: 'bare', name: 'bare Koa, static ~600-byte JSON (ceiling)', server: 'bare', ours: false, connections: CONNECTIONS, addresses: 1, spec: { port, headers, requests: ipPaths('/ip/') }, validate: validateBare },
    { id: 'bare-full', name: 'bare Koa, static ~1.2 KB full record + quota headers (same-bytes ceiling)', server: 'bare', ours: false, connections: CONNECTIONS, addresses: 1, spec: { port, headers, requests: ipPaths('/full/') }, validate: validateBareFull },
    { id: 'maxmind', name: 'Koa + maxmind reader, GET /ip/{ip} (record as JSON)', server: 'maxmind', ours: false, connections: CONNECTIONS, addresses: 1, spec: { port, headers, requests: ipPaths('/ip/') }, validate: validateMaxmind },
  ];
}

try {
  // 1. The ceiling, 2. the peer
  for (const def of peerCases(0)) {
    if (!wanted(def.id)) continue;
    log(def.name);
    await withServer(def.server, (s) => runCases(s, [{ ...def, spec: { ...def.spec, port: s.port } }]));
  }
  // 3–5. Ours
  let keys = null as BenchKeys | null;
  const serviceWanted = serviceCases(NO_KEYS).some((d) => wanted(d.id) || PROFILE_CASES.includes(d.id));
  if (serviceWanted) {
    log('our service (startService, SQLite store, huge quotas)');
    await withServer('service', async (s) => {
      keys = await benchKeys(s.port);
      // Every address of the pool, through the batch endpoint: what kind of record each gets.
      const kinds = { found: 0, not_found: 0, reserved: 0 };
      for (let i = 0; i < ips.length; i += 1000) {
        const r = await post(s.port, '/v1/ip/batch', { ips: ips.slice(i, i + 1000) }, { 'X-API-Key': keys.paid });
        if (r.status !== 200) throw new Error(`pool check: batch answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
        for (const record of r.body.results as Record<string, unknown>[]) {
          if (record.reserved === true) kinds.reserved++;
          else if (record.found === false) kinds.not_found++;
          else kinds.found++;
        }
      }
      checks.ip_pool_records = kinds;
      log(`  pool: ${kinds.found} found, ${kinds.not_found} not found, ${kinds.reserved} reserved`);
      const defs = serviceCases(keys).map((d) => ({ ...d, spec: { ...d.spec, port: s.port } }));
      await runCases(s, defs);
      // What the service itself counted: every timed request should be a 200.
      const metrics = await get(s.port, '/metrics');
      const statuses: Record<string, Record<string, number>> = {};
      for (const line of metrics.text.split('\n')) {
        const m = /^netlookup_requests_total\{endpoint="([^"]*)",status="(\d+)"\} (\d+)/.exec(line) ?? /^netlookup_requests_total\{status="(\d+)",endpoint="([^"]*)"\} (\d+)/.exec(line);
        if (!m) continue;
        const [endpoint, status] = line.indexOf('endpoint=') < line.indexOf('status=') ? [m[1], m[2]] : [m[2], m[1]];
        (statuses[endpoint] ??= {})[status] = Number(m[3]);
      }
      checks.service_requests_by_endpoint_and_status = statuses;
      const usage = async (key: string) => JSON.parse((await get(s.port, '/v1/usage', { 'X-API-Key': key })).text) as unknown;
      checks.usage_after_run = { free: await usage(keys.free), business: await usage(keys.paid) };
      if (s.stderr().trim()) checks.service_stderr = s.stderr().slice(-2000);
    });
  }
  // 6. Ours on the shared store: one process, then two cluster workers, on one Redis.
  const redisWanted = [1, 2].some((w) => redisCases(NO_KEYS, w as 1 | 2).some((d) => wanted(d.id) || PROFILE_CASES.includes(d.id)));
  if (redisWanted && REDIS_URL === 'none') log('BENCH_REDIS_URL=none: the Redis cases are skipped');
  if (redisWanted && REDIS_URL !== 'none') {
    const prefix = `nlbench:${crypto.randomBytes(4).toString('hex')}:`;
    const redisEnv = { ...serviceEnv, REDIS_URL, NETLOOKUP_REDIS_PREFIX: prefix };
    const client = new Redis(REDIS_URL);
    try {
      const info = await client.info('server');
      redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]) || null;
      checks.redis_server = { version: /redis_version:(\S+)/.exec(info)?.[1] ?? null, pid_seen: redisPid !== null, note: 'redis-server is not pinned; its CPU time is counted in cores.redis_server when its pid is visible' };
      let redisKeys = null as BenchKeys | null;
      log('our service on Redis (REDIS_URL), 1 process');
      await withServer(
        'service',
        async (s) => {
          const k = await benchKeys(s.port);
          redisKeys = k;
          await runCases(s, redisCases(k, 1).map((d) => ({ ...d, spec: { ...d.spec, port: s.port } })));
          const embeddedKeys = keys;
          const paired = embeddedKeys === null || PAIRS <= 0 ? [] : serviceCases(embeddedKeys).filter((d) => wanted(d.id) && wanted(`redis-${d.id}`) && redisCases(NO_KEYS, 1).some((r) => r.id === `redis-${d.id}`));
          if (paired.length === 0) return;
          log(`interleaved: the embedded store (started again beside) and the Redis store, ${PAIRS} pairs of ${PAIR_SECONDS} s per lookup`);
          await withServer('service', async (e) => {
            for (const d of paired) {
              const redisDef = redisCases(k, 1).find((r) => r.id === `redis-${d.id}`)!;
              await interleave({ ...d, spec: { ...d.spec, port: e.port } }, { ...redisDef, spec: { ...redisDef.spec, port: s.port } });
            }
          });
        },
        [],
        redisEnv,
        'service-redis',
      );
      if (redisCases(NO_KEYS, 2).some((d) => wanted(d.id))) {
        log('our service on Redis, 2 cluster workers (servers and load generator unpinned)');
        await withServer(
          'workers',
          async (s) => {
            const k = redisKeys ?? (await benchKeys(s.port));
            await runCases(s, redisCases(k, 2).map((d) => ({ ...d, spec: { ...d.spec, port: s.port } })));
          },
          [],
          { ...redisEnv, BENCH_WORKERS: '2' },
          'workers-redis',
        );
      }
      // Profiled in a fresh process on the same Redis, so that the accounts made above still answer.
      for (const def of redisKeys === null ? [] : redisCases(redisKeys, 1)) {
        if (PROFILE_CASES.includes(def.id)) await profileCase(def, redisEnv);
      }
    } finally {
      redisPid = null;
      let cursor = '0';
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (found.length > 0) await client.unlink(...found);
      } while (cursor !== '0');
      client.disconnect();
    }
  }
  // The profiles of the other cases (the Redis ones are profiled above, while their keys exist).
  for (const id of PROFILE_CASES) {
    if (redisCases(NO_KEYS, 1).some((d) => d.id === id)) continue;
    const def = peerCases(0).some((d) => d.id === id) ? peerCases(0).find((d) => d.id === id) : keys ? serviceCases(keys).find((d) => d.id === id) : undefined;
    if (!def) {
      log(`BENCH_HTTP_PROFILE: no case ${id}${keys ? '' : ' (or the service was not started)'}; skipped`);
      continue;
    }
    await profileCase(def);
  }
} finally {
  cleanup();
}

// ---------------------------------------------------------------------------------------------
// Ratios, targets, report

profiles.sort((a, b) => PROFILE_CASES.indexOf(a.case) - PROFILE_CASES.indexOf(b.case));
const ceiling = results.find((r) => r.id === 'bare');
const peer = results.find((r) => r.id === 'maxmind');
const defsById = new Map(serviceCases(NO_KEYS).map((d) => [d.id, d]));
for (const r of results) {
  r.vs_ceiling = ceiling && r.id !== 'bare' ? round(r.req_per_s / ceiling.req_per_s, 3) : null;
  r.vs_maxmind = peer && r.id !== 'maxmind' && r.addresses_per_request === 1 ? round(r.req_per_s / peer.req_per_s, 3) : null;
  r.lookups_vs_maxmind = peer && r.addresses_per_s !== null ? round(r.addresses_per_s / peer.req_per_s, 2) : null;
  const target = defsById.get(r.id)?.target;
  if (target?.kind === 'single') {
    const ratioOk = r.vs_ceiling !== null && r.vs_ceiling >= TARGETS.singleVsCeiling;
    const p99Ok = r.latency_ms.p99 * 1000 <= TARGETS.singleP99Us;
    r.target = {
      text: `≥ ${TARGETS.singleVsCeiling * 100}% of bare Koa, p99 ≤ ${TARGETS.singleP99Us / 1000} ms`,
      pass: ratioOk && p99Ok && r.error_total === 0,
      primary: target.primary,
      details: `${r.vs_ceiling === null ? 'no ceiling measured' : `${(r.vs_ceiling * 100).toFixed(1)}% of ceiling ${ratioOk ? 'ok' : 'short'}`}, p99 ${r.latency_ms.p99.toFixed(2)} ms ${p99Ok ? 'ok' : 'over'}` +
        (r.vs_maxmind === null ? '' : `, ${r.vs_maxmind.toFixed(2)}× Koa+maxmind (the 80% target implies ≥ ${peer && ceiling ? (0.8 * ceiling.req_per_s / peer.req_per_s).toFixed(2) : '?'}×)`),
    };
  } else if (target?.kind === 'batch-p50') {
    const ok = r.latency_ms.p50 * 1000 <= TARGETS.batch1000P50Us;
    r.target = { text: `p50 ≤ ${TARGETS.batch1000P50Us / 1000} ms`, pass: ok && r.error_total === 0, primary: true, details: `p50 ${r.latency_ms.p50.toFixed(2)} ms ${ok ? 'ok' : 'over'}` };
  }
}

// The shared store against the embedded one: the same lookup, and the scaling from 1 to 2 workers.
const byId = new Map(results.map((r) => [r.id, r]));
const sharedStore = ['ip-free', 'ip-paid', 'ip-free-many'].flatMap((lookup) => {
  const embedded = byId.get(lookup);
  const pairs = interleaved.find((p) => p.lookup === lookup) ?? null;
  return [`redis-${lookup}`, `redis2-${lookup}`].flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    const one = byId.get(`redis-${lookup}`);
    const single = !id.startsWith('redis2');
    return [{
      case: id,
      lookup,
      workers: single ? 1 : 2,
      req_per_s: r.req_per_s,
      p99_ms: r.latency_ms.p99,
      /** against the embedded store's run of the same case, minutes earlier in this run */
      vs_embedded: embedded ? round(r.req_per_s / embedded.req_per_s, 3) : null,
      /** the interleaved pairs' ratios (one process only) */
      interleaved_ratios: single && pairs ? pairs.ratios : null,
      vs_ceiling: r.vs_ceiling,
      scaling_vs_1_worker: !single && one ? round(r.req_per_s / one.req_per_s, 2) : null,
      cores: r.cores,
      // judged on the interleaved pairs' median when they ran, else on the two runs minutes apart
      target: single ? { text: 'within 25% of the embedded store (≥ 0.75×)', basis: pairs ? 'interleaved median' : 'runs apart', pass: pairs ? pairs.median_ratio >= 0.75 : embedded ? r.req_per_s / embedded.req_per_s >= 0.75 : null } : null,
    }];
  });
});

const errorsTotal = results.reduce((sum, r) => sum + r.error_total, 0);
const statusCounts = checks.service_requests_by_endpoint_and_status as Record<string, Record<string, number>> | undefined;
const serviceNon200 = statusCounts
  ? Object.entries(statusCounts)
      .filter(([endpoint]) => endpoint.startsWith('/v1'))
      // the listed addresses' reports, made before the cases, are answered 201
      .reduce((sum, [endpoint, byStatus]) => sum + Object.entries(byStatus).filter(([s]) => s !== '200' && !(s === '201' && endpoint.includes('report'))).reduce((a, [, n]) => a + n, 0), 0)
  : null;
checks.service_non_200_v1_responses = serviceNon200;
checks.load_generator_errors_total = errorsTotal;

const loadAverageAtEnd = os.loadavg().map((l) => round(l, 2));
const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores,
  os: `${os.type()} ${os.release()} ${os.arch()}`,
  memory_gb: round(os.totalmem() / 2 ** 30, 1),
  node: process.version,
  v8: process.versions.v8,
  load_average_start: loadAverageAtStart,
  load_average_end: loadAverageAtEnd,
  ...quiet,
};
const date = new Date().toISOString();
const report = {
  date,
  machine,
  settings: {
    duration_s: DURATION,
    warmup_s: WARMUP,
    connections: CONNECTIONS,
    seed: SEED,
    ip_pool: ips.length,
    ip_pool_listed: listedIps.size,
    mac_pool: macs.length,
    batch_bodies_per_size: BATCH_BODIES,
    timeout_s: TIMEOUT_S,
    only: ONLY ? [...ONLY] : null,
    plans: 'every quota 1e12 and every rate limit 1,000,000/s, so that metering runs on every request and never refuses',
    server_command: 'node --import tsx bench/httpServers.ts <bare|maxmind|service> (NODE_ENV=production, LOG_LEVEL=info)',
    service_code: env.BENCH_HTTP_SERVICE !== 'src' ? 'dist/ (compiled by tsc, as npm start)' : 'src/ through tsx (BENCH_HTTP_SERVICE=src)',
  },
  load_generator: { name: generator.name, version: generator.version, threads: 1, how: generator.description },
  pinning,
  servers,
  cases: results,
  shared_store: sharedStore,
  shared_store_interleaved: interleaved,
  checks,
  targets: results.filter((r) => r.target).map((r) => ({ case: r.id, ...r.target! })),
  profiles,
  run_seconds: round((performance.now() - runStarted) / 1000, 1),
};
fs.mkdirSync(RESULTS, { recursive: true });
fs.writeFileSync(path.join(RESULTS, 'http.json'), JSON.stringify(report, null, 2) + '\n');

function fmtMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}
function fmtRatio(r: number | null): string {
  return r === null ? '' : `${r.toFixed(2)}×`;
}
function verdict(r: CaseResult): string {
  if (!r.target) return '';
  const mark = r.target.pass ? 'PASS' : 'FAIL';
  return r.target.primary ? `**${mark}** (${r.target.text})` : `(${mark.toLowerCase()}: ${r.target.text})`;
}
const HEAD = ['case', 'conns', 'req/s', 'addresses/s', 'p50', 'p99', 'bytes/resp', 'errors', 'server CPU', 'vs bare Koa', 'vs Koa+maxmind', 'target'];
const rows = results.map((r) => [
  `${r.ours ? '★ ' : ''}${r.name}`,
  String(r.connections),
  fmtRate(r.req_per_s),
  r.addresses_per_s === null ? '' : fmtRate(r.addresses_per_s),
  fmtMs(r.latency_ms.p50),
  fmtMs(r.latency_ms.p99),
  String(r.bytes_per_response),
  String(r.error_total),
  r.cpu_busy.server_process === null
    ? ''
    : `${Math.round(r.cpu_busy.server_process * 100)} %` + (r.cpu_busy.others_on_server_cpu !== null && r.cpu_busy.others_on_server_cpu > 0.05 ? ` (+${Math.round(r.cpu_busy.others_on_server_cpu * 100)} % others)` : ''),
  r.id === 'bare' ? '1 (ceiling)' : r.addresses_per_request > 1 ? '' : fmtRatio(r.vs_ceiling),
  r.id === 'maxmind' ? '1 (peer)' : r.lookups_vs_maxmind !== null ? `${r.lookups_vs_maxmind.toFixed(1)}× (lookups/s)` : fmtRatio(r.vs_maxmind),
  verdict(r),
]);
const esc = (s: string) => s.replace(/\|/g, '\\|');
const ratioLine =
  ceiling && peer ? `Koa + maxmind runs at ${((peer.req_per_s / ceiling.req_per_s) * 100).toFixed(0)}% of the bare-Koa ceiling here, so 80% of the ceiling is ${((0.8 * ceiling.req_per_s) / peer.req_per_s).toFixed(2)}× the peer.` : '';
const fullCeiling = results.find((r) => r.id === 'bare-full');
const paid = results.find((r) => r.id === 'ip-paid');
const sameBytesLine =
  fullCeiling && paid && ceiling
    ? `Bare Koa answering a static full record with the quota headers (${fullCeiling.bytes_per_response} bytes) runs at ${((fullCeiling.req_per_s / ceiling.req_per_s) * 100).toFixed(0)}% of the ~600-byte ceiling: ` +
      `that is what the bigger answer costs Node and Koa alone; our paid lookup (${paid.bytes_per_response} bytes on average) runs at ${((paid.req_per_s / fullCeiling.req_per_s) * 100).toFixed(0)}% of it.`
    : '';
const pool = checks.ip_pool_records as { found: number; not_found: number; reserved: number } | undefined;
const md = [
  `### HTTP benchmark — ${date.slice(0, 10)}, ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`,
  '',
  `${generator.version} (1 thread, ${CONNECTIONS} connections unless noted), warm-up in rounds of ${WARMUP} s until each input was requested ${WARMUP_PASSES} times (at most ${WARMUP_MAX_ROUNDS} rounds), then ${DURATION} s per case, loopback; ${pinning.note}; ` +
    `our service from ${env.BENCH_HTTP_SERVICE !== 'src' ? 'dist/ (as npm start runs it)' : 'src/ through tsx'}. ` +
    `Load average ${machine.load_average_start.join(' / ')} at start, ${machine.load_average_end.join(' / ')} at end` +
    (quiet.cpu_busy_before_start ? `; CPUs ${quiet.cpu_busy_before_start.map((b) => `${Math.round(b * 100)} %`).join(' / ')} busy just before the first case${quiet.quiet ? '' : ' (not quiet: other processes were running)'}` : '') +
    '.',
  '',
  `| ${HEAD.join(' | ')} |`,
  `|${HEAD.map((_, i) => (i >= 1 && i <= 10 ? '---:' : '---')).join('|')}|`,
  ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  '',
  `★ = ours. Requests rotate over ${ips.length} seeded public IPv4 addresses that the DB-IP mmdb holds` +
    (pool ? ` (our tables: ${pool.found} found, ${pool.not_found} not found, ${pool.reserved} reserved)` : '') +
    `, of which ${listedIps.size} (1 in ${LISTED_EVERY}) are reported to the blacklist before the cases, ${macs.length} seeded MACs, ${BATCH_BODIES} batch bodies per size; every request carries an X-API-Key header. ` +
    `Each case's first ${SAMPLE_CHECKS} requests were checked (200, JSON, the record's shape, quota headers, and on paid records \`security.is_threat\` true exactly for the reported addresses) before timing; errors = socket errors + timeouts + non-2xx/3xx counted by the load generator` +
    (serviceNon200 === null ? '.' : `; the service's own metrics count ${serviceNon200} non-200 /v1 responses over the run.`),
  `Server CPU: the server process's CPU time over the run's wall time (100 % = its core was saturated; "+N % others": other processes' share of that core during the run). ${ratioLine} ${sameBytesLine} ` +
    'Batch cases at 50 connections measure throughput (their latency is mostly queueing); the 1-connection runs measure the time to answer one batch.',
  '',
  ...sharedStoreMarkdown(),
  ...profileMarkdown(profiles),
].join('\n');

function sharedStoreMarkdown(): string[] {
  if (sharedStore.length === 0) return [];
  const cores = (c: CaseResult['cores']) => [c.machine, c.server, c.redis_server, c.generator_and_others].map((n) => (n === null ? '?' : n.toFixed(2))).join(' / ');
  return [
    '#### Shared store (Redis) against the embedded store',
    '',
    '| case | workers | req/s | p99 | vs embedded | interleaved pairs: Redis / embedded (median) | vs bare Koa | scaling 1→2 | cores: machine / server / redis-server / generator + others | target |',
    '|---|---:|---:|---:|---:|---|---:|---:|---|---|',
    ...sharedStore.map((r) => {
      const pairs = r.interleaved_ratios ? `${r.interleaved_ratios.map((x) => x.toFixed(2)).join(', ')} (**${fmtRatio(interleaved.find((p) => p.lookup === r.lookup)!.median_ratio)}**)` : '';
      const target = r.target ? `${r.target.pass ? 'PASS' : 'FAIL'} (${r.target.text}; ${r.target.basis})` : '';
      return `| ${r.case} | ${r.workers} | ${fmtRate(r.req_per_s)} | ${fmtMs(r.p99_ms)} | ${fmtRatio(r.vs_embedded)} | ${pairs} | ${fmtRatio(r.vs_ceiling)} | ${r.scaling_vs_1_worker === null ? '' : `${r.scaling_vs_1_worker.toFixed(2)}×`} | ${cores(r.cores)} | ${target} |`;
    }),
    '',
    `vs embedded: against the embedded store's run of the same case, minutes earlier. Interleaved pairs: both stores' servers running side by side, ${PAIRS} pairs of ${PAIR_SECONDS} s runs of the same lookup alternating (E R, R E, …), so that each ratio compares runs seconds apart; ` +
      'the target is judged on their median (a shared VM\'s pace can move by tens of percent within a minute). ' +
      'One worker runs pinned like the other cases (server on CPU 0, wrk on CPU 1; redis-server floats). Two workers, redis-server and wrk share both CPUs unpinned: ' +
      '"generator + others" is the machine\'s busy time not spent in the server processes or redis-server, an upper bound on what wrk took.',
    '',
  ];
}
fs.writeFileSync(path.join(RESULTS, 'http.md'), md + '\n');

const pad = (rs: string[][]) => {
  const widths = rs[0].map((_, i) => Math.max(...rs.map((r) => [...(r[i] ?? '')].length)));
  return rs.map((r) => r.map((c, i) => c + ' '.repeat(widths[i] - [...c].length)).join('  ').trimEnd()).join('\n');
};
console.log(pad([HEAD, ...rows.map((r) => r.map((c) => c.replace(/\*\*/g, '')))]));
for (const r of sharedStore) {
  console.log(`${r.case}: ${fmtRate(r.req_per_s)} req/s, p99 ${fmtMs(r.p99_ms)}, ${fmtRatio(r.vs_embedded)} embedded${r.interleaved_ratios ? ` (interleaved ${r.interleaved_ratios.join(', ')})` : ''}${r.scaling_vs_1_worker === null ? '' : `, ${r.scaling_vs_1_worker}× 1 worker`}; cores machine ${r.cores.machine} server ${r.cores.server} redis ${r.cores.redis_server} rest ${r.cores.generator_and_others}`);
}
for (const p of profiles) {
  console.log(`\nprofile (${p.case}): ${p.busy_us_per_request} µs busy per request under the profiler (${fmtRate(p.req_per_s_under_profiler)} req/s)`);
  for (const c of p.categories) console.log(`  ${c.us_per_request.toFixed(2).padStart(7)} µs  ${(c.share_of_busy * 100).toFixed(1).padStart(5)} %  ${c.name}`);
}
console.log(`\n${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; run took ${report.run_seconds} s; wrote bench/results/http.json and http.md`);
if (errorsTotal > 0 || (serviceNon200 ?? 0) > 0) {
  log(`WARNING: ${errorsTotal} load generator errors, ${serviceNon200} non-200 /v1 responses: the numbers above are not clean.`);
  process.exitCode = 1;
}
