/**
 * SPEC 1, 8.3 (docs/api.md "Quota headers", "CORS"): Content-Type on every response, the quota headers on every
 * metered success (equal to meta.quota), Access-Control-Allow-Origin: * everywhere, and the CORS
 * preflight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectQuotaHeadersMatchMeta, Harness, request, type CallOptions, type Reply } from './harness.js';

let h: Harness;
let pro: string;
let free: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
  free = await h.newKey('free');
});

afterAll(async () => {
  await h?.stop();
});

const QUOTA_HEADERS = ['X-Plan', 'X-RateLimit-Limit', 'X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset'];

/** A spread of requests: successes, every kind of refusal, 404, 405, admin, operations. */
function spread(): [string, string, CallOptions][] {
  return [
    ['ip', '/v1/ip/8.8.8.8', { key: pro }],
    ['own ip', '/v1/ip', { key: pro }],
    ['batch', '/v1/ip/batch', { key: pro, json: ['8.8.8.8'] }],
    ['blacklist', '/v1/blacklist/8.8.8.8', { key: pro }],
    ['blacklist batch', '/v1/blacklist/batch', { key: pro, json: ['8.8.8.8'] }],
    ['mac', '/v1/mac/00:00:0c:12:34:56', { key: pro }],
    ['mac search', '/v1/mac/search?q=cisco', { key: pro }],
    ['usage', '/v1/usage', { key: pro }],
    ['list', '/v1', { key: pro }],
    ['invalid_ip', '/v1/ip/x', { key: pro }],
    ['invalid_mac', '/v1/mac/x', { key: pro }],
    ['invalid_query', '/v1/mac/search?q=x', { key: pro }],
    ['empty_batch', '/v1/ip/batch', { key: pro, json: [] }],
    ['missing_key', '/v1/ip/8.8.8.8', {}],
    ['invalid_key', '/v1/ip/8.8.8.8', { key: 'x' }],
    ['plan_required', '/v1/mac/search?q=cisco', { key: free }],
    ['not_found', '/v1/nothing', {}],
    ['not_found root', '/', {}],
    ['method_not_allowed', '/v1/ip/batch', { key: pro, method: 'PUT' }],
    ['unsupported_media_type', '/v1/ip/batch', { key: pro, body: 'x', headers: { 'content-type': 'text/plain' } }],
    ['admin', '/admin/accounts/nope', { headers: { authorization: 'Bearer wrong' } }],
    ['health', '/health', {}],
  ];
}

describe('Content-Type: application/json on every response', () => {
  for (const [label, path, options] of spread()) {
    it(label, async () => {
      const r = await h.call(path, options);
      expect(r.contentType).toMatch(/^application\/json(;|$)/);
      expect(() => JSON.parse(r.text)).not.toThrow();
    });
  }

  it('/metrics is the Prometheus text format (the one exception)', async () => {
    const r = await h.call('/metrics');
    expect(r.contentType).toMatch(/^text\/plain/);
  });
});

