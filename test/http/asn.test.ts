/**
 * GET /v1/asn/{asn} through a real listening service: AS15169 at both field levels and in the three
 * input forms, the paged prefix list, an unknown AS number, refused input, metering as one IP
 * lookup (the ip API's daily allowance on free), fields and pretty, and the endpoint list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectQuotaHeadersMatchMeta, Harness } from './harness.js';

let h: Harness;
let pro: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

const google = {
  success: true,
  asn: 15169,
  found: true,
  // the npm ASN data gives Google's organisation, not its registered AS name
  name: null,
  organization: 'Google LLC',
  domain: 'google.com',
  country: 'United States',
  country_code: 'US',
  connection_type: 'hosting',
};

describe('AS records', () => {
  it('basic level (free plan): the AS facts and the totals of each family, no prefix list', async () => {
    const free = await h.newKey('free');
    const r = await h.call('/v1/asn/AS15169', { key: free });
    expect(r.status).toBe(200);
    const { meta, ...record } = r.body;
    expect(record).toEqual({
      ...google,
      ipv4: { prefixes: expect.any(Number), addresses: expect.any(Number) },
      ipv6: { prefixes: expect.any(Number), addresses: expect.stringMatching(/^[1-9]\d*$/) },
    });
    expect(record.ipv4.prefixes).toBeGreaterThan(10);
    expect(record.ipv4.addresses).toBeGreaterThan(1_000_000);
    expect(BigInt(record.ipv6.addresses)).toBeGreaterThan(2n ** 64n);
    expect(meta).toMatchObject({ plan: 'free', fields: 'basic' });
    expectQuotaHeadersMatchMeta(r, 'free');
  });

  it('reads AS15169, as15169 and 15169 alike', async () => {
    const bodies = [];
    for (const form of ['AS15169', 'as15169', '15169']) {
      const r = await h.call(`/v1/asn/${form}`, { key: pro });
      expect(r.status, form).toBe(200);
      const { meta: _meta, ...record } = r.body;
      bodies.push(record);
    }
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('the facts agree with the IP record of an address the AS announces', async () => {
    const as = (await h.call('/v1/asn/15169', { key: pro })).body;
    const ip = (await h.call('/v1/ip/8.8.8.8', { key: pro })).body;
    expect(ip.network).toMatchObject({
      asn: 15169,
      organization: as.organization,
      asn_name: as.name,
      domain: as.domain,
      connection_type: as.connection_type,
    });
    expect(as.prefixes.results.some((p: { start: string; end: string }) => p.start === '8.8.8.0' && p.end === '8.8.8.255')).toBe(true);
  });

  it('full level (paid plan): one page of prefixes, IPv4 then IPv6, each with its CIDR blocks', async () => {
    const r = await h.call('/v1/asn/AS15169', { key: pro });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ...google, meta: { plan: 'pro', fields: 'full' } });
    expectQuotaHeadersMatchMeta(r, 'pro');
    const { ipv4, ipv6, prefixes } = r.body;
    expect(prefixes).toMatchObject({ total: ipv4.prefixes + ipv6.prefixes, offset: 0, limit: 100 });
    expect(prefixes.results).toHaveLength(Math.min(100, prefixes.total));
    const versions = prefixes.results.map((p: { version: number }) => p.version);
    expect(versions).toEqual([...Array(ipv4.prefixes).fill(4), ...Array(ipv6.prefixes).fill(6)].slice(0, 100));
    expect(prefixes.results[0]).toEqual({ version: 4, start: '8.8.4.0', end: '8.8.4.255', cidrs: ['8.8.4.0/24'] });
    // the IPv4 addresses of the list add up to the total
    const size = (cidr: string) => 2 ** (32 - Number(cidr.split('/')[1]));
    const v4 = prefixes.results.filter((p: { version: number }) => p.version === 4);
    expect(v4.flatMap((p: { cidrs: string[] }) => p.cidrs).reduce((sum: number, c: string) => sum + size(c), 0)).toBe(ipv4.addresses);
    // a range that is no CIDR block is split into the blocks that make it up
    const split = prefixes.results.find((p: { cidrs: string[] }) => p.cidrs.length > 1);
    expect(split).toBeDefined();
  });

  it('pages with offset and limit: the pages put together are the whole list', async () => {
    const whole = (await h.call('/v1/asn/15169?limit=1000', { key: pro })).body.prefixes;
    expect(whole.results).toHaveLength(whole.total);
    const pages = [];
    for (let offset = 0; offset < whole.total; offset += 7) {
      const page = (await h.call(`/v1/asn/15169?offset=${offset}&limit=7`, { key: pro })).body.prefixes;
      expect(page).toMatchObject({ total: whole.total, offset, limit: 7 });
      pages.push(...page.results);
    }
    expect(pages).toEqual(whole.results);
    const past = (await h.call(`/v1/asn/15169?offset=${whole.total}`, { key: pro })).body.prefixes;
    expect(past).toEqual({ total: whole.total, offset: whole.total, limit: 100, results: [] });
  });

  it('refuses a bad page: limit 0 or over 1000, offset not a whole number', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=', 'limit=ten', 'offset=-1', 'offset=1.5', 'offset=x']) {
      const r = await h.call(`/v1/asn/AS15169?${query}`, { key: pro });
      expectError(r, 'invalid_input');
      expect(r.body.error.message, query).toMatch(/^(limit|offset) must be a whole number/);
    }
  });

  it('an AS number no prefix is listed for: found false with a message, counted', async () => {
    const before = (await h.usage(pro)).monthly_quota.used;
    for (const plan of ['free', 'pro'] as const) {
      const key = plan === 'pro' ? pro : await h.newKey('free');
      const r = await h.call('/v1/asn/AS4294967295', { key });
      expect(r.status).toBe(200);
      const { meta, ...record } = r.body;
      expect(record).toEqual({ success: true, asn: 4294967295, found: false, message: expect.stringMatching(/AS number/) });
      expect(meta.plan).toBe(plan);
    }
    expect((await h.usage(pro)).monthly_quota.used).toBe(before + 1);
  });

  it('refuses what is no AS number with invalid_asn, not counted', async () => {
    const free = await h.newKey('free');
    for (const bad of ['AS0', '0', 'AS4294967296', '99999999999', 'ASX', 'AS-1', '1.10', 'ASN15169', 'AS%2015169', '0x10']) {
      const r = await h.call(`/v1/asn/${bad}`, { key: free });
      expectError(r, 'invalid_asn');
      expect(r.body.error.message).toMatch(/AS15169/);
    }
    expect((await h.usage(free)).today).toEqual({ ip: 0, blacklist: 0, mac: 0, rejected: 10 });
    expectError(await h.call('/v1/asn/AS15169'), 'missing_key');
  });

  it('is counted as one IP lookup: the ip API allowance of the free plan', async () => {
    const free = await h.newKey('free');
    const first = await h.call('/v1/asn/AS15169', { key: free });
    expect(first.headers.get('x-quota-remaining')).toBe('2');
    await h.call('/v1/ip/8.8.8.8', { key: free });
    await h.call('/v1/mac/00:00:0C', { key: free });
    expect((await h.usage(free)).today).toEqual({ ip: 2, blacklist: 0, mac: 1, rejected: 0 });
    expect((await h.call('/v1/asn/13335', { key: free })).status).toBe(200);
    expectError(await h.call('/v1/asn/13335', { key: free }), 'quota_exceeded');
    expect((await h.call('/v1/mac/00:00:0C', { key: free })).status).toBe(200);
  });

  it('fields keeps the listed parts, and always the AS number and whether it was found; pretty indents', async () => {
    const r = await h.call('/v1/asn/AS15169?fields=name,ipv4.prefixes,prefixes.total', { key: pro });
    expect(r.status).toBe(200);
    const { meta, ...record } = r.body;
    expect(record).toEqual({
      success: true,
      asn: 15169,
      found: true,
      name: null,
      ipv4: { prefixes: expect.any(Number) },
      prefixes: { total: expect.any(Number) },
    });
    expect(meta.plan).toBe('pro');
    const pretty = await h.call('/v1/asn/AS15169?pretty&limit=2', { key: pro });
    expect(pretty.text).toMatch(/^\{\n {2}"success": true,\n {2}"asn": 15169,/);
    expect(pretty.body.prefixes.results).toHaveLength(2);
  });

  it('is in the endpoint list, counted as 1 IP lookup', async () => {
    const list = (await h.call('/v1', { key: pro })).body;
    expect(list.endpoints).toContainEqual(
      expect.objectContaining({ method: 'GET', path: '/v1/asn/{asn}', plan: 'all', counted_as: '1 IP lookup' }),
    );
  });
});
