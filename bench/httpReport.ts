/**
 * The report of the HTTP bench: ratios to the ceiling and the peer, the targets, bench/results/http.json
 * and http.md, and a summary on the console.
 */
import { workersMarkdown } from './httpWorkers.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { profileMarkdown } from './httpProfile.js';
import { NO_KEYS, peerCases, redisCases, serviceCases, type CaseDef, type Target } from './httpCases.js';
import { roundRatios, type BenchRun, type CaseResult } from './httpDriver.js';
import type { HttpInputs } from './httpInputs.js';
import { LISTED_EVERY } from './httpInputs.js';
import { cores } from './httpMachine.js';
import {
  CONNECTIONS,
  DURATION,
  ONLY,
  PAIR_SECONDS,
  PAIRS,
  PROFILE_CASES,
  ROUNDS,
  SOAK,
  RESULTS,
  SEED,
  TARGETS,
  TIMEOUT_S,
  WARMUP,
  WARMUP_MAX_ROUNDS,
  WARMUP_PASSES,
  env,
  fmtRate,
  log,
  round,
} from './httpSettings.js';

/** What the run recorded before its first case: the machine's load and how quiet its CPUs were. */
export interface RunStart {
  runStarted: number;
  loadAverageAtStart: number[];
  quiet: { cpu_busy_before_start: number[] | null; waited_s: number; quiet: boolean | null };
}

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

