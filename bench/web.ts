/**
 * Sizes and browser load times of the compact sets: the compact manifest's byte sizes,
 * then the demo page loaded in real Chromium (test/web/chromium.ts) from the service at /demo/,
 * RUNS times per set in a fresh browser context each (cold HTTP cache), with ?sets=mac, ?sets=ip
 * and both. Per run, from the page: load (table downloads started → engine ready: download of the
 * .gz files, DecompressionStream into WASM memory, checks), ready (navigation start →
 * engine ready, what a visitor waits), and the Resource Timing of each file.
 *
 *   npm run bench:web          (node --import tsx bench/web.ts; needs npm run build first)
 *
 * Environment: BENCH_WEB_RUNS (default 15). Writes bench/results/web.json and web.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFromEnv } from '../src/config/config.js';
import { startService } from '../src/http/server.js';
import type { CompactManifest } from '../src/tables/format/compactManifest.js';
import { launchChromium } from '../test/web/chromium.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 15);
const TARGETS = { macGzipBytes: 1.5 * 1e6, ipGzipBytes: 8 * 1e6, readyMs: 300 };
const SETS = ['mac', 'ip', 'ip,mac'] as const;

const log = (line: string) => process.stderr.write(`${line}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const round = (n: number) => Math.round(n * 10) / 10;
const mb = (n: number) => (n / 1e6).toFixed(2);

interface Run {
  loadMs: number;
  readyMs: number;
  files: { file: string; startMs: number; endMs: number; transferBytes: number; bytes: number }[];
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'demo', 'tables', 'manifest.json'), 'utf8')) as CompactManifest;
const launched = await launchChromium();
if (!('browser' in launched)) throw new Error(launched.reason);
const { browser } = launched;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-bench-web-'));
const service = await startService({
  ...configFromEnv({ ...process.env, NETLOOKUP_DATA_DIR: dataDir }),
  port: 0,
  host: '127.0.0.1',
  logLevel: 'warn',
});
const loadStart = os.loadavg();
const results: Record<string, { runs: Run[]; load: { median: number; p90: number }; ready: { median: number; p90: number } }> = {};
try {
  for (const sets of SETS) {
    const runs: Run[] = [];
    // One unmeasured run: Chromium's first context pays process start-up that no visitor pays.
    for (let i = -1; i < RUNS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${service.url}/demo/?sets=${sets}`);
      await page.waitForSelector('body[data-state]', { timeout: 30_000 });
      const run = await page.evaluate(() => ({
        state: document.body.dataset.state,
        loadMs: Number(document.body.dataset.loadMs),
        readyMs: Number(document.body.dataset.readyMs),
        files: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({
          file: new URL(e.name).pathname.replace('/demo/', ''),
          startMs: e.startTime,
          endMs: e.responseEnd,
          transferBytes: e.encodedBodySize,
          bytes: e.decodedBodySize,
        })),
      }));
      await context.close();
      if (run.state !== 'ready') throw new Error(`the demo page did not load (?sets=${sets})`);
      if (i >= 0) runs.push(run);
    }
    const load = runs.map((r) => r.loadMs);
    const ready = runs.map((r) => r.readyMs);
    results[sets] = {
      runs,
      load: { median: round(median(load)), p90: round(quantile(load, 0.9)) },
      ready: { median: round(median(ready)), p90: round(quantile(ready, 0.9)) },
    };
    log(
      `?sets=${sets}: load median ${results[sets].load.median} ms (p90 ${results[sets].load.p90}), ready median ${results[sets].ready.median} ms (p90 ${results[sets].ready.p90})`,
    );
  }
} finally {
  await browser.close();
  await service.stop();
}

const sizes = {
  mac: { ...manifest.sets.mac, target_gzip_bytes: TARGETS.macGzipBytes, pass: manifest.sets.mac.gzip_bytes <= TARGETS.macGzipBytes },
  ip: { ...manifest.sets.ip, target_gzip_bytes: TARGETS.ipGzipBytes, pass: manifest.sets.ip.gzip_bytes <= TARGETS.ipGzipBytes },
};
const machine = {
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  node: process.version,
  chromium: browser.version(),
  load_start: loadStart,
  load_end: os.loadavg(),
};
fs.mkdirSync(RESULTS, { recursive: true });
fs.writeFileSync(
  path.join(RESULTS, 'web.json'),
  JSON.stringify(
    { measured_at: new Date().toISOString(), machine, runs_per_set: RUNS, targets: TARGETS, tables: manifest.tables, sizes, load: results },
    null,
    2,
  ) + '\n',
);

const fileMedian = (sets: string, file: string) =>
  round(median(results[sets].runs.map((r) => r.files.find((f) => f.file === file)?.endMs ?? NaN)));
const rows = [
  '| set | tables | bytes | gzip bytes | load median (p90) | ready median (p90) | target |',
  '|---|---|---|---|---|---|---|',
  ...(['mac', 'ip'] as const).map((set) => {
    const s = manifest.sets[set];
    const r = results[set];
    return `| ${set} | ${s.tables.join(' + ')} | ${mb(s.bytes)} MB | ${mb(s.gzip_bytes)} MB | ${r.load.median} ms (${r.load.p90}) | ${r.ready.median} ms (${r.ready.p90}) | ≤ ${mb(set === 'mac' ? TARGETS.macGzipBytes : TARGETS.ipGzipBytes)} MB gzip ${sizes[set].pass ? '✓' : '✗'}, ready ≤ ${TARGETS.readyMs} ms ${r.ready.median <= TARGETS.readyMs ? '✓' : '✗'} |`;
  }),
  `| both | all three | ${mb(manifest.sets.mac.bytes + manifest.sets.ip.bytes)} MB | ${mb(manifest.sets.mac.gzip_bytes + manifest.sets.ip.gzip_bytes)} MB | ${results['ip,mac'].load.median} ms (${results['ip,mac'].load.p90}) | ${results['ip,mac'].ready.median} ms (${results['ip,mac'].ready.p90}) | |`,
];
const timing = (['mac', 'ip', 'ip,mac'] as const).map(
  (sets) =>
    `?sets=${sets}: ${results[sets].runs[0].files
      .map((f) => f.file)
      .filter((f) => !f.endsWith('.ico'))
      .map((f) => `${f} ${fileMedian(sets, f)}`)
      .join(', ')}`,
);
const md = [
  `Chromium ${machine.chromium}, ${machine.cores} × ${machine.cpu}, load average ${loadStart.map((l) => l.toFixed(2)).join(' ')} at start, ${machine.load_end.map((l) => l.toFixed(2)).join(' ')} at end; ${RUNS} cold loads per set (fresh context each), served by the service at /demo/ over loopback; tables as .gz files decoded in the page (DecompressionStream).`,
  '',
  ...rows,
  '',
  'Median end of each download (Resource Timing responseEnd, ms after navigation start):',
  '',
  ...timing.map((t) => `- ${t}`),
  '',
].join('\n');
fs.writeFileSync(path.join(RESULTS, 'web.md'), md);
process.stdout.write(md);
