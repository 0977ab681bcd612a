/**
 * SPEC 2.2–2.8 (docs/api.md "Records") over HTTP: the field level by plan (free and expired paid: basic;
 * paid: full), reserved-address records of every type of both families (still counted),
 * found = false, IPv6 echo, IPv4-mapped input, time zone fields for the injected clock,
 * network.range, no missing keys, JSON types; MAC, search, usage, batch and blacklist shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ipBasicSchema,
  ipFullSchema,
  macBasicSchema,
  macFullSchema,
  notFoundSchema,
  reservedSchema,
  shapeErrors,
  type Schema,
} from '../records/schema.js';
import { expectedZoneTime, expectError, Harness, keyPaths } from './harness.js';

let h: Harness;
let pro: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

const metaSchema: Schema = {
  plan: 'string',
  fields: 'string',
  quota: { limit: 'integer', used: 'integer', remaining: 'integer', period: 'string', resets_at: 'string' },
};

/** The record without meta fits the schema exactly, and meta fits SPEC 2.1. */
function expectRecord(body: Record<string, unknown>, schema: Schema): void {
  const { meta, ...record } = body;
  expect(shapeErrors(record, schema)).toEqual([]);
  expect(shapeErrors(meta, metaSchema)).toEqual([]);
}

describe('IP record field levels', () => {
  it('free plan: basic level, exactly the basic keys (SPEC 2.2 last paragraph)', async () => {
    const free = await h.newKey('free');
    const r = await h.call('/v1/ip/8.8.8.8', { key: free });
    expect(r.status).toBe(200);
    expectRecord(r.body, ipBasicSchema);
    expect(r.body.meta).toMatchObject({ plan: 'free', fields: 'basic', quota: { period: 'day', limit: 3 } });
    expect(r.body).toMatchObject({
      ip: '8.8.8.8',
      version: 4,
      location: { country: 'United States', country_code: 'US', continent_code: 'NA', is_eu: false },
      timezone: { id: 'America/Los_Angeles' },
      network: { asn: 15169 },
    });
    for (const paid of ['country_info', 'security', 'abuse', 'network.range', 'timezone.utc_offset', 'network.asn_name']) {
      expect(keyPaths(r.body)).not.toContain(paid);
    }
  });

  it('paid plan: full level, every key of SPEC 2.2 present (null where unknown), typed', async () => {
    const r = await h.call('/v1/ip/8.8.8.8', { key: pro });
    expect(r.status).toBe(200);
    expectRecord(r.body, ipFullSchema);
    expect(r.body.meta).toMatchObject({ plan: 'pro', fields: 'full', quota: { period: 'month' } });
    const b = r.body;
    expect(typeof b.location.latitude).toBe('number');
    expect(typeof b.location.longitude).toBe('number');
    // 8.8.8.0/24 is Google Public DNS, served by anycast: no one position has a radius
    expect(b.location.accuracy_radius_km).toBeNull();
    expect(typeof b.location.is_eu).toBe('boolean');
    expect(Number.isInteger(b.network.asn)).toBe(true);
    expect(b.security).toMatchObject({ is_vpn: null, is_proxy: null, is_tor: null });
    expect(typeof b.security.threat_confidence).toBe('number');
    expect(b.country_info).toMatchObject({ calling_code: expect.any(String), tld: '.us', currency: { code: 'USD' } });
    expect(Array.isArray(b.country_info.languages)).toBe(true);
    expect(b.network.rpki === null || ['valid', 'invalid', 'unrouted', 'not_found'].includes(b.network.rpki)).toBe(true);
    expect(b.abuse).toHaveProperty('email');
    // "present only when known": when present, they are strings
    for (const k of ['address', 'address_type']) if (k in b.location) expect(typeof b.location[k]).toBe('string');
  });

  it('paid IPv6: full level, network.rpki null (IPv4 only), range with prefix', async () => {
    const r = await h.call('/v1/ip/2a00:1450:4001:80b::200e', { key: pro });
    expect(r.status).toBe(200);
    expectRecord(r.body, ipFullSchema);
    expect(r.body).toMatchObject({ ip: '2a00:1450:4001:80b::200e', version: 6, location: { country_code: 'DE' } });
    expect(r.body.network.rpki).toBeNull();
    expect(Object.keys(r.body.network.range).sort()).toEqual(['end', 'prefix', 'start']);
    expect(r.body.network.range).toEqual({ start: '2a00:1450::', end: '2a00:1450:ffff:ffff:ffff:ffff:ffff:ffff', prefix: 32 });
  });

  it('an expired paid plan acts as free: basic level, meta.plan free', async () => {
    const { key } = await h.createAccount('starter', { expires_at: new Date(h.clock.ms - 86_400_000).toISOString() });
    const r = await h.call('/v1/ip/8.8.8.8', { key: key.secret });
    expect(r.status).toBe(200);
    expectRecord(r.body, ipBasicSchema);
    expect(r.body.meta).toMatchObject({ plan: 'free', fields: 'basic', quota: { period: 'day', limit: 3 } });
    expect(r.headers.get('x-plan')).toBe('free');
  });

  it('a paid plan turns basic at the moment it expires (injected clock), and its key keeps working', async () => {
    const expires = h.clock.ms + 30_000;
    const { key } = await h.createAccount('starter', { expires_at: new Date(expires).toISOString() });
    const before = await h.call('/v1/ip/8.8.8.8', { key: key.secret });
    expect(before.body.meta.fields).toBe('full');
    expectRecord(before.body, ipFullSchema);
    h.clock.set(expires + 1);
    const after = await h.call('/v1/ip/8.8.8.8', { key: key.secret, tick: 0 });
    expect(after.status).toBe(200);
    expect(after.body.meta).toMatchObject({ plan: 'free', fields: 'basic' });
    expectRecord(after.body, ipBasicSchema);
  });
});

