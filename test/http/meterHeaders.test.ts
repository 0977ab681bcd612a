/**
 * docs/api.md "Quota headers", "HEAD", "CORS": the per-second window (X-RateLimit-*) and the quota
 * (X-Quota-*) on every metered success and on both 429s, Retry-After on quota_exceeded, the message of a
 * refused batch, their CORS exposure; HEAD answered as GET without a body and without using quota on
 * every endpoint family; pretty and generated_at of the JSON export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectQuotaHeadersMatchMeta, Harness, nextUtcMidnight, nextUtcMonth, type Reply } from './harness.js';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ blacklist: { legacyMacDaily: 5, legacyCheckDaily: 5 } });
});

afterAll(async () => {
  await h?.stop();
});

const METER_HEADERS = [
  'x-plan',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-limit',
  'x-quota-remaining',
  'x-quota-reset',
];

/** The clock's instant plus `ms`, as whole Unix seconds rounded up (X-RateLimit-Reset). */
const unixUp = (ms: number) => String(Math.ceil((h.clock.ms + ms) / 1000));

function meterHeadersOf(reply: Reply): Record<string, string | null> {
  return Object.fromEntries(METER_HEADERS.map((name) => [name, reply.headers.get(name)]));
}

describe('X-RateLimit-Remaining and X-RateLimit-Reset: the per-second window', () => {
  it('count down within a second; reset is when the window is empty again; back to the limit a second later', async () => {
    const key = await h.newKey('free');
    h.clock.advance(10_000);
    const first = await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(first.headers.get('x-ratelimit-reset')).toBe(unixUp(1000));
    expectQuotaHeadersMatchMeta(first, 'free');
    const second = await h.call('/v1/mac/00:00:0c:12:34:56', { key, tick: 300 });
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(second.headers.get('x-ratelimit-reset')).toBe(unixUp(1000));
    const later = await h.call('/v1/blacklist/8.8.8.8', { key, tick: 5000 });
    expect(later.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('429 rate_limited carries the window, the quota (unchanged) and Retry-After: 1', async () => {
    const key = await h.newKey('free');
    h.clock.advance(10_000);
    await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
    const last = await h.call('/v1/ip/8.8.8.8', { key, tick: 400 });
    const refused = await h.call('/v1/ip/8.8.8.8', { key, tick: 100 });
    expectError(refused, 'rate_limited', 429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(meterHeadersOf(refused)).toEqual({
      'x-plan': 'free',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': last.headers.get('x-ratelimit-reset'),
      'x-quota-limit': '3',
      'x-quota-remaining': '1',
      'x-quota-reset': String(nextUtcMidnight(h.clock.ms)),
    });
  });
});

describe('429 quota_exceeded', () => {
  it('carries the meter headers and Retry-After: the seconds until the quota resets', async () => {
    h.clock.set('2026-03-10T23:00:00.000Z');
    const key = await h.newKey('free');
    for (let i = 0; i < 3; i++) expect((await h.call('/v1/ip/8.8.8.8', { key })).status).toBe(200);
    const refused = await h.call('/v1/ip/8.8.8.8', { key });
    expectError(refused, 'quota_exceeded', 429);
    const reset = nextUtcMidnight(h.clock.ms);
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(reset - h.clock.ms / 1000)));
    expect(meterHeadersOf(refused)).toMatchObject({
      'x-plan': 'free',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-quota-limit': '3',
      'x-quota-remaining': '0',
      'x-quota-reset': String(reset),
    });
  });

  it('a batch that costs more than what is left says how many lookups are left; a smaller one passes', async () => {
    h.clock.set('2026-03-20T08:00:00.000Z');
    const key = await h.newKey('starter');
    for (let i = 0; i < 3; i++)
      expect((await h.call('/v1/ip/batch', { key, json: [1, 2, 3, 4, 5].map((n) => `8.8.${i}.${n}`) })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key })).status).toBe(200);
    const refused = await h.call('/v1/ip/batch', { key, json: ['9.9.9.1', '9.9.9.2', '9.9.9.3', '9.9.9.4', 'bad'] });
    expectError(refused, 'quota_exceeded', 429);
    expect(refused.body.error.message).toBe('This batch needs 4 lookups; 3 left until the reset at 2026-04-01T00:00:00+00:00.');
    expect(refused.headers.get('x-quota-remaining')).toBe('3');
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(nextUtcMonth(h.clock.ms) - h.clock.ms / 1000)));
    expect((await h.call('/v1/ip/batch', { key, json: ['9.9.9.1', '9.9.9.2', '9.9.9.3'] })).status).toBe(200);
  });
});

