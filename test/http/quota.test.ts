/**
 * SPEC 3, 7, 8 (docs/api.md "Plans and limits", "Order of the checks"): the plan table from the
 * plans file, expiry, free per-API daily quotas, paid pooled monthly quotas, resets at 00:00 UTC,
 * the sliding one-second window, rejected counting, /usage, and the check order. All with the
 * injected clock: no sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectQuotaHeadersMatchMeta, Harness, nextUtcMidnight, nextUtcMonth, TEST_PLANS } from './harness.js';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});

afterAll(async () => {
  await h?.stop();
});

/** Puts the clock at `at` (and leaves any per-second window far behind). */
function at(instant: string): void {
  h.clock.set(instant);
}

describe('the plan table comes from the plans file', () => {
  it("free: the file's name, rate and daily allowances (not the spec defaults)", async () => {
    const key = await h.newKey('free');
    const usage = await h.usage(key);
    expect(usage.plan).toEqual({ code: 'free', name: 'Free (test)', expires_at: null });
    expect(usage.rate_limit_per_second).toBe(2);
    expect(usage.daily_quota).toEqual({ ip: 3, blacklist: 3, mac: 3 });
    expect(usage).not.toHaveProperty('monthly_quota');
  });

  it("paid plans: the file's monthly pool and rate, in /usage, meta and headers", async () => {
    for (const plan of ['starter', 'pro', 'business'] as const) {
      const key = await h.newKey(plan);
      const usage = await h.usage(key);
      expect(usage.plan.name).toBe(TEST_PLANS[plan].name);
      expect(usage.rate_limit_per_second).toBe(TEST_PLANS[plan].rate_limit_per_second);
      expect(usage.monthly_quota).toEqual({ limit: TEST_PLANS[plan].quota.pooled, used: 0, remaining: TEST_PLANS[plan].quota.pooled });
      expect(usage).not.toHaveProperty('daily_quota');
      const r = await h.call('/v1/ip/8.8.8.8', { key });
      expect(r.body.meta.quota).toMatchObject({ limit: TEST_PLANS[plan].quota.pooled, used: 1, period: 'month' });
      expectQuotaHeadersMatchMeta(r, plan);
    }
  });
});

describe('free plan: per-API daily quota', () => {
  it('each API has its own allowance; the next request is 429 quota_exceeded with X-Quota-Reset', async () => {
    at('2026-03-10T12:00:00Z');
    const key = await h.newKey('free');
    for (let i = 1; i <= 3; i++) {
      const r = await h.call('/v1/ip/8.8.8.8', { key });
      expect(r.status).toBe(200);
      expect(r.body.meta.quota).toMatchObject({
        limit: 3,
        used: i,
        remaining: 3 - i,
        period: 'day',
        resets_at: '2026-03-11T00:00:00+00:00',
      });
      expectQuotaHeadersMatchMeta(r, 'free');
    }
    const refused = await h.call('/v1/ip/1.1.1.1', { key });
    expectError(refused, 'quota_exceeded', 429);
    expect(refused.headers.get('x-quota-reset')).toBe(String(nextUtcMidnight(h.clock.ms)));
    expect(refused.headers.get('x-quota-reset')).toBe(String(Date.parse('2026-03-11T00:00:00Z') / 1000));
    expectError(await h.call('/v1/ip', { key }), 'quota_exceeded', 429);
    // the other APIs still have their own 3
    for (let i = 0; i < 3; i++) expect((await h.call('/v1/blacklist/8.8.8.8', { key })).status).toBe(200);
    expectError(await h.call('/v1/blacklist/8.8.8.8', { key }), 'quota_exceeded', 429);
    for (let i = 0; i < 3; i++) expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key })).status).toBe(200);
    expectError(await h.call('/v1/mac/00:00:0c:12:34:56', { key }), 'quota_exceeded', 429);
    const usage = await h.usage(key);
    expect(usage.today).toEqual({ ip: 3, blacklist: 3, mac: 3, rejected: 4 });
  });

  it('resets at 00:00 UTC: refused at 23:59:59.999, answered at 00:00:00.000 with a fresh allowance', async () => {
    at('2026-03-10T23:50:00Z');
    const key = await h.newKey('free');
    for (let i = 0; i < 3; i++) expect((await h.call('/v1/ip/8.8.8.8', { key })).status).toBe(200);
    at('2026-03-10T23:59:59.999Z');
    expectError(await h.call('/v1/ip/8.8.8.8', { key, tick: 0 }), 'quota_exceeded', 429);
    at('2026-03-11T00:00:00.000Z');
    const r = await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
    expect(r.status).toBe(200);
    expect(r.body.meta.quota).toMatchObject({ used: 1, remaining: 2, resets_at: '2026-03-12T00:00:00+00:00' });
    expect(r.headers.get('x-quota-reset')).toBe(String(Date.parse('2026-03-12T00:00:00Z') / 1000));
    const usage = await h.usage(key);
    expect(usage.today).toEqual({ ip: 1, blacklist: 0, mac: 0, rejected: 0 });
  });
});