describe('reserved addresses (SPEC 2.3)', () => {
  const reserved: [string, number, string][] = [
    ['10.1.2.3', 4, 'private'],
    ['172.16.5.4', 4, 'private'],
    ['192.168.1.1', 4, 'private'],
    ['127.0.0.1', 4, 'loopback'],
    ['169.254.10.20', 4, 'link_local'],
    ['100.64.0.1', 4, 'cgnat'],
    ['224.0.0.251', 4, 'multicast'],
    ['192.0.2.1', 4, 'documentation'],
    ['198.51.100.7', 4, 'documentation'],
    ['203.0.113.9', 4, 'documentation'],
    ['198.18.0.1', 4, 'benchmark'],
    ['240.0.0.1', 4, 'reserved'],
    ['0.0.0.0', 4, 'reserved'],
    ['255.255.255.255', 4, 'reserved'],
    ['fd12:3456::1', 6, 'private'],
    ['::1', 6, 'loopback'],
    ['fe80::1', 6, 'link_local'],
    ['ff02::1', 6, 'multicast'],
    ['2001:db8::1', 6, 'documentation'],
    ['3fff::1', 6, 'documentation'],
    ['2001:2::1', 6, 'benchmark'],
    ['::', 6, 'reserved'],
    ['100::1', 6, 'reserved'],
  ];

  for (const [ip, version, type] of reserved) {
    it(`${ip}: reserved_type ${type} on the paid plan`, async () => {
      const r = await h.call(`/v1/ip/${ip}`, { key: pro });
      expect(r.status).toBe(200);
      expectRecord(r.body, reservedSchema);
      expect(r.body).toMatchObject({
        success: true,
        ip,
        version,
        reserved: true,
        reserved_type: type,
        description: expect.any(String),
        security: { is_private: type === 'private', is_cgnat: type === 'cgnat' },
      });
    });
  }

  it('the same record on the free plan, and every reserved answer is counted', async () => {
    const { account, key } = await h.createAccount('business');
    void account;
    const sample = ['10.0.0.1', '100.64.0.1', 'fe80::1', 'ff02::1', '2001:2::1'];
    for (const ip of sample) expect((await h.call(`/v1/ip/${ip}`, { key: key.secret })).status).toBe(200);
    const usage = await h.usage(key.secret);
    expect(usage.today.ip).toBe(sample.length);
    expect(usage.monthly_quota.used).toBe(sample.length);

    const free = await h.newKey('free');
    const r = await h.call('/v1/ip/192.168.0.1', { key: free });
    expectRecord(r.body, reservedSchema);
    expect(r.body.meta).toMatchObject({ plan: 'free', quota: { used: 1, remaining: 2 } });
    expect((await h.usage(free)).today.ip).toBe(1);
  });

  it('an IPv4-mapped reserved address is answered as the IPv4 it embeds', async () => {
    const r = await h.call('/v1/ip/::ffff:10.0.0.1', { key: pro });
    expect(r.body).toMatchObject({ ip: '10.0.0.1', version: 4, reserved: true, reserved_type: 'private' });
  });
});

