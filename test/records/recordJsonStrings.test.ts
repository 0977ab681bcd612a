/**
 * The WASM record writer on strings and numbers the built tables do not happen to hold: small
 * tables made here with hostile strings (quotes, backslashes, every control character, non-ASCII,
 * 4-byte UTF-8, lone surrogates as the pool stores them), hostile country facts and codes, any
 * coordinate, and datacenter addresses in the location's country and out of it, must give the
 * object path's JSON byte for byte, both levels, IPv4, IPv6 and MAC.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseIp } from '../../src/address/ipAddress.js';
import { LookupEngine } from '../../src/engine/lookupEngine.js';
import { withEnding } from '../../src/engine/recordText.js';
import { defaultWasmPath } from '../../src/engine/node.js';
import { ipRecord } from '../../src/records/ipRecord.js';
import { IpRecordRenderer } from '../../src/records/ipRecordJson.js';
import { macRecord } from '../../src/records/macRecord.js';
import { macRecordJson } from '../../src/records/macRecordJson.js';
import { packCountryCode } from '../../src/tables/format/containerLayout.js';
import { connectionTypes, writeIpTable, type IpTableParts } from '../../src/tables/format/ipTable.js';
import { AS_ROW, LOCATION_ROW } from '../../src/tables/format/ipTableLayout.js';
import { writeMacTable } from '../../src/tables/format/macTable.js';
import { StringPoolBuilder } from '../../src/tables/format/stringPool.js';
import type { CountryFacts } from '../../src/tables/format/tableMeta.js';
import { germany, tinyIp4, tinyIp6, tinyMac } from '../tables/tinyTables.js';

const wasm = fs.readFileSync(defaultWasmPath());

/** Strings with what JSON must escape or carry through: every control character, quotes, backslashes, non-ASCII. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom('"', '\\', '\u0000', '\u0008', '\t', '\n', '\f', '\r', '\u001f', '\u007f', 'é', '€', '😀', 'a'),
    maxLength: 30,
  }),
  fc.constantFrom('', 'São Paulo', 'Zürich "Altstadt"', 'C:\\path', '\ud800 lone', '東京', '\u0085\u2028\u2029'),
);

/**
 * Endings in place of a record's closing brace (a metered answer's meta): after a record in each
 * of the writer's forms (ASCII, Latin-1, UTF-16), and one too long to be placed in WASM memory.
 */
const ENDINGS = [
  ',"meta":{"plan":"business","fields":"full","quota":{"limit":1000000,"used":1,"remaining":999999}}}',
  '}',
  `,"pad":"${'x'.repeat(3000)}"}`,
];

