/**
 * The blacklist (docs/blacklist.md) end to end through HTTP: report intake (JSON and form bodies, the key's extra ways,
 * category mapping, merging, refusals, rate limit), check and batch at both field levels, the IP
 * record's security block, retention, the admin deletion, and many reporters at once.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY_MS } from '../../src/blacklist/scoring.js';
import fs from 'node:fs';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { expectError, expectQuotaHeadersMatchMeta, Harness, tempDir } from './harness.js';

const MIN = 60_000;
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;
let pro: string;
let free: string;
let counter = 0;
/** A fresh public address per test. */
const fresh = () => `45.90.${(++counter >> 8) & 255}.${counter & 255}`;

beforeAll(async () => {
  h = await Harness.start({ blacklist: { reportsPerMinute: 1000 } });
  pro = await h.newKey('pro');
  free = await h.newKey('free');
});

afterAll(async () => {
  await h?.stop();
});

const report = (key: string, body: Record<string, unknown>, tick?: number) => h.call('/v1/blacklist/report', { key, json: body, tick });
const formReport = (body: Record<string, string>, headers: Record<string, string> = {}, key?: string) =>
  h.call('/v1/blacklist/report', { key, headers: { ...form, ...headers }, body: new URLSearchParams(body).toString() });

describe('report intake', () => {
  it('a JSON report is saved (201) with the new confidence and lists the address', async () => {
    const ip = fresh();
    const r = await report(pro, { ip, threat_type: 'brute-force', comment: 'sshd: 6 failures', source: 'fail2ban' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      ip,
      merged: false,
      listed: true,
      threat_type: 'brute-force',
      confidence: 39,
      total_reports: 1,
      last_seen: expect.stringMatching(TIME),
    });
    const check = await h.call(`/v1/blacklist/${ip}`, { key: pro });
    expect(check.body).toMatchObject({
      listed: true,
      threat_type: 'brute-force',
      confidence: 39,
      reports: [{ message: 'sshd: 6 failures', source: 'fail2ban' }],
    });
  });

  it('a form report with categories, the key in a Key header or a key field', async () => {
    const a = fresh();
    const viaHeader = await formReport({ ip: a, categories: '18,22', comment: 'ssh' }, { key: pro });
    expect(viaHeader.status).toBe(201);
    expect(viaHeader.body.threat_type).toBe('brute-force');
    const b = fresh();
    const viaField = await formReport({ ip: b, categories: '14', key: pro });
    expect(viaField.status).toBe(201);
    expect(viaField.body.threat_type).toBe('scanner');
  });

  it.each([
    ['18', 'brute-force'],
    ['22', 'brute-force'],
    ['5', 'brute-force'],
    ['10,11', 'spam'],
    ['14', 'scanner'],
    ['21', 'web-attack'],
    ['16', 'web-attack'],
    ['4', 'ddos'],
    ['7', 'phishing'],
    ['20', 'malware'],
    ['19', 'bot'],
    ['15', 'other'],
    ['15,21', 'web-attack'],
  ])('categories %s map to %s', async (categories, type) => {
    const r = await report(pro, { ip: fresh(), categories });
    expect(r.status).toBe(201);
    expect(r.body.threat_type).toBe(type);
  });

  it('category (singular), JSON arrays of numbers, and loose threat type spellings are accepted', async () => {
    expect((await report(pro, { ip: fresh(), category: 11 })).body.threat_type).toBe('spam');
    expect((await report(pro, { ip: fresh(), categories: [19, 21] })).body.threat_type).toBe('bot');
    expect((await report(pro, { ip: fresh(), threat_type: 'Web_Attack' })).body.threat_type).toBe('web-attack');
  });

  it("one reporter's repeats within 15 minutes merge (200); another reporter or a later repeat counts", async () => {
    const ip = fresh();
    const other = await h.newKey('starter');
    expect((await report(pro, { ip, threat_type: 'scanner' })).status).toBe(201);
    const merged = await report(pro, { ip, threat_type: 'scanner' }, 14 * MIN);
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ merged: true, total_reports: 1 });
    expect((await report(other, { ip, threat_type: 'scanner' }, 0)).body).toMatchObject({ merged: false, total_reports: 2 });
    expect((await report(pro, { ip, threat_type: 'scanner' }, 16 * MIN)).body).toMatchObject({ merged: false, total_reports: 3 });
    const check = await h.call(`/v1/blacklist/${ip}`, { key: pro });
    expect(check.body).toMatchObject({ total_reports: 3, distinct_reporters: 2 });
  });

  it('a report is dated when it arrives; a claimed timestamp is checked (future and too old ones are refused)', async () => {
    const ip = fresh();
    const at = new Date(h.clock.ms - 2 * DAY_MS);
    const r = await report(pro, { ip, threat_type: 'spam', timestamp: at.toISOString() }, 0);
    expect(r.status).toBe(201);
    expect(r.body.last_seen).toBe(new Date(h.clock.ms).toISOString().slice(0, 19).replace('T', ' '));
    // An hour earlier by its claim, yet arriving now: a repeat within the merge window.
    expect((await report(pro, { ip, threat_type: 'spam', timestamp: String(Math.floor(h.clock.ms / 1000) - 3600) })).status).toBe(200);
    expectError(await report(pro, { ip, threat_type: 'spam', timestamp: new Date(h.clock.ms + 3600_000).toISOString() }), 'invalid_report');
    expectError(
      await report(pro, { ip, threat_type: 'spam', timestamp: new Date(h.clock.ms - 91 * DAY_MS).toISOString() }),
      'invalid_report',
    );
    expectError(await report(pro, { ip, threat_type: 'spam', timestamp: 'yesterday' }), 'invalid_report');
  });

  it('refusals are non-2xx error envelopes with clear codes', async () => {
    expectError(await h.call('/v1/blacklist/report', { json: { ip: fresh(), threat_type: 'spam' } }), 'missing_key');
    expectError(await report('nlk_' + '0'.repeat(40), { ip: fresh(), threat_type: 'spam' }), 'invalid_key');
    expectError(await report(pro, { threat_type: 'spam' }), 'invalid_ip');
    expectError(await report(pro, { ip: '1.2.3', threat_type: 'spam' }), 'invalid_ip');
    for (const ip of ['10.1.2.3', '127.0.0.1', '192.168.1.1', '100.64.0.1', '203.0.113.7', '::1', 'fe80::1', '2001:db8::1', '224.0.0.1']) {
      expectError(await report(pro, { ip, threat_type: 'spam' }), 'reserved_ip');
    }
    expectError(await report(pro, { ip: fresh() }), 'invalid_report');
    expectError(await report(pro, { ip: fresh(), threat_type: 'annoying' }), 'invalid_report');
    expectError(await report(pro, { ip: fresh(), categories: '99' }), 'invalid_report');
    expectError(await report(pro, { ip: fresh(), categories: 'ssh' }), 'invalid_report');
    expectError(await report(pro, { ip: fresh(), threat_type: 'spam', source: 'x'.repeat(65) }), 'invalid_report');
    expectError(
      await h.call('/v1/blacklist/report', { key: pro, body: '{"ip":', headers: { 'content-type': 'application/json' } }),
      'invalid_body',
    );
    expectError(
      await h.call('/v1/blacklist/report', { key: pro, body: 'ip=1', headers: { 'content-type': 'text/plain' } }),
      'unsupported_media_type',
    );
    expectError(await h.call('/v1/blacklist/report', { key: pro, json: ['8.8.8.8'] }), 'invalid_body');
    expectError(await h.call('/v1/blacklist/report', { key: pro, method: 'PUT' }), 'method_not_allowed');
  });

  it('reports are not counted against the lookup quota; refusals count as rejected', async () => {
    const before = await h.usage(pro);
    await report(pro, { ip: fresh(), threat_type: 'bot' });
    await report(pro, { ip: '10.0.0.1', threat_type: 'bot' });
    const after = await h.usage(pro);
    expect(after.monthly_quota.used).toBe(before.monthly_quota.used);
    expect(after.today.rejected).toBe(before.today.rejected + 1);
  });

  it('a long comment is cut to 1024 characters', async () => {
    const ip = fresh();
    await report(pro, { ip, threat_type: 'spam', message: 'x'.repeat(5000) });
    expect((await h.call(`/v1/blacklist/${ip}`, { key: pro })).body.reports[0].message).toHaveLength(1024);
  });
});

