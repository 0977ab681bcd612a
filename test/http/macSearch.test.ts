/**
 * MAC prefixes in every separator style, and the MAC search's blocks and pages, through a real
 * listening server: each result names a block whose lookup answers the same company.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, Harness } from './harness.js';

type Json = Record<string, any>;

let h: Harness;
let pro: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

/** Every match of a query, page by page. */
async function allPages(query: string, limit = 100): Promise<{ total: number; results: Json[] }> {
  const results: Json[] = [];
  let total = -1;
  for (let offset = 0; total === -1 || offset < total; offset += limit) {
    const page = await h.call(`/v1/mac/search?q=${encodeURIComponent(query)}&offset=${offset}&limit=${limit}`, { key: pro });
    expect(page.status, page.text).toBe(200);
    if (total !== -1) expect(page.body.total, `${query} at ${offset}`).toBe(total);
    total = page.body.total;
    expect(page.body).toMatchObject({ offset, limit, count: page.body.results.length });
    expect(page.body.count).toBe(Math.min(limit, Math.max(0, total - offset)));
    results.push(...page.body.results);
    if (total === 0) break;
  }
  return { total, results };
}

describe('MAC prefixes in any separator style', () => {
  it('a 7- and a 9-digit prefix answer their MA-M and MA-S blocks in every form', async () => {
    const wilson = await h.call('/v1/mac/1006487', { key: pro });
    expect(wilson.body).toMatchObject({ found: true, oui: '10:06:48', normalized: null, block: { type: 'MA-M', start: '100648700000' } });
    for (const form of ['10:06:48:7', '10-06-48-7', '1006.487', '100648-7', '100648:7']) {
      const r = await h.call(`/v1/mac/${form}`, { key: pro });
      expect(r.status, form).toBe(200);
      expect({ ...r.body, mac: '', meta: null }, form).toEqual({ ...wilson.body, mac: '', meta: null });
      expect(r.body.mac).toBe(form);
    }
    const mas = await h.call('/v1/mac/70:B3:D5:00:1', { key: pro });
    expect(mas.body).toMatchObject({ found: true, block: { type: 'MA-S', start: '70B3D5001000', end: '70B3D5001FFF', size: 4096 } });
    for (const form of ['70B3D5001', '70-b3-d5-00-1', '70b3.d500.1', '70:B3:D5:00:10:00']) {
      expect((await h.call(`/v1/mac/${form}`, { key: pro })).body.vendor, form).toEqual(mas.body.vendor);
    }
  });

  it('fewer than 6 or more than 12 hex digits, or groups no form has, answer invalid_mac', async () => {
    for (const input of [
      '10:06:4',
      '10064',
      '1006.4',
      '10:06:48:70:00:00:1',
      '1006487000001',
      '10:06:48:7:',
      '10:06:48:7-0',
      '1:06:48:7',
      '10:064:87',
    ]) {
      expectError(await h.call(`/v1/mac/${encodeURIComponent(input)}`, { key: pro }), 'invalid_mac', 400);
    }
  });

  it('the invalid_mac message says what is wrong: mixed separators, a group of the wrong length, a non-hex character, the digit count', async () => {
    for (const [input, problem] of [
      ['3C:22-FB:12:34:56', 'it mixes separators (: and -)'],
      ['3C:22:FB:123:45', 'the group 123 has 3 digits'],
      ['3C:22:FB:12:34:5G', "'G' (character 17) is neither a hex digit nor a separator"],
      ['3C:22', 'it has 4 hex digits; it needs 6 to 12'],
      ['3C22FB1234567', 'it has 13 hex digits; it needs 6 to 12'],
    ]) {
      for (const pathAndQuery of [`/v1/mac/${encodeURIComponent(input)}`, `/v1/mac/${encodeURIComponent(input)}/?fields=vendor`]) {
        const r = await h.call(pathAndQuery, { key: pro });
        expectError(r, 'invalid_mac', 400);
        expect(r.body.error.message.startsWith(`Not a MAC address or prefix: ${problem}`), pathAndQuery).toBe(true);
      }
    }
  });

  it('the legacy lookup reads the same forms', async () => {
    const legacy = await h.call('/lookup?mac=10:06:48:7');
    const v1 = await h.call('/v1/mac/10:06:48:7', { key: pro });
    expect(legacy.body).toMatchObject({
      success: true,
      found: true,
      macAddress: { oui: '10:06:48' },
      vendor: { company: v1.body.vendor.company },
    });
    expectError(await h.call('/lookup?mac=10:06:4'), 'invalid_mac', 400);
  });
});