describe('paid plan: pooled monthly quota', () => {
  it('all APIs draw from one pool; at the limit every API is refused', async () => {
    at('2026-03-20T08:00:00Z');
    const key = await h.newKey('starter');
    const limit = TEST_PLANS.starter.quota.pooled;
    const paths = ['/v1/ip/8.8.8.8', '/v1/blacklist/8.8.8.8', '/v1/mac/00:00:0c:12:34:56', '/v1/mac/search?q=cisco'];
    for (let i = 1; i <= limit; i++) {
      const r = await h.call(paths[i % paths.length], { key });
      expect(r.status).toBe(200);
      expect(r.body.meta.quota).toMatchObject({
        limit,
        used: i,
        remaining: limit - i,
        period: 'month',
        resets_at: '2026-04-01T00:00:00+00:00',
      });
      expectQuotaHeadersMatchMeta(r, 'starter');
    }
    for (const p of paths) {
      const refused = await h.call(p, { key });
      expectError(refused, 'quota_exceeded', 429);
      expect(refused.headers.get('x-quota-reset')).toBe(String(nextUtcMonth(h.clock.ms)));
    }
    expectError(await h.call('/v1/ip/batch', { key, json: ['8.8.8.8'] }), 'quota_exceeded', 429);
    const usage = await h.usage(key);
    expect(usage.monthly_quota).toEqual({ limit, used: limit, remaining: 0 });
    expect(usage.today.rejected).toBe(5);
  });

  it('does not reset at midnight within the month, resets at 00:00 UTC on the first of the next month', async () => {
    at('2026-03-31T22:00:00Z');
    const key = await h.newKey('starter');
    const limit = TEST_PLANS.starter.quota.pooled;
    for (let i = 0; i < 4; i++)
      expect((await h.call('/v1/ip/batch', { key, json: [1, 2, 3, 4, 5].map((n) => `8.8.${i}.${n}`) })).status).toBe(200);
    expect((await h.usage(key)).monthly_quota.used).toBe(limit);
    at('2026-03-31T23:59:59.999Z');
    expectError(await h.call('/v1/ip/8.8.8.8', { key, tick: 0 }), 'quota_exceeded', 429);
    at('2026-04-01T00:00:00.000Z');
    const r = await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
    expect(r.status).toBe(200);
    expect(r.body.meta.quota).toMatchObject({ used: 1, remaining: limit - 1, resets_at: '2026-05-01T00:00:00+00:00' });
  });

  it('a day change inside the month keeps the monthly count', async () => {
    at('2026-05-10T23:59:00Z');
    const key = await h.newKey('starter');
    expect((await h.call('/v1/ip/8.8.8.8', { key })).status).toBe(200);
    at('2026-05-11T00:00:01Z');
    const r = await h.call('/v1/blacklist/8.8.8.8', { key, tick: 0 });
    expect(r.body.meta.quota.used).toBe(2);
    const usage = await h.usage(key);
    expect(usage.today).toMatchObject({ ip: 0, blacklist: 1 });
    expect(usage.monthly_quota.used).toBe(2);
  });
});

