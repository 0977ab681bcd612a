/**
 * Builds or settings of the service side by side on one HTTP workload: what a Node internal pays
 * against its public alternative (docs/performance.md, "Node internals: what each pays").
 *
 *   node --import tsx bench/internals.ts [NAME=ROOT[,VAR=VALUE…] …]
 *
 * Each variant is `serve` from ROOT/dist with the node flags of ROOT's `npm start` (ROOT holds
 * package.json, dist/, build/, data/tables and node_modules, or links to them) with the variables
 * given, run by this bench's Node or by the one a `NODE=path`
 * among them names (node_modules then built for it); by default this checkout with the shared socket
 * reads against the same with NETLOOKUP_SOCKET_READS=events. Every round starts each variant
 * afresh (two processes of one build differ by several percent on a small VM), warms it up and
 * runs wrk against it, the order reversed every other round; the ratios to the first variant are
 * taken within a round, so that runs seconds apart are compared, and their median reported with
 * the spread, for requests/s and for the server's CPU time per request (which what else runs on
 * the machine moves less).
 *
 * Environment: BENCH_INTERNALS_CASE (ip-paid, the default: random IPv4, business key; ip-free;
 * ipv6-paid; mac-paid; batch-1000-c1: batches of 1,000 random IPv4 addresses on one connection,
 * business key), BENCH_INTERNALS_ROUNDS (default 6), BENCH_INTERNALS_SECONDS (per run,
 * default 5), BENCH_HTTP_CONNECTIONS (default 50), BENCH_HTTP_PIN=0 (no taskset). Needs wrk.
 * Writes bench/results/internals.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { post } from './httpCases.js';
import { findLoadGenerator, type LoadSpec } from './httpLoad.js';
import { CLOCK_TICKS, pinProcesses, processTicks } from './httpMachine.js';
import { writeSpaces, type RandomKind } from './httpRandom.js';
import { freePort, serviceEnvironment, startFlags } from './httpServerProcesses.js';
import { CONNECTIONS, RESULTS, ROOT, SEED, log, round } from './httpSettings.js';

interface Variant {
  name: string;
  root: string;
  env: Record<string, string>;
}

interface Workload {
  kind: RandomKind;
  path: string;
  plan: 'free' | 'business';
  /** addresses per POSTed batch, on one connection */
  batch?: number;
}

const CASES: Record<string, Workload> = {
  'ip-paid': { kind: 'ipv4', path: '/v1/ip/', plan: 'business' },
  'ip-free': { kind: 'ipv4', path: '/v1/ip/', plan: 'free' },
  'ipv6-paid': { kind: 'ipv6', path: '/v1/ip/', plan: 'business' },
  'mac-paid': { kind: 'mac', path: '/v1/mac/', plan: 'business' },
  'batch-1000-c1': { kind: 'ipv4', path: '/v1/ip/batch', plan: 'business', batch: 1000 },
};

const caseId = process.env.BENCH_INTERNALS_CASE ?? 'ip-paid';
const workload = CASES[caseId];
if (workload === undefined) throw new Error(`BENCH_INTERNALS_CASE: no case ${caseId} (${Object.keys(CASES).join(', ')})`);
const ROUNDS = Number(process.env.BENCH_INTERNALS_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_INTERNALS_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
/** A batch is timed on one connection: the time to answer one, not a queue of them. */
const connections = workload.batch === undefined ? CONNECTIONS : 1;

function variantOf(arg: string): Variant {
  const [head, ...vars] = arg.split(',');
  const equals = head.indexOf('=');
  if (equals < 1) throw new Error(`a variant is NAME=ROOT[,VAR=VALUE…]: ${arg}`);
  const env = Object.fromEntries(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));
  return { name: head.slice(0, equals), root: path.resolve(head.slice(equals + 1)), env };
}

const args = process.argv.slice(2);
const variants = (args.length > 0 ? args : ['shared=.', 'events=.,NETLOOKUP_SOCKET_READS=events']).map(variantOf);

const found = findLoadGenerator();
if ('missing' in found || found.generator.name !== 'wrk') throw new Error('bench/internals.ts needs wrk');
const { generator } = found;
const pinning = await pinProcesses();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-internals-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const spaces = writeSpaces(tmp);
const adminToken = crypto.randomBytes(16).toString('hex');

