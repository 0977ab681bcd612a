/**
 * Reverse DNS (src/enrichment/reverseDns.ts) against a real DNS server on 127.0.0.1
 * (test/enrichment/dnsServer.ts): names, negative and failed answers and what is cached of them,
 * deadlines kept when the server hangs (measured with timestamps), one query per address in
 * flight (counted at the server), the LRU bound and TTLs on an injected clock, hostile PTR answers
 * sent as raw bytes, IPv6, `off`, and batches within one budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIp } from '../../src/address/ipAddress.js';
import type { DnsSettings } from '../../src/config/dnsSettings.js';
import {
  createReverseDns,
  hostnameOf,
  NAME_TTL_MS,
  NO_NAME_TTL_MS,
  reverseNameOf,
  usableHostname,
  type ReverseDns,
  type ReverseDnsClock,
} from '../../src/enrichment/reverseDns.js';
import { closedUdpAddress, startDnsServer, wireName, type TestDnsServer } from './dnsServer.js';
import { until } from '../until.js';

/** Timer lateness allowed past a deadline: event-loop lag on a loaded test machine. */
const SLACK_MS = 60;

/** A clock the test moves. */
function manualClock(start = 1_000_000): ReverseDnsClock & { t: number } {
  return {
    t: start,
    now() {
      return this.t;
    },
  };
}

const arpa = (ip: string) => {
  const parsed = parseIp(ip);
  if (parsed === null) throw new Error(ip);
  return reverseNameOf(parsed);
};

