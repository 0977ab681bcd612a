/** Small hand-made tables for format tests: every field set to a value a test can check. */
import fs from 'node:fs';
import { LookupEngine } from '../../src/engine/lookupEngine.js';
import { defaultWasmPath } from '../../src/engine/node.js';
import { packCountryCode } from '../../src/tables/format/containerLayout.js';
import { connectionTypes, writeIpTable, type IpTableParts } from '../../src/tables/format/ipTable.js';
import { ADDRESS6, AS_ROW, LOCATION_ROW, NETWORK_ROW, NONE } from '../../src/tables/format/ipTableLayout.js';
import { writeMacTable, type MacTableParts } from '../../src/tables/format/macTable.js';
import { StringPoolBuilder } from '../../src/tables/format/stringPool.js';
import type { CountryFacts, TableMeta } from '../../src/tables/format/tableMeta.js';

export const germany: CountryFacts = {
  code: 'DE',
  name: 'Germany',
  continent: 'Europe',
  continent_code: 'EU',
  is_eu: true,
  calling_code: '+49',
  tld: '.de',
  currency: { code: 'EUR', symbol: '€' },
  languages: ['German'],
};

const meta = (kind: string): TableMeta => ({
  kind,
  built_at: '2026-01-01T00:00:00.000Z',
  builder_version: 'test',
  sources: [],
  counts: { rows: 1 },
});

function locationRows(strings: StringPoolBuilder): Uint8Array {
  const row = LOCATION_ROW;
  const rows = new Uint8Array(row.bytes * 2);
  const v = new DataView(rows.buffer);
  v.setFloat64(row.latitude, 52.52, true);
  v.setFloat64(row.longitude, 13.405, true);
  v.setUint32(row.region, strings.intern('Berlin'), true);
  v.setUint32(row.city, strings.intern('Berlin'), true);
  v.setUint32(row.postalCode, strings.intern('10115'), true);
  v.setUint32(row.timeZone, strings.intern('Europe/Berlin'), true);
  v.setUint16(row.countryCode, packCountryCode('DE'), true);
  v.setUint16(row.accuracyRadiusKm, 50, true);
  v.setUint32(row.district, strings.intern('Mitte'), true);
  v.setFloat64(row.bytes + row.latitude, NaN, true);
  v.setFloat64(row.bytes + row.longitude, NaN, true);
  return rows;
}

/** A datacenter for the tiny tables' AS row, which then is a hosting network. */
export interface TinyDatacenter {
  address: string;
  country: string;
}

function asRows(strings: StringPoolBuilder, datacenter?: TinyDatacenter): Uint8Array {
  const rows = new Uint8Array(AS_ROW.bytes);
  const v = new DataView(rows.buffer);
  v.setUint32(AS_ROW.asn, 3320, true);
  v.setUint32(AS_ROW.organization, strings.intern('Deutsche Telekom AG'), true);
  v.setUint32(AS_ROW.domain, strings.intern('telekom.de'), true);
  v.setUint8(AS_ROW.connectionType, datacenter ? connectionTypes.indexOf('hosting') : 1);
  v.setUint32(AS_ROW.asName, strings.intern('DTAG'), true);
  v.setUint32(AS_ROW.isp, strings.intern('Telekom'), true);
  if (datacenter) {
    v.setUint16(AS_ROW.datacenterCountry, packCountryCode(datacenter.country), true);
    v.setUint32(AS_ROW.datacenterAddress, strings.intern(datacenter.address), true);
  }
  return rows;
}

/** ip4: 0.0.0.0 none, 81.0.0.0 → Berlin + AS3320 (network 81.0.0.0–81.0.0.255), 81.0.1.0 → row 1, 82.0.0.0 none. */
export function tinyIp4(datacenter?: TinyDatacenter): IpTableParts {
  const strings = new StringPoolBuilder();
  const row = NETWORK_ROW[4];
  const networkRows = new Uint8Array(row.bytes);
  const nv = new DataView(networkRows.buffer);
  nv.setUint32(row.first, 0x51000000, true);
  nv.setUint32(row.last, 0x510000ff, true);
  nv.setUint32(row.asRow, 0, true);
  return {
    family: 4,
    builtAt: new Date('2026-01-01T00:00:00Z'),
    sourceDate: new Date('2025-12-01T00:00:00Z'),
    meta: meta('ip4'),
    countries: [germany],
    keys: Uint32Array.of(0, 0x51000000, 0x51000100, 0x52000000),
    rangeLocation: Uint32Array.of(NONE, 0, 1, NONE),
    rangeNetwork: Uint32Array.of(NONE, 0, NONE, NONE),
    locationRows: locationRows(strings),
    networkRows,
    asRows: asRows(strings, datacenter),
    strings: strings.sections(),
  };
}