/** `serve` of a variant in a data directory of its own, ready when /health answers. */
async function start(variant: Variant, dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const env = { ...process.env, NODE_ENV: 'production', ...serviceEnvironment(dataDir, adminToken), ...variant.env };
  Object.assign(env, { NETLOOKUP_DATA_DIR: path.join(dataDir, 'data'), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' });
  const main = path.join(variant.root, 'dist', 'cli', 'main.js');
  const node = variant.env.NODE ?? process.execPath;
  const nodeArgs = [...startFlags(variant.root), main, 'serve'];
  const cpu = pinning.server_cpu;
  const [command, argv] = cpu === null ? [node, nodeArgs] : ['taskset', ['-c', String(cpu), node, ...nodeArgs]];
  const child = spawn(command, argv, { cwd: variant.root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-4000)));
  const started = performance.now();
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { child, port };
    if (child.exitCode !== null || performance.now() - started > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`${variant.name} did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface Run {
  req_per_s: number;
  /** the server's CPU time (user and system) per answer: less moved than req/s by what else the machine runs */
  cpu_us: number;
  p99_us: number;
  errors: number;
}

/** One timed run of `variant`, started afresh. */
async function runOnce(variant: Variant, seed: number): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(tmp, `${variant.name}-`));
  const { child, port } = await start(variant, dataDir);
  try {
    const account = await post(port, '/admin/accounts', { plan: workload.plan }, { authorization: `Bearer ${adminToken}` });
    if (account.status !== 201) throw new Error(`admin API: ${account.status}`);
    const key = (account.body.key as { secret: string }).secret;
    const batch = workload.batch === undefined ? null : { path: workload.path, size: workload.batch };
    const spec: LoadSpec = {
      port,
      headers: batch === null ? { 'X-API-Key': key } : { 'X-API-Key': key, 'Content-Type': 'application/json' },
      requests: [],
      random: { spaces, kinds: [workload.kind], paths: { [workload.kind]: workload.path }, suffixes: [], batch },
    };
    const prepared = generator.prepare(spec, dataDir, caseId);
    const cpu = pinning.generator_cpu === null ? null : String(pinning.generator_cpu);
    const options = { connections, timeoutSeconds: 10, cpu };
    await generator.run(prepared, { ...options, seconds: WARMUP_SECONDS, seed: seed + 1 });
    const ticksBefore = processTicks(child.pid!);
    const r = await generator.run(prepared, { ...options, seconds: SECONDS, seed });
    const ticks = processTicks(child.pid!)! - ticksBefore!;
    const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
    return { req_per_s: r.req_per_s, cpu_us: (ticks / CLOCK_TICKS / r.requests) * 1e6, p99_us: r.latency_us.p99, errors };
  } finally {
    await stop(child);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const loadAtStart = os.loadavg().map((l) => round(l, 2));
log(
  `${caseId}: ${variants.map((v) => v.name).join(' / ')}, ${ROUNDS} rounds of ${SECONDS} s, ${connections} connections; load ${loadAtStart}`,
);
const runs: Record<string, Run[]> = Object.fromEntries(variants.map((v) => [v.name, []]));
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? variants : [...variants].reverse();
  for (const variant of order) {
    const result = await runOnce(variant, SEED + 1000 * r);
    runs[variant.name].push(result);
  }
  log(
    `round ${r + 1}: ${variants.map((v) => `${v.name} ${Math.round(runs[v.name][r].req_per_s)}/s ${runs[v.name][r].cpu_us.toFixed(1)} µs`).join(', ')}`,
  );
}
const [base, ...others] = variants;
/** Per round, `of` of each variant against the first's; their median and spread. */
function ratiosOf(of: (run: Run) => number) {
  return Object.fromEntries(
    others.map((v) => {
      const perRound = runs[v.name].map((run, i) => round(of(run) / of(runs[base.name][i]), 3));
      return [v.name, { per_round: perRound, median: round(median(perRound), 3), min: Math.min(...perRound), max: Math.max(...perRound) }];
    }),
  );
}
const ratios = { req_per_s: ratiosOf((run) => run.req_per_s), cpu_us_per_request: ratiosOf((run) => run.cpu_us) };
const summary = {
  case: caseId,
  connections,
  rounds: ROUNDS,
  seconds: SECONDS,
  node: process.version,
  load_average: { start: loadAtStart, end: os.loadavg().map((l) => round(l, 2)) },
  variants: variants.map((v) => ({
    ...v,
    root: path.relative(ROOT, v.root) || '.',
    median_req_per_s: Math.round(median(runs[v.name].map((x) => x.req_per_s))),
    median_cpu_us_per_request: round(median(runs[v.name].map((x) => x.cpu_us)), 2),
    median_p99_us: Math.round(median(runs[v.name].map((x) => x.p99_us))),
    errors: runs[v.name].reduce((a, x) => a + x.errors, 0),
    req_per_s: runs[v.name].map((x) => Math.round(x.req_per_s)),
    cpu_us_per_request: runs[v.name].map((x) => round(x.cpu_us, 2)),
  })),
  ratios_to_first: ratios,
};
fs.mkdirSync(RESULTS, { recursive: true });
const resultsFile = path.join(RESULTS, 'internals.json');
const kept = fs.existsSync(resultsFile) ? (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as unknown[]) : [];
fs.writeFileSync(resultsFile, `${JSON.stringify([...kept, summary], null, 2)}\n`);
for (const [measure, byVariant] of Object.entries(ratios))
  for (const [name, r] of Object.entries(byVariant))
    log(`${measure}, ${name} / ${base.name}: median ${r.median} (${r.min}–${r.max}; per round ${r.per_round.join(', ')})`);
