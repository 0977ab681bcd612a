/**
 * Firewall exports (docs/blacklist.md) through HTTP: every export format parsed back and compared with the listed
 * addresses, the filters (confidence, version, age), streaming, and conditional GET (ETag,
 * Last-Modified, 304) under v1 and the legacy host.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, DEFAULT_EXPORT_MIN_CONFIDENCE } from '../../src/blacklist/scoring.js';
import { expectError, Harness } from './harness.js';

let h: Harness;
let key: string;

/** Listed by three reporters (high confidence): four adjacent IPv4 (a /30), one more, two adjacent IPv6. */
const strong4 = ['45.100.0.4', '45.100.0.5', '45.100.0.6', '45.100.0.7', '45.100.0.9'];
const strong6 = ['2a01:4f8::10', '2a01:4f8::11'];
/** Listed by one reporter, three days ago (low confidence, older). */
const weak = ['45.100.1.1', '2a01:4f8::20'];
const all = [...strong4, ...weak.slice(0, 1), ...strong6, ...weak.slice(1)];

beforeAll(async () => {
  // Reports are dated when they arrive: the weak ones arrive three days before the others.
  h = await Harness.start({ clockStart: new Date(Date.parse('2026-06-10T12:05:00.000Z') - 3 * DAY_MS).toISOString() });
  key = await h.newKey('pro');
  for (const ip of weak) await h.call('/v1/blacklist/report', { key, json: { ip, categories: '14' }, tick: 10 });
  h.clock.set('2026-06-10T12:05:00.000Z');
  const reporters = [key, await h.newKey('starter'), await h.newKey('business')];
  for (const reporter of reporters) {
    for (const ip of [...strong4, ...strong6])
      await h.call('/v1/blacklist/report', { key: reporter, json: { ip, threat_type: 'brute-force' }, tick: 10 });
  }
  // Exports are evaluated at the start of the quarter hour: move into the next one.
  h.clock.set('2026-06-10T12:16:00.000Z');
});

afterAll(async () => {
  await h?.stop();
});

/** An export of every listed address unless the query sets its own min_confidence (the default is tested under "filters"). */
const get = (query: string, headers: Record<string, string> = {}) =>
  h.call(`/v1/blacklist/export${query}${query.includes('min_confidence') ? '' : '&min_confidence=0'}`, { key, headers, tick: 0 });

