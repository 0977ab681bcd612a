/** SPEC 4.3, 4.5 (docs/api.md "Batches"): batch body forms, duplicates, per-entry failures, limits, quota. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectQuotaHeadersMatchMeta, Harness, nextUtcMonth, TEST_PLANS } from './harness.js';

let h: Harness;
let pro: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

const ips = (body: { results: { ip: string }[] }) => body.results.map((r) => r.ip);

for (const api of ['ip', 'blacklist'] as const) {
  describe(`POST /v1/${api}/batch`, () => {
    const path = `/v1/${api}/batch`;

    it('body form 1: JSON object {ips: [...]}', async () => {
      const r = await h.call(path, { key: pro, json: { ips: ['8.8.8.8', '1.1.1.1'] } });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1']);
      expectQuotaHeadersMatchMeta(r, 'pro');
    });

    it('body form 2: plain JSON array', async () => {
      const r = await h.call(path, { key: pro, json: ['8.8.8.8', '1.1.1.1'] });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1']);
    });

    it('body form 3: form field ips, comma-separated', async () => {
      const r = await h.call(path, {
        key: pro,
        body: 'ips=8.8.8.8%2C1.1.1.1,2001:4860:4860::8888',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888']);
    });

    it('form field with spaces after commas', async () => {
      const r = await h.call(path, {
        key: pro,
        body: new URLSearchParams({ ips: '8.8.8.8, 1.1.1.1' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.status).toBe(200);
      expect(ips(r.body)).toEqual(['8.8.8.8', '1.1.1.1']);
    });

    it('JSON with a charset parameter in the content type', async () => {
      const r = await h.call(path, {
        key: pro,
        body: JSON.stringify(['8.8.8.8']),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(r.status).toBe(200);
    });

    it('duplicates are removed, also across notations (8.8.8.8 and ::ffff:8.8.8.8), and counted once', async () => {
      const key = await h.newKey('pro');
      const r = await h.call(path, {
        key,
        json: ['8.8.8.8', '8.8.8.8', '::ffff:8.8.8.8', '::FFFF:808:808', '2001:db8::1', '2001:DB8:0:0::1', 'bad', 'bad'],
      });
      expect(r.status).toBe(200);
      expect(r.body.count).toBe(3);
      expect(ips(r.body)).toEqual(['8.8.8.8', '2001:db8::1', 'bad']);
      expect(r.body.meta.quota.used).toBe(2);
      const usage = await h.usage(key);
      expect(usage.today[api]).toBe(2);
    });

    it('invalid entries fail alone with invalid_ip, the request succeeds; only valid ones count', async () => {
      const key = await h.newKey('pro');
      const r = await h.call(path, { key, json: { ips: ['8.8.8.8', 'not-an-ip', '999.1.1.1', 5, null, { a: 1 }, '1.1.1.1'] } });
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(true);
      expect(r.body.count).toBe(7);
      const failures = r.body.results.filter((x: { success: boolean }) => !x.success);
      expect(failures).toHaveLength(5);
      for (const f of failures) {
        expect(f).toEqual({ success: false, ip: expect.any(String), error: { code: 'invalid_ip', message: expect.any(String) } });
      }
      expect(failures.slice(0, 2).map((f: { ip: string }) => f.ip)).toEqual(['not-an-ip', '999.1.1.1']);
      expect(r.body.results[0]).toMatchObject({ success: true, ip: '8.8.8.8' });
      expect(r.body.results[6]).toMatchObject({ success: true, ip: '1.1.1.1' });
      expect(r.body.meta.quota.used).toBe(2);
    });

    it('no addresses: 400 empty_batch, for each body form', async () => {
      expectError(await h.call(path, { key: pro, json: { ips: [] } }), 'empty_batch', 400);
      expectError(await h.call(path, { key: pro, json: [] }), 'empty_batch', 400);
      expectError(await h.call(path, { key: pro, json: {} }), 'empty_batch', 400);
      expectError(
        await h.call(path, { key: pro, body: 'ips=', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        'empty_batch',
        400,
      );
      expectError(
        await h.call(path, { key: pro, body: 'ips=,,', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        'empty_batch',
        400,
      );
      expectError(await h.call(path, { key: pro, method: 'POST' }), 'empty_batch', 400);
    });

    it("more unique addresses than the plan's batch size: 400 batch_too_large, nothing counted", async () => {
      const starter = await h.newKey('starter');
      const max = TEST_PLANS.starter.max_batch;
      const list = Array.from({ length: max + 1 }, (_, i) => `8.8.8.${i + 1}`);
      expectError(await h.call(path, { key: starter, json: list }), 'batch_too_large', 400);
      const usage = await h.usage(starter);
      expect(usage.monthly_quota.used).toBe(0);
      expect(usage.today.rejected).toBe(1);
      // exactly the maximum is fine, and duplicates do not count towards it
      const ok = await h.call(path, { key: starter, json: [...list.slice(0, max), list[0], `::ffff:${list[1]}`] });
      expect(ok.status).toBe(200);
      expect(ok.body.count).toBe(max);
    });

    it('free plan: 402 plan_required, nothing counted', async () => {
      const free = await h.newKey('free');
      expectError(await h.call(path, { key: free, json: ['8.8.8.8'] }), 'plan_required', 402);
      const usage = await h.usage(free);
      expect(usage.today[api]).toBe(0);
      expect(usage.today.rejected).toBe(1);
    });

    it('expired paid plan: 402 plan_required', async () => {
      const { key } = await h.createAccount('starter', { expires_at: new Date(h.clock.ms - 1000).toISOString() });
      expectError(await h.call(path, { key: key.secret, json: ['8.8.8.8'] }), 'plan_required', 402);
    });

    it('a batch of N needs N remaining: otherwise refused whole with 429 quota_exceeded and X-Quota-Reset', async () => {
      const starter = await h.newKey('starter');
      const limit = TEST_PLANS.starter.quota.pooled; // 20, max batch 5
      // use 18 of 20 (pooled across APIs)
      for (let i = 0; i < 3; i++)
        expect((await h.call('/v1/ip/batch', { key: starter, json: [1, 2, 3, 4, 5].map((n) => `9.9.${i}.${n}`) })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await h.call('/v1/mac/00:00:0c:12:34:56', { key: starter })).status).toBe(200);
      expect((await h.usage(starter)).monthly_quota).toEqual({ limit, used: 18, remaining: 2 });

      const refused = await h.call(path, { key: starter, json: ['8.8.8.8', '1.1.1.1', '9.9.9.9'] });
      expectError(refused, 'quota_exceeded', 429);
      expect(refused.headers.get('x-quota-reset')).toBe(String(nextUtcMonth(h.clock.ms)));
      const after = await h.usage(starter);
      expect(after.monthly_quota.used).toBe(18);
      expect(after.today.rejected).toBe(1);

      const fits = await h.call(path, { key: starter, json: ['8.8.8.8', '1.1.1.1', 'bad'] });
      expect(fits.status).toBe(200);
      expect(fits.body.meta.quota).toMatchObject({ used: 20, remaining: 0 });
      expect(fits.headers.get('x-quota-remaining')).toBe('0');
    });

    it('every result carries the full field set on a paid plan', async () => {
      const r = await h.call(path, { key: pro, json: ['8.8.8.8'] });
      if (api === 'ip') {
        expect(r.body.results[0]).toHaveProperty('security');
        expect(r.body.results[0]).toHaveProperty('network.range');
        expect(r.body.results[0].meta).toBeUndefined();
      }
      expect(r.body.meta.fields).toBe('full');
    });
  });
}

describe('batch body errors', () => {
  it('ips that is neither an array nor a string: 400 invalid_body', async () => {
    expectError(await h.call('/v1/ip/batch', { key: pro, json: { ips: 5 } }), 'invalid_body', 400);
    expectError(await h.call('/v1/ip/batch', { key: pro, json: { ips: { a: '8.8.8.8' } } }), 'invalid_body', 400);
  });

  it('a JSON string body is not a batch: 400, not 500', async () => {
    const r = await h.call('/v1/ip/batch', { key: pro, body: '"8.8.8.8"', headers: { 'content-type': 'application/json' } });
    expectError(r, 'invalid_body', 400);
  });

  it('a JSON number body: 400, not 500', async () => {
    const r = await h.call('/v1/ip/batch', { key: pro, body: '42', headers: { 'content-type': 'application/json' } });
    expectError(r, 'invalid_body', 400);
  });
});

describe('IP batch rendered from templates', () => {
  it('is byte for byte the object path (?pretty), for every kind of result, threats included', async () => {
    const listed = '45.133.1.7';
    expect((await h.call('/v1/blacklist/report', { key: pro, json: { ip: listed, threat_type: 'scanner' } })).status).toBe(201);
    const entries = [
      listed,
      '8.8.8.8',
      '8.8.8.8',
      '::ffff:1.1.1.1',
      '2a00:1450:4001:80b::200e',
      '10.1.2.3',
      'fe80::1',
      '3ffe::1',
      '192.0.0.9',
      'bogus',
      42,
      null,
      '2001:4860:4860::8888',
    ];
    const fast = await h.call('/v1/ip/batch', { key: pro, json: entries });
    const objects = await h.call('/v1/ip/batch?pretty', { key: pro, json: entries, tick: 0 });
    expect(fast.status).toBe(200);
    expect(objects.text).toContain('\n  ');
    expect(fast.text).toBe(JSON.stringify(fast.body));
    expect(JSON.stringify(fast.body.results)).toBe(JSON.stringify(objects.body.results));
    expect(fast.body.results[0].security).toMatchObject({ is_threat: true, threat_type: 'scanner' });
    expect(Object.keys(fast.body)).toEqual(['success', 'count', 'results', 'meta']);
  });
});
