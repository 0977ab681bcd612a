/**
 * The main HTTP figures on each supported Node line, in one run: the node:http ceiling and our
 * paid random IPv4 lookup (more cases with BENCH_HTTP_LINES_CASES) on Node 24 and on Node 22, in
 * alternating runs, each round on servers started for it (every line's servers running side by
 * side), the same way bench/http.ts judges its targets. The lines' official binaries and their
 * better-sqlite3 builds come from scripts/node-line.sh (cached outside the repository; compiled
 * there once per line); each line's build is in node_modules while its servers start, and the one
 * found there is put back at the end.
 *
 *   npm run bench:http-lines        (node --import tsx bench/httpLines.ts)
 *
 * Environment: BENCH_HTTP_LINES (default 24,22: the first is the reference of the ratios),
 * BENCH_HTTP_LINES_CASES (default node,ip-paid; any of bench/http.ts's ceilings and single
 * lookups: node-ipv6, ipv6-paid, node-mac, mac…), BENCH_HTTP_ROUNDS (default 3), BENCH_HTTP_PAIR_SECONDS
 * (seconds per run, default 5), and bench/http.ts's BENCH_HTTP_WARMUP, BENCH_HTTP_CONNECTIONS,
 * BENCH_SEED, BENCH_HTTP_PIN. Writes bench/results/http-lines.json and http-lines.md.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findLoadGenerator } from './httpLoad.js';
import { benchKeys, get, peerCases, serviceCases, NO_KEYS, type BenchKeys, type CaseDef } from './httpCases.js';
import { newRun, noRounds, prepareRound, roundRatios, runRound } from './httpDriver.js';
import { loadInputs } from './httpInputs.js';
import { pinProcesses, waitForQuiet } from './httpMachine.js';
import { ServerProcesses, serviceEnvironment, type Server } from './httpServerProcesses.js';
import { PAIR_SECONDS, RESULTS, ROOT, ROUNDS, env, fmtRate, log, round } from './httpSettings.js';

const LINES = (env.BENCH_HTTP_LINES ?? '24,22').split(',').map((s) => s.trim());
const CASES = (env.BENCH_HTTP_LINES_CASES ?? 'node,ip-paid').split(',').map((s) => s.trim());
const ADDON = path.join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

const nodeLine = (...args: string[]) =>
  execFileSync('bash', [path.join(ROOT, 'scripts', 'node-line.sh'), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();

/** A copy renamed into place: a server that has the previous file loaded keeps its pages. */
function place(from: string, to: string): void {
  fs.copyFileSync(from, `${to}.tmp`);
  fs.renameSync(`${to}.tmp`, to);
}

const found = findLoadGenerator();
if ('missing' in found) {
  log(`bench:http-lines skipped: ${found.missing}`);
  process.exit(0);
}
const runStarted = performance.now();
const loadAverageAtStart = os.loadavg().map((l) => round(l, 2));

