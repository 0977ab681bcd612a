/**
 * Hostile-client bench: `netlookup serve` as `npm start` runs it, at its default connection cap
 * and timeouts, while clients try to hold its connections; meanwhile a health check and a prompt
 * client (one keep-alive connection of lookups) are timed from 127.0.0.1. Each attack comes from
 * other loopback addresses (127.0.x.y: clients of their own), reconnecting as soon as the service
 * drops a connection:
 *
 *   stalled-bodies   the cap's worth of `POST /v1/blacklist/report` heads with Content-Length 60000
 *                    and one body byte, from many addresses (no key: the body must be read)
 *   dripped-heads    the cap's worth of heads sent a byte a second, from many addresses
 *   one-address      the cap's worth of stalled bodies from one address
 *   non-readers      20 clients asking for ten 1,000-address batch answers each and reading none
 *   all              every one of the above at once
 *
 *   node --import tsx bench/hostile.ts       (npm run bench:hostile)
 *
 * Environment: BENCH_HOSTILE_SECONDS (per attack, default 20), BENCH_HOSTILE_ONLY (attack ids, comma-separated). Writes bench/results/hostile.json
 * and hostile.md. Each attack's figures are the prompt client's lookups per second and latency
 * against the same client without an attack, /health's latency, the 503s the prompt client saw,
 * and the service's RSS (VmRSS at the end, VmHWM over the whole run).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fork } from 'node:child_process';
import { get, post } from './httpCases.js';
import { memoryOf } from './httpDriver.js';
import { configFromEnv } from '../src/config/config.js';
import { connectionSettings } from '../src/http/transport/connections.js';
import { attacks } from './hostileAttacker.js';
import { ServerProcesses, serviceEnvironment, type Server } from './httpServerProcesses.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 20);
const ONLY = process.env.BENCH_HOSTILE_ONLY?.split(',') ?? null;
const log = (text: string) => process.stderr.write(`${text}\n`);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Starts an attack in a process of its own; resolves once it runs, with what stops it. */
async function attackInChild(id: string, port: number, key: string, cap: number): Promise<() => Promise<void>> {
  const child = fork(path.join(ROOT, 'bench', 'hostileAttacker.ts'), [id, String(port), key, String(cap)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`attack ${id} exited with ${code}`)));
  });
  child.once('exit', (code, signal) => {
    if (signal !== 'SIGKILL') log(`  attack ${id} ended early: ${code ?? signal}`);
  });
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve();
        return;
      }
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
}

