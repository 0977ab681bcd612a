/**
 * Workers, 1 against N (bench:http's last comparison): the paid random-IPv4 lookup on
 * `netlookup serve --workers 1` and `--workers N`, on the embedded store and on Redis, every server
 * running side by side and measured in alternating runs (round k in order, the next in reverse), so
 * that each ratio compares runs seconds apart. Unpinned: N workers are there to use every CPU, and
 * the load generator shares them (on a 2-core machine it takes a good part of one). Then each
 * server's quota is held under full load: a key whose plan allows QUOTA_PROBE lookups a month gets
 * exactly that many answers, and the usage says so.
 *
 * With Redis, the same on a local Redis Cluster (three masters, a replica each, started here as the
 * tests start theirs), for single Redis against Cluster.
 *
 * BENCH_HTTP_WORKERS: N (default 2, or the machine's core count when higher); BENCH_HTTP_CLUSTER=0
 * leaves the Cluster out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { benchKeys, post, serviceCases, type CaseDef } from './httpCases.js';
import { noRounds, prepareRound, roundRatios, runRound, totalErrors, type BenchRun, type Rounds } from './httpDriver.js';
import type { HttpInputs } from './httpInputs.js';
import { cores } from './httpMachine.js';
import { QUOTA_PROBE, type Server } from './httpServerProcesses.js';
import { CONNECTIONS, DURATION, env, log, round, ROUNDS, TIMEOUT_S } from './httpSettings.js';

export const WORKERS = Number(env.BENCH_HTTP_WORKERS ?? Math.max(2, cores));
/** the Redis Cluster configurations too (they need redis-server and redis-cli 7 or later, as the tests do) */
export const CLUSTER = env.BENCH_HTTP_CLUSTER !== '0';

export interface WorkersConfig {
  id: string;
  store: 'sqlite' | 'redis' | 'redis-cluster';
  workers: number;
}

export interface QuotaCheck {
  config: string;
  quota: number;
  /** 200 answers the load generator received */
  answered: number;
  /** monthly_quota.used in /v1/usage after the run */
  counted: number;
  exact: boolean;
}

export interface WorkersComparison {
  workers: number;
  connections: number;
  configs: WorkersConfig[];
  rounds: Rounds;
  /** per-round ratios and their median */
  ratios: { name: string; a: string; b: string; ratios: number[]; median: number }[];
  quota: QuotaCheck[];
}

const CONFIG_NAMES: Record<WorkersConfig['store'], string> = { sqlite: 'embedded', redis: 'redis', 'redis-cluster': 'cluster' };

/** The configurations: the embedded store always, each Redis set-up whose environment is given. */
function workersConfigs(stores: WorkersConfig['store'][]): WorkersConfig[] {
  return stores.flatMap((store) => [1, WORKERS].map((workers) => ({ id: `${CONFIG_NAMES[store]}-w${workers}`, store, workers })));
}

/**
 * Starts every configuration (each embedded one on a data directory of its own), measures them in
 * ROUNDS alternating runs of DURATION seconds, then checks each one's quota.
 */
export async function compareWorkers(
  run: BenchRun,
  inputs: HttpInputs,
  adminToken: string,
  serviceEnv: Record<string, string>,
  redisEnv: Record<string, string> | null,
  clusterEnv: Record<string, string> | null,
): Promise<WorkersComparison> {
  const envs: Record<WorkersConfig['store'], Record<string, string> | null> = {
    sqlite: serviceEnv,
    redis: redisEnv,
    'redis-cluster': clusterEnv,
  };
  const configs = workersConfigs((['sqlite', 'redis', 'redis-cluster'] as const).filter((store) => envs[store] !== null));
  const servers = new Map<string, Server>();
  const result: WorkersComparison = {
    workers: WORKERS,
    connections: CONNECTIONS,
    configs,
    rounds: noRounds([], DURATION),
    ratios: [],
    quota: [],
  };
  const nest = async (i: number): Promise<void> => {
    if (i < configs.length) {
      const c = configs[i];
      const base = envs[c.store]!;
      const dataDir = path.join(run.tmp, `workers-${c.id}`);
      fs.mkdirSync(dataDir, { recursive: true });
      const extraEnv: Record<string, string> = { ...base, NETLOOKUP_DATA_DIR: dataDir, BENCH_WORKERS: String(c.workers) };
      if (c.store !== 'sqlite') extraEnv.NETLOOKUP_REDIS_PREFIX = `${base.NETLOOKUP_REDIS_PREFIX}${c.id}:`;
      await run.processes.with(
        'workers',
        async (s) => {
          servers.set(c.id, s);
          await nest(i + 1);
        },
        [],
        extraEnv,
        `workers-${c.id}`,
      );
      return;
    }
    const defs: CaseDef[] = [];
    for (const c of configs) {
      const s = servers.get(c.id)!;
      const keys = await benchKeys(s.port, adminToken, inputs.listedIps);
      const paid = serviceCases(inputs, keys).find((d) => d.id === 'ip-paid')!;
      defs.push({
        ...paid,
        id: c.id,
        name: `${paid.name}, ${c.store}, ${c.workers} worker(s)`,
        server: 'workers',
        target: undefined,
        spec: { ...paid.spec, port: s.port },
      });
    }
    log(`workers 1 vs ${WORKERS}: ${configs.map((c) => c.id).join(', ')}, ${ROUNDS} alternating rounds of ${DURATION} s (unpinned)`);
    result.rounds = noRounds(defs, DURATION);
    const prepared = await prepareRound(run, defs, 'workers');
    for (let k = 0; k < Math.max(1, ROUNDS); k++) await runRound(run, defs, prepared, k, result.rounds);
    const ratio = (name: string, a: string, b: string) => {
      const r = roundRatios(result.rounds, a, b);
      if (r) result.ratios.push({ name, a, b, ...r });
    };
    ratio(`embedded, ${WORKERS} workers / 1`, `embedded-w${WORKERS}`, 'embedded-w1');
    if (redisEnv) {
      ratio(`Redis, ${WORKERS} workers / 1`, `redis-w${WORKERS}`, 'redis-w1');
      ratio(`${WORKERS} workers: embedded / Redis`, `embedded-w${WORKERS}`, `redis-w${WORKERS}`);
      ratio('1 worker: embedded / Redis', 'embedded-w1', 'redis-w1');
    }
    if (clusterEnv) {
      ratio(`Redis Cluster, ${WORKERS} workers / 1`, `cluster-w${WORKERS}`, 'cluster-w1');
      if (redisEnv) {
        ratio('1 worker: Cluster / single Redis', 'cluster-w1', 'redis-w1');
        ratio(`${WORKERS} workers: Cluster / single Redis`, `cluster-w${WORKERS}`, `redis-w${WORKERS}`);
      }
    }
    for (const r of result.ratios) log(`  ${r.name}: ${r.ratios.map((x) => x.toFixed(2)).join(', ')} (median ${r.median.toFixed(2)})`);
    for (const [i, c] of configs.entries()) result.quota.push(await quotaHeld(run, c, defs[i], servers.get(c.id)!, adminToken));
  };
  await nest(0);
  return result;
}

