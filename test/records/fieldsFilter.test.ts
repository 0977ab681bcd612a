import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALWAYS_KEPT, applyFields, parseFields } from '../../src/records/fieldsFilter.js';
import { ipRecord } from '../../src/records/ipRecord.js';
import { tinyEngine } from '../tables/tinyTables.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** out is a sub-record of input: every key of out exists in input, objects recursively, leaves equal. */
function isSubRecord(out: unknown, input: unknown): boolean {
  if (!isObject(out) || !isObject(input)) return JSON.stringify(out) === JSON.stringify(input);
  return Object.keys(out).every((k) => Object.hasOwn(input, k) && (Object.is(out[k], input[k]) || isSubRecord(out[k], input[k])));
}

const KEYS = ['success', 'ip', 'mac', 'version', 'meta', 'location', 'city', 'network', 'asn', 'a', 'b', 'c'];
const key = fc.constantFrom(...KEYS);
const { tree } = fc.letrec<{ tree: Json }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<Json>(null, true, false, 0, 1.5, 'x', ''),
    fc.array(tie('tree'), { maxLength: 2 }),
    fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
  ),
}));
const record = fc.dictionary(key, tree, { maxKeys: 8 });
const path = fc.array(key, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
const param = fc
  .array(fc.tuple(path, fc.constantFrom('', ' ', '  ')), { maxLength: 6 })
  .map((paths) => paths.map(([p, ws]) => `${ws}${p}${ws}`).join(','));

describe('parseFields', () => {
  it('absent or empty parameters mean no filter', () => {
    expect(parseFields(undefined)).toBeNull();
    expect(parseFields('')).toBeNull();
    expect(parseFields(' , ,, ')).toBeNull();
    expect(parseFields('a..b,.')).toBeNull();
  });

  it('tolerates whitespace around commas and dots', () => {
    expect(parseFields(' location . city ,network ,  ')!.paths).toEqual(['location.city', 'network']);
  });
});

describe('applyFields on examples', () => {
  const rec = {
    success: true,
    ip: '8.8.8.8',
    version: 4,
    location: { city: 'Mountain View', country: 'United States', nested: { deep: 1, other: 2 } },
    network: { asn: 15169 },
    country_info: null,
    list: [1, 2],
    meta: { plan: 'pro' },
  };

  it('selects subtrees by dot paths and keeps the always-kept keys', () => {
    expect(applyFields(rec, parseFields('location.city'))).toEqual({
      success: true,
      ip: '8.8.8.8',
      version: 4,
      location: { city: 'Mountain View' },
      meta: { plan: 'pro' },
    });
    expect(applyFields(rec, parseFields('location'))).toMatchObject({ location: rec.location });
    expect(applyFields(rec, parseFields('location.city,location'))).toMatchObject({ location: rec.location });
    expect(applyFields(rec, parseFields('location,location.city'))).toMatchObject({ location: rec.location });
    expect(applyFields(rec, parseFields('location.nested.deep, network'))).toEqual({
      success: true,
      ip: '8.8.8.8',
      version: 4,
      location: { nested: { deep: 1 } },
      network: { asn: 15169 },
      meta: { plan: 'pro' },
    });
  });

  it('ignores unknown paths, leaves no empty objects, keeps a null that a path goes through', () => {
    expect(applyFields(rec, parseFields('nope,location.nope,location.city.deeper,list.0'))).toEqual({
      success: true,
      ip: '8.8.8.8',
      version: 4,
      meta: { plan: 'pro' },
    });
    expect(applyFields(rec, parseFields('country_info.tld'))).toMatchObject({ country_info: null });
  });

  it('keeps record order and never changes the input', () => {
    const before = JSON.stringify(rec);
    const out = applyFields(rec, parseFields('network,location.city'));
    expect(Object.keys(out)).toEqual(['success', 'ip', 'version', 'location', 'network', 'meta']);
    expect(JSON.stringify(rec)).toBe(before);
  });

  it('keeps batch failure entries intact and returns the record itself without a filter', () => {
    const failure = { success: false, ip: 'nonsense', error: { code: 'invalid_ip', message: 'Invalid IP address.' } };
    expect(applyFields(failure, parseFields('location'))).toBe(failure);
    expect(applyFields(rec, null)).toBe(rec);
  });

  it("keeps what kind of answer a result is (found, reserved, message) and a batch result's input", () => {
    const notFound = { success: true, input: ' 3ffe::1', ip: '3ffe::1', version: 6, found: false, message: 'No data.' };
    expect(applyFields(notFound, parseFields('location.city'))).toEqual(notFound);
    const reserved = {
      success: true,
      ip: '10.0.0.1',
      version: 4,
      reserved: true,
      reserved_type: 'private',
      security: { is_private: true },
    };
    expect(applyFields(reserved, parseFields('location'))).toEqual({ success: true, ip: '10.0.0.1', version: 4, reserved: true });
    // only at the top level: a report's message is a field like any other
    expect(applyFields({ success: true, reports: [{ message: 'x' }], a: { message: 'y' } }, parseFields('nope'))).toEqual({
      success: true,
    });
  });

  it('filters an IP record the engine found', async () => {
    const engine = await tinyEngine();
    const full = ipRecord(engine.lookupIp('81.0.0.1'), 'full', new Date('2026-11-22T13:05:09Z'));
    const out = applyFields({ ...full, meta: { plan: 'pro' } }, parseFields('location.city,security.is_hosting,timezone'));
    expect(out).toEqual({
      success: true,
      ip: '81.0.0.1',
      version: 4,
      location: { city: 'Berlin' },
      timezone: { id: 'Europe/Berlin', utc_offset: '+01:00', is_dst: false, current_time: '2026-11-22T14:05:09+01:00' },
      security: { is_hosting: false },
      meta: { plan: 'pro' },
    });
  });
});

describe('applyFields properties', () => {
  it('the result is a sub-record of the input', () => {
    fc.assert(
      fc.property(record, param, (r, p) => isSubRecord(applyFields(r, parseFields(p)), r)),
      { numRuns: 3000 },
    );
  });

  it('always-kept top-level keys are kept', () => {
    fc.assert(
      fc.property(record, param, (r, p) => {
        const out = applyFields(r, parseFields(p)) as Record<string, unknown>;
        for (const k of ALWAYS_KEPT) if (Object.hasOwn(r, k) && !Object.is(out[k], r[k])) return false;
        return true;
      }),
      { numRuns: 3000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(record, param, (r, p) => {
        const filter = parseFields(p);
        const once = applyFields(r, filter);
        expect(applyFields(once, filter)).toEqual(once);
      }),
      { numRuns: 3000 },
    );
  });

  it('never adds keys and selecting every top-level key gives the record back', () => {
    fc.assert(
      fc.property(record, (r) => {
        const keys = Object.keys(r);
        if (keys.length === 0) return true;
        expect(applyFields(r, parseFields(keys.join(',')))).toEqual(r);
        return true;
      }),
      { numRuns: 1000 },
    );
  });

  it('a path keeps exactly what it names when it exists', () => {
    fc.assert(
      fc.property(record, path, (r, p) => {
        const out = applyFields(r, parseFields(p)) as Record<string, unknown>;
        const get = (v: unknown, parts: string[]): unknown =>
          parts.reduce<unknown>((node, part) => (isObject(node) && Object.hasOwn(node, part) ? node[part] : undefined), v);
        const parts = p.split('.');
        const want = get(r, parts);
        if (want !== undefined && parts.slice(0, -1).every((_, i) => isObject(get(r, parts.slice(0, i + 1))))) {
          expect(get(out, parts)).toEqual(want);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
