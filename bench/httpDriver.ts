/**
 * The load driver of the HTTP bench: checks a case's first answers, warms the server up, runs the
 * timed window with the load generator, reads the CPU time spent, and profiles or interleaves runs.
 * Every run of a random case gets its own seed (`seedFor`), so no two runs send the same addresses,
 * and the answers checked before a timed run are those to its own first requests.
 */
import type { WorkersComparison } from './httpWorkers.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadGenerator, LoadResult, RunOptions } from './httpLoad.js';
import { summariseProfile, type ProfileSummary } from './httpProfile.js';
import { sentRequests } from './httpRandom.js';
import type { CaseDef } from './httpCases.js';
import { CLOCK_TICKS, childrenTicks, cpuTicks, processTicks, ticksOf, type Pinning } from './httpMachine.js';
import { cpuList, pinnedKind, type Server, type ServerProcesses } from './httpServerProcesses.js';
import {
  DURATION,
  PAIR_SECONDS,
  PAIRS,
  PROFILE_INTERVAL_US,
  SEED,
  TIMEOUT_S,
  WARMUP,
  WARMUP_MAX_ROUNDS,
  WARMUP_PASSES,
  fmtRate,
  log,
  round,
  wanted,
} from './httpSettings.js';

export interface CaseResult {
  id: string;
  name: string;
  server: string;
  ours: boolean;
  workload: CaseDef['workload'];
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
  cpu_busy: {
    server_cpu: number | null;
    generator_cpu: number | null;
    server_process: number | null;
    others_on_server_cpu: number | null;
    /** the load generator process's own CPU time over the run (1 = its core saturated: the generator would be the bottleneck) */
    generator_process: number | null;
  };
  /**
   * Cores in use over the timed run (CPU time / wall time): the whole machine, the server's
   * processes (with its cluster workers), redis-server (shared-store cases), and the rest, which is
   * the load generator plus anything else running (an upper bound on the generator's share).
   */
  cores: { machine: number | null; server: number | null; redis_server: number | null; generator_and_others: number | null };
  /** req/s over the node:http ceiling's on the same workload */
  vs_ceiling: number | null;
  /** req/s over nginx + GeoIP2's on the same workload */
  vs_nginx: number | null;
  vs_maxmind: number | null;
  /** batch only: addresses/s over Koa + maxmind's req/s (one lookup each) */
  lookups_vs_maxmind: number | null;
  samples_checked: number;
  /** checked IP answers that were valid not-found records (the rest were found) */
  samples_not_found: number;
  /** the random stream's seed of the timed run (null: rotating requests) */
  seed: number | null;
  target: { text: string; pass: boolean; primary: boolean; details: string } | null;
}

export type ProfileResult = ProfileSummary & {
  case: string;
  req_per_s_under_profiler: number;
  req_per_s_without: number | null;
  profile_copy: string;
};

/** What alternating runs of several cases gave: each case's rate per round. */
export interface Rounds {
  seconds_per_run: number;
  /** case id → req/s in each round */
  req_per_s: Record<string, number[]>;
  /** the order of each round */
  orders: string[][];
}

/** What the interleaved runs gave: the embedded and the Redis store's rate in each pair, and their ratios. */
export interface InterleavedPairs {
  lookup: string;
  seconds_per_run: number;
  embedded_req_per_s: number[];
  redis_req_per_s: number[];
  ratios: number[];
  median_ratio: number;
}

/** A run of the bench: its load generator, pinning and server children, and what it has measured so far. */
export interface BenchRun {
  generator: LoadGenerator;
  pinning: Pinning;
  /** scratch directory: the load generator's request files, the service's data, profiles */
  tmp: string;
  processes: ServerProcesses;
  results: CaseResult[];
  checks: Record<string, unknown>;
  profiles: ProfileResult[];
  interleaved: InterleavedPairs[];
  /** the targets' alternating runs (ceilings, nginx, ours side by side), when they ran */
  targetRounds: Rounds | null;
  soak: SoakResult | null;
  /** `serve --workers 1` against `--workers N` on each store (bench/httpWorkers.ts), when it ran */
  workers: WorkersComparison | null;
  /** the shared-store cases' redis-server pid while they run (for its CPU time) */
  redisPid: number | null;
}