describe('expired paid plan acts as free', () => {
  it('basic fields, the free daily per-API quota and rate; /usage shows the free plan', async () => {
    at('2026-06-10T10:00:00Z');
    const { key } = await h.createAccount('business', { expires_at: '2026-06-01T00:00:00Z' });
    const secret = key.secret;
    for (let i = 1; i <= 3; i++) {
      const r = await h.call('/v1/ip/8.8.8.8', { key: secret });
      expect(r.status).toBe(200);
      expect(r.body.meta).toMatchObject({ plan: 'free', fields: 'basic', quota: { limit: 3, used: i, period: 'day' } });
      expectQuotaHeadersMatchMeta(r, 'free');
      expect(r.body).not.toHaveProperty('security');
    }
    expectError(await h.call('/v1/ip/8.8.8.8', { key: secret }), 'quota_exceeded', 429);
    expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key: secret })).status).toBe(200);
    const usage = await h.usage(secret);
    expect(usage.plan.code).toBe('free');
    expect(usage.rate_limit_per_second).toBe(2);
    expect(usage.daily_quota).toEqual({ ip: 3, blacklist: 3, mac: 3 });
  });

  it('renewing (PATCH expires_at into the future) brings the paid plan back', async () => {
    at('2026-06-10T10:00:00Z');
    const { account, key } = await h.createAccount('pro', { expires_at: '2026-06-01T00:00:00Z' });
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret })).body.meta.plan).toBe('free');
    await h.patchAccount(account.id, { expires_at: '2027-06-01T00:00:00Z' });
    const r = await h.call('/v1/ip/8.8.8.8', { key: key.secret });
    expect(r.body.meta).toMatchObject({ plan: 'pro', fields: 'full', quota: { period: 'month' } });
  });
});

describe('per-second limit: a sliding one-second window', () => {
  it('free (2/s): the third request within a second is 429 rate_limited with Retry-After: 1', async () => {
    at('2026-07-01T10:00:00.000Z');
    const key = await h.newKey('free');
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    h.clock.advance(300);
    expect((await h.call('/v1/blacklist/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    h.clock.advance(300);
    const refused = await h.call('/v1/mac/00:00:0c:12:34:56', { key, tick: 0 });
    expectError(refused, 'rate_limited', 429);
    expect(refused.headers.get('retry-after')).toBe('1');
    // the window is per account, across APIs; one second after the first request there is room again
    at('2026-07-01T10:00:01.000Z');
    expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key, tick: 0 })).status).toBe(200);
  });

  it('not a fixed-second counter: 2 at t=0.90 s and 0.95 s leave no room at t=1.00 s or t=1.10 s', async () => {
    const key = await h.newKey('free');
    const second = Date.parse('2026-07-01T11:00:00.000Z');
    h.clock.set(second + 900);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    h.clock.set(second + 950);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    h.clock.set(second + 1000);
    expectError(await h.call('/v1/ip/8.8.8.8', { key, tick: 0 }), 'rate_limited', 429);
    h.clock.set(second + 1100);
    expectError(await h.call('/v1/ip/8.8.8.8', { key, tick: 0 }), 'rate_limited', 429);
    h.clock.set(second + 1901);
    expect((await h.call('/v1/blacklist/8.8.8.8', { key, tick: 0 })).status).toBe(200);
  });

  it('sliding: requests at t=0.9 s and t=1.1 s are both admitted (a second one-second window)', async () => {
    const key = await h.newKey('free');
    const second = Date.parse('2026-07-01T12:00:00.000Z');
    h.clock.set(second + 900);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    h.clock.set(second + 1100);
    expect((await h.call('/v1/blacklist/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    h.clock.set(second + 1200);
    expectError(await h.call('/v1/mac/00:00:0c:12:34:56', { key, tick: 0 }), 'rate_limited', 429);
    h.clock.set(second + 1901);
    expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key, tick: 0 })).status).toBe(200);
  });

  it('no one-second window ever holds more than the limit (starter, 5/s, requests every 100 ms)', async () => {
    const key = await h.newKey('starter');
    const start = Date.parse('2026-07-02T00:00:00.550Z');
    const admitted: number[] = [];
    for (let i = 0; i < 30; i++) {
      h.clock.set(start + i * 100);
      const r = await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
      if (r.status === 200) admitted.push(h.clock.ms);
      else expectError(r, 'rate_limited', 429);
    }
    for (const t of admitted) expect(admitted.filter((u) => u > t - 1000 && u <= t).length).toBeLessThanOrEqual(5);
    expect(admitted.length).toBeGreaterThanOrEqual(14);
  });

  it('the window is per account: another account is not slowed down', async () => {
    const a = await h.newKey('free');
    const b = await h.newKey('free');
    at('2026-07-03T00:00:00Z');
    expect((await h.call('/v1/ip/8.8.8.8', { key: a, tick: 0 })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key: a, tick: 0 })).status).toBe(200);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: a, tick: 0 }), 'rate_limited', 429);
    expect((await h.call('/v1/ip/8.8.8.8', { key: b, tick: 0 })).status).toBe(200);
  });

  it('the two keys of one account share its window', async () => {
    const { account, key } = await h.createAccount('starter');
    const second = await h.createKey(account.id, 'two');
    at('2026-07-04T00:00:00Z');
    for (let i = 0; i < 5; i++)
      expect((await h.call('/v1/ip/8.8.8.8', { key: i % 2 ? key.secret : second.secret, tick: 0 })).status).toBe(200);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: second.secret, tick: 0 }), 'rate_limited', 429);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret, tick: 0 }), 'rate_limited', 429);
  });
});