/** A key of the starter plan (QUOTA_PROBE lookups a month) driven past its quota at full load. */
async function quotaHeld(run: BenchRun, c: WorkersConfig, def: CaseDef, s: Server, adminToken: string): Promise<QuotaCheck> {
  const created = await post(s.port, '/admin/accounts', { plan: 'starter' }, { authorization: `Bearer ${adminToken}` });
  if (created.status !== 201) throw new Error(`admin API: ${created.status} ${JSON.stringify(created.body)}`);
  const key = (created.body.key as { secret: string }).secret;
  const spec = { ...def.spec, headers: { ...def.spec.headers, 'X-API-Key': key } };
  const prepared = run.generator.prepare(spec, run.tmp, `${c.id}-quota`);
  const r = await run.generator.run(prepared, { connections: CONNECTIONS, seconds: 3, timeoutSeconds: TIMEOUT_S, cpu: null, seed: 7 });
  const answered = r.requests - r.errors.non_2xx_3xx;
  if (totalErrors(r) - r.errors.non_2xx_3xx > 0) throw new Error(`quota run, ${c.id}: ${totalErrors(r)} errors`);
  const usage = await fetch(`http://127.0.0.1:${s.port}/v1/usage`, { headers: { 'X-API-Key': key } }).then((u) => u.json());
  const counted = (usage as { monthly_quota?: { used: number } }).monthly_quota?.used ?? -1;
  const check = { config: c.id, quota: QUOTA_PROBE, answered, counted, exact: answered === QUOTA_PROBE && counted === QUOTA_PROBE };
  log(`  ${c.id}: quota ${QUOTA_PROBE}: ${answered} answered, ${counted} counted${check.exact ? '' : ' — NOT EXACT'}`);
  return check;
}

export function workersMarkdown(w: WorkersComparison | null): string[] {
  if (w === null) return [];
  const median = (id: string) => {
    const xs = [...w.rounds.req_per_s[id]].sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)];
  };
  return [
    `#### Workers: 1 against ${w.workers}`,
    '',
    `\`netlookup serve --workers 1\` and \`--workers ${w.workers}\`, the paid random-IPv4 lookup, ${w.connections} connections, every server running ` +
      `side by side and measured in ${w.rounds.orders.length} alternating rounds of ${w.rounds.seconds_per_run} s; servers and load generator unpinned ` +
      '(the generator shares the CPUs with the workers).',
    '',
    '| configuration | store | workers | req/s per round | median |',
    '|---|---|---:|---|---:|',
    ...w.configs.map(
      (c) =>
        `| ${c.id} | ${c.store} | ${c.workers} | ${w.rounds.req_per_s[c.id].map((x) => round(x)).join(', ')} | ${round(median(c.id))} |`,
    ),
    '',
    '| ratio | per round | median |',
    '|---|---|---:|',
    ...w.ratios.map((r) => `| ${r.name} | ${r.ratios.map((x) => x.toFixed(2)).join(', ')} | **${r.median.toFixed(2)}×** |`),
    '',
    `Quotas under full load: a key of a plan allowing ${w.quota[0]?.quota ?? '?'} lookups a month, driven for 3 s at ${w.connections} connections.`,
    '',
    '| configuration | answered (200) | counted (usage) | exact |',
    '|---|---:|---:|---|',
    ...w.quota.map((q) => `| ${q.config} | ${q.answered} | ${q.counted} | ${q.exact ? 'yes' : '**no**'} |`),
    '',
  ];
}