function expandCidr(block: string): string[] {
  const [ip, prefix] = block.split('/');
  if (ip.includes(':')) {
    const base = BigInt('0x' + expandV6(ip).join(''));
    const size = 1n << BigInt(128 - Number(prefix));
    return Array.from({ length: Number(size) }, (_, i) => formatV6(base + BigInt(i)));
  }
  const base = ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
  return Array.from({ length: 2 ** (32 - Number(prefix)) }, (_, i) => {
    const n = base + i;
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  });
}
function expandV6(ip: string): string[] {
  const [l, r] = ip.split('::');
  const left = l ? l.split(':') : [];
  const right = r ? r.split(':') : [];
  return [...left, ...Array(8 - left.length - right.length).fill('0'), ...right].map((g) => g.padStart(4, '0'));
}
function formatV6(n: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((n >> BigInt(16 * (7 - i))) & 0xffffn).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

describe('formats, parsed back', () => {
  it('plain: one address per line, IPv4 ascending then IPv6', async () => {
    const r = await get('?format=plain');
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/plain/);
    expect(r.text.trim().split('\n')).toEqual(all);
  });

  it('cidr: the minimal cover (adjacent addresses merged)', async () => {
    const lines = (await get('?format=cidr')).text.trim().split('\n');
    expect(lines).toEqual(['45.100.0.4/30', '45.100.0.9/32', '45.100.1.1/32', '2a01:4f8::10/127', '2a01:4f8::20/128']);
    expect(lines.flatMap(expandCidr)).toEqual(all);
  });

  it('ipset: a restore file filling temporary sets swapped in', async () => {
    const lines = (await get('?format=ipset')).text.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines.filter((l) => l.startsWith('create'))).toEqual([
      'create netlookup-v4 hash:ip family inet maxelem 16777216 -exist',
      'create netlookup-v4-new hash:ip family inet maxelem 16777216 -exist',
      'create netlookup-v6 hash:ip family inet6 maxelem 16777216 -exist',
      'create netlookup-v6-new hash:ip family inet6 maxelem 16777216 -exist',
    ]);
    const added = lines.filter((l) => l.startsWith('add ')).map((l) => l.split(' '));
    expect(added.map(([, set, ip]) => [set, ip])).toEqual(
      all.map((ip) => [ip.includes(':') ? 'netlookup-v6-new' : 'netlookup-v4-new', ip]),
    );
    expect(lines).toContain('swap netlookup-v4-new netlookup-v4');
    expect(lines).toContain('destroy netlookup-v6-new');
  });

  it('nftables: sets v4 and v6 of table inet <name>, flushed and refilled', async () => {
    const text = (await get('?format=nftables&name=blocklist')).text;
    expect(text.startsWith('#!/usr/sbin/nft -f\n')).toBe(true);
    expect(text).toContain('table inet blocklist {\n\tset v4 { type ipv4_addr; }\n\tset v6 { type ipv6_addr; }\n}');
    expect(text).toContain('flush set inet blocklist v4\n');
    const elements = [...text.matchAll(/^add element inet blocklist (v4|v6) \{ (\S+) \}$/gm)].map((m) => [m[1], m[2]]);
    expect(elements).toEqual(all.map((ip) => [ip.includes(':') ? 'v6' : 'v4', ip]));
  });

  it('iptables: a shell script with a DROP chain per family', async () => {
    const text = (await get('?format=iptables')).text;
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    const rules = [...text.matchAll(/^(ip6?tables) -A NETLOOKUP -s (\S+) -j DROP$/gm)].map((m) => [m[1], m[2]]);
    expect(rules).toEqual(all.map((ip) => [ip.includes(':') ? 'ip6tables' : 'iptables', ip]));
    expect(text).toContain('iptables -N NETLOOKUP 2>/dev/null || iptables -F NETLOOKUP');
    expect(text).toContain('ip6tables -C INPUT -j NETLOOKUP 2>/dev/null || ip6tables -I INPUT -j NETLOOKUP');
  });

  it('csv and json carry the same rows as the check', async () => {
    const csv = parseCsv((await get('?format=csv')).text, { columns: true }) as Record<string, string>[];
    const json = (await get('?format=json')).body;
    expect(json).toMatchObject({ success: true, count: all.length, filter: { min_confidence: 0, version: null, max_age_ms: null } });
    expect(json.addresses.map((a: { ip: string }) => a.ip)).toEqual(all);
    expect(csv.map((row) => row.ip)).toEqual(all);
    for (const [i, ip] of all.entries()) {
      const check = (await h.call(`/v1/blacklist/${ip}`, { key, tick: 0 })).body;
      const row = json.addresses[i];
      expect(row).toEqual({
        ip,
        version: ip.includes(':') ? 6 : 4,
        threat_type: check.threat_type,
        confidence: row.confidence,
        reports: check.total_reports,
        first_seen: check.first_seen,
        last_seen: check.last_seen,
      });
      // The export is evaluated at the start of its quarter hour, the check now: decay in between is small.
      expect(Math.abs(row.confidence - check.confidence)).toBeLessThanOrEqual(1);
      expect(csv[i]).toEqual({
        ip,
        version: String(row.version),
        threat_type: row.threat_type,
        confidence: String(row.confidence),
        reports: String(row.reports),
        first_seen: row.first_seen,
        last_seen: row.last_seen,
      });
    }
  });

  it('the body is streamed (chunked, no Content-Length)', async () => {
    const r = await get('?format=plain');
    expect(r.headers.get('content-length')).toBeNull();
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
  });
});

