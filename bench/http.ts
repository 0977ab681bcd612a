/**
 * HTTP benchmark: our service against the node:http ceiling, nginx + GeoIP2 (one worker), Koa + the
 * `maxmind` reader and bare Koa, all in one run, loopback only, each server in its own process
 * (pinned to CPU 0 when taskset exists), the load generator in its own process (wrk, pinned to
 * CPU 1; autocannon only if wrk is missing and autocannon is installed). Two workloads: every
 * request a fresh random address (the headline, bench/httpRandom.ts), and a rotating pool of 10,000
 * addresses (cache-friendly).
 *
 *   npm run bench:http              (node --import tsx bench/http.ts)
 *
 * Environment: BENCH_HTTP_DURATION (seconds per timed run, default 10), BENCH_HTTP_WARMUP (seconds
 * of a warm-up round, default 2; pool cases repeat rounds, up to 5, until every input of the case
 * has been requested 3 times), BENCH_HTTP_CONNECTIONS (default 50), BENCH_SEED (default 20260617),
 * BENCH_HTTP_ONLY (comma-separated case ids), BENCH_HTTP_ROUNDS (alternating runs of the ceilings,
 * nginx and ours that the targets are judged on, default 3; 0 skips), BENCH_HTTP_PROFILE (case ids
 * to run once more under `node --cpu-prof`, default node,ip-paid,redis-ip-free-many; 0 to skip),
 * BENCH_HTTP_PIN (0: no taskset), BENCH_REDIS_URL (the Redis of the shared-store cases, default
 * redis://127.0.0.1:6379; `none` skips them; keys under a prefix of their own, removed at the end),
 * BENCH_HTTP_PAIRS and BENCH_HTTP_PAIR_SECONDS (the alternating runs' count and length: the Redis
 * pairs, default 3 pairs of 5 s; 0 pairs skips them), BENCH_HTTP_SOAK (seconds of the memory soak,
 * default 0: none) and BENCH_HTTP_SOAK_EVERY (its RSS sampling period, default 5 s), BENCH_HTTP_WORKERS
 * and BENCH_HTTP_CLUSTER (N of the workers comparison, `workers` in BENCH_HTTP_ONLY, and 0 to leave
 * its Redis Cluster out: bench/httpWorkers.ts).
 * Writes bench/results/http.json and bench/results/http.md. See bench/README.md.
 *
 * This file runs the cases in order; httpSettings.ts reads the environment, httpMachine.ts pins the
 * processes and reads CPU time, httpInputs.ts draws the inputs, httpRandom.ts defines the random
 * stream, httpServerProcesses.ts starts the servers (bench/httpServers.ts, nginx from
 * httpNginx.ts, `serve`) in child processes, httpCases.ts defines and checks the cases,
 * httpDriver.ts runs the load generator (httpLoad.ts) on them, httpReport.ts writes the results.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { findLoadGenerator } from './httpLoad.js';
import { which } from './systemPackages.js';
import { NO_KEYS, benchKeys, get, peerCases, post, redisCases, serviceCases, soakCase, type BenchKeys, type CaseDef } from './httpCases.js';
import { interleave, newRun, noRounds, prepareRound, profileCase, runCases, runRound, soak } from './httpDriver.js';
import { loadInputs } from './httpInputs.js';
import { pinProcesses, waitForQuiet } from './httpMachine.js';
import { findNginx } from './httpNginx.js';
import { RequestStream, spaceSummary, verifyStream, type RandomKind } from './httpRandom.js';
import { writeReport } from './httpReport.js';
import { CLUSTER, compareWorkers } from './httpWorkers.js';
import { RedisClusterSetup } from '../test/store/redisTopologies.js';
import { removeKeys } from '../test/store/redisTestServer.js';
import { ServerProcesses, serviceEnvironment, type Server, type ServerKind } from './httpServerProcesses.js';
import {
  PAIR_SECONDS,
  PAIRS,
  PROFILE_CASES,
  REDIS_URL,
  ROUNDS,
  SEED,
  SOAK,
  SOAK_EVERY,
  TARGETS,
  log,
  round,
  wanted,
} from './httpSettings.js';

const runStarted = performance.now();

const found = findLoadGenerator();
if ('missing' in found) {
  log(`bench:http skipped: ${found.missing}`);
  log('bench/results/http.json and http.md are left as they are.');
  process.exit(0);
}
const loadAverageAtStart = os.loadavg().map((l) => round(l, 2));
const pinning = await pinProcesses();
log(`load generator: ${found.generator.version}; ${pinning.note}`);
const quiet = await waitForQuiet();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-http-bench-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const inputs = await loadInputs(tmp);
const adminToken = crypto.randomBytes(16).toString('hex');
const serviceEnv = serviceEnvironment(tmp, adminToken);

/** The targets' alternating runs: each ceiling, nginx and ours on the same workload. */
const ROUND_CASES = ['node', 'node-full', 'ip-paid', 'nginx', 'node-ipv6', 'ipv6-paid', 'node-mac', 'mac'];
const peerIds = peerCases(inputs, 0).map((d) => d.id);
const nginxWanted = peerCases(inputs, 0).some((d) => d.server === 'nginx' && (wanted(d.id) || (ROUNDS > 0 && ROUND_CASES.includes(d.id))));
const nginx = nginxWanted ? findNginx() : null;
if (nginx && 'missing' in nginx) log(`nginx peer skipped: ${nginx.missing}`);
const nginxBinary = nginx && !('missing' in nginx) ? nginx : null;