describe('public addresses in no table', () => {
  for (const ip of ['3ffe::1', '192.0.0.9']) {
    it(`${ip}: found = false with a message, counted`, async () => {
      const key = await h.newKey('business');
      const r = await h.call(`/v1/ip/${ip}`, { key });
      expect(r.status).toBe(200);
      expectRecord(r.body, notFoundSchema);
      expect(r.body).toMatchObject({ success: true, ip, found: false, message: expect.any(String) });
      expect(r.body.meta.quota.used).toBe(1);
      expect((await h.usage(key)).today.ip).toBe(1);
    });
  }
});

describe('address forms', () => {
  it('IPv6 is echoed in compressed lower-case form', async () => {
    for (const input of [
      '2001:4860:4860:0000:0000:0000:0000:8888',
      '2001:4860:4860:0:0:0:0:8888',
      '2001:4860:4860::8888',
      '2001:4860:4860::8888'.toUpperCase(),
    ]) {
      const r = await h.call(`/v1/ip/${input}`, { key: pro });
      expect(r.status).toBe(200);
      expect(r.body.ip).toBe('2001:4860:4860::8888');
      expect(r.body.version).toBe(6);
    }
  });

  it('IPv4-mapped IPv6 is answered as the IPv4 it embeds (dotted and hex forms)', async () => {
    const plain = await h.call('/v1/ip/8.8.8.8', { key: pro });
    for (const input of ['::ffff:8.8.8.8', '::FFFF:808:808', '0:0:0:0:0:ffff:8.8.8.8']) {
      const r = await h.call(`/v1/ip/${input}`, { key: pro, tick: 0 });
      expect(r.status).toBe(200);
      const { meta, ...record } = r.body;
      void meta;
      const { meta: plainMeta, ...plainRecord } = plain.body;
      void plainMeta;
      expect(record).toEqual(plainRecord);
    }
  });

  it('invalid addresses are 400 invalid_ip', async () => {
    for (const input of ['8.8.8', '256.1.1.1', '1.2.3.4.5', 'example.com', '::ffff:999.1.1.1', '1::2::3', '01.02.03.04x', '%20']) {
      expectError(await h.call(`/v1/ip/${input}`, { key: pro }), 'invalid_ip', 400);
    }
  });
});

describe('time zone fields (computed for the moment of the request)', () => {
  const cases: [string, string, string][] = [
    ['81.2.69.142', 'Europe/London', '2026-01-15T12:34:56.789Z'],
    ['81.2.69.142', 'Europe/London', '2026-07-15T12:34:56.789Z'],
    ['1.1.1.1', 'Australia/Sydney', '2026-01-15T23:59:59.000Z'],
    ['1.1.1.1', 'Australia/Sydney', '2026-07-15T00:00:00.000Z'],
    ['8.8.8.8', 'America/Los_Angeles', '2026-03-08T09:59:59.000Z'],
    ['8.8.8.8', 'America/Los_Angeles', '2026-03-08T10:00:00.000Z'],
  ];
  for (const [ip, zone, at] of cases) {
    it(`${ip} (${zone}) at ${at}`, async () => {
      h.clock.set(at);
      const r = await h.call(`/v1/ip/${ip}`, { key: pro, tick: 0 });
      expect(r.status).toBe(200);
      expect(r.body.timezone).toEqual({ id: zone, ...expectedZoneTime(zone, Date.parse(at)) });
    });
  }

  it('concrete values: London summer is +01:00 with DST, Sydney January is +11:00 with DST', async () => {
    h.clock.set('2026-07-15T12:34:56.789Z');
    const london = await h.call('/v1/ip/81.2.69.142', { key: pro, tick: 0 });
    expect(london.body.timezone).toEqual({
      id: 'Europe/London',
      utc_offset: '+01:00',
      is_dst: true,
      current_time: '2026-07-15T13:34:56+01:00',
    });
    h.clock.set('2026-01-15T23:59:59.000Z');
    const sydney = await h.call('/v1/ip/1.1.1.1', { key: pro, tick: 0 });
    expect(sydney.body.timezone).toEqual({
      id: 'Australia/Sydney',
      utc_offset: '+11:00',
      is_dst: true,
      current_time: '2026-01-16T10:59:59+11:00',
    });
    h.clock.set('2026-03-10T12:00:00.000Z');
  });

  it('free plan: timezone has only id', async () => {
    const free = await h.newKey('free');
    const r = await h.call('/v1/ip/81.2.69.142', { key: free });
    expect(r.body.timezone).toEqual({ id: 'Europe/London' });
  });
});