describe('Access-Control-Allow-Origin: * on every response', () => {
  for (const [label, path, options] of spread()) {
    it(label, async () => {
      const r = await h.call(path, { ...options, headers: { ...(options.headers ?? {}), origin: 'https://somewhere.test' } });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const plain = await h.call(path, options);
      expect(plain.headers.get('access-control-allow-origin')).toBe('*');
    });
  }

  it('on rate_limited and quota_exceeded', async () => {
    const key = await h.newKey('free');
    h.clock.advance(10_000);
    const replies: Reply[] = [];
    for (let i = 0; i < 3; i++) replies.push(await h.call('/v1/ip/8.8.8.8', { key, tick: 0 }));
    expect(replies[2].status).toBe(429);
    h.clock.advance(10_000);
    replies.push(await h.call('/v1/ip/8.8.8.8', { key }));
    replies.push(await h.call('/v1/ip/8.8.8.8', { key }));
    expect(replies.at(-1)!.body.error.code).toBe('quota_exceeded');
    for (const r of replies) expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('on /metrics and /health', async () => {
    expect((await h.call('/metrics')).headers.get('access-control-allow-origin')).toBe('*');
    expect((await h.call('/health')).headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('quota headers on every metered success, equal to meta.quota', () => {
  const metered: [string, string, CallOptions][] = [
    ['ip', '/v1/ip/8.8.8.8', {}],
    ['own ip', '/v1/ip', {}],
    ['reserved ip', '/v1/ip/10.0.0.1', {}],
    ['not found ip', '/v1/ip/3ffe::1', {}],
    ['ip batch', '/v1/ip/batch', { json: ['8.8.8.8', '1.1.1.1', 'bad'] }],
    ['blacklist', '/v1/blacklist/8.8.8.8', {}],
    ['blacklist batch', '/v1/blacklist/batch', { json: ['8.8.8.8'] }],
    ['mac', '/v1/mac/00:00:0c:12:34:56', {}],
    ['mac search', '/v1/mac/search?q=cisco', {}],
    ['with fields', '/v1/ip/8.8.8.8?fields=ip', {}],
  ];
  for (const [label, path, options] of metered) {
    it(`paid: ${label}`, async () => {
      const r = await h.call(path, { ...options, key: pro });
      expect(r.status).toBe(200);
      for (const name of QUOTA_HEADERS) expect(r.headers.has(name)).toBe(true);
      expectQuotaHeadersMatchMeta(r, 'pro');
    });
  }

  it('free: per-API limit, remaining after this request, reset at next 00:00 UTC', async () => {
    const key = await h.newKey('free');
    const r1 = await h.call('/v1/ip/8.8.8.8', { key });
    expectQuotaHeadersMatchMeta(r1, 'free');
    expect(r1.headers.get('x-quota-limit')).toBe('3');
    expect(r1.headers.get('x-quota-remaining')).toBe('2');
    expect(r1.headers.get('x-ratelimit-limit')).toBe('2');
    const d = new Date(h.clock.ms);
    expect(r1.headers.get('x-quota-reset')).toBe(String(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) / 1000));
    const r2 = await h.call('/v1/mac/00:00:0c:12:34:56', { key });
    expect(r2.headers.get('x-quota-remaining')).toBe('2');
    const r3 = await h.call('/v1/ip/1.1.1.1', { key });
    expect(r3.headers.get('x-quota-remaining')).toBe('1');
    expectQuotaHeadersMatchMeta(r3, 'free');
  });

  it('X-Quota-Remaining counts down by the batch size', async () => {
    const key = await h.newKey('starter');
    const a = await h.call('/v1/ip/batch', { key, json: ['8.8.8.8', '1.1.1.1', '9.9.9.9'] });
    expect(a.headers.get('x-quota-remaining')).toBe('17');
    expectQuotaHeadersMatchMeta(a, 'starter');
  });

  it('X-Quota-Reset is a whole number of Unix seconds', async () => {
    const r = await h.call('/v1/ip/8.8.8.8', { key: pro });
    expect(r.headers.get('x-quota-reset')).toMatch(/^\d{10}$/);
  });
});

describe('CORS preflight', () => {
  for (const path of ['/v1/ip/8.8.8.8', '/v1/ip/batch', '/v1/usage']) {
    it(`OPTIONS ${path}: methods, the request headers used, 2xx without a key`, async () => {
      const r = await request(h.url, path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': path.endsWith('batch') ? 'POST' : 'GET',
          'access-control-request-headers': 'x-api-key, authorization, content-type',
        },
      });
      expect(r.status).toBeGreaterThanOrEqual(200);
      expect(r.status).toBeLessThan(300);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const methods = (r.headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim().toUpperCase());
      expect(methods).toEqual(expect.arrayContaining(['GET', 'POST']));
      const allowed = (r.headers.get('access-control-allow-headers') ?? '').split(',').map((x) => x.trim().toLowerCase());
      expect(allowed).toEqual(expect.arrayContaining(['x-api-key', 'authorization', 'content-type']));
      const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(',').map((x) => x.trim().toLowerCase());
      expect(exposed).toEqual(expect.arrayContaining([...QUOTA_HEADERS, 'Retry-After'].map((x) => x.toLowerCase())));
    });
  }

  it('Access-Control-Expose-Headers names the quota headers and Retry-After on cross-origin responses', async () => {
    const r = await h.call('/v1/ip/8.8.8.8', { key: pro, headers: { origin: 'https://app.example.com' } });
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(',').map((x) => x.trim().toLowerCase());
    expect(exposed).toEqual(expect.arrayContaining([...QUOTA_HEADERS, 'Retry-After'].map((x) => x.toLowerCase())));
    const refused = await h.call('/v1/ip/8.8.8.8', { headers: { origin: 'https://app.example.com' } });
    const exposedOnError = (refused.headers.get('access-control-expose-headers') ?? '').split(',').map((x) => x.trim().toLowerCase());
    expect(exposedOnError).toEqual(expect.arrayContaining(['retry-after', 'x-quota-reset']));
    // Without Origin (not a cross-origin browser request) nothing needs exposing; the origin header stays.
    const plain = await h.call('/v1/ip/8.8.8.8', { key: pro });
    expect(plain.headers.get('access-control-allow-origin')).toBe('*');
    expect(plain.headers.get('access-control-expose-headers')).toBeNull();
  });

  it('a preflight is neither counted nor rejected', async () => {
    const key = await h.newKey('pro');
    const before = await h.usage(key);
    await request(h.url, '/v1/ip/8.8.8.8', {
      method: 'OPTIONS',
      headers: { origin: 'https://a.test', 'access-control-request-method': 'GET' },
    });
    const after = await h.usage(key);
    expect(after.today).toEqual(before.today);
  });
});