/** One GET on a new connection; its status and milliseconds (a refused connection counts with its status). */
function getOnce(port: number, pathAndQuery: string, agent: http.Agent | false, key?: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ port, host: '127.0.0.1', path: pathAndQuery, agent, headers: key ? { 'X-API-Key': key } : {} }, (res) => {
      res.resume();
      // 'close' also when the answer was cut before its end: counted with status 0.
      res.on('close', () => resolve({ status: res.complete ? (res.statusCode ?? 0) : 0, ms: performance.now() - started }));
    });
    req.setTimeout(30_000, () => req.destroy());
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** For `seconds`: the prompt client's lookups (one kept-alive connection, one at a time) and /health once every 250 ms on a new connection each. */
async function measure(port: number, key: string, seconds: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const until = performance.now() + seconds * 1000;
  const lookups: number[] = [];
  const statuses: Record<string, number> = {};
  const health: { status: number; ms: number }[] = [];
  const healthLoop = (async () => {
    while (performance.now() < until) {
      health.push(await getOnce(port, '/health', false));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  let i = 0;
  while (performance.now() < until) {
    i++;
    const r = await getOnce(port, `/v1/ip/${1 + (i % 220)}.${(i * 7) % 256}.${(i >> 8) % 256}.${1 + (i % 250)}`, agent, key);
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    if (r.status === 200) lookups.push(r.ms);
  }
  await healthLoop;
  agent.destroy();
  const healthMs = health.filter((h) => h.status === 200).map((h) => h.ms);
  return {
    lookups_per_s: round(lookups.length / seconds),
    lookup_p50_ms: round(percentile(lookups, 50) ?? NaN, 2),
    lookup_p99_ms: round(percentile(lookups, 99) ?? NaN, 2),
    lookup_statuses: statuses,
    health_answered: `${healthMs.length}/${health.length}`,
    health_p50_ms: round(percentile(healthMs, 50) ?? NaN, 2),
    health_max_ms: round(Math.max(...healthMs), 2),
  };
}

/** The service's memory: VmRSS now and VmHWM, the peak so far, in MB. */
function memoryNow(pid: number): { rss_mb: number | null; peak_rss_mb: number | null } {
  const memory = memoryOf(pid);
  return { rss_mb: memory?.rss ?? null, peak_rss_mb: memory?.hwm ?? null };
}

/** Sockets the service holds open (its connections, the listening socket and a few of its own). */
function openSockets(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-hostile-bench-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const adminToken = crypto.randomBytes(16).toString('hex');
const processes = new ServerProcesses(null, serviceEnvironment(tmp, adminToken), tmp, null);

const results: Record<string, unknown>[] = [];
let settings: Record<string, unknown> = {};
try {
  await processes.with('serve', async (s: Server) => {
    const created = await post(s.port, '/admin/accounts', { plan: 'business' }, { authorization: `Bearer ${adminToken}` });
    const key = (created.body.key as { secret: string }).secret;
    const health = JSON.parse((await get(s.port, '/health')).text) as Record<string, unknown>;
    // The settings the service computes for itself: the same environment and open-file limit.
    const connections = connectionSettings(configFromEnv(process.env));
    const cap = connections.maxConnections;
    settings = {
      cap,
      per_client: connections.maxConnectionsPerClient,
      body_timeout_s: connections.bodyTimeoutMs / 1000,
      send_timeout_s: connections.sendTimeoutMs / 1000,
      seconds_per_attack: SECONDS,
      health,
    };
    log(`baseline: the prompt client and /health alone, ${SECONDS} s`);
    const baseline = await measure(s.port, key, SECONDS);
    results.push({ id: 'none', what: 'no attack', ...baseline, ...memoryNow(s.pid) });
    log(`  ${JSON.stringify(baseline)}`);
    for (const attack of attacks(cap).filter((a) => ONLY === null || ONLY.includes(a.id))) {
      log(`${attack.id}: ${attack.what}, ${SECONDS} s`);
      const stop = await attackInChild(attack.id, s.port, key, cap);
      // The attack in place before the prompt client is timed.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const during = await measure(s.port, key, SECONDS);
      const open = openSockets(s.pid);
      await stop();
      const row = {
        id: attack.id,
        what: attack.what,
        ...during,
        lookups_vs_baseline: round(during.lookups_per_s / baseline.lookups_per_s, 2),
        open_sockets_at_end: open,
        ...memoryNow(s.pid),
      };
      results.push(row);
      log(`  ${JSON.stringify(row)}`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  });
} finally {
  processes.killAll();
}

const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version, at: new Date().toISOString() };
fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'hostile.json'), `${JSON.stringify({ machine, settings, results }, null, 2)}\n`);
const columns = [
  'id',
  'lookups_per_s',
  'lookups_vs_baseline',
  'lookup_p50_ms',
  'lookup_p99_ms',
  'health_answered',
  'health_p50_ms',
  'health_max_ms',
  'rss_mb',
  'peak_rss_mb',
] as const;
const table = [
  `| ${columns.join(' | ')} |`,
  `|${columns.map(() => '---').join('|')}|`,
  ...results.map((r) => `| ${columns.map((c) => String(r[c] ?? '')).join(' | ')} |`),
];
const md = [
  '# Hostile clients',
  '',
  `\`netlookup serve\` as \`npm start\` runs it, default settings (cap ${String(settings.cap)}, ${String(settings.per_client)} per client, body timeout ${String(settings.body_timeout_s)} s, send timeout ${String(settings.send_timeout_s)} s), ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.at}.`,
  `Each attack runs ${SECONDS} s from other loopback addresses, reconnecting when dropped; the prompt client makes one lookup at a time on one kept-alive connection from 127.0.0.1, and /health is asked every 250 ms on a new connection.`,
  '',
  ...results.map((r) => `- \`${String(r.id)}\`: ${String(r.what)}; prompt client's statuses ${JSON.stringify(r.lookup_statuses)}`),
  '',
  ...table,
  '',
].join('\n');
fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'hostile.md'), md);
process.stdout.write(md);