describe('usableHostname', () => {
  it('keeps host names, lowercased, without the trailing dot', () => {
    expect(usableHostname('host.example.com')).toBe('host.example.com');
    expect(usableHostname('HOST.Example.COM.')).toBe('host.example.com');
    expect(usableHostname('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(usableHostname('81-2-69-160.static.example.net')).toBe('81-2-69-160.static.example.net');
    expect(usableHostname('localhost')).toBe('localhost');
    const longest = [61, 63, 63, 63].map((n) => 'a'.repeat(n)).join('.');
    expect(longest).toHaveLength(253);
    expect(usableHostname(longest)).toBe(longest);
    expect(usableHostname(`${longest}.`)).toBe(longest);
  });

  it('refuses what is not a host name', () => {
    const refused = [
      '',
      '.',
      'a..b',
      '.example.com',
      'ho\\001st.example.com', // c-ares' escape of a control byte
      'ho\u0001st.example.com', // the control byte itself
      'h\\255st.example.com',
      'h\\195\\(\\255.example.com', // invalid UTF-8, as c-ares escapes it
      'a\\.b.example', // a dot inside a label
      'ho st.example.com',
      'bad_name.example.com',
      'b\u00fccher.example',
      '\u212Aelvin.example', // the Kelvin sign, which toLowerCase turns into "k"
      '-lead.example.com',
      'trail-.example.com',
      `${'a'.repeat(64)}.example`,
      [62, 63, 63, 63].map((n) => 'a'.repeat(n)).join('.'), // 254 characters
      'x'.repeat(1000),
      '10.0.0.1', // would pass for an address
      'host.123',
    ];
    for (const text of refused) expect([text, usableHostname(text)]).toEqual([text, null]);
  });
});

describe('reverseNameOf', () => {
  it('writes in-addr.arpa and ip6.arpa names (hand-worked)', () => {
    expect(arpa('81.2.69.160')).toBe('160.69.2.81.in-addr.arpa');
    expect(arpa('::ffff:81.2.69.160')).toBe('160.69.2.81.in-addr.arpa');
    expect(arpa('2001:4860:4860::8888')).toBe('8.8.8.8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.6.8.4.0.6.8.4.1.0.0.2.ip6.arpa');
    expect(arpa('2a00:1450:4001:81c::200e')).toBe('e.0.0.2.0.0.0.0.0.0.0.0.0.0.0.0.c.1.8.0.1.0.0.4.0.5.4.1.0.0.a.2.ip6.arpa');
  });
});

describe('reverse DNS against a local DNS server', () => {
  let server: TestDnsServer;
  const services: ReverseDns[] = [];
  const settings = (more: Partial<DnsSettings> = {}): DnsSettings => ({
    servers: [server.address],
    deadlineMs: 300,
    cacheSize: 100,
    maxQueries: 16,
    ...more,
  });
  const service = (more: Partial<DnsSettings> = {}, clock?: ReverseDnsClock) => {
    const made = createReverseDns(settings(more), clock);
    services.push(made);
    return made;
  };

  beforeAll(async () => {
    server = await startDnsServer();
  });
  afterAll(async () => {
    for (const made of services) made.close();
    await server.close();
  });

  it('answers the PTR name and caches it', async () => {
    server.zone.set(arpa('81.2.69.1'), { names: ['Host-1.Example.NET.'] });
    const rdns = service();
    expect(await rdns.lookup('81.2.69.1')).toEqual({ outcome: 'name', hostname: 'host-1.example.net' });
    expect(hostnameOf(await rdns.lookup('81.2.69.1'))).toBe('host-1.example.net');
    expect(server.queries(arpa('81.2.69.1'))).toBe(1);
    expect(rdns.stats()).toMatchObject({ hits: 1, misses: 1, queries: 1, names: 1, cached: 1, inFlight: 0 });
  });

  it('caches NXDOMAIN and an empty answer as "no name"', async () => {
    server.zone.set(arpa('81.2.69.3'), { rcode: 'NOERROR' });
    const rdns = service();
    for (let i = 0; i < 2; i++) {
      expect(await rdns.lookup('81.2.69.2')).toEqual({ outcome: 'no-name', reason: 'nxdomain' });
      expect(await rdns.lookup('81.2.69.3')).toEqual({ outcome: 'no-name', reason: 'no-ptr' });
    }
    expect(server.queries(arpa('81.2.69.2'))).toBe(1);
    expect(server.queries(arpa('81.2.69.3'))).toBe(1);
    expect(rdns.stats()).toMatchObject({ hits: 2, queries: 2, noNames: 2 });
  });

  it('answers "unknown" by the deadline when the server never answers, and asks again next time', async () => {
    server.zone.set(arpa('81.2.69.4'), { silent: true });
    const rdns = service({ deadlineMs: 150 });
    for (let round = 1; round <= 2; round++) {
      const start = performance.now();
      const answer = await rdns.lookup('81.2.69.4', rdns.deadline());
      const elapsed = performance.now() - start;
      expect(answer).toEqual({ outcome: 'unknown', reason: 'timeout' });
      expect(elapsed).toBeGreaterThanOrEqual(145);
      expect(elapsed).toBeLessThan(150 + SLACK_MS);
      // the query itself is cancelled at its own deadline (c-ares alone would wait 250 ms or more);
      // only then does a new lookup send another
      await until('the query to be cancelled', () => rdns.stats().inFlight === 0, 5000, 5);
      expect(performance.now() - start).toBeLessThan(150 + SLACK_MS);
      expect(server.queries(arpa('81.2.69.4'))).toBe(round);
    }
    expect(rdns.stats()).toMatchObject({ queries: 2, timeouts: 2, cached: 0 });
  });

  it('keeps a short caller deadline even when the setting is longer', async () => {
    server.zone.set(arpa('81.2.69.5'), { silent: true });
    const rdns = service({ deadlineMs: 2000 });
    const start = performance.now();
    expect(await rdns.lookup('81.2.69.5', rdns.deadline(80))).toEqual({ outcome: 'unknown', reason: 'timeout' });
    expect(performance.now() - start).toBeLessThan(80 + SLACK_MS);
    expect(rdns.stats()).toMatchObject({ expired: 1, inFlight: 1 });
    // a deadline already past: no query
    expect(await rdns.lookup('81.2.69.6', rdns.deadline(-1))).toEqual({ outcome: 'unknown', reason: 'timeout' });
    expect(server.queries(arpa('81.2.69.6'))).toBe(0);
  });

  it('does not cache SERVFAIL, REFUSED or an unreachable server', async () => {
    server.zone.set(arpa('81.2.69.7'), { rcode: 'SERVFAIL' });
    server.zone.set(arpa('81.2.69.8'), { rcode: 'REFUSED' });
    const rdns = service();
    for (let i = 0; i < 2; i++) {
      expect(await rdns.lookup('81.2.69.7')).toEqual({ outcome: 'unknown', reason: 'failure', code: 'ESERVFAIL' });
      expect(await rdns.lookup('81.2.69.8')).toEqual({ outcome: 'unknown', reason: 'failure', code: 'EREFUSED' });
    }
    expect(server.queries(arpa('81.2.69.7'))).toBe(2);
    expect(server.queries(arpa('81.2.69.8'))).toBe(2);
    expect(rdns.stats()).toMatchObject({ failures: 4, cached: 0 });

    const unreachable = createReverseDns({ ...settings(), servers: [await closedUdpAddress()] });
    services.push(unreachable);
    const start = performance.now();
    expect(await unreachable.lookup('81.2.69.9')).toEqual({ outcome: 'unknown', reason: 'failure', code: 'ECONNREFUSED' });
    expect(performance.now() - start).toBeLessThan(300 + SLACK_MS);
    expect(unreachable.stats()).toMatchObject({ failures: 1, cached: 0 });
  });

  it('sends one query for concurrent lookups of one address, whatever its spelling', async () => {
    const name = arpa('2001:4860:4860::8888');
    server.zone.set(name, { names: ['dns.example'], delayMs: 40 });
    const rdns = service();
    const answers = await Promise.all([
      rdns.lookup('2001:4860:4860::8888'),
      rdns.lookup('2001:4860:4860:0:0:0:0:8888'),
      rdns.lookup('2001:4860:4860::8888'),
    ]);
    expect(answers.map(hostnameOf)).toEqual(['dns.example', 'dns.example', 'dns.example']);
    expect(server.queries(name)).toBe(1);
    expect(rdns.stats()).toMatchObject({ misses: 3, coalesced: 2, queries: 1 });
  });

  it('answers IPv6 addresses from ip6.arpa, and IPv4-mapped ones from in-addr.arpa', async () => {
    server.zone.set(arpa('2a00:1450:4001:81c::200e'), { names: ['fra16s51-in-x0e.1e100.net'] });
    server.zone.set('160.69.2.81.in-addr.arpa', { names: ['mapped.example'] });
    const rdns = service();
    expect(hostnameOf(await rdns.lookup('2a00:1450:4001:81c::200e'))).toBe('fra16s51-in-x0e.1e100.net');
    expect(hostnameOf(await rdns.lookup('::ffff:81.2.69.160'))).toBe('mapped.example');
    expect(server.queries('e.0.0.2.0.0.0.0.0.0.0.0.0.0.0.0.c.1.8.0.1.0.0.4.0.5.4.1.0.0.a.2.ip6.arpa')).toBe(1);
  });

  it('bounds the cache, dropping the least recently used address', async () => {
    for (const n of [11, 12, 13]) server.zone.set(arpa(`81.2.69.${n}`), { names: [`h${n}.example`] });
    const rdns = service({ cacheSize: 2 });
    await rdns.lookup('81.2.69.11');
    await rdns.lookup('81.2.69.12');
    await rdns.lookup('81.2.69.11'); // a hit: .11 is now the most recent
    await rdns.lookup('81.2.69.13'); // evicts .12
    expect(rdns.stats()).toMatchObject({ hits: 1, queries: 3, cached: 2 });
    expect(hostnameOf(await rdns.lookup('81.2.69.11'))).toBe('h11.example');
    expect(hostnameOf(await rdns.lookup('81.2.69.13'))).toBe('h13.example');
    expect(rdns.stats()).toMatchObject({ hits: 3, queries: 3 });
    expect(hostnameOf(await rdns.lookup('81.2.69.12'))).toBe('h12.example');
    expect(rdns.stats()).toMatchObject({ hits: 3, queries: 4, cached: 2 });
    expect(server.queries(arpa('81.2.69.12'))).toBe(2);
  });

  it('keeps names for NAME_TTL_MS and "no name" for NO_NAME_TTL_MS on its clock', async () => {
    server.zone.set(arpa('81.2.69.21'), { names: ['ttl.example'] });
    const clock = manualClock();
    const rdns = service({}, clock);
    const start = clock.t;
    await rdns.lookup('81.2.69.21');
    await rdns.lookup('81.2.69.22'); // NXDOMAIN
    clock.t = start + NO_NAME_TTL_MS - 1;
    await rdns.lookup('81.2.69.22');
    expect(server.queries(arpa('81.2.69.22'))).toBe(1);
    clock.t = start + NO_NAME_TTL_MS;
    await rdns.lookup('81.2.69.22');
    expect(server.queries(arpa('81.2.69.22'))).toBe(2);
    clock.t = start + NAME_TTL_MS - 1;
    expect(hostnameOf(await rdns.lookup('81.2.69.21'))).toBe('ttl.example');
    expect(server.queries(arpa('81.2.69.21'))).toBe(1);
    clock.t = start + NAME_TTL_MS;
    expect(hostnameOf(await rdns.lookup('81.2.69.21'))).toBe('ttl.example');
    expect(server.queries(arpa('81.2.69.21'))).toBe(2);
  });

  it('rejects hostile PTR names, caches the rejection, and takes the first usable of several', async () => {
    const control = wireName(['ho\x01st', 'example', 'com']);
    const cases: [string, Buffer[], string | null][] = [
      ['81.2.69.31', [control], null],
      // 16 labels of 63 octets: a 1024-octet name, past RFC 1035's 255
      ['81.2.69.32', [wireName(Array.from({ length: 16 }, () => 'a'.repeat(63)))], null],
      // 248 octets of control bytes: about 1000 characters once c-ares escapes them
      ['81.2.69.33', [wireName(Array.from({ length: 4 }, () => Buffer.alloc(61, 1)))], null],
      // invalid UTF-8: a lone continuation, an overlong lead, 0xFF
      ['81.2.69.34', [wireName([Buffer.from([0x68, 0xc3, 0x28, 0xff]), 'example', 'com'])], null],
      ['81.2.69.35', [wireName(['a.b', 'example'])], null],
      ['81.2.69.36', [wireName(['h\u00fcst', 'example'])], null],
      [
        '81.2.69.37',
        [control, wireName(['bad_name', 'example']), wireName(['Good', 'example', 'com']), wireName(['second', 'example'])],
        'good.example.com',
      ],
    ];
    for (const [ip, wireNames] of cases) server.zone.set(arpa(ip), { wireNames });
    const rdns = service();
    for (const [ip, , hostname] of cases) {
      const answer = await rdns.lookup(ip);
      expect([ip, answer]).toEqual([ip, hostname === null ? { outcome: 'no-name', reason: 'unusable' } : { outcome: 'name', hostname }]);
      expect(await rdns.lookup(ip)).toEqual(answer);
      expect(server.queries(arpa(ip))).toBe(1);
    }
  });

  it('never asks about reserved addresses', async () => {
    const rdns = service();
    const before = server.queries();
    for (const ip of ['10.0.0.1', '127.0.0.1', '192.168.1.20', '100.64.0.1', 'fe80::1', 'fd00::1', '2001:db8::1']) {
      expect(await rdns.lookup(ip)).toEqual({ outcome: 'no-name', reason: 'reserved' });
    }
    expect(server.queries()).toBe(before);
  });

  it('with servers "off", answers at once and asks nothing', async () => {
    const rdns = createReverseDns({ ...settings(), servers: 'off' });
    const before = server.queries();
    expect(await rdns.lookup('81.2.69.1')).toEqual({ outcome: 'off' });
    expect(await rdns.lookupMany(['81.2.69.1', '2001:4860:4860::8888'])).toEqual([{ outcome: 'off' }, { outcome: 'off' }]);
    expect(hostnameOf({ outcome: 'off' })).toBeNull();
    await expect(rdns.lookup('not an address')).rejects.toThrow(/not an IP address/);
    expect(server.queries()).toBe(before);
  });

  it('answers a batch within one budget, one slow address included; its late answer is cached', async () => {
    server.zone.set(arpa('81.2.69.41'), { names: ['a.example'] });
    server.zone.set(arpa('81.2.69.42'), { names: ['slow.example'], delayMs: 400 });
    server.zone.set(arpa('81.2.69.43'), { names: ['c.example'] });
    server.zone.set(arpa('81.2.69.45'), { silent: true });
    const rdns = service({ deadlineMs: 1000 });
    const start = performance.now();
    const answers = await rdns.lookupMany(
      ['81.2.69.41', '81.2.69.42', '81.2.69.43', '81.2.69.44', '81.2.69.45', '81.2.69.41'],
      rdns.deadline(200),
    );
    const elapsed = performance.now() - start;
    expect(answers).toEqual([
      { outcome: 'name', hostname: 'a.example' },
      { outcome: 'unknown', reason: 'timeout' },
      { outcome: 'name', hostname: 'c.example' },
      { outcome: 'no-name', reason: 'nxdomain' },
      { outcome: 'unknown', reason: 'timeout' },
      { outcome: 'name', hostname: 'a.example' },
    ]);
    expect(elapsed).toBeLessThan(200 + SLACK_MS);
    // the slow query goes on after the batch, within its own deadline, and its answer is kept
    await until('the slow answer', () => rdns.stats().names === 3, 5000, 5);
    expect(await rdns.lookup('81.2.69.42', rdns.deadline(0))).toEqual({ outcome: 'name', hostname: 'slow.example' });
    expect(server.queries(arpa('81.2.69.42'))).toBe(1);
  });

  it('bounds the queries in flight: a lookup with no free slot by its deadline is "unknown", unsent', async () => {
    server.zone.set(arpa('81.2.69.51'), { silent: true });
    server.zone.set(arpa('81.2.69.52'), { silent: true });
    server.zone.set(arpa('81.2.69.53'), { names: ['free.example'] });
    const rdns = service({ maxQueries: 2, deadlineMs: 250 });
    const hanging = [rdns.lookup('81.2.69.51'), rdns.lookup('81.2.69.52')];
    const start = performance.now();
    expect(await rdns.lookup('81.2.69.53', rdns.deadline(100))).toEqual({ outcome: 'unknown', reason: 'timeout' });
    expect(performance.now() - start).toBeLessThan(100 + SLACK_MS);
    expect(server.queries(arpa('81.2.69.53'))).toBe(0);
    expect(rdns.stats()).toMatchObject({ unsent: 1 });
    await Promise.all(hanging);
    // the slots come back when the hanging queries are cancelled
    await until('free slots', () => rdns.stats().inFlight === 0, 5000, 5);
    expect(hostnameOf(await rdns.lookup('81.2.69.53'))).toBe('free.example');
  });

  it('close() answers the callers waiting and turns lookups off', async () => {
    server.zone.set(arpa('81.2.69.61'), { silent: true });
    const rdns = createReverseDns(settings({ deadlineMs: 5000 }));
    const waiting = rdns.lookup('81.2.69.61');
    await until('the query to be sent', () => server.queries(arpa('81.2.69.61')) === 1, 5000, 5);
    const start = performance.now();
    rdns.close();
    expect(await waiting).toEqual({ outcome: 'unknown', reason: 'timeout' });
    expect(performance.now() - start).toBeLessThan(SLACK_MS);
    expect(await rdns.lookup('81.2.69.1')).toEqual({ outcome: 'off' });
  });
});