describe('CORS: every meter header is exposed', () => {
  const exposedOf = (r: Reply) => (r.headers.get('access-control-expose-headers') ?? '').split(',').map((x) => x.trim().toLowerCase());

  it('on a success and on both 429s', async () => {
    const key = await h.newKey('free');
    const origin = { origin: 'https://app.example.com' };
    h.clock.advance(10_000);
    const replies = [await h.call('/v1/ip/8.8.8.8', { key, headers: origin, tick: 0 })];
    replies.push(await h.call('/v1/ip/8.8.8.8', { key, headers: origin, tick: 1 }));
    replies.push(await h.call('/v1/ip/8.8.8.8', { key, headers: origin, tick: 1 }));
    expect(replies[2].body.error.code).toBe('rate_limited');
    replies.push(await h.call('/v1/ip/8.8.8.8', { key, headers: origin }));
    replies.push(await h.call('/v1/ip/8.8.8.8', { key, headers: origin }));
    expect(replies[4].body.error.code).toBe('quota_exceeded');
    for (const r of replies) {
      for (const name of METER_HEADERS) expect(r.headers.get(name), name).not.toBeNull();
      expect(exposedOf(r)).toEqual(expect.arrayContaining([...METER_HEADERS, 'retry-after']));
    }
  });
});

describe('HEAD: answered as GET, without a body, using no quota', () => {
  let key: string;
  beforeAll(async () => {
    key = await h.newKey('pro');
  });

  const keyed: string[] = [
    '/v1/ip/8.8.8.8',
    '/v1/ip',
    '/v1/ip/batch?ips=8.8.8.8,1.1.1.1',
    '/v1/blacklist/8.8.8.8',
    '/v1/blacklist/batch?ips=8.8.8.8',
    '/v1/blacklist/export?format=json',
    '/v1/mac/00:00:0c:12:34:56',
    '/v1/mac/search?q=cisco',
    '/v1/usage',
    '/v1',
    '/v1/ip/not-an-address',
  ];
  for (const path of keyed) {
    it(`HEAD ${path}`, async () => {
      const before = await h.usage(key);
      const head = await h.call(path, { key, method: 'HEAD' });
      expect((await h.usage(key)).today).toEqual(before.today);
      const get = await h.call(path, { key });
      expect(head.status).toBe(get.status);
      expect(head.text).toBe('');
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      if (get.headers.get('x-quota-remaining') !== null) {
        // HEAD shows the quota as it stands; the GET after it used its own share.
        const cost = Number(head.headers.get('x-quota-remaining')) - Number(get.headers.get('x-quota-remaining'));
        expect(cost).toBe(path.includes('/batch') ? get.body.count : 1);
        expect(head.headers.get('x-ratelimit-remaining')).not.toBeNull();
      }
    });
  }

  it('HEAD of a refused request is refused as GET is, and counted nowhere', async () => {
    const free = await h.newKey('free');
    const before = await h.usage(free);
    expectError(await h.call('/v1/mac/search?q=cisco', { key: free }), 'plan_required', 402);
    const head = await h.call('/v1/mac/search?q=cisco', { key: free, method: 'HEAD' });
    expect(head.status).toBe(402);
    expect((await h.usage(free)).today).toEqual({ ...before.today, rejected: before.today.rejected + 1 });
  });

  it('HEAD when the quota is used up: 429 with Retry-After, as GET', async () => {
    const free = await h.newKey('free');
    for (let i = 0; i < 3; i++) await h.call('/v1/ip/8.8.8.8', { key: free });
    const head = await h.call('/v1/ip/8.8.8.8', { key: free, method: 'HEAD' });
    expect(head.status).toBe(429);
    expect(head.headers.get('retry-after')).not.toBeNull();
    expect((await h.usage(free)).today).toMatchObject({ ip: 3, rejected: 0 });
  });

  const keyless: [string, string][] = [
    ['/lookup?mac=00:00:0c:12:34:56', '/lookup?mac=00:00:0c:12:34:57'],
    ['/api/check?ip=8.8.8.8', '/api/check?ip=8.8.4.4'],
  ];
  for (const [path, other] of keyless) {
    it(`HEAD ${path} without a key uses none of the daily allowance`, async () => {
      const first = await h.call(path);
      const head = await h.call(other, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('x-quota-remaining')).toBe(first.headers.get('x-quota-remaining'));
      const next = await h.call(path);
      expect(Number(next.headers.get('x-quota-remaining'))).toBe(Number(first.headers.get('x-quota-remaining')) - 1);
    });
  }

  for (const path of ['/health', '/openapi.json', '/api/mac/v1/health']) {
    it(`HEAD ${path}`, async () => {
      const head = await h.call(path, { method: 'HEAD' });
      const get = await h.call(path);
      expect(head.status).toBe(get.status);
      expect(head.text).toBe('');
    });
  }
});

