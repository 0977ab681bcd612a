/**
 * SPEC 4 (docs/api.md "Endpoints"): every v1 endpoint answers over a real socket, the caller's own address
 * (GET /v1/ip) with and without NETLOOKUP_TRUST_PROXY, the endpoint list, unknown paths and GET on
 * batch routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectQuotaHeadersMatchMeta, Harness } from './harness.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await Harness.start();
  key = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

describe('lookup endpoints', () => {
  it('GET /v1/ip/{ip} answers the IP record with meta', async () => {
    const r = await h.call('/v1/ip/8.8.8.8', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, ip: '8.8.8.8', version: 4, location: { country_code: 'US' }, network: { asn: 15169 } });
    expect(r.body.meta).toMatchObject({ plan: 'pro', fields: 'full', quota: { period: 'month' } });
    expectQuotaHeadersMatchMeta(r, 'pro');
  });

  it('GET /v1/ip answers the address of the connection (loopback here), counted as 1 IP lookup', async () => {
    const before = await h.usage(key);
    const r = await h.call('/v1/ip', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, ip: '127.0.0.1', version: 4, reserved: true, reserved_type: 'loopback' });
    expectQuotaHeadersMatchMeta(r, 'pro');
    expect((await h.usage(key)).today.ip).toBe(before.today.ip + 1);
  });

  it('GET /v1/ip ignores X-Forwarded-For when no proxy is trusted (the default)', async () => {
    const r = await h.call('/v1/ip', { key, headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(r.status).toBe(200);
    expect(r.body.ip).toBe('127.0.0.1');
  });

  it('POST /v1/ip/batch answers the batch envelope', async () => {
    const r = await h.call('/v1/ip/batch', { key, json: { ips: ['8.8.8.8', '1.1.1.1'] } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      count: 2,
      results: [
        { success: true, ip: '8.8.8.8' },
        { success: true, ip: '1.1.1.1' },
      ],
    });
    expectQuotaHeadersMatchMeta(r, 'pro');
  });

  it('GET /v1/blacklist/{ip} answers listed = false and nothing else but meta', async () => {
    const r = await h.call('/v1/blacklist/8.8.8.8', { key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['ip', 'listed', 'meta', 'success']);
    expect(r.body).toMatchObject({ success: true, ip: '8.8.8.8', listed: false });
    expectQuotaHeadersMatchMeta(r, 'pro');
  });

  it('GET /v1/blacklist/{ip} with an IPv6 address echoes it compressed', async () => {
    const r = await h.call('/v1/blacklist/2001:DB8:0:0:0:0:0:1', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, ip: '2001:db8::1', listed: false });
  });

  it('POST /v1/blacklist/batch answers count, results, meta', async () => {
    const r = await h.call('/v1/blacklist/batch', { key, json: ['8.8.8.8', '9.9.9.9'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      count: 2,
      results: [
        { success: true, ip: '8.8.8.8', listed: false },
        { success: true, ip: '9.9.9.9', listed: false },
      ],
    });
    expect(r.body.meta.quota).toBeDefined();
    expectQuotaHeadersMatchMeta(r, 'pro');
  });

  it('GET /v1/mac/{mac} answers the MAC record', async () => {
    const r = await h.call('/v1/mac/00:00:0c:12:34:56', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      mac: '00:00:0c:12:34:56',
      found: true,
      oui: '00:00:0C',
      normalized: '00:00:0C:12:34:56',
    });
    expect(r.body.vendor.company).toMatch(/cisco/i);
    expectQuotaHeadersMatchMeta(r, 'pro');
  });

  it('GET /v1/mac/search?q= and its alias vendor= answer the same search, sorted, at most 100', async () => {
    const byQ = await h.call('/v1/mac/search?q=cisco', { key });
    const byVendor = await h.call('/v1/mac/search?vendor=cisco', { key });
    expect(byQ.status).toBe(200);
    expect(byVendor.status).toBe(200);
    expect(byQ.body.query).toBe('cisco');
    expect(byVendor.body.query).toBe('cisco');
    expect(byVendor.body.results).toEqual(byQ.body.results);
    expect(byQ.body.count).toBe(byQ.body.results.length);
    expect(byQ.body.count).toBeGreaterThan(0);
    expect(byQ.body.count).toBeLessThanOrEqual(100);
    for (const result of byQ.body.results) {
      expect(Object.keys(result).sort()).toEqual([
        'block_type',
        'company',
        'country_code',
        'oui',
        'prefix',
        'prefix_length',
        'registry',
        'size',
      ]);
      expect(result.company.toLowerCase()).toContain('cisco');
      expect(result.oui).toMatch(/^[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2}$/);
      expect(['MA-L', 'MA-M', 'MA-S']).toContain(result.block_type);
    }
    const companies = byQ.body.results.map((x: { company: string }) => x.company);
    expect(companies).toEqual([...companies].sort((a: string, b: string) => a.localeCompare(b, 'en')));
    expectQuotaHeadersMatchMeta(byQ, 'pro');
  });

  it('GET /v1/mac/search with a query matching nothing answers count 0', async () => {
    const r = await h.call('/v1/mac/search?q=zzqqxxnothing', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, query: 'zzqqxxnothing', total: 0, count: 0, results: [] });
  });

  it('GET /v1/usage answers the usage record', async () => {
    const r = await h.call('/v1/usage', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      plan: { code: 'pro', name: 'Pro (test)', expires_at: null },
      rate_limit_per_second: 1000,
    });
    expect(r.body.monthly_quota).toMatchObject({ limit: 100_000 });
  });
});

describe('the endpoint list', () => {
  for (const path of ['/v1', '/v1/']) {
    it(`GET ${path} lists the endpoints as JSON`, async () => {
      const r = await h.call(path, { key });
      expect(r.status).toBe(200);
      expect(r.contentType).toMatch(/^application\/json/);
      expect(r.body.success).toBe(true);
      const listed = (r.body.endpoints as { method: string; path: string }[]).map((e) => `${e.method} ${e.path}`);
      for (const expected of [
        'GET /v1/ip/{ip}',
        'GET /v1/ip',
        'POST /v1/ip/batch',
        'GET /v1/blacklist/{ip}',
        'POST /v1/blacklist/batch',
        'GET /v1/mac/{mac}',
        'GET /v1/usage',
      ]) {
        expect(listed).toContain(expected);
      }
      expect(listed.some((e) => e.startsWith('GET /v1/mac/search'))).toBe(true);
    });
  }

  it('the endpoint list is not counted', async () => {
    const before = await h.usage(key);
    await h.call('/v1', { key });
    const after = await h.usage(key);
    expect(after.monthly_quota.used).toBe(before.monthly_quota.used);
  });
});

describe('unknown paths and methods', () => {
  const unknown = [
    '/v1/nope',
    '/v1/ip/8.8.8.8/extra',
    '/v2/ip/8.8.8.8',
    '/nope',
    '/v1/mac',
    '/v1/blacklist',
    '/v1/usage/x',
    '/v1//ip/8.8.8.8',
  ];
  for (const path of unknown) {
    it(`GET ${path} is 404 not_found without a key`, async () => {
      expectError(await h.call(path), 'not_found', 404);
    });
  }

  it('an unknown path is 404 not_found even with an invalid or a valid key (before any key check)', async () => {
    expectError(await h.call('/v1/nope', { key: 'nlk_bad' }), 'not_found', 404);
    expectError(await h.call('/v1/nope', { key }), 'not_found', 404);
  });

  it('an unknown path is not counted as a rejected request of the key', async () => {
    const before = await h.usage(key);
    await h.call('/v1/nope', { key });
    expect((await h.usage(key)).today.rejected).toBe(before.today.rejected);
  });

  for (const path of ['/v1/ip/batch', '/v1/blacklist/batch']) {
    it(`GET ${path} without addresses is 405 method_not_allowed with Allow: POST, before the key check; with ?ips= it is a batch`, async () => {
      const before = await h.usage(key);
      for (const query of ['', '?ips=', '?ips=,,&ips=%20', '?fields=ip']) {
        for (const method of ['GET', 'HEAD']) {
          const r = await h.call(`${path}${query}`, { key, method });
          expect({ query, method, status: r.status, allow: r.headers.get('allow') }).toEqual({ query, method, status: 405, allow: 'POST' });
          if (method === 'GET') {
            expectError(r, 'method_not_allowed', 405);
            expect(r.body.error.message).toContain('?ips=');
          }
        }
      }
      expectError(await h.call(path), 'method_not_allowed', 405);
      expectError(await h.call(path, { key: 'nlk_bad' }), 'method_not_allowed', 405);
      expect((await h.usage(key)).today.rejected).toBe(before.today.rejected);
      expect((await h.call(`${path}?ips=8.8.8.8`, { key })).status).toBe(200);
      expect((await h.call(`${path}?ips=8.8.8.8`, { key, method: 'HEAD' })).status).toBe(200);
      // POST without addresses stays 400 empty_batch
      expectError(await h.call(path, { key, json: [] }), 'empty_batch', 400);
    });

    it(`OPTIONS ${path} names GET (with ?ips=) and POST`, async () => {
      const r = await h.call(path, { method: 'OPTIONS' });
      expect(r.status).toBe(200);
      expect(r.body.allow).toEqual(expect.arrayContaining(['GET', 'POST']));
    });
  }
});

describe('other methods', () => {
  const cases: [string, string, string][] = [
    ['PUT', '/v1/ip/batch', 'POST'],
    ['DELETE', '/v1/ip/8.8.8.8', 'GET'],
    ['POST', '/v1/ip/8.8.8.8', 'GET'],
    ['POST', '/v1/usage', 'GET'],
    ['PATCH', '/v1/mac/00:00:0c:12:34:56', 'GET'],
  ];
  for (const [method, path, allowed] of cases) {
    it(`${method} ${path}: 405 method_not_allowed in the envelope, Allow names ${allowed}`, async () => {
      const r = await h.call(path, { key, method });
      expectError(r, 'method_not_allowed', 405);
      expect(r.headers.get('allow') ?? '').toContain(allowed);
    });
  }

  it('another method on an unknown path is 404 not_found', async () => {
    expectError(await h.call('/v1/nope', { method: 'PUT' }), 'not_found', 404);
    expectError(await h.call('/v1/nope', { method: 'DELETE', key }), 'not_found', 404);
  });

  it('a plain OPTIONS (no preflight headers) on a known path answers JSON', async () => {
    const r = await h.call('/v1/ip/8.8.8.8', { method: 'OPTIONS' });
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
  });
});

describe('GET /v1/ip behind trusted proxies (NETLOOKUP_TRUST_PROXY)', () => {
  let trusting: Harness;
  let chain: Harness;
  let elsewhere: Harness;
  let k1: string;
  let k2: string;
  let k3: string;

  beforeAll(async () => {
    [trusting, chain, elsewhere] = await Promise.all([
      Harness.start({ trustProxy: '127.0.0.1/32' }),
      Harness.start({ trustProxy: '127.0.0.1/32, 10.0.0.0/8, fd00::/8' }),
      Harness.start({ trustProxy: '10.0.0.0/8' }),
    ]);
    [k1, k2, k3] = await Promise.all([trusting.newKey('pro'), chain.newKey('pro'), elsewhere.newKey('pro')]);
  });

  afterAll(async () => {
    await Promise.all([trusting?.stop(), chain?.stop(), elsewhere?.stop()]);
  });

  const own = async (service: Harness, k: string, xff?: string) => {
    const r = await service.call('/v1/ip', { key: k, ...(xff === undefined ? {} : { headers: { 'x-forwarded-for': xff } }) });
    expect(r.status).toBe(200);
    return r.body.ip as string;
  };

  it('without X-Forwarded-For the peer address is used', async () => {
    expect(await own(trusting, k1)).toBe('127.0.0.1');
  });

  it('a trusted peer: the address it forwards is the client', async () => {
    expect(await own(trusting, k1, '8.8.8.8')).toBe('8.8.8.8');
  });

  it('the chain is walked right to left: the rightmost untrusted address is the client, not the leftmost', async () => {
    expect(await own(trusting, k1, '1.1.1.1, 8.8.8.8')).toBe('8.8.8.8');
    expect(await own(trusting, k1, '1.1.1.1,8.8.8.8')).toBe('8.8.8.8');
  });

  it('trusted proxies in the chain are skipped', async () => {
    expect(await own(chain, k2, '1.1.1.1, 8.8.8.8, 10.1.2.3, 10.9.9.9')).toBe('8.8.8.8');
    expect(await own(chain, k2, '9.9.9.9, 10.0.0.1')).toBe('9.9.9.9');
    expect(await own(chain, k2, '2001:4860:4860::8888, fd00::1')).toBe('2001:4860:4860::8888');
  });

  it('a spoofed left part of the chain does not move the client past an untrusted hop', async () => {
    // the client (8.8.8.8) sent "X-Forwarded-For: 1.1.1.1" itself; the trusted proxy appended 8.8.8.8
    expect(await own(chain, k2, '1.1.1.1, 8.8.8.8, 10.0.0.1')).toBe('8.8.8.8');
  });

  it('several X-Forwarded-For header lines are one chain', async () => {
    const r = await fetch(`${trusting.url}/v1/ip`, {
      headers: [
        ['x-api-key', k1],
        ['x-forwarded-for', '1.1.1.1'],
        ['x-forwarded-for', '8.8.8.8'],
      ],
    });
    expect(r.status).toBe(200);
    expect((await r.json()).ip).toBe('8.8.8.8');
  });

  it('an IPv4-mapped forwarded address is answered as its IPv4', async () => {
    expect(await own(trusting, k1, '::ffff:8.8.8.8')).toBe('8.8.8.8');
  });

  it('a garbage entry never becomes the client address', async () => {
    const ip = await own(trusting, k1, 'not-an-ip');
    expect(ip).not.toBe('not-an-ip');
    expect(await own(trusting, k1, 'garbage, 8.8.8.8')).toBe('8.8.8.8');
  });

  it('an untrusted peer (127.0.0.1 when only 10.0.0.0/8 is trusted): X-Forwarded-For is ignored', async () => {
    expect(await own(elsewhere, k3, '8.8.8.8')).toBe('127.0.0.1');
    expect(await own(elsewhere, k3, '8.8.8.8, 10.0.0.1')).toBe('127.0.0.1');
  });
});