describe('filters', () => {
  it('the default min_confidence leaves out addresses only one account reported', async () => {
    const r = await h.call('/v1/blacklist/export?format=json', { key, tick: 0 });
    expect(r.body.filter.min_confidence).toBe(DEFAULT_EXPORT_MIN_CONFIDENCE);
    expect(r.body.addresses.map((a: { ip: string }) => a.ip)).toEqual([...strong4, ...strong6]);
    expect((await h.call('/api/export.php?format=plain', { tick: 0 })).text.trim().split('\n')).toEqual([...strong4, ...strong6]);
  });

  it('min_confidence, version and max_age', async () => {
    expect((await get('?min_confidence=60')).text.trim().split('\n')).toEqual([...strong4, ...strong6]);
    expect((await get('?version=6')).text.trim().split('\n')).toEqual([...strong6, weak[1]]);
    expect((await get('?version=4&min_confidence=60')).text.trim().split('\n')).toEqual(strong4);
    expect((await get('?max_age=1d')).text.trim().split('\n')).toEqual([...strong4, ...strong6]);
    expect((await get('?max_age=4')).text.trim().split('\n')).toEqual(all);
    expect((await get('?min_confidence=100')).text).toBe('');
  });

  it("a version filter leaves out the other family's sections", async () => {
    const text = (await get('?format=ipset&version=4')).text;
    expect(text).not.toContain('netlookup-v6');
  });

  it('bad parameters: 400 invalid_input', async () => {
    for (const q of [
      '?format=pdf',
      '?min_confidence=101',
      '?min_confidence=-1',
      '?version=5',
      '?max_age=soon',
      '?max_age=0',
      '?name=1bad',
      '?name=a%20b',
    ]) {
      expectError(await get(q), 'invalid_input');
    }
  });
});

describe('conditional GET', () => {
  it('If-None-Match and If-Modified-Since get 304 until the blacklist changes or the quarter hour turns', async () => {
    const first = await get('?format=plain');
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(Date.parse(lastModified)).toBeGreaterThan(0);
    const notModified = await get('?format=plain', { 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await get('?format=plain', { 'if-modified-since': lastModified })).status).toBe(304);
    expect((await get('?format=plain', { 'if-none-match': '"other"' })).status).toBe(200);
    // Another format or filter is another document.
    expect((await get('?format=csv', { 'if-none-match': etag })).status).toBe(200);
    // A report changes it.
    await h.call('/v1/blacklist/report', { key, json: { ip: '45.100.2.2', threat_type: 'spam' }, tick: 0 });
    const changed = await get('?format=plain', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('45.100.2.2');
    const etag2 = changed.headers.get('etag')!;
    expect((await get('?format=plain', { 'if-none-match': etag2 })).status).toBe(304);
    // The next quarter hour re-evaluates decay and expiry.
    h.clock.advance(15 * 60_000);
    expect((await get('?format=plain', { 'if-none-match': etag2 })).status).toBe(200);
  });

  it('each poll counts as one blacklist check, 304s included', async () => {
    const before = (await h.usage(key)).monthly_quota.used;
    const r = await get('?format=plain');
    await get('?format=plain', { 'if-none-match': r.headers.get('etag')! });
    expect((await h.usage(key)).monthly_quota.used).toBe(before + 2);
  });
});

describe('legacy export', () => {
  it('/api/export.php and /api/export answer the same lists without a key', async () => {
    const v1 = await get('?format=cidr&min_confidence=60');
    const legacy = await h.call('/api/export.php?format=cidr&min_confidence=60', { tick: 0 });
    expect(legacy.status).toBe(200);
    expect(legacy.text).toBe(v1.text);
    expect(legacy.headers.get('etag')).toBe(v1.headers.get('etag'));
    expect(
      (
        await h.call('/api/export?format=plain&min_confidence=0', {
          tick: 0,
          headers: { 'if-none-match': (await get('?format=plain')).headers.get('etag')! },
        })
      ).status,
    ).toBe(304);
  });
});
