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
 *
 * This file runs the cases in order; httpSettings.ts reads the environment, httpMachine.ts pins the
 * processes and reads CPU time, httpInputs.ts draws the inputs, httpServerProcesses.ts starts the
 * servers (bench/httpServers.ts) in child processes, httpCases.ts defines and checks the cases,
 * httpDriver.ts runs the load generator (httpLoad.ts) on them, httpReport.ts writes the results.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { findLoadGenerator } from './httpLoad.js';
import { NO_KEYS, benchKeys, get, peerCases, post, redisCases, serviceCases, type BenchKeys } from './httpCases.js';
import { interleave, profileCase, runCases, type BenchRun } from './httpDriver.js';
import { loadInputs } from './httpInputs.js';
import { pinProcesses, waitForQuiet } from './httpMachine.js';
import { writeReport } from './httpReport.js';
import { ServerProcesses, serviceEnvironment } from './httpServerProcesses.js';
import { PAIR_SECONDS, PAIRS, PROFILE_CASES, REDIS_URL, log, round, wanted } from './httpSettings.js';

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

const inputs = await loadInputs();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-http-bench-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const adminToken = crypto.randomBytes(16).toString('hex');
const serviceEnv = serviceEnvironment(tmp, adminToken);
const processes = new ServerProcesses(pinning.server_cpu, serviceEnv);
process.once('SIGINT', () => {
  processes.killAll();
  process.exit(130);
});
const run: BenchRun = {
  generator: found.generator,
  pinning,
  tmp,
  processes,
  results: [],
  checks: {},
  profiles: [],
  interleaved: [],
  redisPid: null,
};

try {
  // 1. The ceiling, 2. the peer
  for (const def of peerCases(inputs, 0)) {
    if (!wanted(def.id)) continue;
    log(def.name);
    await processes.with(def.server, (s) => runCases(run, s, [{ ...def, spec: { ...def.spec, port: s.port } }]));
  }
  // 3–5. Ours
  let keys = null as BenchKeys | null;
  const serviceWanted = serviceCases(inputs, NO_KEYS).some((d) => wanted(d.id) || PROFILE_CASES.includes(d.id));
  if (serviceWanted) {
    log('our service (startService, SQLite store, huge quotas)');
    await processes.with('service', async (s) => {
      keys = await benchKeys(s.port, adminToken, inputs.listedIps);
      // Every address of the pool, through the batch endpoint: what kind of record each gets.
      const kinds = { found: 0, not_found: 0, reserved: 0 };
      for (let i = 0; i < inputs.ips.length; i += 1000) {
        const r = await post(s.port, '/v1/ip/batch', { ips: inputs.ips.slice(i, i + 1000) }, { 'X-API-Key': keys.paid });
        if (r.status !== 200) throw new Error(`pool check: batch answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
        for (const record of r.body.results as Record<string, unknown>[]) {
          if (record.reserved === true) kinds.reserved++;
          else if (record.found === false) kinds.not_found++;
          else kinds.found++;
        }
      }
      run.checks.ip_pool_records = kinds;
      log(`  pool: ${kinds.found} found, ${kinds.not_found} not found, ${kinds.reserved} reserved`);
      const defs = serviceCases(inputs, keys).map((d) => ({ ...d, spec: { ...d.spec, port: s.port } }));
      await runCases(run, s, defs);
      // What the service itself counted: every timed request should be a 200.
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
    });
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
    if (redisCases(inputs, NO_KEYS, 1).some((d) => d.id === id)) continue;
    const def = peerCases(inputs, 0).some((d) => d.id === id)
      ? peerCases(inputs, 0).find((d) => d.id === id)
      : keys
        ? serviceCases(inputs, keys).find((d) => d.id === id)
        : undefined;
    if (!def) {
      log(`BENCH_HTTP_PROFILE: no case ${id}${keys ? '' : ' (or the service was not started)'}; skipped`);
      continue;
    }
    await profileCase(run, def);
  }
} finally {
  processes.killAll();
}

writeReport(run, inputs, { runStarted, loadAverageAtStart, quiet });
