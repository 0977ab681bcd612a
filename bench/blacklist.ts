/**
 * Blacklist bench: a store with 1,000,000 listed addresses (950,000 IPv4, 50,000 IPv6,
 * one report each from one of 20 reporters, spread over 60 days), then
 *  1. the population rate through the store (reportMany, batched transactions),
 *  2. reopening: index load time and its memory,
 *  3. threatFacts (the IP lookup's hot path) for not-listed and listed addresses,
 *  4. GET /v1/blacklist/{ip} and GET /v1/ip/{ip} over HTTP (sequential, keep-alive), p50/p99,
 *  5. exports of the whole list over HTTP: time to the last byte, bytes, and the process's peak
 *     RSS and heap above the level before the export (sampled every 5 ms),
 *  6. `netlookup blacklist import` of a 100,000-row CSV into a fresh store (a child process).
 *
 *   node --expose-gc --import tsx bench/blacklist.ts
 *
 * Environment: BENCH_LISTED (default 1000000), BENCH_DIR (reuse a populated store there),
 * BENCH_IMPORT_ROWS (default 100000). Writes bench/results/blacklist.json (and prints it).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBlacklistAddress, type BlacklistAddress } from '../src/blacklist/address.js';
import { threatTypes } from '../src/blacklist/threatTypes.js';
import { formatIPv4 } from '../src/address/ipAddress.js';
import { startService } from '../src/http/server.js';
import type { ReportInput } from '../src/blacklist/listing.js';
import { SqliteStore } from '../src/store/sqlite/sqliteStore.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const LISTED = Number(process.env.BENCH_LISTED ?? 1_000_000);
const V6 = Math.round(LISTED / 20);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const DAY = 86_400_000;
const NOW = new Date();
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
const log = (text: string) => process.stderr.write(`${text}\n`);

/** sfc32, seeded: the same addresses every run. */
function random(seed = 20261123): () => number {
  let a = seed,
    b = 0x9e3779b9,
    c = 0x243f6a88,
    d = 0xb7e15162;
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    return (r >>> 0) / 4294967296;
  };
}

/** Listed IPv4: 45.0.0.0/8 and 46.0.0.0/8 every third address (public, unreserved); IPv6 in 2a01:4f8::/32. */
const listedV4 = (i: number) => formatIPv4(0x2d000000 + i * 3);
const listedV6 = (i: number) => `2a01:4f8:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`;
/** Not listed: the addresses between (offset 1) and 80.0.0.0/8. */
const notListedV4 = (i: number) => formatIPv4(0x2d000000 + i * 3 + 1);

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function populate(dir: string): Promise<{ seconds: number; perSecond: number }> {
  const store = SqliteStore.open(dir);
  const rnd = random();
  const started = performance.now();
  const batch: ReportInput[] = [];
  const flush = async () => {
    await store.blacklist.reportMany(batch, NOW);
    batch.length = 0;
  };
  for (let i = 0; i < LISTED; i++) {
    const ip = i < LISTED - V6 ? listedV4(i) : listedV6(i);
    batch.push({
      ip,
      reporter: `acc_bench${Math.floor(rnd() * 20)}`,
      threat_type: threatTypes[Math.floor(rnd() * threatTypes.length)],
      message: null,
      source: 'bench',
      at: new Date(NOW.getTime() - Math.floor(rnd() * 60 * DAY)),
      country_code: null,
      isp: null,
    });
    if (batch.length === 5000) await flush();
    if (i % 100_000 === 0) log(`populate ${i}/${LISTED} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  await flush();
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return { seconds, perSecond: Math.round(LISTED / seconds) };
}

function timeFacts(store: SqliteStore, addresses: BlacklistAddress[]) {
  const n = addresses.length;
  let listed = 0;
  // Warm up, then a tight loop for the mean, then one timer per call for the distribution.
  for (let i = 0; i < n; i++) if (store.blacklist.threatFacts(addresses[i], NOW).is_threat) listed++;
  const loops = 5;
  const started = process.hrtime.bigint();
  for (let k = 0; k < loops; k++) for (let i = 0; i < n; i++) store.blacklist.threatFacts(addresses[i], NOW);
  const meanNs = Number(process.hrtime.bigint() - started) / (loops * n);
  const samples = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    store.blacklist.threatFacts(addresses[i], NOW);
    samples[i] = Number(process.hrtime.bigint() - t0);
  }
  samples.sort();
  const timer = new Float64Array(10_000);
  for (let i = 0; i < timer.length; i++) {
    const t0 = process.hrtime.bigint();
    timer[i] = Number(process.hrtime.bigint() - t0);
  }
  timer.sort();
  return {
    calls: n,
    listed,
    mean_ns: Math.round(meanNs * 10) / 10,
    p50_ns: percentile(samples, 0.5),
    p99_ns: percentile(samples, 0.99),
    timer_overhead_p50_ns: percentile(timer, 0.5),
  };
}

async function sequential(url: string, paths: string[], headers: Record<string, string>) {
  for (const p of paths.slice(0, 200)) await (await fetch(url + p, { headers })).arrayBuffer();
  const samples = new Float64Array(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const t0 = performance.now();
    const r = await fetch(url + paths[i], { headers });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${paths[i]}: ${r.status}`);
    samples[i] = (performance.now() - t0) * 1000;
  }
  samples.sort();
  return { requests: paths.length, p50_us: Math.round(percentile(samples, 0.5)), p99_us: Math.round(percentile(samples, 0.99)) };
}