/** ip6: :: none, 2a00:1450:: → Berlin + AS3320 (network 2a00:1450::/32), 2a00:1451:: none. */
export function tinyIp6(datacenter?: TinyDatacenter): IpTableParts {
  const strings = new StringPoolBuilder();
  const row = NETWORK_ROW[6];
  const networkRows = new Uint8Array(row.bytes);
  const nv = new DataView(networkRows.buffer);
  nv.setBigUint64(row.first + ADDRESS6.high, 0x2a00145000000000n, true);
  nv.setBigUint64(row.last + ADDRESS6.high, 0x2a001450ffffffffn, true);
  nv.setBigUint64(row.last + ADDRESS6.low, 0xffffffffffffffffn, true);
  return {
    family: 6,
    builtAt: new Date('2026-01-01T00:00:00Z'),
    sourceDate: new Date('2025-12-01T00:00:00Z'),
    meta: meta('ip6'),
    countries: [germany],
    keys: { hi: BigUint64Array.of(0n, 0x2a00145000000000n, 0x2a00145100000000n), lo: BigUint64Array.of(0n, 0n, 0n) },
    rangeLocation: Uint32Array.of(NONE, 0, NONE),
    rangeNetwork: Uint32Array.of(NONE, 0, NONE),
    locationRows: locationRows(strings),
    networkRows,
    asRows: asRows(strings, datacenter),
    strings: strings.sections(),
  };
}

/**
 * mac: MA-L 00000C (Cisco), MA-M 1C87741 only (no MA-L parent), MA-S 70B3D5001 under MA-L 70B3D5;
 * special ranges: HSRP inside Cisco's block, IANA's multicast block with IPv4 multicast inside it,
 * the Bridge Group Address and broadcast.
 */
export function tinyMac(): MacTableParts {
  const strings = new StringPoolBuilder();
  const company = (name: string, country: string | null, total: number) => ({
    name: strings.intern(name),
    address: strings.intern(`${name} street 1`),
    country_code: country,
    total_ouis: total,
    short_name: strings.intern(name.split(' ')[0]),
    website: strings.intern(null),
    is_private: false,
  });
  return {
    builtAt: new Date('2026-01-01T00:00:00Z'),
    sourceDate: new Date('2025-12-01T00:00:00Z'),
    meta: meta('mac'),
    countries: [germany],
    companies: [
      company('Cisco Systems, Inc', 'US', 1),
      company('SIGFOX', 'FR', 1),
      company('IEEE Registration Authority', 'US', 1),
      company('Tiny MA-S GmbH', 'DE', 1),
    ],
    blocks: [
      { hi24: 0x00000c, lo24: 0, type: 'MA-L', company: 0 },
      { hi24: 0x1c8774, lo24: 0x100000, type: 'MA-M', company: 1 },
      { hi24: 0x70b3d5, lo24: 0, type: 'MA-L', company: 2 },
      { hi24: 0x70b3d5, lo24: 0x001000, type: 'MA-S', company: 3 },
    ],
    vmPrefixes: [{ prefix: '525400', platform: 'QEMU/KVM', source: 'test' }],
    specialRanges: [
      special(0x00000c07ac00, 0x00000c07acff, 'HSRP virtual router address', 'HSRP', 'Cisco', 'RFC 2281'),
      special(0x01005e000000, 0x01005effffff, 'IANA multicast address block', null, 'IANA', 'RFC 7042'),
      special(0x01005e000000, 0x01005e7fffff, 'IPv4 multicast', 'IPv4', 'IANA', 'RFC 1112'),
      special(0x0180c2000000, 0x0180c2000000, 'Bridge Group Address', 'STP, RSTP, MSTP', 'IEEE', 'IEEE Std 802.1D'),
      special(0xffffffffffff, 0xffffffffffff, 'Broadcast', null, 'IEEE', 'IEEE Std 802'),
    ],
    strings: strings.sections(),
  };

  function special(first: number, last: number, name: string, protocol: string | null, assignedBy: string, reference: string) {
    return {
      first,
      last,
      name: strings.intern(name),
      protocol: strings.intern(protocol),
      assigned_by: strings.intern(assignedBy),
      reference: strings.intern(reference),
    };
  }
}

/** A copy of `bytes` at a 16-byte aligned offset, as the readers require. */
export function aligned(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(new ArrayBuffer(bytes.byteLength));
  copy.set(bytes);
  return copy;
}

/** The engine over the three tiny tables, for tests that need some table but not the built ones. */
export async function tinyEngine(): Promise<LookupEngine> {
  return LookupEngine.create(fs.readFileSync(defaultWasmPath()), {
    ip4: aligned(writeIpTable(tinyIp4())),
    ip6: aligned(writeIpTable(tinyIp6())),
    mac: aligned(writeMacTable(tinyMac())),
  });
}
