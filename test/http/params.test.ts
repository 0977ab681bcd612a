/** SPEC 4.1 (docs/api.md "Query parameters"): the `fields`, `pretty` and `key` query parameters. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, Harness } from './harness.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await Harness.start();
  key = await h.newKey('business');
});

afterAll(async () => {
  await h?.stop();
});

describe('fields', () => {
  it('dot paths keep only the listed nested keys, plus success, ip, version, meta', async () => {
    const r = await h.call('/v1/ip/8.8.8.8?fields=location.city,network.asn', { key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['ip', 'location', 'meta', 'network', 'success', 'version']);
    expect(r.body.location).toEqual({ city: 'Mountain View' });
    expect(r.body.network).toEqual({ asn: 15169 });
    expect(r.body).toMatchObject({ success: true, ip: '8.8.8.8', version: 4 });
    expect(r.body.meta.quota).toBeDefined();
  });

  it('a top-level path keeps the whole object', async () => {
    const whole = await h.call('/v1/ip/8.8.8.8', { key });
    const r = await h.call('/v1/ip/8.8.8.8?fields=location', { key });
    expect(r.body.location).toEqual(whole.body.location);
    expect(r.body.network).toBeUndefined();
    expect(r.body.timezone).toBeUndefined();
  });

  it('unknown paths are ignored (only the always-kept keys remain)', async () => {
    const r = await h.call('/v1/ip/8.8.8.8?fields=nope,location.nope,a.b.c', { key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['ip', 'meta', 'success', 'version']);
  });

  it('unknown paths mixed with known ones keep the known ones', async () => {
    const r = await h.call('/v1/ip/8.8.8.8?fields=nope,timezone.id', { key });
    expect(r.body.timezone).toEqual({ id: 'America/Los_Angeles' });
  });

  it('always-kept keys cannot be dropped: fields=success,ip still has version and meta', async () => {
    const r = await h.call('/v1/ip/8.8.8.8?fields=ip', { key });
    expect(Object.keys(r.body).sort()).toEqual(['ip', 'meta', 'success', 'version']);
  });

  it('on MAC records, mac and found are always kept', async () => {
    const r = await h.call('/v1/mac/00:00:0c:12:34:56?fields=vendor.company', { key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['found', 'mac', 'meta', 'success', 'vendor']);
    expect(r.body.vendor).toEqual({ company: expect.stringMatching(/cisco/i) });
  });

  it('on the blacklist record', async () => {
    const r = await h.call('/v1/blacklist/8.8.8.8?fields=listed', { key });
    expect(r.body).toEqual({ success: true, ip: '8.8.8.8', listed: false, meta: expect.any(Object) });
  });

  it('applied to each batch result; failure entries stay whole; envelope keeps count and meta', async () => {
    const r = await h.call('/v1/ip/batch?fields=location.country_code', {
      key,
      json: { ips: ['8.8.8.8', '2a00:1450:4001:80b::200e', 'bad'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(3);
    expect(r.body.meta).toBeDefined();
    expect(r.body.results[0]).toEqual({ success: true, input: '8.8.8.8', ip: '8.8.8.8', version: 4, location: { country_code: 'US' } });
    expect(r.body.results[1]).toEqual({
      success: true,
      input: '2a00:1450:4001:80b::200e',
      ip: '2a00:1450:4001:80b::200e',
      version: 6,
      location: { country_code: 'DE' },
    });
    expect(r.body.results[2]).toEqual({
      success: false,
      input: 'bad',
      ip: 'bad',
      error: { code: 'invalid_ip', message: expect.any(String) },
    });
  });

  it('applied to each blacklist batch result', async () => {
    const r = await h.call('/v1/blacklist/batch?fields=nope', { key, json: ['8.8.8.8'] });
    expect(r.body.results).toEqual([{ success: true, input: '8.8.8.8', ip: '8.8.8.8' }]);
  });

  it('applied to the MAC search envelope (success and meta kept)', async () => {
    const r = await h.call('/v1/mac/search?q=cisco&fields=count', { key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['count', 'meta', 'success']);
  });

  it('empty fields means no filter', async () => {
    const whole = await h.call('/v1/ip/8.8.8.8', { key });
    const r = await h.call('/v1/ip/8.8.8.8?fields=', { key });
    expect(Object.keys(r.body).sort()).toEqual(Object.keys(whole.body).sort());
  });

  it('fields applies to /v1/usage too (success always kept)', async () => {
    const r = await h.call('/v1/usage?fields=today.ip', { key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, today: { ip: expect.any(Number) } });
  });
});

describe('pretty', () => {
  it('?pretty gives indented JSON equal to the compact answer', async () => {
    const compact = await h.call('/v1/ip/8.8.8.8?fields=location', { key, tick: 0 });
    const pretty = await h.call('/v1/ip/8.8.8.8?fields=location&pretty', { key, tick: 0 });
    expect(compact.text).not.toContain('\n');
    expect(pretty.text).toContain('\n  "success": true');
    expect(pretty.text).toMatch(/\n {4}"city"/);
    const { meta: m1, ...a } = compact.body;
    const { meta: m2, ...b } = pretty.body;
    void m1;
    void m2;
    expect(b).toEqual(a);
  });

  it('?pretty=1 and ?pretty=true are indented too', async () => {
    for (const q of ['pretty=1', 'pretty=true']) {
      const r = await h.call(`/v1/usage?${q}`, { key });
      expect(r.text).toContain('\n  ');
    }
  });

  it('error answers are indented with pretty', async () => {
    const r = await h.call('/v1/ip/nope?pretty', { key });
    expectError(r, 'invalid_ip');
    expect(r.text).toContain('\n  "success": false');
  });

  it('404 with pretty is indented', async () => {
    const r = await h.call('/v1/nope?pretty');
    expectError(r, 'not_found');
    expect(r.text).toContain('\n  ');
  });

  it('batch with pretty', async () => {
    const r = await h.call('/v1/ip/batch?pretty', { key, json: ['8.8.8.8'] });
    expect(r.status).toBe(200);
    expect(r.text).toContain('\n  "results": [');
  });
});

describe('key', () => {
  it('?key= authenticates every endpoint', async () => {
    for (const path of [
      '/v1/ip/8.8.8.8',
      '/v1/ip',
      '/v1/blacklist/8.8.8.8',
      '/v1/mac/00:00:0c:12:34:56',
      '/v1/mac/search?q=cisco',
      '/v1/usage',
      '/v1',
    ]) {
      const r = await h.call(path, { key, via: 'query' });
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
    }
    const batch = await h.call('/v1/ip/batch', { key, via: 'query', json: ['8.8.8.8'] });
    expect(batch.status).toBe(200);
  });

  it('?key= combines with fields and pretty', async () => {
    const r = await h.call('/v1/ip/8.8.8.8?fields=ip&pretty', { key, via: 'query' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('\n  ');
    expect(Object.keys(r.body).sort()).toEqual(['ip', 'meta', 'success', 'version']);
  });

  it('the key never appears in a record or its meta', async () => {
    const r = await h.call('/v1/ip/8.8.8.8?pretty', { key, via: 'query' });
    expect(r.text).not.toContain(key);
  });
});