/** Country codes as the tables pack them: two bytes, any, and the facts that may or may not know them. */
const code = fc.oneof(
  fc.constantFrom('DE', 'É"', '\\\u0001', 'x\u0000', 'ZZ'),
  fc.tuple(fc.integer({ min: 1, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([a, b]) => String.fromCharCode(a, b)),
);

const coordinate = fc.oneof(
  fc.double(),
  fc.double({ min: -180, max: 180, noNaN: true }),
  fc.constantFrom(NaN, -0, 0.00005, -0.00005, 12.34565, 1e-7, 89.99995, 99999.99995, 1e5, 1e9, Infinity),
);

const facts = fc.record({
  name: hostile,
  continent: hostile,
  continent_code: hostile,
  is_eu: fc.boolean(),
  calling_code: fc.option(hostile),
  tld: fc.option(hostile),
  currency: fc.record({ code: fc.option(hostile), symbol: fc.option(hostile) }),
  languages: fc.array(hostile, { maxLength: 3 }),
});

const location = fc.record({
  strings: fc.array(hostile, { minLength: 6, maxLength: 6 }),
  code,
  latitude: coordinate,
  longitude: coordinate,
});
const network = fc.record({
  organization: hostile,
  domain: hostile,
  asn: fc.nat(),
  connectionType: fc.integer({ min: 0, max: 16 }),
  // a hosting network's datacenter: in the first location row's country, in another, or none
  datacenter: fc.option(fc.record({ address: hostile.filter((text) => text !== ''), sameCountry: fc.boolean(), code })),
});
type HostileNetwork = { organization: string; domain: string; asn: number; connectionType: number; datacenter?: Datacenter | null };
type Datacenter = { address: string; sameCountry: boolean; code: string };

/** The tiny tables with their rows rewritten: `count` location and AS rows of hostile values, ranges as in the tiny tables. */
function hostileRows(
  parts: IpTableParts,
  locations: { strings: string[]; code: string; latitude: number; longitude: number }[],
  networks: HostileNetwork[],
  countries: CountryFacts[],
): IpTableParts {
  const strings = new StringPoolBuilder();
  const locationRows = new Uint8Array(LOCATION_ROW.bytes * 2);
  const lv = new DataView(locationRows.buffer);
  locations.slice(0, 2).forEach((l, r) => {
    const at = r * LOCATION_ROW.bytes;
    const [region, city, district, postal, zone] = l.strings;
    lv.setFloat64(at + LOCATION_ROW.latitude, l.latitude, true);
    lv.setFloat64(at + LOCATION_ROW.longitude, l.longitude, true);
    lv.setUint32(at + LOCATION_ROW.region, strings.intern(region), true);
    lv.setUint32(at + LOCATION_ROW.city, strings.intern(city), true);
    lv.setUint32(at + LOCATION_ROW.district, strings.intern(district), true);
    lv.setUint32(at + LOCATION_ROW.postalCode, strings.intern(postal), true);
    // a zone ICU knows, one it does not, or none
    lv.setUint32(at + LOCATION_ROW.timeZone, strings.intern(r === 0 ? 'Europe/Berlin' : zone), true);
    lv.setUint16(at + LOCATION_ROW.countryCode, packCountryCode(l.code), true);
    lv.setUint16(at + LOCATION_ROW.accuracyRadiusKm, r * 65535, true);
  });
  const asRows = new Uint8Array(AS_ROW.bytes);
  const av = new DataView(asRows.buffer);
  const n = networks[0];
  av.setUint32(AS_ROW.asn, n.asn >>> 0, true);
  av.setUint32(AS_ROW.organization, strings.intern(n.organization), true);
  av.setUint32(AS_ROW.domain, strings.intern(n.domain), true);
  av.setUint8(AS_ROW.connectionType, n.connectionType);
  if (n.datacenter) {
    av.setUint8(AS_ROW.connectionType, connectionTypes.indexOf('hosting'));
    av.setUint32(AS_ROW.datacenterAddress, strings.intern(n.datacenter.address), true);
    av.setUint16(AS_ROW.datacenterCountry, packCountryCode(n.datacenter.sameCountry ? locations[0].code : n.datacenter.code), true);
  }
  return { ...parts, countries, locationRows, asRows, strings: strings.sections() };
}

describe('the WASM record writer on hostile table contents', () => {
  it('writes IP records byte-equal to the object path', async () => {
    const renderer = new IpRecordRenderer();
    await fc.assert(
      fc.asyncProperty(
        fc.array(location, { minLength: 2, maxLength: 2 }),
        network,
        fc.array(fc.tuple(code, facts), { maxLength: 4 }),
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        async (locations, net, countryList, ms) => {
          // the codes of the rows are known to the facts half of the time
          const countries = [
            germany,
            ...countryList.map(([c, f]) => ({ code: c, ...f })),
            ...locations.slice(0, 1).map((l) => ({ ...germany, code: l.code })),
          ];
          const ip4 = writeIpTable(hostileRows(tinyIp4(), locations, [net], countries));
          const ip6 = writeIpTable(hostileRows(tinyIp6(), locations, [net], countries));
          const engine = await LookupEngine.create(wasm, { ip4, ip6 });
          const now = new Date(ms);
          for (const text of ['81.0.0.7', '81.0.1.9', '81.0.2.1', '2a00:1450:4001::1', '2a00:1450::'])
            for (const level of ['basic', 'full'] as const) {
              const json = JSON.stringify(ipRecord(engine.lookupIp(text), level, now));
              expect(renderer.render(engine, parseIp(text)!, level, now)).toBe(json);
              for (const ending of ENDINGS) {
                expect(renderer.render(engine, parseIp(text)!, level, now, undefined, ending)).toBe(withEnding(json, ending));
                const bytes = renderer.renderUtf8(engine, parseIp(text)!, level, now, undefined, ending);
                if (bytes !== null) expect(bytes).toBe(Buffer.from(withEnding(json, ending)).toString('latin1'));
              }
            }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes every decimal length of a number byte-equal to the object path', async () => {
    const renderer = new IpRecordRenderer();
    const boundaries = [0, 1, 4294967295];
    for (let power = 10; power <= 1e9; power *= 10) boundaries.push(power - 1, power);
    const place = { strings: ['Mitte', 'Berlin', '', '10117', ''], code: 'DE', latitude: 52.5, longitude: 13.4 };
    for (const asn of boundaries) {
      const net = { organization: 'Example', domain: 'example.com', asn, connectionType: 1 };
      const engine = await LookupEngine.create(wasm, { ip4: writeIpTable(hostileRows(tinyIp4(), [place, place], [net], [germany])) });
      const now = new Date(0);
      expect(renderer.render(engine, parseIp('81.0.0.7')!, 'full', now)).toBe(
        JSON.stringify(ipRecord(engine.lookupIp('81.0.0.7'), 'full', now)),
      );
    }
  });

  it("writes a datacenter's address at the full level, only where the range is in the datacenter's country", async () => {
    const renderer = new IpRecordRenderer();
    const now = new Date(0);
    const address = 'Kleyerstraße 90, Frankfurt am Main, 60326';
    for (const [country, expected] of [
      ['DE', { address, address_type: 'datacenter' }],
      ['US', {}],
    ] as const) {
      const engine = await LookupEngine.create(wasm, {
        ip4: writeIpTable(tinyIp4({ address, country })),
        ip6: writeIpTable(tinyIp6({ address, country })),
      });
      for (const text of ['81.0.0.7', '2a00:1450::1']) {
        // renderUtf8 answers only with the engine's own text: no object path behind it
        const written = renderer.renderUtf8(engine, parseIp(text)!, 'full', now);
        expect(written).not.toBeNull();
        const full = JSON.parse(Buffer.from(written!, 'latin1').toString('utf8'));
        expect(full).toEqual(ipRecord(engine.lookupIp(text), 'full', now));
        expect(full.network.connection_type).toBe('hosting');
        expect({ address: full.location.address, address_type: full.location.address_type }).toEqual({
          address: undefined,
          address_type: undefined,
          ...expected,
        });
        // the keys close the location object, after is_eu
        if (country === 'DE') expect(Object.keys(full.location).slice(-3)).toEqual(['is_eu', 'address', 'address_type']);
        expect(JSON.parse(renderer.render(engine, parseIp(text)!, 'basic', now)).location).not.toHaveProperty('address');
      }
    }
  });

  it('writes MAC records byte-equal to the object path', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 8, maxLength: 8 }), code, facts, async (texts, country, fact) => {
        const parts = tinyMac();
        const strings = new StringPoolBuilder();
        const companies = parts.companies.map((company, i) => ({
          ...company,
          name: i === 1 ? 0 : strings.intern(texts[i] || 'x'),
          address: strings.intern(texts[4 + i]),
          short_name: i === 1 ? 0 : strings.intern(texts[(i + 2) % 8] || 'y'),
          website: i === 1 ? 0 : strings.intern(texts[(i + 5) % 8]),
          total_ouis: i === 1 ? 0 : company.total_ouis,
          is_private: i === 1,
          country_code: i === 0 ? country : company.country_code,
        }));
        const specialRanges = parts.specialRanges.map((range, i) => ({
          ...range,
          name: strings.intern(texts[i] || 'n'),
          protocol: strings.intern(texts[(i + 3) % 8]),
          assigned_by: strings.intern(texts[(i + 6) % 8] || 'a'),
          reference: strings.intern(texts[(i + 1) % 8] || 'r'),
        }));
        const mac = writeMacTable({
          ...parts,
          companies,
          specialRanges,
          countries: [germany, { code: country, ...fact }],
          strings: strings.sections(),
        });
        const engine = await LookupEngine.create(wasm, { mac });
        for (const text of [
          '00:00:0c:12:34:56',
          '1c-87-74-10-00-01',
          '70b3.d500.1abc',
          '70b3d5',
          '525400123456',
          '00000c1',
          'ff:ff:ff:ff:ff:ff',
          '00:00:0c:07:ac:01',
          '01:00:5e:00:00:fb',
          '01-00-5E-80-00-00',
          '01:80:c2:00:00:00',
          '01005e',
        ])
          for (const level of ['basic', 'full'] as const) {
            const json = JSON.stringify(macRecord(engine.lookupMac(text), level));
            expect(macRecordJson(engine, text, level)).toBe(json);
            for (const ending of ENDINGS) expect(macRecordJson(engine, text, level, ending)).toBe(withEnding(json, ending));
          }
      }),
      { numRuns: 60 },
    );
  });
});