/** A run with nothing measured yet. */
export function newRun(generator: LoadGenerator, pinning: Pinning, tmp: string, processes: ServerProcesses): BenchRun {
  return {
    generator,
    pinning,
    tmp,
    processes,
    results: [],
    checks: {},
    profiles: [],
    interleaved: [],
    targetRounds: null,
    soak: null,
    workers: null,
    redisPid: null,
  };
}

/** A seed per case and purpose (0: the timed run, 1…: warm-up rounds, 100…: interleaved runs, …). */
export function seedFor(id: string, purpose: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (SEED + h + Math.imul(purpose, 0x9e3779b9)) >>> 0;
}

/** The first answers of a case checked by its validator: the pool's first requests, or the first requests of the random run with `seed`. */
async function checkSamples(run: BenchRun, def: CaseDef, port: number, seed: number): Promise<{ checked: number; notFound: number }> {
  const requests = def.spec.random
    ? sentRequests(run.generator, def.spec.random, seed, def.samples)
    : def.spec.requests.slice(0, def.samples);
  let notFound = 0;
  for (const request of requests) {
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
      method: request.method,
      headers: { ...def.spec.headers, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: request.body,
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${def.id}: ${request.method} ${request.path} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
    }
    const problem = def.validate(response.status, response.headers, body, request);
    if (problem) throw new Error(`${def.id}: ${request.method} ${request.path} → ${problem}`);
    if ((body as Record<string, unknown>).found === false) notFound++;
  }
  return { checked: requests.length, notFound };
}

/**
 * Steady state, for every server alike: each input of a pool requested WARMUP_PASSES times (our
 * service makes a range's JSON template at its second request), in rounds of WARMUP seconds; a
 * random case gets one round (its addresses never come back). Null when WARMUP is 0.
 */
async function warmUp(
  run: BenchRun,
  def: CaseDef,
  prepared: unknown,
  options: Omit<RunOptions, 'seconds' | 'seed'>,
): Promise<CaseResult['warmup']> {
  if (WARMUP <= 0) return null;
  const wanted = def.spec.random ? 0 : WARMUP_PASSES * def.spec.requests.length;
  let requests = 0;
  let seconds = 0;
  let errors = 0;
  for (let rounds = 0; rounds < WARMUP_MAX_ROUNDS && (rounds === 0 || requests < wanted); rounds++) {
    const w = await run.generator.run(prepared, { ...options, seconds: WARMUP, seed: seedFor(def.id, 1 + rounds) });
    requests += w.requests;
    seconds += WARMUP;
    errors += totalErrors(w);
  }
  return { requests, req_per_s: round(requests / seconds), errors };
}