export function writeReport(run: BenchRun, inputs: HttpInputs, started: RunStart): void {
  const { generator, pinning, results, checks, profiles, interleaved } = run;
  const servers = run.processes.info;
  const { ips, macs, listedIps } = inputs;
  const { runStarted, loadAverageAtStart, quiet } = started;
  profiles.sort((a, b) => PROFILE_CASES.indexOf(a.case) - PROFILE_CASES.indexOf(b.case));
  const byId = new Map(results.map((r) => [r.id, r]));
  const defsById = new Map(
    [...peerCases(inputs, 0), ...serviceCases(inputs, NO_KEYS), ...redisCases(inputs, NO_KEYS, 1), ...redisCases(inputs, NO_KEYS, 2)].map(
      (d) => [d.id, d],
    ),
  );
  const peer = byId.get('maxmind');
  const ratio = (r: CaseResult, other: string | null | undefined) => {
    const o = other ? byId.get(other) : undefined;
    return o && o !== r ? round(r.req_per_s / o.req_per_s, 3) : null;
  };
  for (const r of results) {
    const def = defsById.get(r.id);
    r.vs_ceiling = r.addresses_per_request === 1 ? ratio(r, def?.ceiling) : null;
    r.vs_nginx = r.addresses_per_request === 1 ? ratio(r, def?.nginx) : null;
    r.vs_maxmind = r.workload === 'random' && r.addresses_per_request === 1 && r.id !== 'maxmind' ? ratio(r, 'maxmind') : null;
    r.lookups_vs_maxmind = peer && r.addresses_per_s !== null ? round(r.addresses_per_s / peer.req_per_s, 2) : null;
    const target = def?.target;
    if (target?.kind === 'single') r.target = singleTarget(r, def!, target);
    else if (target?.kind === 'batch-p50') {
      const ok = r.latency_ms.p50 * 1000 <= TARGETS.batch1000P50Us;
      r.target = {
        text: `p50 ≤ ${TARGETS.batch1000P50Us / 1000} ms`,
        pass: ok && r.error_total === 0,
        primary: true,
        details: `p50 ${r.latency_ms.p50.toFixed(2)} ms ${ok ? 'ok' : 'over'}`,
      };
    }
  }

  /**
   * A single lookup's target: its ratios to the node:http ceiling and to nginx on the same workload,
   * the medians of the alternating rounds when they ran (else the sequential runs minutes apart), and
   * its p99 in the sequential run.
   */
  function singleTarget(r: CaseResult, def: CaseDef, t: Extract<Target, { kind: 'single' }>): CaseResult['target'] {
    const rounds = run.targetRounds;
    const judged = (other: string | null, sequential: number | null) => {
      const pairs = rounds && other ? roundRatios(rounds, r.id, other) : null;
      return pairs
        ? { value: pairs.median, basis: `median of ${pairs.ratios.join(', ')}` }
        : sequential === null
          ? null
          : { value: sequential, basis: 'sequential runs' };
    };
    const node = judged(def.ceiling, r.vs_ceiling);
    const nginx = t.vsNginx === null ? null : judged(def.nginx, r.vs_nginx);
    const parts = [
      {
        ok: node !== null && node.value >= t.vsNode,
        text: `≥ ${t.vsNode}× node:http`,
        got: node ? `${node.value.toFixed(2)}× node:http (${node.basis})` : 'node:http not measured',
      },
      ...(t.vsNginx === null
        ? []
        : [
            {
              ok: nginx !== null && nginx.value >= t.vsNginx,
              text: `≥ ${t.vsNginx}× nginx + GeoIP2`,
              got: nginx ? `${nginx.value.toFixed(2)}× nginx (${nginx.basis})` : 'nginx not measured',
            },
          ]),
      ...(t.p99Us === null
        ? []
        : [{ ok: r.latency_ms.p99 * 1000 <= t.p99Us, text: `p99 ≤ ${t.p99Us / 1000} ms`, got: `p99 ${r.latency_ms.p99.toFixed(2)} ms` }]),
    ];
    return {
      text: parts.map((p) => p.text).join(', '),
      pass: parts.every((p) => p.ok) && r.error_total === 0,
      primary: t.primary,
      details: parts.map((p) => `${p.got} ${p.ok ? 'ok' : 'short'}`).join('; '),
    };
  }

  // The shared store against the embedded one: the same lookup, and the scaling from 1 to 2 workers.
  const sharedStore = ['ip-free', 'ip-paid', 'ip-free-many'].flatMap((lookup) => {
    const embedded = byId.get(lookup);
    const pairs = interleaved.find((p) => p.lookup === lookup) ?? null;
    return [`redis-${lookup}`, `redis2-${lookup}`].flatMap((id) => {
      const r = byId.get(id);
      if (!r) return [];
      const one = byId.get(`redis-${lookup}`);
      const single = !id.startsWith('redis2');
      return [
        {
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
          target: single
            ? {
                text: 'within 25% of the embedded store (≥ 0.75×)',
                basis: pairs ? 'interleaved median' : 'runs apart',
                pass: pairs ? pairs.median_ratio >= 0.75 : embedded ? r.req_per_s / embedded.req_per_s >= 0.75 : null,
              }
            : null,
        },
      ];
    });
  });

  const errorsTotal = results.reduce((sum, r) => sum + r.error_total, 0);
  const statusCounts = checks.service_requests_by_endpoint_and_status as Record<string, Record<string, number>> | undefined;
  const serviceNon200 = statusCounts
    ? Object.entries(statusCounts)
        .filter(([endpoint]) => endpoint.startsWith('/v1'))
        // the listed addresses' reports, made before the cases, are answered 201
        .reduce(
          (sum, [endpoint, byStatus]) =>
            sum +
            Object.entries(byStatus)
              .filter(([s]) => s !== '200' && !(s === '201' && endpoint.includes('report')))
              .reduce((a, [, n]) => a + n, 0),
          0,
        )
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
      workloads: {
        random:
          'every request a fresh address drawn by the load generator from a seeded sfc32 stream (bench/httpRandom.ts): IPv4 uniform over the 2^32 values minus special-purpose blocks; ' +
          'IPv6 uniform over the space the ASN source announces minus special-purpose blocks (a CIDR block chosen by size, host bits uniform); MAC 7 in 8 inside a random IEEE block, 1 in 8 fully random; batches of fresh IPv4 addresses',
        pool: `rotating over ${ips.length} public IPv4 addresses held by the DB-IP mmdb and ${macs.length} MACs (cache-friendly)`,
      },
      rounds: ROUNDS,
      soak_s: SOAK,
      timeout_s: TIMEOUT_S,
      only: ONLY ? [...ONLY] : null,
      plans: 'every quota 1e9 and every rate limit 1,000,000/s, so that metering runs on every request and never refuses',
      server_command:
        "node [npm start's node flags, for ours] --import tsx bench/httpServers.ts <node|bare|maxmind|service> (NODE_ENV=production, LOG_LEVEL=info); nginx -p <prefix> (bench/httpNginx.ts); the soak and the workers: npm start's command (with --workers N)",
      service_code:
        env.BENCH_HTTP_SERVICE !== 'src' ? 'dist/ (compiled by tsc, as npm start)' : 'src/ through tsx (BENCH_HTTP_SERVICE=src)',
    },
    load_generator: { name: generator.name, version: generator.version, threads: 1, how: generator.description },
    pinning,
    servers,
    cases: results,
    shared_store: sharedStore,
    shared_store_interleaved: interleaved,
    workers: run.workers,
    checks,
    targets: results.filter((r) => r.target).map((r) => ({ case: r.id, ...r.target! })),
    target_rounds: run.targetRounds,
    soak: run.soak,
    profiles,
    run_seconds: round((performance.now() - runStarted) / 1000, 1),
  };
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'http.json'), JSON.stringify(report, null, 2) + '\n');

  const HEAD = [
    'case',
    'conns',
    'req/s',
    'addresses/s',
    'p50',
    'p99',
    'bytes/resp',
    'errors',
    'server CPU',
    'generator CPU',
    'vs node:http',
    'vs nginx',
    'vs Koa+maxmind',
    'target',
  ];
  const rowOf = (r: CaseResult) => [
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
      : `${Math.round(r.cpu_busy.server_process * 100)} %` +
        (r.cpu_busy.others_on_server_cpu !== null && r.cpu_busy.others_on_server_cpu > 0.05
          ? ` (+${Math.round(r.cpu_busy.others_on_server_cpu * 100)} % others)`
          : ''),
    r.cpu_busy.generator_process === null ? '' : `${Math.round(r.cpu_busy.generator_process * 100)} %`,
    r.server === 'node' && r.vs_ceiling === null ? '1 (ceiling)' : fmtRatio(r.vs_ceiling),
    r.server === 'nginx' && r.vs_nginx === null ? '1 (peer)' : fmtRatio(r.vs_nginx),
    r.id === 'maxmind'
      ? '1 (peer)'
      : r.lookups_vs_maxmind !== null
        ? `${r.lookups_vs_maxmind.toFixed(1)}× (lookups/s)`
        : fmtRatio(r.vs_maxmind),
    verdict(r),
  ];
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const table = (rs: CaseResult[]) => [
    `| ${HEAD.join(' | ')} |`,
    `|${HEAD.map((_, i) => (i >= 1 && i <= 12 ? '---:' : '---')).join('|')}|`,
    ...rs.map((r) => `| ${rowOf(r).map(esc).join(' | ')} |`),
  ];
  const randomResults = results.filter((r) => r.workload === 'random' && !r.id.startsWith('redis'));
  const poolResults = results.filter((r) => r.workload === 'pool');
  const node = byId.get('node');
  const fullCeiling = byId.get('bare-full');
  const paid = byId.get('ip-paid');
  const sameBytesLine =
    fullCeiling && paid && node
      ? `Bare Koa answering a static full record with the quota headers (${fullCeiling.bytes_per_response} bytes) runs at ${((fullCeiling.req_per_s / node.req_per_s) * 100).toFixed(0)}% of node:http's ~600-byte answer: ` +
        `what the bigger answer and Koa cost alone; our paid lookup (${paid.bytes_per_response} bytes on average) runs at ${((paid.req_per_s / fullCeiling.req_per_s) * 100).toFixed(0)}% of it.`
      : '';
  const sameBytesNode = byId.get('node-full');
  const sameBytesNodeLine = sameBytesNode && paid && node ? sameBytesNodeText(sameBytesNode, paid, node) : '';
  const kindsLine = (key: string, label: string) => {
    const k = checks[key] as { found: number; not_found: number; reserved: number } | undefined;
    return k ? `${label}: ${k.found} found, ${k.not_found} not found, ${k.reserved} reserved` : null;
  };
  const recordLines = [
    kindsLine('random_ipv4_records', '10,000 addresses of the random IPv4 stream'),
    kindsLine('random_ipv6_records', '10,000 of the random IPv6 stream'),
    kindsLine('ip_pool_records', `the ${ips.length}-address pool`),
  ].filter(Boolean);
  const stream = checks.random_stream as { requests_compared: number; batches_compared: number } | undefined;
  const generatorShares = results
    .filter((r) => r.workload === 'random')
    .flatMap((r) => (r.cpu_busy.generator_process === null ? [] : [r.cpu_busy.generator_process]));
  const generatorCost =
    (generatorShares.length > 0
      ? `Generator CPU: the load generator's own CPU time over the run (100 % = its core saturated, the generator the bottleneck): at most ${Math.round(Math.max(...generatorShares) * 100)} % in the random cases. `
      : '') +
    (node && byId.get('pool-node')
      ? `node:http answered ${fmtRate(node.req_per_s)} req/s with random IPv4 paths and ${fmtRate(byId.get('pool-node')!.req_per_s)} with the pool's pre-formatted ones.`
      : '');
  const md = [
    `### HTTP benchmark — ${date.slice(0, 10)}, ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`,
    '',
    `${generator.version} (1 thread, ${CONNECTIONS} connections unless noted), ${DURATION} s per case after a warm-up (random cases: one ${WARMUP} s round with other addresses; pool cases: ${WARMUP} s rounds until each input was requested ${WARMUP_PASSES} times, at most ${WARMUP_MAX_ROUNDS}), loopback; ${pinning.note}; ` +
      `our service from ${env.BENCH_HTTP_SERVICE !== 'src' ? 'dist/ (as npm start runs it)' : 'src/ through tsx'}. ` +
      `Load average ${machine.load_average_start.join(' / ')} at start, ${machine.load_average_end.join(' / ')} at end` +
      (quiet.cpu_busy_before_start
        ? `; CPUs ${quiet.cpu_busy_before_start.map((b) => `${Math.round(b * 100)} %`).join(' / ')} busy just before the first case${quiet.quiet ? '' : ' (not quiet: other processes were running)'}`
        : '') +
      '.',
    '',
    '#### Every request a new address (the headline)',
    '',
    ...table(randomResults),
    '',
    '#### Rotating pool of 10,000 addresses (cache-friendly: after warm-up, per-range caches answer everything)',
    '',
    ...table(poolResults),
    '',
    `★ = ours. Random workload: wrk's Lua draws every address from a seeded stream (bench/httpRandom.ts): IPv4 uniform over the public space (special-purpose blocks redrawn), IPv6 uniform over the space the ASN source announces (special-purpose blocks removed), ` +
      'MACs 7 in 8 inside a random IEEE block and 1 in 8 fully random; batches are of fresh IPv4 addresses. ' +
      (stream
        ? `The same stream in TypeScript matched what wrk sent, request for request (${stream.requests_compared} mixed requests, ${stream.batches_compared} batches). `
        : '') +
      (recordLines.length > 0 ? `Records (through the batch endpoint): ${recordLines.join('; ')}. ` : '') +
      `Pool workload: ${ips.length} seeded public IPv4 addresses that the DB-IP mmdb holds, ${listedIps.size} (1 in ${LISTED_EVERY}) reported to the blacklist before the cases, ${macs.length} seeded MACs. Every request carries an X-API-Key header. ` +
      "Before timing, each random case's answers to the first 200 requests of its timed run (5 for batches and pool cases) were checked (200, JSON, the record of the address asked, full on paid records, quota headers, no reserved answer; `security.is_threat` true exactly for reported addresses); errors = socket errors + timeouts + non-2xx/3xx counted by the load generator" +
      (serviceNon200 === null ? '.' : `; the service's own metrics count ${serviceNon200} non-200 /v1 responses over the run.`),
    `Server CPU: the server process's CPU time over the run's wall time (100 % = its core was saturated; "+N % others": other processes' share of that core during the run). ` +
      `vs node:http and vs nginx: against node:http (static JSON) and nginx + GeoIP2 on the same workload and address kind, in sequential runs minutes apart. ${generatorCost} ${sameBytesLine} ${sameBytesNodeLine} ` +
      'Batch cases at 50 connections measure throughput (their latency is mostly queueing); the 1-connection runs measure ' +
      'the time to answer one batch.',
    '',
    ...roundsMarkdown(),
    ...soakMarkdown(),
    ...sharedStoreMarkdown(),
    ...workersMarkdown(run.workers),
    ...profileMarkdown(profiles),
  ].join('\n');

  /**
   * node:http sending a paid lookup's bytes (the full record and the metered headers) against its
   * ~600-byte answer: the share of the ceiling any node:http server can reach with this answer,
   * which bounds what the single lookups' ratios can reach. Alternating rounds when they ran.
   */
  function sameBytesNodeText(full: CaseResult, paid: CaseResult, ceiling: CaseResult): string {
    const rounds = run.targetRounds;
    const ofCeiling = (rounds && roundRatios(rounds, full.id, ceiling.id)?.median) ?? full.req_per_s / ceiling.req_per_s;
    const paidOfFull = (rounds && roundRatios(rounds, paid.id, full.id)?.median) ?? paid.req_per_s / full.req_per_s;
    return (
      `node:http answering the same bytes as a paid lookup (the full record and the quota headers, ${full.bytes_per_response} bytes) runs at ${ofCeiling.toFixed(2)}× its ~600-byte answer${rounds ? ' (alternating rounds, median)' : ''}: ` +
      `no node:http server sends this answer faster; our paid IPv4 lookup runs at ${paidOfFull.toFixed(2)}× of it.`
    );
  }

  function roundsMarkdown(): string[] {
    const rounds = run.targetRounds;
    const judged = results.filter((r) => r.target);
    if (judged.length === 0) return [];
    const lines = [
      '#### Targets',
      '',
      '| case | target | measured | verdict |',
      '|---|---|---|---|',
      ...judged.map(
        (r) => `| ★ ${r.id} | ${esc(r.target!.text)} | ${esc(r.target!.details)} | ${r.target!.pass ? '**PASS**' : '**FAIL**'} |`,
      ),
      '',
    ];
    if (rounds) {
      const ids = Object.keys(rounds.req_per_s);
      lines.push(
        `Ratios are judged on alternating runs: the servers running side by side, ${rounds.orders.length} rounds of ${rounds.seconds_per_run} s runs, one round in the order ${rounds.orders[0].join(', ')}, the next in reverse, ` +
          'so that each ratio compares runs seconds apart (the median of the rounds is judged). Each round runs on servers started for it: two processes of the same server differ by several percent on this kind of machine, so the median takes in several of each. ' +
          'p99 comes from the sequential run above. req/s per round: ' +
          ids.map((id) => `${id} ${rounds.req_per_s[id].map((v) => fmtRate(v)).join(' / ')}`).join('; ') +
          '.',
        '',
      );
    }
    return lines;
  }

  function soakMarkdown(): string[] {
    const soak = run.soak;
    if (!soak) return [];
    const every = Math.max(1, Math.floor(soak.samples.length / 10));
    return [
      '#### Memory soak',
      '',
      `${soak.name}, ${CONNECTIONS} connections at full speed for ${soak.seconds} s against one service process (\`${soak.server}\`, pinned like the others): ` +
        `${fmtRate(soak.req_per_s)} req/s, ${soak.requests} requests, ${soak.error_total} errors, ${soak.samples_checked} answers checked first. ` +
        `RSS before the load ${soak.rss_mb_before ?? '?'} MB; **after ${soak.seconds} s ${soak.rss_mb_end ?? '?'} MB, peak (VmHWM) ${soak.peak_mb ?? '?'} MB**: ` +
        `${soak.target.pass ? '**PASS**' : '**FAIL**'} (${soak.target.text}).`,
      '',
      '| s | VmRSS MB | VmHWM MB |',
      '|---:|---:|---:|',
      ...soak.samples
        .filter((_, i) => i % every === 0 || i === soak.samples.length - 1)
        .map((x) => `| ${x.t_s} | ${x.rss_mb} | ${x.hwm_mb} |`),
      '',
    ];
  }

  function sharedStoreMarkdown(): string[] {
    if (sharedStore.length === 0) return [];
    const cores = (c: CaseResult['cores']) =>
      [c.machine, c.server, c.redis_server, c.generator_and_others].map((n) => (n === null ? '?' : n.toFixed(2))).join(' / ');
    return [
      '#### Shared store (Redis) against the embedded store',
      '',
      '| case | workers | req/s | p99 | vs embedded | interleaved pairs: Redis / embedded (median) | vs node:http | scaling ' +
        '1→2 | cores: machine / server / redis-server / generator + others | target |',
      '|---|---:|---:|---:|---:|---|---:|---:|---|---|',
      ...sharedStore.map((r) => {
        const pairs = r.interleaved_ratios
          ? `${r.interleaved_ratios.map((x) => x.toFixed(2)).join(', ')} (**${fmtRatio(interleaved.find((p) => p.lookup === r.lookup)!.median_ratio)}**)`
          : '';
        const target = r.target ? `${r.target.pass ? 'PASS' : 'FAIL'} (${r.target.text}; ${r.target.basis})` : '';
        return `| ${r.case} | ${r.workers} | ${fmtRate(r.req_per_s)} | ${fmtMs(r.p99_ms)} | ${fmtRatio(r.vs_embedded)} | ${pairs} | ${fmtRatio(r.vs_ceiling)} | ${r.scaling_vs_1_worker === null ? '' : `${r.scaling_vs_1_worker.toFixed(2)}×`} | ${cores(r.cores)} | ${target} |`;
      }),
      '',
      `vs embedded: against the embedded store's run of the same case, minutes earlier. Interleaved pairs: both stores' servers running side by side, ${PAIRS} pairs of ${PAIR_SECONDS} s runs of the same lookup alternating (E R, R E, …), so that each ratio compares runs seconds apart; ` +
        "the target is judged on their median (a shared VM's pace can move by tens of percent within a minute). " +
        'One worker runs pinned like the other cases (server on CPU 0, wrk on CPU 1; redis-server floats). Two workers, ' +
        'redis-server and wrk share both CPUs unpinned: ' +
        '"generator + others" is the machine\'s busy time not spent in the server processes or redis-server, an upper bound ' +
        'on what wrk took.',
      '',
    ];
  }
  fs.writeFileSync(path.join(RESULTS, 'http.md'), md + '\n');

  const pad = (rs: string[][]) => {
    const widths = rs[0].map((_, i) => Math.max(...rs.map((r) => [...(r[i] ?? '')].length)));
    return rs
      .map((r) =>
        r
          .map((c, i) => c + ' '.repeat(widths[i] - [...c].length))
          .join('  ')
          .trimEnd(),
      )
      .join('\n');
  };
  console.log(pad([HEAD, ...results.map((r) => rowOf(r).map((c) => c.replace(/\*\*/g, '')))]));
  for (const r of sharedStore) {
    console.log(
      `${r.case}: ${fmtRate(r.req_per_s)} req/s, p99 ${fmtMs(r.p99_ms)}, ${fmtRatio(r.vs_embedded)} embedded${r.interleaved_ratios ? ` (interleaved ${r.interleaved_ratios.join(', ')})` : ''}${r.scaling_vs_1_worker === null ? '' : `, ${r.scaling_vs_1_worker}× 1 worker`}; cores machine ${r.cores.machine} server ${r.cores.server} redis ${r.cores.redis_server} rest ${r.cores.generator_and_others}`,
    );
  }
  for (const p of profiles) {
    console.log(
      `\nprofile (${p.case}): ${p.busy_us_per_request} µs busy per request under the profiler (${fmtRate(p.req_per_s_under_profiler)} req/s)`,
    );
    for (const c of p.categories)
      console.log(`  ${c.us_per_request.toFixed(2).padStart(7)} µs  ${(c.share_of_busy * 100).toFixed(1).padStart(5)} %  ${c.name}`);
  }
  console.log(
    `\n${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; run took ${report.run_seconds} s; wrote bench/results/http.json and http.md`,
  );
  if (errorsTotal > 0 || (serviceNon200 ?? 0) > 0) {
    log(`WARNING: ${errorsTotal} load generator errors, ${serviceNon200} non-200 /v1 responses: the numbers above are not clean.`);
    process.exitCode = 1;
  }
}