const processes = new ServerProcesses(pinning.server_cpu, serviceEnv, tmp, nginxBinary);
process.once('SIGINT', () => {
  processes.killAll();
  process.exit(130);
});
const run = newRun(found.generator, pinning, tmp, processes);
run.checks.random_spaces = spaceSummary(inputs.spaces);
if (nginx && 'missing' in nginx) run.checks.nginx_missing = nginx.missing;

const available = (d: CaseDef) => d.server !== 'nginx' || nginxBinary !== null;
const withPort = (d: CaseDef, port: number): CaseDef => ({ ...d, spec: { ...d.spec, port } });

/** What kind of record each address gets (through the batch endpoint, 1000 at a time). */
async function recordKinds(
  port: number,
  key: string,
  addresses: string[],
): Promise<{ found: number; not_found: number; reserved: number }> {
  const kinds = { found: 0, not_found: 0, reserved: 0 };
  for (let i = 0; i < addresses.length; i += 1000) {
    const r = await post(port, '/v1/ip/batch', { ips: addresses.slice(i, i + 1000) }, { 'X-API-Key': key });
    if (r.status !== 200) throw new Error(`batch answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    for (const record of r.body.results as Record<string, unknown>[]) {
      if (record.reserved === true) kinds.reserved++;
      else if (record.found === false) kinds.not_found++;
      else kinds.found++;
    }
  }
  return kinds;
}

/** `count` addresses of the random stream (a seed of their own): what the random workload asks about. */
function randomAddresses(kind: RandomKind, count: number): string[] {
  return new RequestStream({ spaces: inputs.spaces, kinds: [kind], paths: { [kind]: '' }, suffixes: [], batch: null }, SEED + 7)
    .take(count)
    .map((r) => r.path);
}

/** The service's own request counts by endpoint and status (every timed request should be a 200), and the accounts' usage. */
async function serviceCounts(s: Server, keys: BenchKeys): Promise<void> {
  const metrics = await get(s.port, '/metrics');
  const statuses: Record<string, Record<string, number>> = {};
  for (const line of metrics.text.split('\n')) {
    const m =
      /^netlookup_requests_total\{endpoint="([^"]*)",status="(\d+)"\} (\d+)/.exec(line) ??
      /^netlookup_requests_total\{status="(\d+)",endpoint="([^"]*)"\} (\d+)/.exec(line);
    if (!m) continue;
    const [endpoint, status] = line.indexOf('endpoint=') < line.indexOf('status=') ? [m[1], m[2]] : [m[2], m[1]];
    (statuses[endpoint] ??= {})[status] = Number(m[3]);
  }
  run.checks.service_requests_by_endpoint_and_status = statuses;
  const usage = async (key: string) => JSON.parse((await get(s.port, '/v1/usage', { 'X-API-Key': key })).text) as unknown;
  run.checks.usage_after_run = { free: await usage(keys.free), business: await usage(keys.paid) };
  if (s.stderr().trim()) run.checks.service_stderr = s.stderr().slice(-2000);
}

try {
  // 0. wrk's Lua stream is the TypeScript one, request for request.
  if (found.generator.name === 'wrk') {
    run.checks.random_stream = await verifyStream(found.generator, inputs.spaces, {
      cpu: pinning.generator_cpu === null ? null : String(pinning.generator_cpu),
      seed: SEED,
    });
    log(`random stream: wrk sent the TypeScript stream's requests (${JSON.stringify(run.checks.random_stream)})`);
  }
  // 1. The ceilings and the peers, one server process per kind.
  const peers = peerCases(inputs, 0).filter((d) => wanted(d.id) && available(d));
  for (const kind of [...new Set(peers.map((d) => d.server))]) {
    const defs = peers.filter((d) => d.server === kind);
    log(defs[0].name.replace(/,.*$/, ''));
    await processes.with(kind, (s) =>
      runCases(
        run,
        s,
        defs.map((d) => withPort(d, s.port)),
      ),
    );
  }
  // 2. Ours
  let keys = null as BenchKeys | null;
  const serviceWanted = serviceCases(inputs, NO_KEYS).some((d) => wanted(d.id) || PROFILE_CASES.includes(d.id));
  if (serviceWanted) {
    log('our service (startService, SQLite store, huge quotas)');
    await processes.with('service', async (s) => {
      const k = await benchKeys(s.port, adminToken, inputs.listedIps);
      keys = k;
      run.checks.ip_pool_records = await recordKinds(s.port, k.paid, inputs.ips);
      run.checks.random_ipv4_records = await recordKinds(s.port, k.paid, randomAddresses('ipv4', 10_000));
      run.checks.random_ipv6_records = await recordKinds(s.port, k.paid, randomAddresses('ipv6', 10_000));
      for (const what of ['ip_pool_records', 'random_ipv4_records', 'random_ipv6_records'])
        log(`  ${what}: ${JSON.stringify(run.checks[what])}`);
      await runCases(
        run,
        s,
        serviceCases(inputs, k).map((d) => withPort(d, s.port)),
      );
      await serviceCounts(s, k);
    });
  }
  // 3. The targets: the ceilings, nginx and ours side by side, in alternating runs.
  const roundDefs = [...peerCases(inputs, 0), ...serviceCases(inputs, NO_KEYS)].filter(
    (d) => ROUND_CASES.includes(d.id) && wanted(d.id) && available(d),
  );
  if (ROUNDS > 0 && roundDefs.some((d) => d.ours) && roundDefs.some((d) => !d.ours)) {
    log(
      `targets: ${ROUND_CASES.filter((id) => roundDefs.some((d) => d.id === id)).join(', ')} alternating, ${ROUNDS} rounds of ${PAIR_SECONDS} s runs, each round on servers started for it`,
    );
    const ordered = ROUND_CASES.flatMap((id) => roundDefs.filter((d) => d.id === id));
    const kinds = [...new Set(ordered.map((d) => d.server))];
    const rounds = noRounds(ordered, PAIR_SECONDS);
    // Each round on servers started for it: how fast one process of the same server runs differs
    // by several percent from the next (where its memory lands), and the median over the rounds
    // then takes in as many processes of each.
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      const servers = new Map<ServerKind, Server>();
      const nest = async (i: number): Promise<void> => {
        if (i < kinds.length) {
          await processes.with(kinds[i], async (s) => {
            servers.set(kinds[i], s);
            await nest(i + 1);
          });
          return;
        }
        const service = servers.get('service')!;
        keys ??= await benchKeys(service.port, adminToken, inputs.listedIps);
        const ours = serviceCases(inputs, keys);
        const defs = ordered.map((d) => withPort(d.ours ? ours.find((o) => o.id === d.id)! : d, servers.get(d.server)!.port));
        await runRound(run, defs, await prepareRound(run, defs, `round${round_}`), round_, rounds);
      };
      await nest(0);
    }
    run.targetRounds = rounds;
    log(`  req/s per round: ${JSON.stringify(rounds.req_per_s)}`);
  }
  // 6. Ours on the shared store: one process, then two cluster workers, on one Redis.
  const redisWanted = [1, 2].some((w) => redisCases(inputs, NO_KEYS, w as 1 | 2).some((d) => wanted(d.id) || PROFILE_CASES.includes(d.id)));
  if (redisWanted && REDIS_URL === 'none') log('BENCH_REDIS_URL=none: the Redis cases are skipped');
  if (redisWanted && REDIS_URL !== 'none') {
    const prefix = `nlbench:${crypto.randomBytes(4).toString('hex')}:`;
    const redisEnv = { ...serviceEnv, REDIS_URL, NETLOOKUP_REDIS_PREFIX: prefix };
    const client = new Redis(REDIS_URL);
    try {
      const info = await client.info('server');
      run.redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]) || null;
      run.checks.redis_server = {
        version: /redis_version:(\S+)/.exec(info)?.[1] ?? null,
        pid_seen: run.redisPid !== null,
        note: 'redis-server is not pinned; its CPU time is counted in cores.redis_server when its pid is visible',
      };
      let redisKeys = null as BenchKeys | null;
      log('our service on Redis (REDIS_URL), 1 process');
      await processes.with(
        'service',
        async (s) => {
          const k = await benchKeys(s.port, adminToken, inputs.listedIps);
          redisKeys = k;
          await runCases(
            run,
            s,
            redisCases(inputs, k, 1).map((d) => ({ ...d, spec: { ...d.spec, port: s.port } })),
          );
          const embeddedKeys = keys;
          const paired =
            embeddedKeys === null || PAIRS <= 0
              ? []
              : serviceCases(inputs, embeddedKeys).filter(
                  (d) => wanted(d.id) && wanted(`redis-${d.id}`) && redisCases(inputs, NO_KEYS, 1).some((r) => r.id === `redis-${d.id}`),
                );
          if (paired.length === 0) return;
          log(`interleaved: the embedded store (started again beside) and the Redis store, ${PAIRS} pairs of ${PAIR_SECONDS} s per lookup`);
          await processes.with('service', async (e) => {
            for (const d of paired) {
              const redisDef = redisCases(inputs, k, 1).find((r) => r.id === `redis-${d.id}`)!;
              await interleave(run, { ...d, spec: { ...d.spec, port: e.port } }, { ...redisDef, spec: { ...redisDef.spec, port: s.port } });
            }
          });
        },
        [],
        redisEnv,
        'service-redis',
      );
      if (redisCases(inputs, NO_KEYS, 2).some((d) => wanted(d.id))) {
        log('our service on Redis, 2 cluster workers (servers and load generator unpinned)');
        await processes.with(
          'workers',
          async (s) => {
            const k = redisKeys ?? (await benchKeys(s.port, adminToken, inputs.listedIps));
            await runCases(
              run,
              s,
              redisCases(inputs, k, 2).map((d) => ({ ...d, spec: { ...d.spec, port: s.port } })),
            );
          },
          [],
          { ...redisEnv, BENCH_WORKERS: '2' },
          'workers-redis',
        );
      }
      // Profiled in a fresh process on the same Redis, so that the accounts made above still answer.
      for (const def of redisKeys === null ? [] : redisCases(inputs, redisKeys, 1)) {
        if (PROFILE_CASES.includes(def.id)) await profileCase(run, def, redisEnv);
      }
    } finally {
      run.redisPid = null;
      await removeKeys(prefix, REDIS_URL);
      client.disconnect();
    }
  }
  // 7. Workers, 1 against N, on the embedded store, on Redis and on a local Redis Cluster (bench/httpWorkers.ts).
  if (wanted('workers')) {
    const prefix = `nlbench:${crypto.randomBytes(4).toString('hex')}:`;
    const redis = REDIS_URL !== 'none';
    const canCluster = CLUSTER && which('redis-cli') !== null && which('redis-server') !== null;
    if (redis && CLUSTER && !canCluster) log('workers: no redis-server or redis-cli here; the Redis Cluster configurations are left out');
    const cluster = redis && canCluster ? await RedisClusterSetup.start() : null;
    try {
      const redisEnv = redis ? { ...serviceEnv, REDIS_URL, NETLOOKUP_REDIS_PREFIX: prefix } : null;
      const clusterEnv = cluster ? { ...serviceEnv, NETLOOKUP_REDIS_CLUSTER: cluster.seedList, NETLOOKUP_REDIS_PREFIX: prefix } : null;
      run.workers = await compareWorkers(run, inputs, adminToken, serviceEnv, redisEnv, clusterEnv);
    } finally {
      await cluster?.stop();
      if (redis) await removeKeys(prefix, REDIS_URL);
    }
  }
  // The profiles of the other cases (the Redis ones are profiled above, while their keys exist).
  for (const id of PROFILE_CASES) {
    if (redisCases(inputs, NO_KEYS, 1).some((d) => d.id === id)) continue;
    const def = peerIds.includes(id)
      ? peerCases(inputs, 0).find((d) => d.id === id && available(d))
      : keys
        ? serviceCases(inputs, keys).find((d) => d.id === id)
        : undefined;
    if (!def) {
      log(`BENCH_HTTP_PROFILE: no case ${id}${keys ? '' : ' (or the service was not started)'}; skipped`);
      continue;
    }
    await profileCase(run, def);
  }
  // The memory soak, against the service as `npm start` runs it.
  if (SOAK > 0) {
    await processes.with('serve', async (s) => {
      const k = await benchKeys(s.port, adminToken, inputs.listedIps);
      run.soak = await soak(run, withPort(soakCase(inputs, k), s.port), s, SOAK, SOAK_EVERY, TARGETS.soakRssMb);
    });
  }
} finally {
  processes.killAll();
}

writeReport(run, inputs, { runStarted, loadAverageAtStart, quiet });