async function measure(
  run: BenchRun,
  def: CaseDef,
  server: Server,
  prepared: unknown,
): Promise<Omit<CaseResult, 'vs_ceiling' | 'vs_nginx' | 'vs_maxmind' | 'lookups_vs_maxmind' | 'target'> & { window: LoadResult }> {
  const seed = seedFor(def.id, 0);
  const samples = await checkSamples(run, def, server.port, seed);
  const options = { connections: def.connections, timeoutSeconds: TIMEOUT_S, cpu: cpuList(def.server, run.pinning.generator_cpu) };
  const warmup = await warmUp(run, def, prepared, options);
  const cpuBefore = cpuTicks();
  const procBefore = ticksOf(server.pids);
  const redisBefore = run.redisPid === null ? null : processTicks(run.redisPid);
  const generatorBefore = childrenTicks();
  const r = await run.generator.run(prepared, { ...options, seconds: DURATION, seed });
  const generatorAfter = childrenTicks();
  const cpuAfter = cpuTicks();
  const procAfter = ticksOf(server.pids);
  const redisAfter = run.redisPid === null ? null : processTicks(run.redisPid);
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
    workload: def.workload,
    connections: def.connections,
    addresses_per_request: def.addresses,
    req_per_s: round(r.req_per_s, 1),
    addresses_per_s: def.addresses > 1 ? round(r.req_per_s * def.addresses) : null,
    latency_ms: {
      mean: ms(r.latency_us.mean),
      p50: ms(r.latency_us.p50),
      p75: ms(r.latency_us.p75),
      p90: ms(r.latency_us.p90),
      p99: ms(r.latency_us.p99),
      p999: ms(r.latency_us.p999),
      max: ms(r.latency_us.max),
    },
    requests: r.requests,
    duration_s: round(r.duration_s, 3),
    bytes_per_response: r.requests > 0 ? round(r.bytes / r.requests) : 0,
    errors: r.errors,
    error_total: totalErrors(r),
    warmup,
    cpu_busy: cpuBusy(
      pinnedKind(def.server) ? share(run.pinning.server_cpu) : null,
      pinnedKind(def.server) ? share(run.pinning.generator_cpu) : null,
      procBefore !== null && procAfter !== null ? round((procAfter - procBefore) / CLOCK_TICKS / wallS, 3) : null,
      generatorBefore !== null && generatorAfter !== null ? round((generatorAfter - generatorBefore) / CLOCK_TICKS / wallS, 3) : null,
    ),
    cores: coresUsed(
      cpuBefore && cpuAfter ? cpuAfter.reduce((sum, a, i) => sum + (a.busy - cpuBefore[i].busy), 0) / CLOCK_TICKS / wallS : null,
      procBefore !== null && procAfter !== null ? (procAfter - procBefore) / CLOCK_TICKS / wallS : null,
      redisBefore !== null && redisAfter !== null ? (redisAfter - redisBefore) / CLOCK_TICKS / wallS : null,
    ),
    samples_checked: samples.checked,
    samples_not_found: samples.notFound,
    seed: def.spec.random ? seed : null,
    window: r,
  };
  log(
    `  ${def.id.padEnd(14)} ${fmtRate(result.req_per_s).padStart(8)} req/s  p50 ${result.latency_ms.p50.toFixed(2)} ms  p99 ${result.latency_ms.p99.toFixed(2)} ms  ` +
      `errors ${result.error_total}  server CPU ${result.cpu_busy.server_process === null ? '?' : `${Math.round(result.cpu_busy.server_process * 100)} %`}` +
      (result.cpu_busy.generator_process === null ? '' : `  wrk CPU ${Math.round(result.cpu_busy.generator_process * 100)} %`) +
      (result.cpu_busy.others_on_server_cpu !== null && result.cpu_busy.others_on_server_cpu > 0.05
        ? ` (others took ${Math.round(result.cpu_busy.others_on_server_cpu * 100)} % of its CPU)`
        : '') +
      (result.addresses_per_s ? `  ${fmtRate(result.addresses_per_s)} addresses/s` : ''),
  );
  return result;
}

function coresUsed(machine: number | null, server: number | null, redis: number | null): CaseResult['cores'] {
  const rest = machine !== null && server !== null ? Math.max(0, machine - server - (redis ?? 0)) : null;
  const r2 = (n: number | null) => (n === null ? null : round(n, 2));
  return { machine: r2(machine), server: r2(server), redis_server: r2(redis), generator_and_others: r2(rest) };
}

function cpuBusy(
  serverCpu: number | null,
  generatorCpu: number | null,
  serverProcess: number | null,
  generatorProcess: number | null,
): CaseResult['cpu_busy'] {
  const others = serverCpu !== null && serverProcess !== null ? round(Math.max(0, serverCpu - serverProcess), 3) : null;
  return {
    server_cpu: serverCpu,
    generator_cpu: generatorCpu,
    server_process: serverProcess,
    others_on_server_cpu: others,
    generator_process: generatorProcess,
  };
}

export function totalErrors(r: LoadResult): number {
  const e = r.errors;
  return e.connect + e.read + e.write + e.timeout + e.non_2xx_3xx;
}

export async function runCases(run: BenchRun, server: Server, defs: CaseDef[]): Promise<void> {
  for (const def of defs) {
    if (!wanted(def.id)) continue;
    const prepared = run.generator.prepare(def.spec, run.tmp, def.id);
    // The timed window itself is what profileCase needs; here the result is enough.
    const { window: _window, ...result } = await measure(run, def, server, prepared);
    run.results.push({ ...result, vs_ceiling: null, vs_nginx: null, vs_maxmind: null, lookups_vs_maxmind: null, target: null });
  }
}