describe('report rate limit', () => {
  it('past the per-minute limit: 429 rate_limited with Retry-After; a minute later reports pass again', async () => {
    const s = await Harness.start({ blacklist: { reportsPerMinute: 3 } });
    try {
      const key = await s.newKey('pro');
      const send = (tick: number) =>
        s.call('/v1/blacklist/report', { key, json: { ip: `45.91.0.${++counter & 255}`, threat_type: 'spam' }, tick });
      for (let i = 0; i < 3; i++) expect((await send(1000)).status).toBe(201);
      const refused = await send(1000);
      expectError(refused, 'rate_limited');
      expect(refused.headers.get('retry-after')).toBe('60');
      expect((await send(60_000)).status).toBe(201);
    } finally {
      await s.stop();
    }
  });
});

describe('check and batch', () => {
  let listed: string;
  beforeAll(async () => {
    listed = fresh();
    const second = await h.newKey('business');
    await report(pro, { ip: listed, threat_type: 'brute-force', comment: 'first', source: 'fail2ban' });
    await report(second, { ip: listed, threat_type: 'spam', comment: 'second', source: 'postfix' });
    await report(second, { ip: listed, threat_type: 'brute-force', comment: 'third', source: 'postfix' }, 20 * MIN);
  });

  it('paid: every SPEC 2.4 field; reports newest first; times in the blacklist format', async () => {
    const r = await h.call(`/v1/blacklist/${listed}`, { key: pro });
    expect(r.status).toBe(200);
    expectQuotaHeadersMatchMeta(r, 'pro');
    const { meta, ...record } = r.body;
    expect(meta.fields).toBe('full');
    expect(record).toEqual({
      success: true,
      ip: listed,
      listed: true,
      threat_type: 'brute-force',
      confidence: expect.any(Number),
      last_seen: expect.stringMatching(TIME),
      total_reports: 3,
      distinct_reporters: 2,
      first_seen: expect.stringMatching(TIME),
      source: 'multiple',
      country_code: expect.anything(),
      isp: expect.anything(),
      reports: [
        { threat_type: 'brute-force', message: 'third', source: 'postfix', created_at: expect.stringMatching(TIME) },
        { threat_type: 'spam', message: 'second', source: 'postfix', created_at: expect.stringMatching(TIME) },
        { threat_type: 'brute-force', message: 'first', source: 'fail2ban', created_at: expect.stringMatching(TIME) },
      ],
    });
    expect(record.confidence).toBeGreaterThan(60);
    expect(record.confidence).toBeLessThanOrEqual(100);
    expect(record.first_seen < record.last_seen).toBe(true);
  });

  it('country and provider come from the engine at the first report', async () => {
    const ip = '8.8.4.4';
    await report(pro, { ip, threat_type: 'scanner' });
    const r = await h.call(`/v1/blacklist/${ip}`, { key: pro });
    const engine = await h.call(`/v1/ip/${ip}`, { key: pro });
    expect(r.body.country_code).toBe(engine.body.location.country_code);
    expect(r.body.isp).toBe(engine.body.network.isp);
    expect(r.body.country_code).toBe('US');
  });

  it('free: the basic fields only', async () => {
    const r = await h.call(`/v1/blacklist/${listed}`, { key: free });
    expect(r.status).toBe(200);
    const { meta, ...record } = r.body;
    expect(meta.fields).toBe('basic');
    expect(Object.keys(record).sort()).toEqual(['confidence', 'ip', 'last_seen', 'listed', 'success', 'threat_type']);
  });

  it('an address without reports: listed false and nothing else', async () => {
    const r = await h.call(`/v1/blacklist/${fresh()}`, { key: pro });
    expect(Object.keys(r.body).sort()).toEqual(['ip', 'listed', 'meta', 'success']);
  });

  it('batch: one full record per unique address, invalid entries fail alone', async () => {
    const other = fresh();
    const r = await h.call('/v1/blacklist/batch', { key: pro, json: { ips: [listed, other, 'nope', listed] } });
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(3);
    expect(r.body.results[0]).toMatchObject({ success: true, ip: listed, listed: true, total_reports: 3, distinct_reporters: 2 });
    expect(r.body.results[0].reports).toHaveLength(3);
    expect(r.body.results[1]).toEqual({ success: true, input: other, ip: other, listed: false });
    expect(r.body.results[2]).toMatchObject({ success: false, ip: 'nope', error: { code: 'invalid_ip' } });
  });

  it('fields applies to the listed record', async () => {
    const r = await h.call(`/v1/blacklist/${listed}?fields=confidence,reports`, { key: pro });
    expect(Object.keys(r.body).sort()).toEqual(['confidence', 'ip', 'meta', 'reports', 'success']);
  });

  it("the IP record's security block carries the same facts (paid), none on free", async () => {
    const check = await h.call(`/v1/blacklist/${listed}`, { key: pro });
    const r = await h.call(`/v1/ip/${listed}`, { key: pro });
    expect(r.body.security).toMatchObject({
      is_threat: true,
      threat_type: check.body.threat_type,
      threat_confidence: check.body.confidence,
      threat_reports: check.body.total_reports,
      threat_last_seen: check.body.last_seen,
    });
    const clean = await h.call('/v1/ip/9.9.9.9', { key: pro });
    expect(clean.body.security).toMatchObject({
      is_threat: false,
      threat_type: null,
      threat_confidence: 0,
      threat_reports: 0,
      threat_last_seen: null,
    });
    expect((await h.call(`/v1/ip/${listed}`, { key: free })).body.security).toBeUndefined();
    const batch = await h.call('/v1/ip/batch', { key: pro, json: [listed, '9.9.9.9'] });
    expect(batch.body.results[0].security.is_threat).toBe(true);
    expect(batch.body.results[1].security.is_threat).toBe(false);
  });
});