describe('the JSON export', () => {
  let key: string;
  beforeAll(async () => {
    h.clock.set('2026-06-10T12:00:00.000Z');
    key = await h.newKey('pro');
    const reporters = [key, await h.newKey('starter'), await h.newKey('business')];
    for (const reporter of reporters) {
      for (const ip of ['45.100.0.4', '2a01:4f8::10']) {
        await h.call('/v1/blacklist/report', { key: reporter, json: { ip, threat_type: 'brute-force' }, tick: 10 });
      }
    }
  });

  it('pretty: the same document, indented as every JSON answer', async () => {
    h.clock.set('2026-06-10T12:20:00.000Z');
    const plain = await h.call('/v1/blacklist/export?format=json&min_confidence=0', { key, tick: 0 });
    const pretty = await h.call('/v1/blacklist/export?format=json&min_confidence=0&pretty', { key, tick: 0 });
    expect(plain.status).toBe(200);
    expect(pretty.status).toBe(200);
    expect(pretty.body).toEqual(plain.body);
    expect(pretty.body.count).toBe(2);
    expect(pretty.text).toBe(`${JSON.stringify(plain.body, null, 2)}\n`);
    expect(plain.text).toBe(`${JSON.stringify(plain.body)}\n`);
    expect(pretty.headers.get('etag')).not.toBe(plain.headers.get('etag'));
  });

  it('pretty on an empty export', async () => {
    const r = await h.call('/v1/blacklist/export?format=json&min_confidence=100&pretty=1', { key, tick: 0 });
    expect(r.body.count).toBe(0);
    expect(r.text).toBe(`${JSON.stringify(r.body, null, 2)}\n`);
  });

  it('generated_at: when the export was made; the same export (same ETag) keeps it; a change makes a new one', async () => {
    h.clock.set('2026-06-10T12:37:12.345Z');
    const query = '/v1/blacklist/export?format=json&min_confidence=0&version=4';
    const made = await h.call(query, { key, tick: 0 });
    expect(made.body.generated_at).toBe('2026-06-10T12:37:12.345Z');
    h.clock.set('2026-06-10T12:40:00.000Z');
    const again = await h.call(query, { key, tick: 0 });
    expect(again.headers.get('etag')).toBe(made.headers.get('etag'));
    expect(again.text).toBe(made.text);
    await h.call('/v1/blacklist/report', { key, json: { ip: '45.100.0.99', threat_type: 'spam' }, tick: 0 });
    h.clock.set('2026-06-10T12:41:00.000Z');
    const changed = await h.call(query, { key, tick: 0 });
    expect(changed.headers.get('etag')).not.toBe(made.headers.get('etag'));
    expect(changed.body.generated_at).toBe('2026-06-10T12:41:00.000Z');
    // The next quarter hour is a new export.
    h.clock.set('2026-06-10T12:45:30.000Z');
    expect((await h.call(query, { key, tick: 0 })).body.generated_at).toBe('2026-06-10T12:45:30.000Z');
  });
});