/** One more run of a case, in a fresh server child under `node --cpu-prof`, summarised into `profiles`. */
export async function profileCase(run: BenchRun, def: CaseDef, extraEnv?: Record<string, string>): Promise<void> {
  log(`profile: ${def.id} under node --cpu-prof (${PROFILE_INTERVAL_US} µs sampling)`);
  const profDir = path.join(run.tmp, `profile-${def.id}`);
  let window = null as LoadResult | null;
  const code = await run.processes.with(
    def.server,
    async (s) => {
      const d = { ...def, spec: { ...def.spec, port: s.port } };
      window = (await measure(run, d, s, run.generator.prepare(d.spec, run.tmp, `${d.id}-profile`))).window;
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
  const without = run.results.find((r) => r.id === def.id)?.req_per_s ?? null;
  run.profiles.push({
    case: def.id,
    req_per_s_under_profiler: round(w.req_per_s, 1),
    req_per_s_without: without,
    profile_copy: copy,
    ...summary,
  });
  log(`  busy ${summary.busy_us_per_request} µs per request under the profiler; profile kept at ${copy}`);
}

/**
 * Several cases, their servers all running, in alternating short runs: round k runs them in order,
 * the next round in reverse, and so on, so that on a machine whose pace changes by tens of percent
 * within a minute each ratio between two of them compares runs seconds apart, in each round.
 */
export async function alternate(run: BenchRun, defs: CaseDef[], rounds: number, seconds: number): Promise<Rounds> {
  const result = noRounds(defs, seconds);
  const prepared = await prepareRound(run, defs, 'rounds');
  for (let round_ = 0; round_ < rounds; round_++) await runRound(run, defs, prepared, round_, result);
  return result;
}

/** Rounds of `defs` with nothing run yet. */
export function noRounds(defs: CaseDef[], seconds: number): Rounds {
  return { seconds_per_run: seconds, req_per_s: Object.fromEntries(defs.map((d) => [d.id, []])), orders: [] };
}

/** The load of each case prepared for its server, its samples checked and the server warmed up. */
export async function prepareRound(run: BenchRun, defs: CaseDef[], label: string): Promise<unknown[]> {
  const prepared = defs.map((d) => run.generator.prepare(d.spec, run.tmp, `${d.id}-${label}`));
  for (const [i, d] of defs.entries()) {
    await checkSamples(run, d, d.spec.port, seedFor(d.id, 100));
    await warmUp(run, d, prepared[i], roundOptions(run, d));
  }
  return prepared;
}

/** Round `index` of `defs` (every other round in reverse order), its rates added to `result`. */
export async function runRound(run: BenchRun, defs: CaseDef[], prepared: unknown[], index: number, result: Rounds): Promise<void> {
  const order = index % 2 === 0 ? defs.map((_, i) => i) : defs.map((_, i) => defs.length - 1 - i);
  result.orders.push(order.map((i) => defs[i].id));
  for (const i of order) {
    const d = defs[i];
    const r = await run.generator.run(prepared[i], {
      ...roundOptions(run, d),
      seconds: result.seconds_per_run,
      seed: seedFor(d.id, 100 + index),
    });
    if (totalErrors(r) > 0) throw new Error(`alternating runs, ${d.id}: ${totalErrors(r)} errors`);
    result.req_per_s[d.id].push(round(r.req_per_s, 1));
  }
}

const roundOptions = (run: BenchRun, d: CaseDef) => ({
  connections: d.connections,
  timeoutSeconds: TIMEOUT_S,
  cpu: cpuList(d.server, run.pinning.generator_cpu),
});

/** The per-round ratios of case `a` to case `b`, and their median. */
export function roundRatios(rounds: Rounds, a: string, b: string): { ratios: number[]; median: number } | null {
  const x = rounds.req_per_s[a];
  const y = rounds.req_per_s[b];
  if (!x || !y || x.length === 0) return null;
  const ratios = x.map((v, i) => round(v / y[i], 3));
  return { ratios, median: [...ratios].sort((p, q) => p - q)[Math.floor(ratios.length / 2)] };
}

/**
 * The same lookup on both stores, both servers running, in alternating runs (E R, R E, E R…); the
 * median of the pairs is what the 25 % target is judged on.
 */
export async function interleave(run: BenchRun, embedded: CaseDef, redis: CaseDef): Promise<void> {
  const r = await alternate(run, [embedded, redis], PAIRS, PAIR_SECONDS);
  const { ratios, median } = roundRatios(r, redis.id, embedded.id)!;
  run.interleaved.push({
    lookup: embedded.id,
    seconds_per_run: PAIR_SECONDS,
    embedded_req_per_s: r.req_per_s[embedded.id],
    redis_req_per_s: r.req_per_s[redis.id],
    ratios,
    median_ratio: median,
  });
  log(`  ${embedded.id}: Redis / embedded per pair ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median.toFixed(2)})`);
}

/** The memory soak: random traffic at full speed against one service process, its memory sampled from /proc. */
export interface SoakResult {
  case: string;
  name: string;
  server: string;
  seconds: number;
  sample_every_s: number;
  requests: number;
  req_per_s: number;
  error_total: number;
  samples_checked: number;
  /** VmRSS before the load, at the end, and VmHWM (the peak) at the end, MB */
  rss_mb_before: number | null;
  rss_mb_end: number | null;
  peak_mb: number | null;
  samples: { t_s: number; rss_mb: number; hwm_mb: number }[];
  target: { text: string; pass: boolean; details: string };
}

/** VmRSS and VmHWM of a process in MB (Linux), or null. */
export function memoryOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: round(kb('VmRSS') / 1024, 1), hwm: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return null;
  }
}