describe('MAC search', () => {
  it('each result carries its block: prefix, prefix length, registry and size', async () => {
    const r = await h.call('/v1/mac/search?q=raspberry', { key: pro });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, query: 'raspberry', total: r.body.results.length, offset: 0, limit: 100 });
    expect(r.body.results).toContainEqual({
      oui: '8C:1F:64',
      prefix: '8C:1F:64:34:A',
      prefix_length: 36,
      registry: 'MA-S',
      size: 4096,
      company: 'Raspberry Pi (Trading) Ltd',
      country_code: 'GB',
      block_type: 'MA-S',
    });
    const iab = await h.call('/v1/mac/search?q=deuta', { key: pro });
    const registries = new Set(iab.body.results.map((x: Json) => x.registry));
    expect([...registries].sort()).toEqual(['IAB', 'MA-M', 'MA-S']);
    for (const x of iab.body.results as Json[]) {
      expect(x.block_type).toBe(x.registry === 'IAB' ? 'MA-S' : x.registry);
      expect(x.size).toBe(2 ** (48 - x.prefix_length));
      expect(x.prefix.replaceAll(':', '')).toHaveLength(x.prefix_length / 4);
      expect(x.prefix.startsWith(x.oui)).toBe(true);
    }
  });

  it('looking up a result prefix answers the same company and block', async () => {
    for (const query of ['raspberry', 'deuta', 'registration authority', 'cisco', 'apple']) {
      const { total, results } = await allPages(query);
      expect(total, query).toBeGreaterThan(0);
      for (const x of results) {
        const r = await h.call(`/v1/mac/${x.prefix}`, { key: pro });
        expect(r.status, x.prefix).toBe(200);
        expect(r.body.vendor?.company, `${query}: ${x.prefix}`).toBe(x.company);
        expect(r.body.block, x.prefix).toMatchObject({ type: x.block_type, size: x.size });
        expect(r.body.block.start.startsWith(x.prefix.replaceAll(':', '')), x.prefix).toBe(true);
      }
    }
  });

  it('pages of any size concatenate to the whole list, in order, without duplicates', async () => {
    const whole = await allPages('sony');
    expect(whole.results).toHaveLength(whole.total);
    const keys = whole.results.map((x) => x.prefix);
    expect(new Set(keys).size).toBe(keys.length);
    const companies = whole.results.map((x) => x.company as string);
    expect(companies).toEqual([...companies].sort((a, b) => a.localeCompare(b, 'en')));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100 }), async (limit) => {
        expect((await allPages('sony', limit)).results).toEqual(whole.results);
      }),
      { numRuns: 8 },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: whole.total + 5 }), fc.integer({ min: 1, max: 100 }), async (offset, limit) => {
        const page = await h.call(`/v1/mac/search?q=sony&offset=${offset}&limit=${limit}`, { key: pro });
        expect(page.body.results).toEqual(whole.results.slice(offset, offset + limit));
        expect(page.body.total).toBe(whole.total);
      }),
      { numRuns: 30 },
    );
  });

  it('without paging asks for the first 100 of all matches', async () => {
    const r = await h.call('/v1/mac/search?q=apple', { key: pro });
    expect(r.body.total).toBeGreaterThan(100);
    expect(r.body).toMatchObject({ offset: 0, limit: 100, count: 100 });
    const rest = await h.call('/v1/mac/search?q=apple&offset=100', { key: pro });
    expect(rest.body.results[0]).not.toEqual(r.body.results[99]);
    expect(rest.body.count).toBe(Math.min(100, r.body.total - 100));
  });

  it('refuses an offset or limit that is not a whole number in range with invalid_input, uncounted', async () => {
    const key = await h.newKey('pro');
    for (const paging of [
      'limit=0',
      'limit=101',
      'limit=1000',
      'limit=-1',
      'limit=1.5',
      'limit=',
      'limit=ten',
      'offset=-1',
      'offset=',
      'offset=1e3',
      'offset=1000000000',
    ]) {
      const r = await h.call(`/v1/mac/search?q=apple&${paging}`, { key });
      expectError(r, 'invalid_input', 400);
      expect(r.body.error.message, paging).toMatch(/offset|limit/);
    }
    expect((await h.call('/v1/usage', { key })).body.today.mac).toBe(0);
    expectError(await h.call('/v1/mac/search?q=a&limit=0', { key }), 'invalid_query', 400);
    expectError(await h.call('/v1/mac/search?q=apple&limit=0', { key: await h.newKey('free') }), 'plan_required', 402);
  });

  it('the legacy reverse search keeps its shape', async () => {
    const r = await h.call('/lookup?vendor=raspberry');
    expect(Object.keys(r.body).sort()).toEqual(['count', 'found', 'prefixes', 'success', 'vendor']);
    expect(r.body.count).toBe(r.body.prefixes.length);
    for (const p of r.body.prefixes) expect(Object.keys(p).sort()).toEqual(['blockType', 'company', 'country', 'oui']);
    expect(r.body.prefixes).toContainEqual({ oui: '8C:1F:64', company: 'Raspberry Pi (Trading) Ltd', country: 'GB', blockType: 'MA-S' });
  });
});