describe('network.range', () => {
  it('IPv4: start, end, size of the matched block, holding the address', async () => {
    const r = await h.call('/v1/ip/81.2.69.142', { key: pro });
    expect(r.body.network.range).toEqual({ start: '81.2.64.0', end: '81.2.127.255', size: 16384 });
  });

  it('IPv4: size = end - start + 1 and the block holds the address', async () => {
    const toNumber = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
    for (const ip of ['8.8.8.8', '1.1.1.1', '5.9.0.1']) {
      const { range } = (await h.call(`/v1/ip/${ip}`, { key: pro })).body.network;
      expect(range.size).toBe(toNumber(range.end) - toNumber(range.start) + 1);
      expect(toNumber(range.start)).toBeLessThanOrEqual(toNumber(ip));
      expect(toNumber(range.end)).toBeGreaterThanOrEqual(toNumber(ip));
    }
  });
});

describe('MAC records (SPEC 2.5)', () => {
  it('paid: full level, typed, block and device', async () => {
    const r = await h.call('/v1/mac/00:00:0c:12:34:56', { key: pro });
    expect(r.status).toBe(200);
    expectRecord(r.body, macFullSchema);
    expect(r.body.block).toMatchObject({ type: 'MA-L', start: '00000C000000', end: '00000CFFFFFF', size: 16777216 });
    expect(r.body.vendor.country_code).toBe('US');
  });

  it('free: basic level (vendor company and country_code only)', async () => {
    const free = await h.newKey('free');
    const r = await h.call('/v1/mac/00:00:0c:12:34:56', { key: free });
    expect(r.status).toBe(200);
    expectRecord(r.body, macBasicSchema);
    expect(r.body.meta.fields).toBe('basic');
  });

  it('every accepted input format: colon, hyphen, dotted, bare; a prefix gives normalized = null', async () => {
    for (const input of ['00:00:0c:12:34:56', '00-00-0C-12-34-56', '0000.0c12.3456', '00000c123456']) {
      const r = await h.call(`/v1/mac/${input}`, { key: pro });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ mac: input, found: true, oui: '00:00:0C', normalized: '00:00:0C:12:34:56' });
    }
    const prefix = await h.call('/v1/mac/00000c', { key: pro });
    expect(prefix.body).toMatchObject({ mac: '00000c', found: true, oui: '00:00:0C', normalized: null });
  });

  it('bits: multicast, locally administered, randomised', async () => {
    const local = await h.call('/v1/mac/02:00:00:12:34:56', { key: pro });
    expect(local.body).toMatchObject({ is_multicast: false, is_local: true, is_randomized: true });
    const multicast = await h.call('/v1/mac/01:00:5e:00:00:01', { key: pro });
    expect(multicast.body).toMatchObject({ is_multicast: true });
  });

  it('an unregistered prefix: found = false, vendor null', async () => {
    const r = await h.call('/v1/mac/02:00:00:00:00:00', { key: pro });
    expect(r.status).toBe(200);
    expect(r.body.found).toBe(false);
    expect(r.body.vendor).toBeNull();
    expectRecord(r.body, macFullSchema);
  });

  it('an IAB block answers its assignee; a private registration is found, with no company and counted for none', async () => {
    const iab = await h.call('/v1/mac/00:50:C2:7D:51:23', { key: pro });
    expectRecord(iab.body, macFullSchema);
    expect(iab.body).toMatchObject({
      found: true,
      vendor: { company: 'DEUTA-WERKE GmbH', country_code: 'DE', is_private: false },
      block: { type: 'MA-S', start: '0050C27D5000', size: 4096 },
    });
    const hidden = await h.call('/v1/mac/40:D8:55:12:F0:01', { key: pro });
    expectRecord(hidden.body, macFullSchema);
    expect(hidden.body).toMatchObject({
      found: true,
      vendor: { company: null, short_name: null, total_ouis: null, is_private: true },
      block: { type: 'MA-S', start: '40D85512F000' },
    });
    const free = await h.call('/v1/mac/40:D8:55:12:F0:01', { key: await h.newKey('free') });
    expectRecord(free.body, macBasicSchema);
    expect(free.body.vendor).toEqual({ company: null, country_code: null });
  });

  it('search finds IAB assignees and lists no private registration as a company', async () => {
    const deuta = await h.call('/v1/mac/search?q=DEUTA', { key: pro });
    expect(deuta.body.results).toContainEqual({
      oui: '00:50:C2',
      prefix: '00:50:C2:7D:5',
      prefix_length: 36,
      registry: 'IAB',
      size: 4096,
      company: 'DEUTA-WERKE GmbH',
      country_code: 'DE',
      block_type: 'MA-S',
    });
    const hidden = await h.call('/v1/mac/search?q=private', { key: pro });
    for (const r of hidden.body.results) expect(r.company).not.toBe('Private');
  });

  it('fewer than 6 or more than 12 hex digits: 400 invalid_mac', async () => {
    for (const input of ['00000', '00:00:0', '00000c1234567', 'zz:zz:zz', '00:00:0c:12:34:56:78']) {
      expectError(await h.call(`/v1/mac/${input}`, { key: pro }), 'invalid_mac', 400);
    }
  });
});