export async function soak(
  run: BenchRun,
  def: CaseDef,
  server: Server,
  seconds: number,
  every: number,
  limitMb: number,
): Promise<SoakResult> {
  const seed = seedFor(def.id, 0);
  const checked = await checkSamples(run, def, server.port, seed);
  const before = memoryOf(server.pid);
  const samples: SoakResult['samples'] = [];
  const started = performance.now();
  const sample = () => {
    const m = memoryOf(server.pid);
    if (m) samples.push({ t_s: round((performance.now() - started) / 1000, 1), rss_mb: m.rss, hwm_mb: m.hwm });
  };
  const timer = setInterval(sample, every * 1000);
  log(`soak: ${def.id} for ${seconds} s, RSS of pid ${server.pid} every ${every} s (before: ${before?.rss ?? '?'} MB)`);
  let r: LoadResult;
  try {
    const prepared = run.generator.prepare(def.spec, run.tmp, `${def.id}-soak`);
    r = await run.generator.run(prepared, {
      connections: def.connections,
      seconds,
      timeoutSeconds: TIMEOUT_S,
      cpu: cpuList(def.server, run.pinning.generator_cpu),
      seed,
    });
  } finally {
    clearInterval(timer);
  }
  sample();
  const last = samples.at(-1) ?? null;
  const peak = last?.hwm_mb ?? null;
  const pass = peak !== null && peak <= limitMb && totalErrors(r) === 0;
  const result: SoakResult = {
    case: def.id,
    name: def.name,
    server: String(server.info.command ?? server.kind),
    seconds,
    sample_every_s: every,
    requests: r.requests,
    req_per_s: round(r.req_per_s, 1),
    error_total: totalErrors(r),
    samples_checked: checked.checked,
    rss_mb_before: before?.rss ?? null,
    rss_mb_end: last?.rss_mb ?? null,
    peak_mb: peak,
    samples,
    target: {
      text: `RSS ≤ ${limitMb} MB`,
      pass,
      details: `RSS ${last?.rss_mb ?? '?'} MB after ${seconds} s, peak (VmHWM) ${peak ?? '?'} MB${totalErrors(r) > 0 ? `, ${totalErrors(r)} errors` : ''}`,
    },
  };
  log(`  ${fmtRate(result.req_per_s)} req/s; ${result.target.details}: ${pass ? 'pass' : 'FAIL'}`);
  return result;
}
