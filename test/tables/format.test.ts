import fc from 'fast-check';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { instantiateEngine, wasmTableChecks } from '../../src/engine/wasmEngine.js';
import { jsTableChecks } from '../../src/tables/format/tableChecks.js';
import { bucketIndex } from '../../src/tables/format/ipTable.js';
import { AS_ROW, INDEX_BITS, NONE } from '../../src/tables/format/ipTableLayout.js';
import { defaultWasmPath } from '../../src/engine/node.js';
import { tableChecksum } from '../../src/tables/format/checksum.js';
import { TableFormatError, writeContainer } from '../../src/tables/format/container.js';
import { CHECKED_FROM, FIXED_HEADER_BYTES, HEADER, SECTION_ALIGN, SHARED_SECTION } from '../../src/tables/format/containerLayout.js';
import { IpTable, writeIpTable } from '../../src/tables/format/ipTable.js';
import { MacTable, writeMacTable, type CompanyInput, type MacTableParts } from '../../src/tables/format/macTable.js';
import { StringPool, StringPoolBuilder } from '../../src/tables/format/stringPool.js';
import { aligned, tinyIp4, tinyIp6, tinyMac } from './tinyTables.js';

const words = (n: bigint) =>
  Uint32Array.of(Number(n >> 96n), Number((n >> 64n) & 0xffffffffn), Number((n >> 32n) & 0xffffffffn), Number(n & 0xffffffffn));

/** Rewrites the stored checksum so that only the change under test can be refused. */
function resealed(bytes: Uint8Array): Uint8Array {
  const copy = aligned(bytes);
  const sum = tableChecksum(copy.subarray(CHECKED_FROM));
  const view = new DataView(copy.buffer);
  view.setUint32(HEADER.checksumHigh, parseInt(sum.slice(0, 8), 16), true);
  view.setUint32(HEADER.checksumLow, parseInt(sum.slice(8), 16), true);
  return copy;
}

