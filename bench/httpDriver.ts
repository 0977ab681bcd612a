/**
 * The load driver of the HTTP bench: checks a case's first answers, warms the server up, runs the
 * timed window with the load generator, reads the CPU time spent, and profiles or interleaves runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadGenerator, LoadResult, RunOptions } from './httpLoad.js';
import { summariseProfile, type ProfileSummary } from './httpProfile.js';
import type { CaseDef } from './httpCases.js';
import { CLOCK_TICKS, cpuTicks, processTicks, ticksOf, type Pinning } from './httpMachine.js';
import { cpuList, pinnedKind, type Server, type ServerProcesses } from './httpServerProcesses.js';
import {
  DURATION,
  PAIR_SECONDS,
  PAIRS,
  PROFILE_INTERVAL_US,
  SAMPLE_CHECKS,
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

export type ProfileResult = ProfileSummary & {
  case: string;
  req_per_s_under_profiler: number;
  req_per_s_without: number | null;
  profile_copy: string;
};

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
  /** the shared-store cases' redis-server pid while they run (for its CPU time) */
  redisPid: number | null;
}

async function checkSamples(def: CaseDef, port: number): Promise<number> {
  const count = Math.min(SAMPLE_CHECKS, def.spec.requests.length);
  for (let i = 0; i < count; i++) {
    const request = def.spec.requests[i];
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
      method: request.method,
      headers: def.spec.headers,
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
  }
  return count;
}

/**
 * Steady state, for every server alike: each input requested WARMUP_PASSES times (our service makes
 * a range's JSON template at its second request), in rounds of WARMUP seconds; null when WARMUP is 0.
 */
async function warmUp(run: BenchRun, def: CaseDef, prepared: unknown, options: Omit<RunOptions, 'seconds'>): Promise<CaseResult['warmup']> {
  if (WARMUP <= 0) return null;
  const wanted = WARMUP_PASSES * def.spec.requests.length;
  let requests = 0;
  let seconds = 0;
  let errors = 0;
  for (let rounds = 0; rounds < WARMUP_MAX_ROUNDS && (rounds === 0 || requests < wanted); rounds++) {
    const w = await run.generator.run(prepared, { ...options, seconds: WARMUP });
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
): Promise<Omit<CaseResult, 'vs_ceiling' | 'vs_maxmind' | 'lookups_vs_maxmind' | 'target'> & { window: LoadResult }> {
  const samples = await checkSamples(def, server.port);
  const options = { connections: def.connections, timeoutSeconds: TIMEOUT_S, cpu: cpuList(def.server, run.pinning.generator_cpu) };
  const warmup = await warmUp(run, def, prepared, options);
  const cpuBefore = cpuTicks();
  const procBefore = ticksOf(server.pids);
  const redisBefore = run.redisPid === null ? null : processTicks(run.redisPid);
  const r = await run.generator.run(prepared, { ...options, seconds: DURATION });
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

function cpuBusy(serverCpu: number | null, generatorCpu: number | null, serverProcess: number | null): CaseResult['cpu_busy'] {
  const others = serverCpu !== null && serverProcess !== null ? round(Math.max(0, serverCpu - serverProcess), 3) : null;
  return { server_cpu: serverCpu, generator_cpu: generatorCpu, server_process: serverProcess, others_on_server_cpu: others };
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
    run.results.push({ ...result, vs_ceiling: null, vs_maxmind: null, lookups_vs_maxmind: null, target: null });
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
 * The same lookup on both stores, both servers running, in alternating short runs (E R, R E, E R…):
 * on a machine whose pace changes by tens of percent within a minute, each pair's ratio compares two
 * runs seconds apart, and the median of the pairs is what the 25 % target is judged on.
 */
export async function interleave(run: BenchRun, embedded: CaseDef, redis: CaseDef): Promise<void> {
  const prepared = [embedded, redis].map((d) => run.generator.prepare(d.spec, run.tmp, `${d.id}-pairs`));
  const options = {
    connections: embedded.connections,
    timeoutSeconds: TIMEOUT_S,
    cpu: cpuList(embedded.server, run.pinning.generator_cpu),
  };
  for (const [i, d] of [embedded, redis].entries()) {
    await checkSamples(d, d.spec.port);
    await warmUp(run, d, prepared[i], options);
  }
  const rates: [number[], number[]] = [[], []];
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const i of pair % 2 === 0 ? [0, 1] : [1, 0]) {
      const r = await run.generator.run(prepared[i], { ...options, seconds: PAIR_SECONDS });
      if (totalErrors(r) > 0) throw new Error(`interleaved ${[embedded, redis][i].id}: ${totalErrors(r)} errors`);
      rates[i].push(round(r.req_per_s, 1));
    }
  }
  const ratios = rates[1].map((r, pair) => round(r / rates[0][pair], 3));
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  run.interleaved.push({
    lookup: embedded.id,
    seconds_per_run: PAIR_SECONDS,
    embedded_req_per_s: rates[0],
    redis_req_per_s: rates[1],
    ratios,
    median_ratio: median,
  });
  log(`  ${embedded.id}: Redis / embedded per pair ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median.toFixed(2)})`);
}
