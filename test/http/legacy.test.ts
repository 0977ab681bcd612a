/**
 * The legacy endpoints (SPEC 4.9, docs/api.md "Legacy endpoints") through HTTP: the legacy MAC lookup (by MAC in every common
 * format, by vendor), its health, the legacy blacklist check, and their keyless per-client-IP
 * daily limits under the v1 trusted-proxy rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, Harness } from './harness.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await Harness.start({ blacklist: { legacyCheckDaily: 3 } });
  key = await h.newKey('free');
});

afterAll(async () => {
  await h?.stop();
});

/** Each test its own client address (X-Forwarded-For is believed only where a test trusts it). */
const legacy = (path: string, headers: Record<string, string> = {}) => h.call(path, { headers, tick: 0 });

describe('legacy MAC lookup', () => {
  it("answers SPEC 4.9's shape exactly, with the v1 record's facts", async () => {
    const r = await legacy('/lookup.php?mac=00:00:0c:12:34:56');
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
    const v1 = (await h.call('/v1/mac/00:00:0c:12:34:56', { key: await h.newKey('pro') })).body;
    expect(r.body).toEqual({
      success: true,
      found: true,
      macAddress: { oui: '00:00:0C', isRandomized: false, transmission: 'unicast', administration: 'UAA', special: null },
      vendor: { company: v1.vendor.company, website: v1.vendor.website, country: v1.vendor.country_code, countryName: v1.vendor.country },
    });
    expect(r.body.vendor.company).toMatch(/cisco/i);
  });

  it.each(['00-00-0C-12-34-56', '0000.0c12.3456', '00000c123456', '00:00:0c', '00000C'])('accepts %s', async (mac) => {
    const r = await legacy(`/lookup?mac=${encodeURIComponent(mac)}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, found: true, macAddress: { oui: '00:00:0C' } });
  });

  it('bits: locally administered, randomised, multicast; unknown prefix: found false, vendor null', async () => {
    expect((await legacy('/lookup.php?mac=02:00:00:00:00:01')).body.macAddress).toEqual({
      oui: '02:00:00',
      isRandomized: true,
      transmission: 'unicast',
      administration: 'LAA',
      special: null,
    });
    expect((await legacy('/lookup.php?mac=01:00:5e:00:00:01')).body.macAddress).toMatchObject({ transmission: 'multicast' });
    const unknown = await legacy('/lookup.php?mac=0e:ee:ee:00:00:00');
    expect(unknown.body).toMatchObject({ success: true, found: false, vendor: null });
  });

  it('vendor: the OUI prefixes of matching companies', async () => {
    const r = await legacy('/lookup.php?vendor=cisco');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, found: true, vendor: 'cisco' });
    expect(r.body.count).toBe(r.body.prefixes.length);
    expect(r.body.prefixes.length).toBeGreaterThan(10);
    expect(r.body.prefixes[0]).toEqual({
      oui: expect.stringMatching(/^[0-9A-F]{2}(:[0-9A-F]{2}){2}$/),
      company: expect.stringMatching(/cisco/i),
      country: expect.any(String),
      blockType: expect.stringMatching(/^MA-[LMS]$/),
    });
    expect((await legacy('/lookup?vendor=zzzzqqqq')).body).toMatchObject({ found: false, count: 0, prefixes: [] });
  });

  it('IAB blocks answer their assignee; a private registration is found with no company', async () => {
    const iab = await legacy('/lookup.php?mac=00:50:C2:7D:51:23');
    expect(iab.body).toMatchObject({ found: true, vendor: { company: 'DEUTA-WERKE GmbH', country: 'DE', countryName: 'Germany' } });
    const hidden = await legacy('/lookup.php?mac=10:00:00:12:34:56');
    expect(hidden.body).toMatchObject({ found: true, vendor: { company: null, website: null, country: null, countryName: null } });
  });

  it('vendor: IAB assignees are found, and "Private" is no company', async () => {
    const deuta = (await legacy('/lookup.php?vendor=deuta')).body;
    expect(deuta.prefixes.filter((p: { oui: string }) => p.oui === '00:50:C2' || p.oui === '40:D8:55').length).toBe(8);
    for (const p of deuta.prefixes) expect(p.company).toMatch(/deuta/i);
    const hidden = (await legacy('/lookup.php?vendor=private')).body;
    for (const p of hidden.prefixes) expect(p.company).not.toBe('Private');
  });

  it('refusals in the error envelope', async () => {
    expectError(await legacy('/lookup.php?mac=12:34'), 'invalid_mac');
    const mixed = await legacy('/lookup.php?mac=3C:22-FB:12:34:56');
    expectError(mixed, 'invalid_mac');
    expect(mixed.body.error.message).toBe('Not a MAC address or prefix: it mixes separators (: and -); use one kind throughout.');
    expectError(await legacy('/lookup.php?vendor=a'), 'invalid_query');
    expectError(await legacy('/lookup.php'), 'invalid_input');
    expectError(await legacy('/lookup.php?mac=00:00:0c:12:34:56&key=nlk_' + '0'.repeat(40)), 'invalid_key');
  });

  it('health: the MAC table is loaded, with its dates (oui-data states none for its data: null, not the build time)', async () => {
    const r = await legacy('/api/mac/v1/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      status: 'ok',
      mac_table: { loaded: true, built_at: expect.any(String), source_date: null, blocks: expect.any(Number) },
    });
  });
});

describe('legacy blacklist check', () => {
  it('a compact answer: listed or not, with the threat facts', async () => {
    const reporter = await h.newKey('pro');
    await h.call('/v1/blacklist/report', { key: reporter, json: { ip: '45.110.0.1', threat_type: 'scanner' } });
    const trusted = { key };
    const listed = await h.call('/api/check.php?ip=45.110.0.1', { ...trusted, via: 'query', tick: 0 });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      success: true,
      ip: '45.110.0.1',
      listed: true,
      threat_type: 'scanner',
      confidence: 39,
      reports: 1,
      last_seen: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
    const clean = await h.call('/api/check?ip=2a01:4f8:0:0::1', { ...trusted, tick: 0 });
    expect(clean.body).toEqual({
      success: true,
      ip: '2a01:4f8::1',
      listed: false,
      threat_type: null,
      confidence: 0,
      reports: 0,
      last_seen: null,
    });
    expectError(await h.call('/api/check?ip=nope', { ...trusted, tick: 0 }), 'invalid_ip');
    expectError(await h.call('/api/check', { ...trusted, tick: 0 }), 'invalid_ip');
  });
});

describe('keyless daily limits per client address', () => {
  it('legacy MAC: 100 per day per client address, then 429 quota_exceeded until 00:00 UTC; a key is unlimited', async () => {
    const s = await Harness.start({ clockStart: '2026-07-01T10:00:00.000Z' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) statuses.push((await s.call('/lookup.php?mac=00:00:0c:12:34:56', { tick: 0 })).status);
      expect(statuses.every((st) => st === 200)).toBe(true);
      const refused = await s.call('/lookup.php?mac=00:00:0c:12:34:56', { tick: 0 });
      expectError(refused, 'quota_exceeded');
      expect(refused.headers.get('x-quota-reset')).toBe(String(Date.parse('2026-07-02T00:00:00Z') / 1000));
      const secret = await s.newKey('free');
      expect((await s.call(`/lookup.php?mac=00:00:0c:12:34:56&key=${secret}`, { tick: 0 })).status).toBe(200);
      expect((await s.call('/lookup?mac=00:00:0c:12:34:56', { tick: 0, headers: { 'x-api-key': secret } })).status).toBe(200);
      // The blacklist check has its own allowance.
      expect((await s.call('/api/check?ip=8.8.8.8', { tick: 0 })).status).toBe(200);
      s.clock.set('2026-07-02T00:00:00.000Z');
      expect((await s.call('/lookup.php?mac=00:00:0c:12:34:56', { tick: 0 })).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('legacy check: its own daily limit; X-Forwarded-For is ignored unless the proxy is trusted', async () => {
    for (let i = 0; i < 3; i++)
      expect((await legacy('/api/check.php?ip=8.8.8.8', { 'x-forwarded-for': `203.0.113.${i}` })).status).toBe(200);
    expectError(await legacy('/api/check.php?ip=8.8.8.8', { 'x-forwarded-for': '203.0.113.99' }), 'quota_exceeded');
    expect((await h.call('/api/check.php?ip=8.8.8.8', { key, tick: 0 })).status).toBe(200);
  });

  it('behind a trusted proxy each forwarded client has its own allowance', async () => {
    const s = await Harness.start({ trustProxy: '127.0.0.1', blacklist: { legacyCheckDaily: 2, legacyMacDaily: 2 } });
    try {
      const as = (client: string, path: string) => s.call(path, { tick: 0, headers: { 'x-forwarded-for': client } });
      for (const client of ['198.51.100.1', '198.51.100.2']) {
        expect((await as(client, '/api/check?ip=8.8.8.8')).status).toBe(200);
        expect((await as(client, '/api/check?ip=8.8.8.8')).status).toBe(200);
        expectError(await as(client, '/api/check?ip=8.8.8.8'), 'quota_exceeded');
        expect((await as(client, '/lookup?mac=00000c')).status).toBe(200);
        expect((await as(client, '/lookup?mac=00000c')).status).toBe(200);
        expectError(await as(client, '/lookup?mac=00000c'), 'quota_exceeded');
      }
      // A forged hop left of the client is not believed: the right-most untrusted address counts.
      expectError(await as('1.2.3.4, 198.51.100.1', '/api/check?ip=8.8.8.8'), 'quota_exceeded');
    } finally {
      await s.stop();
    }
  });

  it('counts an IPv6 client per /64 (one subscriber holds the whole network) and IPv4-mapped as IPv4', async () => {
    const s = await Harness.start({ trustProxy: '127.0.0.1', blacklist: { legacyCheckDaily: 2 } });
    try {
      const as = (client: string) => s.call('/api/check?ip=8.8.8.8', { tick: 0, headers: { 'x-forwarded-for': client } });
      expect((await as('2001:db8:1:2::1')).status).toBe(200);
      expect((await as('2001:db8:1:2:ffff:ffff:ffff:fffe')).status).toBe(200);
      expectError(await as('2001:DB8:1:2:0:0:0:99'), 'quota_exceeded');
      expect((await as('2001:db8:1:3::1')).status).toBe(200);
      expect((await as('198.51.100.7')).status).toBe(200);
      expect((await as('::ffff:198.51.100.7')).status).toBe(200);
      expectError(await as('198.51.100.7'), 'quota_exceeded');
    } finally {
      await s.stop();
    }
  });

  it('a refused request (bad address, bad MAC, nothing asked) uses none of the allowance', async () => {
    const s = await Harness.start({ blacklist: { legacyCheckDaily: 2, legacyMacDaily: 2 } });
    try {
      for (let i = 0; i < 5; i++) expectError(await s.call('/api/check?ip=not-an-address', { tick: 0 }), 'invalid_ip');
      for (let i = 0; i < 5; i++) expectError(await s.call('/lookup?mac=zz', { tick: 0 }), 'invalid_mac');
      expectError(await s.call('/lookup', { tick: 0 }), 'invalid_input');
      const served = await s.call('/api/check?ip=8.8.8.8', { tick: 0 });
      expect(served.status).toBe(200);
      expect(served.headers.get('x-quota-remaining')).toBe('1');
      expect((await s.call('/api/check?ip=8.8.8.8', { tick: 0 })).status).toBe(200);
      expectError(await s.call('/api/check?ip=8.8.8.8', { tick: 0 }), 'quota_exceeded');
      const refused = await s.call('/lookup?mac=zz', { tick: 0 });
      expect(refused.headers.get('x-quota-remaining')).toBe('2');
      expect((await s.call('/lookup?mac=00000c', { tick: 0 })).status).toBe(200);
      expect((await s.call('/lookup?mac=00000c', { tick: 0 })).status).toBe(200);
      expectError(await s.call('/lookup?mac=00000c', { tick: 0 }), 'quota_exceeded');
    } finally {
      await s.stop();
    }
  });

  it('the allowance is kept across a restart (written to the store)', async () => {
    const s = await Harness.start({ blacklist: { legacyMacDaily: 2 } });
    const dataDir = s.dataDir;
    const clock = s.clock.ms;
    try {
      expect((await s.call('/lookup?mac=00000c', { tick: 0 })).status).toBe(200);
      expect((await s.call('/lookup?mac=00000c', { tick: 0 })).status).toBe(200);
      await s.service.stop();
      const again = await Harness.start({ blacklist: { legacyMacDaily: 2 }, dataDir, clockStart: new Date(clock).toISOString() });
      try {
        expectError(await again.call('/lookup?mac=00000c', { tick: 0 }), 'quota_exceeded');
      } finally {
        await again.stop();
      }
    } finally {
      await s.stop().catch(() => undefined);
    }
  });
});