describe('retention and deletion', () => {
  it('reports leave the listing after the retention window, on their own', async () => {
    const s = await Harness.start({ blacklist: { retentionDays: 2 } });
    try {
      const key = await s.newKey('pro');
      const ip = fresh();
      await s.call('/v1/blacklist/report', { key, json: { ip, threat_type: 'spam' } });
      expect((await s.call(`/v1/blacklist/${ip}`, { key })).body.listed).toBe(true);
      expect((await s.call(`/v1/blacklist/${ip}`, { key, tick: DAY_MS })).body.listed).toBe(true);
      expect((await s.call(`/v1/blacklist/${ip}`, { key, tick: DAY_MS + 1000 })).body).toMatchObject({ listed: false });
      expect((await s.call(`/v1/ip/${ip}`, { key })).body.security.is_threat).toBe(false);
      // Exports are evaluated at the start of their quarter hour.
      expect((await s.call('/v1/blacklist/export', { key, tick: 15 * MIN })).text).not.toContain(ip);
    } finally {
      await s.stop();
    }
  });

  it('DELETE /admin/blacklist/:ip removes the reports and is logged', async () => {
    const ip = fresh();
    await report(pro, { ip, threat_type: 'spam' });
    const info = vi.spyOn(h.service.deps.logger, 'info');
    const r = await h.admin('DELETE', `/admin/blacklist/${ip}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, ip, deleted_reports: 1 });
    expect(info).toHaveBeenCalledWith(expect.objectContaining({ ip, reports: 1 }), 'blacklist address deleted');
    info.mockRestore();
    expect((await h.call(`/v1/blacklist/${ip}`, { key: pro })).body.listed).toBe(false);
    expectError(await h.admin('DELETE', `/admin/blacklist/${ip}`), 'not_found');
    expectError(await h.admin('DELETE', '/admin/blacklist/nope'), 'invalid_ip');
    expectError(await h.admin('DELETE', `/admin/blacklist/${ip}`, undefined, 'wrong'), 'admin_unauthorized');
  });
});

describe('blacklist store failures', () => {
  it('400 unavailable when the blacklist cannot answer or save, never 500; IP records go on with the threat fields unknown, the other APIs as usual', async () => {
    const dir = tempDir('netlookup-blacklist-down-');
    const store = SqliteStore.open(dir);
    const failing = new Proxy(store.blacklist, {
      get(target, name, receiver) {
        if (name === 'listing' || name === 'report' || name === 'threatFacts')
          return async () => Promise.reject(new StoreUnavailableError('blacklist down'));
        const value = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const s = await Harness.start({
      store: new Proxy(store, { get: (target, name, receiver) => (name === 'blacklist' ? failing : Reflect.get(target, name, receiver)) }),
    });
    try {
      const key = await s.newKey('pro');
      const ip = fresh();
      await store.blacklist.report(
        { ip, reporter: 'r', threat_type: 'spam', message: null, source: 's', at: s.clock.now(), country_code: null, isp: null },
        s.clock.now(),
      );
      expectError(await s.call(`/v1/blacklist/${ip}`, { key }), 'unavailable', 400);
      expectError(await s.call('/v1/blacklist/report', { key, json: { ip: fresh(), threat_type: 'spam' } }), 'unavailable', 400);
      expectError(await s.call('/v1/blacklist/batch', { key, json: [ip] }), 'unavailable', 400);
      // the full IP record is answered, its threat facts unknown (null), never "not listed"
      const unknownThreat = { is_threat: null, threat_type: null, threat_confidence: null, threat_reports: null, threat_last_seen: null };
      const record = await s.call(`/v1/ip/${ip}`, { key });
      expect(record.status).toBe(200);
      expect(record.body.security).toMatchObject(unknownThreat);
      expect(record.headers.get('x-quota-remaining')).not.toBeNull();
      const batch = await s.call('/v1/ip/batch', { key, json: [ip, '8.8.8.8'] });
      expect(batch.status).toBe(200);
      for (const result of batch.body.results) expect(result.security).toMatchObject(unknownThreat);
      const filtered = await s.call(`/v1/ip/${ip}?fields=security.is_threat`, { key });
      expect(filtered.body.security).toEqual({ is_threat: null });
      expect((await s.call('/v1/mac/00:00:0c:12:34:56', { key })).status).toBe(200);
    } finally {
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('many reporters at once', () => {
  it('no report lost, none counted twice', async () => {
    const ip = fresh();
    const keys = await Promise.all(Array.from({ length: 30 }, () => h.newKey('pro')));
    h.clock.advance(1000);
    // Each reporter sends three reports at once: two of the same address (they merge) and one of its own address.
    const own = keys.map(() => fresh());
    const replies = await Promise.all(
      keys.flatMap((key, i) => [
        h.call('/v1/blacklist/report', { key, json: { ip, threat_type: 'brute-force' }, tick: 0 }),
        h.call('/v1/blacklist/report', { key, json: { ip, threat_type: 'brute-force' }, tick: 0 }),
        h.call('/v1/blacklist/report', { key, json: { ip: own[i], threat_type: 'spam' }, tick: 0 }),
      ]),
    );
    expect(replies.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(replies.filter((r) => r.body.merged === true)).toHaveLength(30);
    const r = await h.call(`/v1/blacklist/${ip}`, { key: pro });
    expect(r.body).toMatchObject({ total_reports: 30, distinct_reporters: 30 });
    const batch = await h.call('/v1/blacklist/batch', { key: keys[0], json: own });
    expect(batch.body.results.every((x: { listed: boolean; total_reports: number }) => x.listed && x.total_reports === 1)).toBe(true);
  });
});