describe('ip4 table round trip', () => {
  const table = new IpTable(aligned(writeIpTable(tinyIp4())), 'tiny-ip4.nlt', 4);

  it('keeps keys, rows, strings and header fields', () => {
    expect(table.rangeCount).toBe(4);
    expect([...table.keys!]).toEqual([0, 0x51000000, 0x51000100, 0x52000000]);
    expect(table.location(0)).toEqual({
      country_code: 'DE',
      region: 'Berlin',
      city: 'Berlin',
      district: 'Mitte',
      postal_code: '10115',
      latitude: 52.52,
      longitude: 13.405,
      accuracy_radius_km: 50,
      timezone: 'Europe/Berlin',
    });
    expect(table.location(1)).toEqual({
      country_code: null,
      region: null,
      city: null,
      district: null,
      postal_code: null,
      latitude: null,
      longitude: null,
      accuracy_radius_km: null,
      timezone: null,
    });
    expect(table.asRow(table.asRowOfNetwork(0))).toEqual({
      asn: 3320,
      organization: 'Deutsche Telekom AG',
      domain: 'telekom.de',
      connection_type: 'residential',
      asn_name: 'DTAG',
      isp: 'Telekom',
      org_domain: null,
      holding: null,
      holding_domain: null,
      datacenter_address: null,
      datacenter_country: null,
    });
    const start = new Uint32Array(1);
    const end = new Uint32Array(1);
    table.networkBlock(0, start, end);
    expect([start[0], end[0]]).toEqual([0x51000000, 0x510000ff]);
    expect(table.countries.get('DE')?.currency.symbol).toBe('€');
    expect(table.header.builtAt.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(table.header.sourceDate?.toISOString()).toBe('2025-12-01T00:00:00.000Z');
    expect(table.meta.kind).toBe('ip4');
  });

  it("keeps a hosting network's datacenter address and country", () => {
    const hosting = new IpTable(
      aligned(writeIpTable(tinyIp4({ address: 'Kleyerstraße 90, Frankfurt am Main, 60326', country: 'DE' }))),
      'dc.nlt',
      4,
    );
    expect(hosting.asRow(0)).toMatchObject({
      connection_type: 'hosting',
      datacenter_address: 'Kleyerstraße 90, Frankfurt am Main, 60326',
      datacenter_country: 'DE',
    });
  });

  it('builds the bucket index from the keys', () => {
    expect(table.index.length).toBe(2 ** 20 + 1);
    expect(table.index[0]).toBe(0);
    expect(table.index[0x51000]).toBe(1);
    expect(table.index[0x51001]).toBe(3);
    expect(table.index[0x52000]).toBe(3);
    expect(table.index[0x52001]).toBe(4);
    expect(table.index[2 ** 20]).toBe(4);
  });
});

describe('ip6 table round trip', () => {
  const table = new IpTable(aligned(writeIpTable(tinyIp6())), 'tiny-ip6.nlt', 6);

  it('keeps 128-bit keys and network blocks', () => {
    expect(table.rangeCount).toBe(3);
    const start = new Uint32Array(4);
    table.rangeStart(1, start);
    expect([...start]).toEqual([...words(0x2a001450n << 96n)]);
    const end = new Uint32Array(4);
    table.networkBlock(0, start, end);
    expect([...start]).toEqual([...words(0x2a001450n << 96n)]);
    expect([...end]).toEqual([...words((0x2a001451n << 96n) - 1n)]);
    expect(table.location(0).city).toBe('Berlin');
  });
});

describe('mac table round trip', () => {
  const table = new MacTable(aligned(writeMacTable(tinyMac())), 'tiny-mac.nlt');

  it('keeps blocks, companies and VM prefixes', () => {
    expect(table.blockCount).toBe(4);
    expect(table.block(3)).toEqual({ hi24: 0x70b3d5, lo24: 0x001000, bits: 36, type: 'MA-S', company: 3 });
    expect(table.company(3)).toEqual({
      name: 'Tiny MA-S GmbH',
      address: 'Tiny MA-S GmbH street 1',
      country_code: 'DE',
      total_ouis: 1,
      short_name: 'Tiny',
      website: null,
      is_private: false,
    });
    expect(table.vmPrefixes).toEqual([{ prefix: '525400', platform: 'QEMU/KVM', source: 'test' }]);
    expect(table.header.sourceDate?.toISOString()).toBe('2025-12-01T00:00:00.000Z');
  });

  /** The tiny table plus an IAB block of a named company and a private registration. */
  const withPrivate = (privateRow: Partial<CompanyInput> = {}): MacTableParts => {
    const parts = tinyMac();
    const strings = new StringPoolBuilder();
    const names = parts.companies.map((c) => ({
      ...c,
      name: strings.intern(`company ${c.total_ouis}`),
      address: 0,
      short_name: strings.intern('short'),
      website: 0,
    }));
    const iabCompany = {
      name: strings.intern('DEUTA-WERKE GmbH'),
      address: strings.intern('Paffrather Strasse 140'),
      country_code: 'DE',
      total_ouis: 1,
      short_name: strings.intern('Deuta-Werke'),
      website: 0,
      is_private: false,
    };
    const privateCompany = {
      name: 0,
      address: 0,
      country_code: null,
      total_ouis: 0,
      short_name: 0,
      website: 0,
      is_private: true,
      ...privateRow,
    };
    return {
      ...parts,
      sourceDate: null,
      companies: [...names, iabCompany, privateCompany],
      // the special ranges' string ids are the tiny table's pool, not this one's
      specialRanges: [],
      blocks: [
        ...parts.blocks,
        { hi24: 0x0050c2, lo24: 0x7d5000, type: 'IAB', company: 4 },
        { hi24: 0x100000, lo24: 0, type: 'MA-L', company: 5 },
      ],
      strings: strings.sections(),
    };
  };

  it('keeps IAB blocks, private rows and an unknown source date', () => {
    const t = new MacTable(aligned(writeMacTable(withPrivate())), 'private.nlt');
    expect(t.block(4)).toEqual({ hi24: 0x0050c2, lo24: 0x7d5000, bits: 36, type: 'IAB', company: 4 });
    expect(t.company(4)).toMatchObject({ name: 'DEUTA-WERKE GmbH', total_ouis: 1, short_name: 'Deuta-Werke', is_private: false });
    expect(t.company(5)).toEqual({
      name: null,
      address: null,
      country_code: null,
      total_ouis: 0,
      short_name: null,
      website: null,
      is_private: true,
    });
    expect(t.header.sourceDate).toBeNull();
  });

  it('refuses a private row with a name, count or short name, and a named row without them', () => {
    const strings = new StringPoolBuilder();
    const id = strings.intern('company 1');
    for (const row of [{ name: id }, { total_ouis: 2 }, { short_name: id }, { website: id }]) {
      expect(() => new MacTable(aligned(writeMacTable(withPrivate(row))), 'bad-private.nlt')).toThrow(
        /^bad-private\.nlt: company row 5: a private row has no name/,
      );
    }
    expect(() => new MacTable(aligned(writeMacTable(withPrivate({ is_private: false }))), 'unnamed.nlt')).toThrow(
      /^unnamed\.nlt: company row 5: /,
    );
  });
});

describe('mac table special ranges', () => {
  it('round-trips the ranges in order, with their strings and a null protocol', () => {
    const table = new MacTable(aligned(writeMacTable(tinyMac())), 'tiny-mac.nlt');
    expect(table.specialCount).toBe(5);
    expect(table.special(0)).toEqual({
      first: 0x00000c07ac00,
      last: 0x00000c07acff,
      name: 'HSRP virtual router address',
      protocol: 'HSRP',
      assigned_by: 'Cisco',
      reference: 'RFC 2281',
    });
    expect(table.special(1)).toMatchObject({ first: 0x01005e000000, last: 0x01005effffff, protocol: null });
    expect(table.special(4)).toMatchObject({ first: 0xffffffffffff, last: 0xffffffffffff, name: 'Broadcast' });
  });

  it('round-trips any apart or nested ranges at the edges of the 48-bit space', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 2 ** 48 - 1 }), { minLength: 1, maxLength: 12 }), (points) => {
        // sorted distinct points paired from the outside in are nested ranges; a middle one stands alone
        const sorted = [...points].sort((a, b) => a - b);
        const ranges: { first: number; last: number }[] = [];
        for (let i = 0, j = sorted.length - 1; i <= j; i++, j--) ranges.push({ first: sorted[i], last: sorted[j] });
        const parts = tinyMac();
        const name = parts.specialRanges[0].name;
        parts.specialRanges = ranges.map((r) => ({ ...r, name, protocol: 0, assigned_by: name, reference: name }));
        const table = new MacTable(aligned(writeMacTable(parts)), 'nested.nlt');
        expect(Array.from({ length: table.specialCount }, (_, r) => table.special(r)).map(({ first, last }) => ({ first, last }))).toEqual(
          ranges,
        );
      }),
      { numRuns: 200 },
    );
  });

  /** The tiny table with its special ranges changed by `change`. */
  const withSpecial = (change: (ranges: MacTableParts['specialRanges']) => void): Uint8Array => {
    const parts = tinyMac();
    change(parts.specialRanges);
    return aligned(writeMacTable(parts));
  };
  const refusals: [string, (ranges: MacTableParts['specialRanges']) => void, RegExp][] = [
    ['a range past 48 bits', (r) => (r[4].last = 2 ** 48), /row 4 does not hold 48-bit bounds in order/],
    ['last before first', (r) => (r[3].last = r[3].first - 1), /row 3 does not hold 48-bit bounds in order/],
    ['rows out of order', (r) => r.reverse(), /row 1 is out of order/],
    ['an inner range before its outer one', (r) => ([r[1], r[2]] = [r[2], r[1]]), /row 2 is out of order/],
    ['the same range twice', (r) => (r[2] = { ...r[1] }), /row 2 is out of order/],
    [
      'overlapping ranges',
      (r) => Object.assign(r[2], { first: 0x01005e800000, last: 0x0180c2000000 }),
      /row 2 overlaps row 1 without being inside it/,
    ],
    ['a range without a name', (r) => (r[0].name = 0), /row 0 has a bad or missing string id/],
    ['a string id past the pool', (r) => (r[0].protocol = 99_999), /row 0 has a bad or missing string id/],
  ];
  for (const [name, change, reason] of refusals) {
    it(`refuses ${name}`, () => {
      expect(() => new MacTable(withSpecial(change), 'special.nlt')).toThrow(new RegExp(`^special\\.nlt: special range ${reason.source}`));
    });
  }
});