describe('other envelopes', () => {
  it('usage record (SPEC 2.7): free has daily_quota, paid monthly_quota, never both', async () => {
    const free = await h.newKey('free');
    const base = {
      success: 'true',
      plan: { code: 'string', name: 'string', expires_at: 'string|null' },
      rate_limit_per_second: 'integer',
      today: { ip: 'integer', blacklist: 'integer', mac: 'integer', rejected: 'integer' },
    };
    const f = await h.call('/v1/usage', { key: free });
    expect(shapeErrors(f.body, { ...base, daily_quota: { ip: 'integer', blacklist: 'integer', mac: 'integer' } })).toEqual([]);
    expect(f.body.plan.expires_at).toBeNull();
    const p = await h.call('/v1/usage', { key: pro });
    expect(shapeErrors(p.body, { ...base, monthly_quota: { limit: 'integer', used: 'integer', remaining: 'integer' } })).toEqual([]);
  });

  it('usage of a paid account with expiry shows it with UTC offset', async () => {
    const { key } = await h.createAccount('pro', { expires_at: '2027-01-31T23:59:59Z' });
    const r = await h.call('/v1/usage', { key: key.secret });
    expect(r.body.plan).toEqual({ code: 'pro', name: 'Pro (test)', expires_at: '2027-01-31T23:59:59+00:00' });
  });

  it('meta (SPEC 2.1): resets_at is ISO 8601 with a UTC offset', async () => {
    const r = await h.call('/v1/ip/8.8.8.8', { key: pro });
    expect(r.body.meta.quota.resets_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    expect(r.body.meta.quota.remaining).toBe(r.body.meta.quota.limit - r.body.meta.quota.used);
  });

  it('batch envelope (SPEC 2.8): each result a full record with input, failures {success false, input, ip, error}', async () => {
    const r = await h.call('/v1/ip/batch', { key: pro, json: { ips: ['8.8.8.8', 'bad', '10.0.0.1', '3ffe::1'] } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['count', 'meta', 'results', 'success']);
    expect(r.body.success).toBe(true);
    expect(r.body.count).toBe(4);
    expect(r.body.results).toHaveLength(4);
    const inBatch = (schema: Schema): Schema => ({ success: 'true', input: 'string', ...(schema as Record<string, Schema>) });
    expect(shapeErrors(r.body.results[0], inBatch(ipFullSchema))).toEqual([]);
    expect(r.body.results[1]).toEqual({
      success: false,
      input: 'bad',
      ip: 'bad',
      error: { code: 'invalid_ip', message: expect.any(String) },
    });
    expect(shapeErrors(r.body.results[2], inBatch(reservedSchema))).toEqual([]);
    expect(shapeErrors(r.body.results[3], inBatch(notFoundSchema))).toEqual([]);
    expect(r.body.results.map((result: { input: string }) => result.input)).toEqual(['8.8.8.8', 'bad', '10.0.0.1', '3ffe::1']);
    expect(shapeErrors(r.body.meta, metaSchema)).toEqual([]);
  });

  it('blacklist record (SPEC 2.4) when not listed: success, ip, listed false, meta only', async () => {
    const r = await h.call('/v1/blacklist/203.0.113.5', { key: pro });
    expect(r.status).toBe(200);
    expectRecord(r.body, { success: 'true', ip: 'string', listed: 'false' });
  });

  it('MAC search result (SPEC 2.6) envelope', async () => {
    const r = await h.call('/v1/mac/search?q=Apple', { key: pro });
    const { results, ...rest } = r.body;
    expectRecord(rest, { success: 'true', query: 'string', total: 'integer', offset: 'integer', limit: 'integer', count: 'integer' });
    expect(Array.isArray(results)).toBe(true);
    const result = {
      oui: 'string',
      prefix: 'string',
      prefix_length: 'integer',
      registry: 'string',
      size: 'integer',
      company: 'string',
      country_code: 'string|null',
      block_type: 'string',
    };
    for (const x of results) expect(shapeErrors(x, result)).toEqual([]);
  });
});