describe('rejected requests and /usage', () => {
  it('rate_limited, quota_exceeded and input refusals count in today.rejected, never against the quota', async () => {
    at('2026-08-01T09:00:00Z');
    const key = await h.newKey('free');
    expectError(await h.call('/v1/ip/not-an-ip', { key }), 'invalid_ip', 400);
    expectError(await h.call('/v1/mac/zz', { key }), 'invalid_mac', 400);
    expectError(await h.call('/v1/mac/search?q=cisco', { key }), 'plan_required', 402);
    expectError(await h.call('/v1/ip/batch', { key, json: ['8.8.8.8'] }), 'plan_required', 402);
    let usage = await h.usage(key);
    expect(usage.today).toEqual({ ip: 0, blacklist: 0, mac: 0, rejected: 4 });
    // rate limited
    h.clock.advance(5000);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    expectError(await h.call('/v1/ip/8.8.8.8', { key, tick: 0 }), 'rate_limited', 429);
    usage = await h.usage(key);
    expect(usage.today).toEqual({ ip: 2, blacklist: 0, mac: 0, rejected: 5 });
    // the rate-limited request did not use quota: the 3rd lookup is still allowed
    const third = await h.call('/v1/ip/8.8.8.8', { key });
    expect(third.status).toBe(200);
    expect(third.body.meta.quota).toMatchObject({ used: 3, remaining: 0 });
    expectError(await h.call('/v1/ip/8.8.8.8', { key }), 'quota_exceeded', 429);
    usage = await h.usage(key);
    expect(usage.today).toEqual({ ip: 3, blacklist: 0, mac: 0, rejected: 6 });
  });

  it('/usage is not counted, not quota-limited and not rate limited', async () => {
    at('2026-08-02T09:00:00Z');
    const key = await h.newKey('free');
    for (let i = 0; i < 3; i++) expect((await h.call('/v1/ip/8.8.8.8', { key })).status).toBe(200);
    expectError(await h.call('/v1/ip/8.8.8.8', { key }), 'quota_exceeded', 429);
    for (let i = 0; i < 10; i++) {
      const r = await h.call('/v1/usage', { key, tick: 0 });
      expect(r.status).toBe(200);
      expect(r.body.today).toEqual({ ip: 3, blacklist: 0, mac: 0, rejected: 1 });
    }
  });

  it('/usage calls do not take a place in the per-second window', async () => {
    const key = await h.newKey('free');
    at('2026-08-03T09:00:00Z');
    for (let i = 0; i < 5; i++) expect((await h.call('/v1/usage', { key, tick: 0 })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
  });
});

describe('the order of the checks', () => {
  it('rate before input: a rate-limited request with an invalid IP gets rate_limited', async () => {
    at('2026-09-01T10:00:00Z');
    const key = await h.newKey('free');
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    expectError(await h.call('/v1/ip/not-an-ip', { key, tick: 0 }), 'rate_limited', 429);
    expectError(await h.call('/v1/mac/zz', { key, tick: 0 }), 'rate_limited', 429);
  });

  it('rate before plan: a rate-limited free batch gets rate_limited', async () => {
    at('2026-09-01T11:00:00Z');
    const key = await h.newKey('free');
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key, tick: 0 })).status).toBe(200);
    expectError(await h.call('/v1/ip/batch', { key, tick: 0, json: ['8.8.8.8'] }), 'rate_limited', 429);
    expectError(await h.call('/v1/mac/search?q=cisco', { key, tick: 0 }), 'rate_limited', 429);
  });

  it('plan before input: a free batch with bad input gets plan_required', async () => {
    const key = await h.newKey('free');
    expectError(await h.call('/v1/ip/batch', { key, json: [] }), 'plan_required', 402);
    expectError(await h.call('/v1/ip/batch', { key, json: ['bad', 'worse'] }), 'plan_required', 402);
    expectError(
      await h.call('/v1/ip/batch', { key, json: Array.from({ length: 2000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`) }),
      'plan_required',
      402,
    );
    expectError(await h.call('/v1/blacklist/batch', { key, json: {} }), 'plan_required', 402);
    expectError(await h.call('/v1/mac/search?q=a', { key }), 'plan_required', 402);
    expectError(await h.call('/v1/mac/search', { key }), 'plan_required', 402);
  });

  it('plan before input: a free batch with a body that is not valid JSON gets plan_required', async () => {
    const key = await h.newKey('free');
    expectError(
      await h.call('/v1/ip/batch', { key, body: '{"ips": [', headers: { 'content-type': 'application/json' } }),
      'plan_required',
      402,
    );
  });

  it('plan before input: a free batch with ips of a wrong type gets plan_required', async () => {
    const key = await h.newKey('free');
    expectError(await h.call('/v1/ip/batch', { key, json: { ips: 42 } }), 'plan_required', 402);
  });

  it('input before quota: an invalid IP with the quota used up gets invalid_ip', async () => {
    at('2026-09-02T10:00:00Z');
    const key = await h.newKey('free');
    for (let i = 0; i < 3; i++) expect((await h.call('/v1/ip/8.8.8.8', { key })).status).toBe(200);
    expectError(await h.call('/v1/ip/8.8.8.8', { key }), 'quota_exceeded', 429);
    expectError(await h.call('/v1/ip/not-an-ip', { key }), 'invalid_ip', 400);
    for (let i = 0; i < 3; i++) expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key })).status).toBe(200);
    expectError(await h.call('/v1/mac/12345', { key }), 'invalid_mac', 400);
  });

  it('input before quota on paid plans: empty_batch, batch_too_large, invalid_query with the pool used up', async () => {
    at('2026-09-03T10:00:00Z');
    const key = await h.newKey('starter');
    for (let i = 0; i < 4; i++)
      expect((await h.call('/v1/ip/batch', { key, json: [1, 2, 3, 4, 5].map((n) => `8.8.${i}.${n}`) })).status).toBe(200);
    expectError(await h.call('/v1/ip/8.8.8.8', { key }), 'quota_exceeded', 429);
    expectError(await h.call('/v1/ip/batch', { key, json: [] }), 'empty_batch', 400);
    expectError(
      await h.call('/v1/ip/batch', { key, json: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5', '1.1.1.6'] }),
      'batch_too_large',
      400,
    );
    expectError(await h.call('/v1/mac/search?q=x', { key }), 'invalid_query', 400);
  });

  it('suspension before rate: a suspended account at its rate limit gets account_suspended', async () => {
    at('2026-09-04T10:00:00Z');
    const { account, key } = await h.createAccount('free');
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret, tick: 0 })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret, tick: 0 })).status).toBe(200);
    await h.patchAccount(account.id, { suspended: true });
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret, tick: 0 }), 'account_suspended', 403);
  });

  it('key checks before everything else: missing_key beats invalid input, invalid_key beats a bad batch', async () => {
    expectError(await h.call('/v1/ip/not-an-ip'), 'missing_key', 401);
    expectError(await h.call('/v1/mac/zz', { key: 'nope' }), 'invalid_key', 401);
    expectError(await h.call('/v1/ip/batch', { key: 'nope', json: [] }), 'invalid_key', 401);
  });

  it('key checks before body parsing: a malformed body without a key gets missing_key', async () => {
    expectError(await h.call('/v1/ip/batch', { body: '{not json', headers: { 'content-type': 'application/json' } }), 'missing_key', 401);
  });
});
