/**
 * Query-time RDAP (src/enrichment/rdapAbuse.ts) against a real HTTP server on 127.0.0.1 standing
 * in for the registries under the mirror layout, with a real SQLite cache file: contacts and what
 * is cached of them (per block, kept across a restart), 404 and "no contact" cached, failures and
 * malformed answers not, deadlines kept when the server hangs (the late answer still cached), one
 * query per block in flight (counted at the server), the rate limit and a 429's pause, redirects
 * only to the bootstrap's hosts, the size bound, reserved addresses and `off`.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseIp, type ParsedIp } from '../../src/address/ipAddress.js';
import type { RdapSettings } from '../../src/config/rdapSettings.js';
import { abuseEmailOf, createRdapAbuse, type RdapAbuse, type RdapAbuseOptions } from '../../src/enrichment/rdapAbuse.js';
import { CONTACT_TTL_MS, NO_CONTACT_TTL_MS } from '../../src/enrichment/rdapCache.js';
import { until } from '../until.js';

const PUBLISHERS = path.join(import.meta.dirname, '..', 'fixtures', 'publishers');
const ARIN = 'https://rdap.arin.net/registry/';
const APNIC = 'https://rdap.apnic.net/';
/** Timer lateness allowed past a deadline: event-loop lag on a loaded test machine. */
const SLACK_MS = 60;

const ip = (text: string): ParsedIp => parseIp(text)!;

/** What the registry stand-in does for a path: a fixture file (default), or a behaviour set by the test. */
type Behaviour =
  { status: number; body?: string | Buffer; headers?: Record<string, string> } | 'hang' | ((res: http.ServerResponse) => void);