interface Line {
  line: string;
  node: string;
  version: string;
  addon: string;
  processes: ServerProcesses;
  keys: BenchKeys | null;
  transport: unknown;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-http-lines-'));
// node_modules as it was found: its better-sqlite3 build back in place, whatever happens.
const originalAddon = path.join(tmp, 'better_sqlite3.node');
fs.copyFileSync(ADDON, originalAddon);
const lines: Line[] = [];
process.once('exit', () => {
  for (const l of lines) l.processes.killAll();
  place(originalAddon, ADDON);
  fs.rmSync(tmp, { recursive: true, force: true });
});
process.once('SIGINT', () => process.exit(130));

const pinning = await pinProcesses();
log(`load generator: ${found.generator.version}; ${pinning.note}`);
const adminToken = crypto.randomBytes(16).toString('hex');
for (const line of LINES) {
  const dir = nodeLine('dir', line);
  const node = path.join(dir, 'bin', 'node');
  const addon = nodeLine('addon', line);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const lineTmp = path.join(tmp, `node-${line}`);
  fs.mkdirSync(lineTmp);
  const processes = new ServerProcesses(pinning.server_cpu, serviceEnvironment(lineTmp, adminToken), lineTmp, null, node);
  lines.push({ line, node, version, addon, processes, keys: null, transport: null });
  log(`Node ${line}: ${version} (${node}), better-sqlite3 ${addon}`);
}
const quiet = await waitForQuiet();
const inputs = await loadInputs(tmp);

const known = [...peerCases(inputs, 0), ...serviceCases(inputs, NO_KEYS)];
for (const id of CASES)
  if (!known.some((d) => d.id === id && d.server !== 'nginx')) throw new Error(`BENCH_HTTP_LINES_CASES: no case ${id}`);
const caseId = (id: string, l: Line) => `${id}@${l.line}`;
/** The lines side by side, case by case: each pair of runs of a case is seconds apart. */
const ordered = CASES.flatMap((id) => lines.map((l) => ({ ...known.find((d) => d.id === id)!, id: caseId(id, l) })));
const rounds = noRounds(ordered, PAIR_SECONDS);
const run = newRun(found.generator, pinning, tmp, lines[0].processes);

log(
  `${CASES.join(', ')} on Node ${LINES.join(' and ')}, alternating: ${ROUNDS} rounds of ${PAIR_SECONDS} s runs, each round on servers started for it`,
);
for (let round_ = 0; round_ < ROUNDS; round_++) {
  const servers = new Map<string, Server>();
  const kinds = [...new Set(ordered.map((d) => d.server))];
  const starts = lines.flatMap((l) => kinds.map((kind) => ({ l, kind })));
  const nest = async (i: number): Promise<void> => {
    if (i < starts.length) {
      const { l, kind } = starts[i];
      // the service loads better-sqlite3 as it starts: the line's own build
      if (kind === 'service') place(l.addon, ADDON);
      await l.processes.with(kind, async (s) => {
        servers.set(`${kind}@${l.line}`, s);
        await nest(i + 1);
      });
      return;
    }
    const defs: CaseDef[] = [];
    for (const l of lines) {
      const service = servers.get(`service@${l.line}`);
      if (!service) continue;
      l.keys ??= await benchKeys(service.port, adminToken, inputs.listedIps);
      l.transport ??= (JSON.parse((await get(service.port, '/health')).text) as { transport: unknown }).transport;
    }
    for (const d of ordered) {
      const [id, line] = d.id.split('@');
      const l = lines.find((x) => x.line === line)!;
      const base = d.ours ? serviceCases(inputs, l.keys!).find((o) => o.id === id)! : d;
      defs.push({ ...base, id: d.id, spec: { ...base.spec, port: servers.get(`${d.server}@${line}`)!.port } });
    }
    await runRound(run, defs, await prepareRound(run, defs, `round${round_}`), round_, rounds);
  };
  await nest(0);
  log(`  round ${round_ + 1}: ${ordered.map((d) => `${d.id} ${fmtRate(rounds.req_per_s[d.id][round_])}`).join(', ')}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const reference = lines[0];
const rows = CASES.map((id) => {
  const def = known.find((d) => d.id === id)!;
  return {
    case: id,
    name: def.name,
    lines: Object.fromEntries(
      lines.map((l) => {
        const rates = rounds.req_per_s[caseId(id, l)];
        const vsCeiling = def.ceiling && CASES.includes(def.ceiling) ? roundRatios(rounds, caseId(id, l), caseId(def.ceiling, l)) : null;
        const vsReference = l === reference ? null : roundRatios(rounds, caseId(id, l), caseId(id, reference));
        return [
          l.line,
          { req_per_s: rates, median_req_per_s: median(rates), vs_ceiling: vsCeiling, [`vs_node_${reference.line}`]: vsReference },
        ];
      }),
    ),
  };
});

const result = {
  started_at: new Date(Date.now() - (performance.now() - runStarted)).toISOString(),
  wall_s: round((performance.now() - runStarted) / 1000, 1),
  machine: {
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    load_average_at_start: loadAverageAtStart,
    load_average_at_end: os.loadavg().map((l) => round(l, 2)),
  },
  quiet,
  pinning,
  load_generator: found.generator.version,
  lines: lines.map((l) => ({ line: l.line, version: l.version, transport: l.transport })),
  rounds,
  cases: rows,
};
fs.mkdirSync(RESULTS, { recursive: true });
fs.writeFileSync(path.join(RESULTS, 'http-lines.json'), `${JSON.stringify(result, null, 2)}\n`);

const others = lines.slice(1);
const md = [
  `Node ${lines.map((l) => l.version).join(' and ')}, ${ROUNDS} alternating rounds of ${PAIR_SECONDS} s runs (medians; per round in http-lines.json)`,
  '',
  `| case | ${lines.map((l) => `Node ${l.line}: req/s`).join(' | ')} | ${others.map((l) => `Node ${l.line} / ${reference.line} (per round)`).join(' | ')} |`,
  `|---|${lines.map(() => '---|').join('')}${others.map(() => '---|').join('')}`,
  ...rows.map((r) => {
    const rates = lines.map((l) => {
      const x = r.lines[l.line];
      return `${fmtRate(x.median_req_per_s)}${x.vs_ceiling ? ` (${x.vs_ceiling.median}× node:http)` : ''}`;
    });
    const ratios = others.map((l) => {
      const v = r.lines[l.line][`vs_node_${reference.line}`] as { ratios: number[]; median: number };
      return `**${v.median}×** (${v.ratios.join(', ')})`;
    });
    return `| ${r.name} | ${rates.join(' | ')} | ${ratios.join(' | ')} |`;
  }),
  '',
  `Transport in force (/health): ${lines.map((l) => `Node ${l.line} ${JSON.stringify(l.transport)}`).join('; ')}`,
  '',
].join('\n');
fs.writeFileSync(path.join(RESULTS, 'http-lines.md'), md);
process.stdout.write(md);