describe('string pool', () => {
  it('round-trips any strings, with id 0 as null', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' })), (values) => {
        const builder = new StringPoolBuilder();
        const ids = values.map((v) => builder.intern(v));
        const { offsets, bytes } = builder.sections();
        const pool = new StringPool(offsets, bytes, 'pool');
        values.forEach((v, i) => expect(pool.get(ids[i])).toBe(v === '' ? null : v));
      }),
    );
  });
});

describe('refusals', () => {
  const kinds = [
    { name: 'ip4.nlt', bytes: writeIpTable(tinyIp4()), open: (b: Uint8Array, f: string) => new IpTable(b, f, 4) },
    { name: 'ip6.nlt', bytes: writeIpTable(tinyIp6()), open: (b: Uint8Array, f: string) => new IpTable(b, f, 6) },
    { name: 'mac.nlt', bytes: writeMacTable(tinyMac()), open: (b: Uint8Array, f: string) => new MacTable(b, f) },
  ];

  for (const kind of kinds) {
    const refuse = (bytes: Uint8Array, reason: RegExp) => {
      let error: unknown;
      try {
        kind.open(bytes, `/tables/${kind.name}`);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TableFormatError);
      expect((error as Error).message).toMatch(new RegExp(`^/tables/${kind.name.replace('.', '\\.')}: `));
      expect((error as Error).message).toMatch(reason);
    };

    describe(kind.name, () => {
      it('is refused when truncated anywhere', () => {
        const header = FIXED_HEADER_BYTES;
        for (const length of [0, 10, header - 1, header, 64, kind.bytes.byteLength - SECTION_ALIGN, kind.bytes.byteLength - 1]) {
          refuse(aligned(kind.bytes.subarray(0, length)), /truncated|header length|checksum/);
        }
      });

      it('is refused with any single bit flipped', () => {
        fc.assert(
          fc.property(fc.nat({ max: kind.bytes.byteLength * 8 - 1 }), (bit) => {
            const copy = aligned(kind.bytes);
            copy[bit >>> 3] ^= 1 << (bit & 7);
            refuse(copy, /./);
          }),
          { numRuns: 500 },
        );
      });

      it('is refused when its checksum is wrong', () => {
        const copy = aligned(kind.bytes);
        copy[copy.byteLength - 1] ^= 0x80;
        refuse(copy, /checksum mismatch/);
      });

      it('is refused in an unsupported format version', () => {
        const copy = aligned(kind.bytes);
        // version 1: the AS rows of 16 bytes, before the network identity
        new DataView(copy.buffer).setUint16(HEADER.formatVersion, 1, true);
        refuse(copy, /format version 1 is not supported \(this build reads version 2\)/);
      });

      it('is refused when it is not a table at all', () => {
        refuse(aligned(new TextEncoder().encode('{"not":"a table"} padded to be long enough for a header....')), /not a netlookup table/);
      });
    });
  }

  it('refuses a table of the wrong kind, naming both kinds', () => {
    expect(() => new MacTable(aligned(writeIpTable(tinyIp4())), 'ip4.nlt')).toThrow(
      /^ip4\.nlt: wrong table kind: holds ip4, expected mac$/,
    );
    expect(() => new IpTable(aligned(writeIpTable(tinyIp6())), 'ip6.nlt', 4)).toThrow(
      /^ip6\.nlt: wrong table kind: holds ip6, expected ip4$/,
    );
  });

  it('validates content even when the checksum matches (keys out of order)', () => {
    const parts = tinyIp4();
    parts.keys = Uint32Array.of(0, 0x51000100, 0x51000000, 0x52000000);
    expect(() => new IpTable(resealed(writeIpTable(parts)), 'bad-order.nlt', 4)).toThrow(
      /^bad-order\.nlt: (range keys not ascending|bucket index)/,
    );
  });

  it('validates content even when the checksum matches (row out of range)', () => {
    const parts = tinyIp4();
    parts.rangeLocation = Uint32Array.of(NONE, 0, 7, NONE);
    expect(() => new IpTable(resealed(writeIpTable(parts)), 'bad-row.nlt', 4)).toThrow(
      /^bad-row\.nlt: range 2 points to location row 7 of 2$/,
    );
  });

  it('validates the AS rows: every identity string id in range, the zero byte zero, a datacenter whole and only for hosting', () => {
    const datacenter = { address: '21715 Filigree Ct, Ashburn, VA, 20147', country: 'US' };
    for (const [field, value, bytes, reason, hosting] of [
      [AS_ROW.holdingDomain, 0xffff, 4, /^bad-as\.nlt: AS row 0 has a bad string id$/, false],
      [AS_ROW.asName, 0xffff, 4, /^bad-as\.nlt: AS row 0 has a bad string id$/, false],
      [AS_ROW.datacenterAddress, 0xffff, 4, /^bad-as\.nlt: AS row 0 has a bad string id$/, true],
      [AS_ROW.connectionType + 1, 1, 1, /^bad-as\.nlt: AS row 0 has bytes set that must be zero$/, false],
      [
        AS_ROW.datacenterAddress,
        1,
        4,
        /^bad-as\.nlt: AS row 0 has a datacenter address without its country or a country without an address$/,
        false,
      ],
      [
        AS_ROW.datacenterCountry,
        0,
        2,
        /^bad-as\.nlt: AS row 0 has a datacenter address without its country or a country without an address$/,
        true,
      ],
      [AS_ROW.connectionType, 1, 1, /^bad-as\.nlt: AS row 0 has a datacenter address but is not a hosting network$/, true],
    ] as const) {
      const parts = hosting ? tinyIp4(datacenter) : tinyIp4();
      const view = new DataView(parts.asRows.buffer);
      if (bytes === 4) view.setUint32(field, value, true);
      else if (bytes === 2) view.setUint16(field, value, true);
      else view.setUint8(field, value);
      expect(() => new IpTable(resealed(writeIpTable(parts)), 'bad-as.nlt', 4)).toThrow(reason);
    }
  });

  it('refuses a missing section', () => {
    const meta = { id: SHARED_SECTION.meta, count: 0, bytes: new TextEncoder().encode('{}') };
    const bytes = writeContainer('ip4', new Date(), new Date(), [meta]);
    expect(() => new IpTable(aligned(bytes), 'sparse.nlt', 4)).toThrow(/^sparse\.nlt: section CTRY is missing$/);
  });
});