let server: http.Server;
let mirror: string;
const asked: string[] = [];
const behaviours = new Map<string, Behaviour>();
const hanging: http.ServerResponse[] = [];
let folder: string;

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-rdap-'));
  server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    asked.push(url);
    const behaviour = behaviours.get(url);
    if (behaviour === 'hang') {
      hanging.push(res);
      return;
    }
    if (typeof behaviour === 'function') return behaviour(res);
    if (behaviour !== undefined) {
      res.writeHead(behaviour.status, behaviour.headers ?? { 'content-type': 'application/rdap+json' });
      res.end(behaviour.body ?? '');
      return;
    }
    const file = path.join(PUBLISHERS, decodeURIComponent(url));
    if (!file.startsWith(PUBLISHERS) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'application/rdap+json' });
      res.end(JSON.stringify({ errorCode: 404, title: 'Not Found' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/rdap+json' });
    res.end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(folder, { recursive: true, force: true });
});

let services: RdapAbuse[] = [];
let cacheCount = 0;
beforeEach(() => {
  for (const service of services) service.close();
  services = [];
  asked.length = 0;
  behaviours.clear();
});

function settings(over: Partial<RdapSettings> = {}): RdapSettings {
  return { enabled: true, deadlineMs: 1000, perMinute: 600, cacheFile: path.join(folder, `cache-${++cacheCount}.sqlite`), ...over };
}

function rdapOf(over: Partial<RdapSettings> = {}, options: Partial<RdapAbuseOptions> = {}): RdapAbuse {
  const service = createRdapAbuse(settings(over), { mirror, isRdapHost: (host) => host.startsWith('rdap.'), ...options });
  services.push(service);
  return service;
}

describe('query-time RDAP', () => {
  it("answers ARIN's and APNIC's abuse contacts from their answers, under the mirror layout", async () => {
    const rdap = rdapOf();
    expect(await rdap.lookup(ip('8.8.8.8'), ARIN)).toEqual({ outcome: 'contact', email: 'network-abuse@google.com' });
    expect(await rdap.lookup(ip('1.1.1.1'), APNIC)).toEqual({ outcome: 'contact', email: 'helpdesk@apnic.net' });
    expect(asked).toEqual(['/rdap.arin.net/registry/ip/8.8.8.8', '/rdap.apnic.net/ip/1.1.1.1']);
  });

  it('keeps an answer for its network within the address /24, on disk, across a restart', async () => {
    const cacheFile = path.join(folder, 'restart.sqlite');
    const first = rdapOf({ cacheFile });
    await first.lookup(ip('8.8.8.8'), ARIN);
    // another address of 8.8.8.0/24 (the network ARIN named): no query
    expect(abuseEmailOf(await first.lookup(ip('8.8.8.200'), ARIN))).toBe('network-abuse@google.com');
    first.close();
    const second = rdapOf({ cacheFile });
    // what the cache holds comes without a promise; what it does not hold, not at all
    expect(second.cached(ip('8.8.8.7'))).toEqual({ outcome: 'contact', email: 'network-abuse@google.com' });
    expect(second.cached(ip('8.8.9.1'))).toBeUndefined();
    expect(await second.lookup(ip('8.8.8.9'), ARIN)).toEqual({ outcome: 'contact', email: 'network-abuse@google.com' });
    expect(second.stats()).toMatchObject({ hits: 2, queries: 0 });
    expect(asked).toHaveLength(1);
  });

  it("sees another process's answer for a block once it reads the block from the file again (after a minute)", async () => {
    const cacheFile = path.join(folder, 'shared.sqlite');
    let wall = Date.parse('2026-11-28T00:00:00Z');
    const reader = rdapOf({ cacheFile }, { wallClock: () => wall });
    const writer = rdapOf({ cacheFile }, { wallClock: () => wall });
    expect(reader.cached(ip('8.8.8.8'))).toBeUndefined();
    await writer.lookup(ip('8.8.8.8'), ARIN);
    expect(reader.cached(ip('8.8.8.8'))).toBeUndefined();
    wall += 60_000;
    expect(reader.cached(ip('8.8.8.8'))).toEqual({ outcome: 'contact', email: 'network-abuse@google.com' });
  });

  it('clips a wide network to the /24 asked about: the next /24 is asked again', async () => {
    const wide = fs
      .readFileSync(path.join(PUBLISHERS, 'rdap.arin.net/registry/ip/8.8.8.8'), 'utf8')
      .replace('"startAddress" : "8.8.8.0"', '"startAddress" : "8.0.0.0"')
      .replace('"endAddress" : "8.8.8.255"', '"endAddress" : "8.255.255.255"');
    behaviours.set('/rdap.arin.net/registry/ip/8.9.9.9', { status: 200, body: wide.replace(/8\.8\.8\.8/g, '8.9.9.9') });
    behaviours.set('/rdap.arin.net/registry/ip/8.9.10.1', { status: 200, body: wide.replace(/8\.8\.8\.8/g, '8.9.10.1') });
    const rdap = rdapOf();
    await rdap.lookup(ip('8.9.9.9'), ARIN);
    await rdap.lookup(ip('8.9.9.1'), ARIN);
    await rdap.lookup(ip('8.9.10.1'), ARIN);
    expect(asked).toEqual(['/rdap.arin.net/registry/ip/8.9.9.9', '/rdap.arin.net/registry/ip/8.9.10.1']);
  });

  it('caches "no contact" and "no such network" for a day, and a contact for a week', async () => {
    let wall = Date.parse('2026-11-28T00:00:00Z');
    const rdap = rdapOf({}, { wallClock: () => wall });
    behaviours.set('/rdap.arin.net/registry/ip/192.0.3.1', {
      status: 200,
      body: JSON.stringify({ objectClassName: 'ip network', startAddress: '192.0.3.0', endAddress: '192.0.3.255', entities: [] }),
    });
    expect(await rdap.lookup(ip('192.0.3.1'), ARIN)).toEqual({ outcome: 'none', reason: 'no-contact' });
    expect(await rdap.lookup(ip('23.0.0.1'), ARIN)).toEqual({ outcome: 'none', reason: 'not-found' });
    await rdap.lookup(ip('8.8.8.8'), ARIN);
    expect(asked).toHaveLength(3);
    wall += NO_CONTACT_TTL_MS - 1;
    for (const address of ['192.0.3.1', '23.0.0.1', '8.8.8.8']) await rdap.lookup(ip(address), ARIN);
    expect(asked).toHaveLength(3);
    wall += 1;
    await rdap.lookup(ip('192.0.3.1'), ARIN);
    await rdap.lookup(ip('23.0.0.1'), ARIN);
    await rdap.lookup(ip('8.8.8.8'), ARIN);
    expect(asked).toHaveLength(5);
    wall += CONTACT_TTL_MS;
    await rdap.lookup(ip('8.8.8.8'), ARIN);
    expect(asked).toHaveLength(6);
  });

  it('does not cache failures and malformed answers: the next lookup asks again', async () => {
    const rdap = rdapOf();
    const failing: [string, Behaviour, object][] = [
      ['/rdap.arin.net/registry/ip/9.0.0.1', { status: 500, body: 'oops' }, { outcome: 'unknown', reason: 'failure', status: 500 }],
      [
        '/rdap.arin.net/registry/ip/9.0.1.1',
        { status: 200, body: '{"objectClassName": "ip network"' },
        { outcome: 'unknown', reason: 'malformed' },
      ],
      [
        '/rdap.arin.net/registry/ip/9.0.2.1',
        { status: 200, body: JSON.stringify({ objectClassName: 'ip network', startAddress: '9.9.9.0', endAddress: '9.9.9.255' }) },
        { outcome: 'unknown', reason: 'malformed' },
      ],
      ['/rdap.arin.net/registry/ip/9.0.3.1', (res) => res.destroy(), { outcome: 'unknown', reason: 'failure' }],
    ];
    for (const [url, behaviour, answer] of failing) {
      behaviours.set(url, behaviour);
      const address = ip(url.split('/').pop()!);
      expect(await rdap.lookup(address, ARIN), url).toEqual(answer);
      await rdap.lookup(address, ARIN);
    }
    expect(asked).toHaveLength(2 * failing.length);
  });

  it('refuses an answer past its size bound without reading it whole', async () => {
    const rdap = rdapOf();
    behaviours.set('/rdap.arin.net/registry/ip/9.1.0.1', (res) => {
      res.writeHead(200, { 'content-type': 'application/rdap+json' });
      const chunk = Buffer.alloc(64 * 1024, 32);
      // far more than the bound, written as long as the client reads
      let sent = 0;
      const write = () => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent < 64) res.once('drain', write);
        else res.end();
      };
      write();
    });
    expect(await rdap.lookup(ip('9.1.0.1'), ARIN)).toEqual({ outcome: 'unknown', reason: 'malformed' });
  });

  it('answers by the deadline when the server hangs, and caches the answer that comes later', async () => {
    let release: (() => void) | null = null;
    const body = fs.readFileSync(path.join(PUBLISHERS, 'rdap.arin.net/registry/ip/8.8.8.8'));
    behaviours.set('/rdap.arin.net/registry/ip/8.8.8.8', (res) => {
      release = () => {
        res.writeHead(200, { 'content-type': 'application/rdap+json' });
        res.end(body);
      };
    });
    const rdap = rdapOf({ deadlineMs: 100 });
    const started = performance.now();
    expect(await rdap.lookup(ip('8.8.8.8'), ARIN)).toEqual({ outcome: 'unknown', reason: 'timeout' });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(100 + SLACK_MS);
    expect(rdap.stats().expired).toBe(1);
    release!();
    await until('the late answer', () => rdap.stats().contacts === 1);
    expect(await rdap.lookup(ip('8.8.8.8'), ARIN)).toEqual({ outcome: 'contact', email: 'network-abuse@google.com' });
    expect(asked).toHaveLength(1);
  });

  it('sends one query per block in flight', async () => {
    behaviours.set('/rdap.arin.net/registry/ip/8.8.8.8', 'hang');
    const rdap = rdapOf({ deadlineMs: 50 });
    const answers = await Promise.all([
      rdap.lookup(ip('8.8.8.8'), ARIN),
      rdap.lookup(ip('8.8.8.8'), ARIN),
      rdap.lookup(ip('8.8.8.4'), ARIN),
    ]);
    expect(answers.every((a) => a.outcome === 'unknown')).toBe(true);
    expect(rdap.stats()).toMatchObject({ queries: 1, coalesced: 2 });
    expect(asked).toEqual(['/rdap.arin.net/registry/ip/8.8.8.8']);
  });

  it('keeps to the rate limit per service, answering "unknown" at once rather than queueing', async () => {
    const rdap = rdapOf({ perMinute: 3 });
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await rdap.lookup(ip(`23.1.${i}.1`), ARIN));
    expect(answers.map((a) => a.outcome)).toEqual(['none', 'none', 'none', 'unknown', 'unknown']);
    expect(answers[4]).toEqual({ outcome: 'unknown', reason: 'rate-limited' });
    // another service has its own budget
    expect((await rdap.lookup(ip('1.1.1.1'), APNIC)).outcome).toBe('contact');
    expect(asked).toHaveLength(4);
  });

  it("gives each caller a quarter of a service's budget: one asking block after block leaves the rest to the others", async () => {
    const rdap = rdapOf({ perMinute: 40 });
    const outcomes = async (caller: string, third: number, count: number) => {
      const answers = [];
      for (let i = 1; i <= count; i++) answers.push((await rdap.lookup(ip(`23.${third}.${i}.1`), ARIN, undefined, caller)).outcome);
      return answers;
    };
    // a quarter of 40 a minute: 10, in bursts of at most 5; the service's burst is 10
    expect(await outcomes('hostile', 3, 7)).toEqual(['none', 'none', 'none', 'none', 'none', 'unknown', 'unknown']);
    expect(await outcomes('other', 4, 3)).toEqual(['none', 'none', 'none']);
    // without a caller (the CLI, a bench), the service's own budget alone
    expect((await rdap.lookup(ip('23.5.1.1'), ARIN)).outcome).toBe('none');
  });

  it("keeps to LACNIC's published limit of 10 a minute whatever the setting", async () => {
    const rdap = rdapOf({ perMinute: 600 });
    const answers = [];
    for (let i = 1; i <= 11; i++) answers.push((await rdap.lookup(ip(`200.1.${i}.1`), 'https://rdap.lacnic.net/rdap/')).outcome);
    expect(answers).toEqual([...Array<string>(10).fill('none'), 'unknown']);
  });

  it("pauses a service for a 429's Retry-After", async () => {
    const clock = { t: 0, now: () => clock.t };
    const rdap = rdapOf({}, { clock });
    behaviours.set('/rdap.arin.net/registry/ip/23.2.0.1', { status: 429, headers: { 'retry-after': '30' } });
    expect(await rdap.lookup(ip('23.2.0.1'), ARIN, Infinity)).toEqual({ outcome: 'unknown', reason: 'rate-limited' });
    clock.t += 29_000;
    expect(await rdap.lookup(ip('8.8.8.8'), ARIN, Infinity)).toEqual({ outcome: 'unknown', reason: 'rate-limited' });
    expect(asked).toHaveLength(1);
    clock.t += 1_000;
    expect((await rdap.lookup(ip('8.8.8.8'), ARIN, Infinity)).outcome).toBe('contact');
  });

  it('follows a redirect to another registry, never to a host outside the bootstrap', async () => {
    const rdap = rdapOf({}, { isRdapHost: (host) => host === 'rdap.db.ripe.net' });
    behaviours.set('/rdap.arin.net/registry/ip/193.0.6.139', {
      status: 301,
      headers: { location: 'https://rdap.db.ripe.net/ip/193.0.6.139' },
    });
    expect(await rdap.lookup(ip('193.0.6.139'), ARIN)).toEqual({ outcome: 'contact', email: 'abuse@ripe.net' });
    expect(asked).toEqual(['/rdap.arin.net/registry/ip/193.0.6.139', '/rdap.db.ripe.net/ip/193.0.6.139']);
    for (const location of ['https://evil.example/ip/193.0.9.1', 'http://rdap.db.ripe.net/ip/193.0.9.1']) {
      behaviours.set('/rdap.arin.net/registry/ip/193.0.9.1', { status: 302, headers: { location } });
      expect(await rdap.lookup(ip('193.0.9.1'), ARIN), location).toEqual({ outcome: 'unknown', reason: 'failure', status: 302 });
    }
    expect(asked.filter((url) => url.includes('evil') || url.endsWith('rdap.db.ripe.net/ip/193.0.9.1'))).toEqual([]);
  });

  it('never asks about reserved addresses, nor a service that is not HTTPS', async () => {
    const rdap = rdapOf();
    expect(await rdap.lookup(ip('100.64.0.1'), ARIN)).toEqual({ outcome: 'none', reason: 'reserved' });
    expect(await rdap.lookup(ip('192.168.1.1'), ARIN)).toEqual({ outcome: 'none', reason: 'reserved' });
    expect(rdap.cached(ip('192.168.1.1'))).toEqual({ outcome: 'none', reason: 'reserved' });
    expect((await rdap.lookup(ip('8.8.8.8'), 'http://rdap.arin.net/registry/')).outcome).toBe('unknown');
    expect(asked).toEqual([]);
  });

  it('makes its cache file at the first lookup that reads it, not before', async () => {
    const cacheFile = path.join(folder, 'lazy', 'cache.sqlite');
    const rdap = rdapOf({ cacheFile });
    await rdap.lookup(ip('10.0.0.1'), ARIN);
    expect(fs.existsSync(path.dirname(cacheFile))).toBe(false);
    rdap.cached(ip('8.8.8.8'));
    expect(fs.existsSync(cacheFile)).toBe(true);
  });

  it('answers without its cache when the file cannot be made, and says so once', async () => {
    const notAFolder = path.join(folder, 'a-file');
    fs.writeFileSync(notAFolder, 'x');
    const errors: string[] = [];
    const rdap = rdapOf({ cacheFile: path.join(notAFolder, 'cache.sqlite') }, { onCacheError: (error) => errors.push(error.message) });
    expect(await rdap.lookup(ip('8.8.8.8'), ARIN)).toEqual({ outcome: 'contact', email: 'network-abuse@google.com' });
    expect(await rdap.lookup(ip('8.8.8.8'), ARIN)).toEqual({ outcome: 'contact', email: 'network-abuse@google.com' });
    expect(asked).toHaveLength(2);
    expect(errors).toHaveLength(1);
    expect(rdap.stats().cacheError).toMatch(/EEXIST|ENOTDIR/);
  });

  it('is off when turned off, and after close', async () => {
    const off = createRdapAbuse(settings({ enabled: false }), { mirror, isRdapHost: () => true });
    expect(await off.lookup(ip('8.8.8.8'), ARIN)).toEqual({ outcome: 'off' });
    const rdap = rdapOf();
    rdap.close();
    expect(await rdap.lookup(ip('8.8.8.8'), ARIN)).toEqual({ outcome: 'off' });
    expect(asked).toEqual([]);
  });
});
