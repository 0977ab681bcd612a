/**
 * Update bench: `netlookup update` as an operator runs it, on publisher files generated at their
 * real sizes and shapes (bench/fixtures/*, seeded), served from a local mirror. Reports the time of
 * each phase (download, check, build, load), the whole run and its peak memory (VmHWM of the update
 * process), the files' sizes and the tables built; then a second run with nothing new (the
 * publishers answer 304), which is what a schedule costs on most days.
 *
 *   node --import tsx bench/update.ts        (npm run bench:update; needs npm run build:ts)
 *
 * Environment: BENCH_SEED (default 20261128), BENCH_UPDATE_SCALE (a fraction of the real row
 * counts, default 1). Writes bench/results/update.json and update.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeAsOrg2Info } from './fixtures/asOrg2Info.js';
import { writeDbipCityCsv } from './fixtures/dbipCityCsv.js';
import { writeIeeeRegistryCsvs } from './fixtures/ieeeRegistryCsv.js';
import { writeDelegatedFiles } from './fixtures/rirDelegated.js';
import { writeRisWhoisDumps } from './fixtures/risWhoisDump.js';
import { memoryOf } from './httpDriver.js';
import { serveMirror } from './mirrorServer.js';
import { SOURCES } from '../src/update/sourceCatalog.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const SEED = Number(process.env.BENCH_SEED ?? 20261128);
const SCALE = Number(process.env.BENCH_UPDATE_SCALE ?? 1);
const log = (text: string) => process.stderr.write(`${text}\n`);
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

interface Run {
  seconds: number;
  peakMb: number;
  exit: number | null;
  phases: { phase: string; seconds: number }[];
  summary: string;
}

/** One `netlookup update` in a child process, its peak memory sampled from /proc while it runs. */
function runUpdate(mirror: string, tables: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--max-old-space-size=4096', 'dist/cli/main.js', 'update', '--mirror', mirror, ...args], {
      cwd: ROOT,
      env: { ...process.env, NETLOOKUP_TABLES: tables },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let peak = 0;
    const sample = setInterval(() => {
      const memory = memoryOf(child.pid!);
      if (memory) peak = Math.max(peak, memory.hwm);
    }, 100);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const memory = memoryOf(child.pid!);
      if (memory) peak = Math.max(peak, memory.hwm);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sample);
      const phases = [...stderr.matchAll(/^(.+): done in ([\d.]+) s$/gm)].map((m) => ({ phase: m[1], seconds: Number(m[2]) }));
      resolve({
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        peakMb: peak,
        exit: code,
        phases,
        summary: stderr.trim().split('\n').pop() ?? '',
      });
    });
  });
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-bench-update-'));
  const mirrorDir = path.join(work, 'mirror');
  const tables = path.join(work, 'tables');
  try {
    log(`writing the publishers' files at ${SCALE}× their real sizes (seed ${SEED})`);
    const generated = Date.now();
    const scaled = (n: number) => Math.max(3, Math.round(n * SCALE));
    await writeDbipCityCsv(mirrorDir, { seed: SEED, ...(SCALE !== 1 ? { ipv4Rows: scaled(3_652_137), ipv6Rows: scaled(4_274_498) } : {}) });
    await writeRisWhoisDumps(mirrorDir, { seed: SEED });
    await writeAsOrg2Info(mirrorDir, { seed: SEED });
    writeDelegatedFiles(mirrorDir, { seed: SEED });
    writeIeeeRegistryCsvs(mirrorDir, { seed: SEED });
    const files = filesUnder(mirrorDir).map((file) => ({ file: path.relative(mirrorDir, file), mb: mb(fs.statSync(file).size) }));
    log(
      `  ${files.length} files, ${mb(files.reduce((n, f) => n + f.mb * 1048576, 0))} MB in ${((Date.now() - generated) / 1000).toFixed(0)} s`,
    );
    const mirror = await serveMirror(mirrorDir);
    try {
      log('first update (every source new)');
      // the table sources at their real sizes (the feeds are small but for the dumps; bench:feeds measures what they cost a lookup)
      const first = await runUpdate(mirror.url, tables, ['--force', '--tables-only']);
      log(`  ${first.summary}: ${first.seconds.toFixed(1)} s, peak ${first.peakMb} MB`);
      log('second update (nothing new: the publishers answer 304)');
      // --only every source: each is asked for now, whatever its cadence, without forcing a build
      const second = await runUpdate(mirror.url, tables, ['--tables-only', '--only', SOURCES.map((source) => source.id).join(',')]);
      log(`  ${second.summary}: ${second.seconds.toFixed(1)} s, peak ${second.peakMb} MB`);
      const current = fs.readFileSync(path.join(tables, 'current'), 'utf8').trim();
      const manifest = JSON.parse(fs.readFileSync(path.join(tables, 'sets', current, 'manifest.json'), 'utf8'));
      const tablesBuilt = Object.values<{ file: string; bytes: number; counts: Record<string, number> }>(manifest.tables).map((t) => ({
        file: t.file,
        mb: mb(t.bytes),
        counts: t.counts,
      }));
      const result = {
        date: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        seed: SEED,
        scale: SCALE,
        files,
        first,
        second,
        tables: tablesBuilt,
      };
      fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'update.json'), JSON.stringify(result, null, 2) + '\n');
      fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'update.md'), report(result));
      log('wrote bench/results/update.json and update.md');
    } finally {
      await mirror.close();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function report(r: {
  date: string;
  node: string;
  cpus: number;
  scale: number;
  files: { file: string; mb: number }[];
  first: Run;
  second: Run;
  tables: { file: string; mb: number; counts: Record<string, number> }[];
}): string {
  const lines = [
    '# Update bench',
    '',
    `${r.date}, Node ${r.node}, ${r.cpus} CPUs. Publisher files generated at ${r.scale}× their real row counts (bench/fixtures), served from a local mirror.`,
    '',
    '| run | time | peak memory (VmHWM) | outcome |',
    '|---|---|---|---|',
    `| first (every source new) | ${r.first.seconds.toFixed(1)} s | ${r.first.peakMb} MB | ${r.first.summary} |`,
    `| second (nothing new, 304s) | ${r.second.seconds.toFixed(1)} s | ${r.second.peakMb} MB | ${r.second.summary} |`,
    '',
    '## Phases of the first run',
    '',
    '| phase | seconds |',
    '|---|---|',
    ...r.first.phases.filter((p) => p.seconds >= 0.1).map((p) => `| ${p.phase} | ${p.seconds} |`),
    '',
    '## Files',
    '',
    '| file | MB |',
    '|---|---|',
    ...r.files.map((f) => `| ${f.file} | ${f.mb} |`),
    '',
    '## Tables built',
    '',
    '| table | MB | counts |',
    '|---|---|---|',
    ...r.tables.map((t) => `| ${t.file} | ${t.mb} | ${JSON.stringify(t.counts)} |`),
    '',
  ];
  return lines.join('\n');
}

await main();