async function timeExport(url: string, query: string, headers: Record<string, string>) {
  gc();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 5);
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/blacklist/export${query}`, { headers });
  let bytes = 0;
  let lines = 0;
  const firstByte = { at: 0 };
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByte.at = performance.now() - t0;
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const etag = r.headers.get('etag')!;
  const t1 = performance.now();
  const again = await fetch(`${url}/v1/blacklist/export${query}`, { headers: { ...headers, 'if-none-match': etag } });
  await again.arrayBuffer();
  return {
    query,
    status: r.status,
    seconds: Math.round(seconds * 100) / 100,
    first_byte_ms: Math.round(firstByte.at),
    mb: mb(bytes),
    lines,
    rss_before_mb: mb(base.rss),
    peak_rss_above_mb: mb(peakRss - base.rss),
    peak_heap_above_mb: mb(peakHeap - base.heapUsed),
    not_modified_status: again.status,
    not_modified_ms: Math.round((performance.now() - t1) * 10) / 10,
  };
}

function importRate(): { rows: number; seconds: number; perSecond: number; output: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-bench-import-'));
  const csv = path.join(dir, 'reports.csv');
  const rnd = random(7);
  const lines = ['IP,Categories,ReportDate,Comment'];
  for (let i = 0; i < IMPORT_ROWS; i++) {
    const at = new Date(NOW.getTime() - Math.floor(rnd() * 30 * DAY)).toISOString();
    lines.push(`${formatIPv4(0x50000000 + Math.floor(rnd() * 0x00ffffff))},"18,22",${at},bench row ${i}`);
  }
  fs.writeFileSync(csv, lines.join('\n') + '\n');
  const t0 = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'blacklist', 'import', '--json', '--data-dir', path.join(dir, 'data'), csv],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const seconds = (performance.now() - t0) / 1000;
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    rows: IMPORT_ROWS,
    seconds: Math.round(seconds * 10) / 10,
    perSecond: Math.round(IMPORT_ROWS / seconds),
    output: result.stdout.slice(0, 200),
  };
}

async function main() {
  const load = [os.loadavg()];
  const dir = process.env.BENCH_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-bench-blacklist-'));
  const results: Record<string, unknown> = {
    machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, platform: `${os.type()} ${os.release()}` },
    listed: { total: LISTED, ipv4: LISTED - V6, ipv6: V6 },
  };
  if (!fs.existsSync(path.join(dir, 'netlookup.sqlite'))) {
    log(`populating ${LISTED} listed addresses in ${dir}`);
    results.populate = await populate(dir);
  }
  results.file_mb = mb(fs.statSync(path.join(dir, 'netlookup.sqlite')).size);

  gc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const store = SqliteStore.open(dir);
  const openSeconds = (performance.now() - t0) / 1000;
  gc();
  const after = process.memoryUsage();
  results.index = {
    load_seconds: Math.round(openSeconds * 100) / 100,
    addresses: store.blacklist.index.size,
    typed_arrays_mb: mb(store.blacklist.index.bytes),
    bytes_per_address: Math.round(store.blacklist.index.bytes / store.blacklist.index.size),
    rss_growth_mb: mb(after.rss - before.rss),
    heap_growth_mb: mb(after.heapUsed - before.heapUsed),
  };
  log(`index: ${JSON.stringify(results.index)}`);

  const rnd = random(99);
  const pick = (make: (i: number) => string, count: number, range: number) =>
    Array.from({ length: count }, () => parseBlacklistAddress(make(Math.floor(rnd() * range)))!);
  results.threat_facts = {
    not_listed_v4: timeFacts(store, pick(notListedV4, 200_000, LISTED - V6)),
    listed_v4: timeFacts(store, pick(listedV4, 200_000, LISTED - V6)),
    listed_v6: timeFacts(
      store,
      pick((i) => listedV6(LISTED - V6 + i), 50_000, V6),
    ),
  };
  log(`threatFacts: ${JSON.stringify(results.threat_facts)}`);

  const plansFile = path.join(dir, 'plans.json');
  const unlimited = {
    quota: { period: 'month', pooled: 1e9 },
    rate_limit_per_second: 1e6,
    max_batch: 1000,
    max_keys: 10,
    field_level: 'full',
  };
  fs.writeFileSync(
    plansFile,
    JSON.stringify({
      free: {
        name: 'free',
        price_eur_month: 0,
        quota: { period: 'day', per_api: { ip: 1e9, blacklist: 1e9, mac: 1e9 } },
        rate_limit_per_second: 1e6,
        max_batch: 0,
        max_keys: 1,
        field_level: 'basic',
      },
      starter: { name: 'starter', price_eur_month: 9, ...unlimited },
      pro: { name: 'pro', price_eur_month: 29, ...unlimited },
      business: { name: 'business', price_eur_month: 79, ...unlimited },
    }),
  );
  const service = await startService(
    {
      port: 0,
      host: '127.0.0.1',
      dataDir: dir,
      tablesDir: path.join(ROOT, 'data', 'tables'),
      plansFile,
      redisUrl: undefined,
      adminToken: undefined,
      trustProxy: [],
      bodyLimitBytes: 1 << 20,
      logLevel: 'silent',
    },
    { store },
  );
  try {
    const { key } = await store.accounts.createAccount({ plan: 'business' });
    const headers = { 'x-api-key': key.secret };
    const paths = (make: (i: number) => string, prefix: string) =>
      Array.from({ length: 3000 }, () => `${prefix}${make(Math.floor(rnd() * (LISTED - V6)))}`);
    results.http = {
      check_listed: await sequential(service.url, paths(listedV4, '/v1/blacklist/'), headers),
      check_not_listed: await sequential(service.url, paths(notListedV4, '/v1/blacklist/'), headers),
      ip_record_listed: await sequential(service.url, paths(listedV4, '/v1/ip/'), headers),
      ip_record_not_listed: await sequential(service.url, paths(notListedV4, '/v1/ip/'), headers),
    };
    log(`http: ${JSON.stringify(results.http)}`);
    const exports = [];
    for (const query of ['?format=plain', '?format=cidr', '?format=nftables', '?format=json', '?format=plain&min_confidence=30']) {
      exports.push(await timeExport(service.url, query, headers));
      log(`export: ${JSON.stringify(exports[exports.length - 1])}`);
    }
    results.exports = exports;
  } finally {
    await service.stop();
  }
  results.cli_import = importRate();
  log(`import: ${JSON.stringify(results.cli_import)}`);
  load.push(os.loadavg());
  results.load_average = { start: load[0], end: load[1] };
  if (!process.env.BENCH_DIR) fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'blacklist.json'), JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(JSON.stringify(results, null, 2) + '\n');
}

await main();
