/**
 * RDAP abuse-contact lookups (src/enrichment/rdapAbuse.ts) against a local registry stand-in (a
 * node:http server in a child process, so that its work is not counted) answering every address
 * with an ARIN-shaped network of its /24 (the layout of test/fixtures/publishers/rdap.arin.net):
 * cache misses (every /24 new: one HTTP query, the answer read and kept in the SQLite cache), cache
 * hits (the synchronous `cached()` a request makes first), and misses past the rate limit (answered
 * at once), with the CPU time this process spends per lookup.
 *
 *   node --import tsx bench/rdap.ts
 *
 * Environment: BENCH_RDAP_BLOCKS (default 3000), BENCH_RDAP_CONCURRENCY (lookups at once, 32).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseIp } from '../src/address/ipAddress.js';
import { createRdapAbuse } from '../src/enrichment/rdapAbuse.js';

const BLOCKS = Number(process.env.BENCH_RDAP_BLOCKS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_RDAP_CONCURRENCY ?? 32);
const SERVICE = 'https://rdap.arin.net/registry/';
const ANSWER = fs.readFileSync(
  fileURLToPath(new URL('../test/fixtures/publishers/rdap.arin.net/registry/ip/8.8.8.8', import.meta.url)),
  'utf8',
);

// ARIN space, one address in each of BLOCKS /24s: 23.x.y.1
const ips = Array.from({ length: BLOCKS }, (_, i) => parseIp(`23.${(i >> 8) & 255}.${i & 255}.1`)!);

if (process.argv.includes('--serve')) {
  const server = http.createServer((req, res) => {
    const address = (req.url ?? '').split('/').pop() ?? '';
    const block = address.split('.').slice(0, 3).join('.');
    const body = ANSWER.replaceAll('8.8.8.8', address).replace('"8.8.8.0"', `"${block}.0"`).replace('"8.8.8.255"', `"${block}.255"`);
    res.writeHead(200, { 'content-type': 'application/rdap+json' }).end(body);
  });
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
} else {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const mirror = await new Promise<string>((resolve) => child.stdout.once('data', (data) => resolve(String(data).trim())));
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-bench-rdap-'));
  const settings = { enabled: true, deadlineMs: 5000, cacheFile: path.join(folder, 'cache.sqlite') };
  // no rate limit here: the figure is the cost of a query, not the registries' budget
  const rdap = createRdapAbuse({ ...settings, perMinute: 1e9 }, { mirror, isRdapHost: () => false });

  const measure = async (label: string, lookup: (i: number) => Promise<unknown> | unknown) => {
    let next = 0;
    const start = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < ips.length; i = next++) await lookup(i);
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    console.log(
      `${label}: ${Math.round(ips.length / seconds)} lookups/s, ${((used.user + used.system) / ips.length).toFixed(1)} µs CPU each`,
    );
  };

  await measure('cache misses (one HTTP query each)', (i) => rdap.lookup(ips[i], SERVICE, rdap.deadline()));
  for (const round of ['cache hits (cached(), synchronous): first read of each block', 'cache hits: blocks in memory']) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    for (const ip of ips) rdap.cached(ip);
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - start) / 1000;
    console.log(
      `${round}: ${Math.round(ips.length / seconds)} lookups/s, ${((used.user + used.system) / ips.length).toFixed(1)} µs CPU each`,
    );
  }
  const limited = createRdapAbuse(
    { ...settings, cacheFile: path.join(folder, 'empty.sqlite'), perMinute: 1 },
    { mirror, isRdapHost: () => false },
  );
  await limited.lookup(ips[0], SERVICE);
  await measure('misses past the rate limit (answered at once)', (i) => limited.lookup(ips[i], SERVICE, limited.deadline()));
  console.log(JSON.stringify(rdap.stats()));
  rdap.close();
  limited.close();
  fs.rmSync(folder, { recursive: true, force: true });
  child.kill();
}