describe('load-time checks: WASM and TypeScript agree', () => {
  const setup = async () => {
    const wasm = await instantiateEngine(fs.readFileSync(defaultWasmPath()));
    wasm.memory.grow(96);
    const base = wasm.heapBase() + 16 - (wasm.heapBase() % 16);
    /** copies arrays into WASM memory one after another and returns views on the copies */
    const place = <T extends Uint32Array>(...arrays: T[]): Uint32Array[] => {
      let at = base;
      return arrays.map((a) => {
        const view = new Uint32Array(wasm.memory.buffer, at, a.length);
        view.set(a);
        at += Math.ceil((a.byteLength + 1) / 16) * 16;
        return view;
      });
    };
    return { wasm, checks: wasmTableChecks(wasm), place, base };
  };

  it('checksum', async () => {
    const { wasm, checks, base } = await setup();
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 1 << 20 }).map((a) => a.subarray(0, a.length - (a.length % 16))),
        (data) => {
          new Uint8Array(wasm.memory.buffer).set(data, base);
          expect(checks.checksum(new Uint8Array(wasm.memory.buffer, base, data.byteLength))).toBe(tableChecksum(aligned(data)));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('row references', async () => {
    const { checks, place } = await setup();
    const rowReference = fc.oneof(fc.nat({ max: 100 }), fc.constant(NONE));
    fc.assert(
      fc.property(fc.array(rowReference, { maxLength: 200_000 }), fc.nat({ max: 120 }), (rows, limit) => {
        const [inWasm] = place(Uint32Array.from(rows));
        expect(checks.firstRowAtOrAbove(inWasm, limit)).toBe(jsTableChecks.firstRowAtOrAbove(Uint32Array.from(rows), limit));
      }),
      { numRuns: 50 },
    );
  });

  it('ip4 keys and bucket index, valid and damaged', async () => {
    const { checks, place } = await setup();
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat({ max: 0xffffffff }), { minLength: 1, maxLength: 150_000 }),
        fc.nat(),
        fc.nat(),
        (raw, damageAt, how) => {
          const keys = Uint32Array.from([0, ...raw.filter((k) => k !== 0)]).sort();
          const index = bucketIndex(4, keys);
          if (how % 3 === 1) keys[damageAt % keys.length] = keys[(damageAt + 1) % keys.length];
          if (how % 3 === 2) index[damageAt % index.length] += 1;
          const [k, i] = place(keys, index);
          const shift = 32 - INDEX_BITS[4];
          expect(checks.firstBadKey4(k, i, shift)).toBe(jsTableChecks.firstBadKey4(keys, index, shift));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('ip6 keys and bucket index, valid and damaged', async () => {
    const { checks, place } = await setup();
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }), { maxLength: 20_000 }),
        fc.nat(),
        fc.nat(),
        (raw, damageAt, how) => {
          const sorted = [0n, ...raw].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          const hi = BigUint64Array.from(sorted, (k) => k >> 64n);
          const lo = BigUint64Array.from(sorted, (k) => k & ((1n << 64n) - 1n));
          const index = bucketIndex(6, { hi, lo });
          if (how % 3 === 1 && sorted.length > 1) {
            lo[damageAt % sorted.length] = lo[(damageAt + 1) % sorted.length];
            hi[damageAt % sorted.length] = hi[(damageAt + 1) % sorted.length];
          }
          if (how % 3 === 2) index[damageAt % index.length] += 1;
          const asU32 = (a: BigUint64Array) => new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
          const [h, l, i] = place(asU32(hi), asU32(lo), index);
          const shift = 64 - INDEX_BITS[6];
          expect(checks.firstBadKey6(h, l, i, shift)).toBe(jsTableChecks.firstBadKey6(asU32(hi), asU32(lo), index, shift));
        },
      ),
      { numRuns: 40 },
    );
  });
});
