/**
 * Reverse DNS lookups per second (src/enrichment/reverseDns.ts) against the tests' local DNS server
 * (test/enrichment/dnsServer.ts, dns2 on 127.0.0.1, run by this file in a child process so that its
 * work is not counted): cache misses (every address new, one query each: bounded by the dns2
 * server, JavaScript too) and cache hits, with the CPU time this process spends per lookup.
 *
 *   node --import tsx bench/reverseDns.ts
 *
 * Environment: BENCH_RDNS_ADDRESSES (default 5000), BENCH_RDNS_CONCURRENCY (lookups at once, 64).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createReverseDns } from '../src/enrichment/reverseDns.js';
import { startDnsServer } from '../test/enrichment/dnsServer.js';

const ADDRESSES = Number(process.env.BENCH_RDNS_ADDRESSES ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_RDNS_CONCURRENCY ?? 64);

// public space (reserved addresses are never asked): 81.2.x.y
const ips = Array.from({ length: ADDRESSES }, (_, i) => `81.2.${(i >> 8) & 255}.${i & 255}`);

if (process.argv.includes('--serve')) {
  const server = await startDnsServer();
  for (const ip of ips) {
    const [a, b, c, d] = ip.split('.');
    server.zone.set(`${d}.${c}.${b}.${a}.in-addr.arpa`, { names: [`host-${c}-${d}.example.net`] });
  }
  console.log(server.address);
} else {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const address = await new Promise<string>((resolve) => child.stdout.once('data', (data) => resolve(String(data).trim())));
  const rdns = createReverseDns({ servers: [address], deadlineMs: 1000, cacheSize: ADDRESSES, maxQueries: CONCURRENCY });

  const run = async (label: string) => {
    let next = 0;
    let named = 0;
    const start = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < ips.length; i = next++) if ((await rdns.lookup(ips[i], rdns.deadline())).outcome === 'name') named++;
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    const perLookup = (used.user + used.system) / ips.length;
    console.log(
      `${label}: ${Math.round(ips.length / seconds)} lookups/s, ${perLookup.toFixed(1)} µs CPU each (${named}/${ips.length} named)`,
    );
  };

  await run('cache misses');
  await run('cache hits');
  console.log(JSON.stringify(rdns.stats()));
  rdns.close();
  child.kill();
}
