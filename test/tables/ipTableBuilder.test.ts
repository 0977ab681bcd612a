import { describe, expect, it } from 'vitest';
import { buildIpTable, mmdbLocations } from '../../src/tables/build/ipTableBuilder.js';
import type { AsnRange } from '../../src/tables/sources/asnCsv.js';
import type { CuratedAsn } from '../../src/tables/sources/curated.js';
import { IpTable, writeIpTable } from '../../src/tables/format/ipTable.js';
import type { MmdbFile } from '../../src/tables/sources/mmdb.js';
import type { PeeringDbDatacenter } from '../../src/tables/sources/peeringDb.js';
import { aligned, germany } from './tinyTables.js';

/** A city database without leaves: these tests look only at the network side of the table. */
const noLocations = { walk: () => {}, record: () => ({}) } as unknown as MmdbFile;

const ip = (text: string) => BigInt(text.split('.').reduce((n, octet) => n * 256 + Number(octet), 0));

const CSV_RANGES: AsnRange[] = [
  { start: ip('41.32.0.0'), end: ip('41.47.255.255'), asn: 8452, organization: 'TE-AS' },
  { start: ip('64.0.0.0'), end: ip('64.0.0.255'), asn: 64500, organization: 'Universidad Nacional Autonoma de Mexico' },
  { start: ip('65.0.0.0'), end: ip('65.0.3.255'), asn: 64501, organization: 'Net Global Srl' },
  { start: ip('66.0.0.0'), end: ip('66.0.0.255'), asn: 64502, organization: 'NAL-AS' },
];

function build(curated: Map<number, CuratedAsn>, asn: AsnRange[] = CSV_RANGES, datacenters?: Map<number, PeeringDbDatacenter>) {
  const { parts, stats } = buildIpTable({
    family: 4,
    locations: mmdbLocations(noLocations, 'dbip-flat'),
    asn,
    curatedAsn: curated,
    datacenters,
    anycast: [],
    countries: [germany],
    countryAreaKm2: () => null,
    timezoneAt: () => null,
    meta: { kind: 'ip4', built_at: '2026-01-01T00:00:00.000Z', builder_version: 'test', sources: [], counts: {} },
    builtAt: new Date('2026-01-01T00:00:00Z'),
    sourceDate: new Date('2026-01-01T00:00:00Z'),
    progress: () => {},
  });
  const table = new IpTable(aligned(writeIpTable(parts)), 'built-ip4.nlt', 4);
  const asRows = Array.from({ length: stats.asRows }, (_, row) => table.asRow(row));
  return { stats, asRows };
}

describe('network rows of a built ip table', () => {
  const curated = new Map<number, CuratedAsn>([
    [
      8452,
      {
        connection_type: 'residential',
        domain: 'te.eg',
        organization: 'Telecom Egypt',
        isp: 'WE',
        org_domain: null,
        holding: null,
        holding_domain: null,
      },
    ],
  ]);
  const noDatacenter = { datacenter_address: null, datacenter_country: null };
  const identity = { asn_name: null, isp: null, org_domain: null, holding: null, holding_domain: null, ...noDatacenter };
  const { stats, asRows } = build(curated);

  it('takes the curated type, else the name rule, else none, and the curated name in place of a handle', () => {
    expect(asRows).toEqual([
      {
        ...identity,
        asn: 8452,
        organization: 'Telecom Egypt',
        domain: 'te.eg',
        connection_type: 'residential',
        asn_name: 'TE-AS',
        isp: 'WE',
      },
      {
        ...identity,
        asn: 64500,
        organization: 'Universidad Nacional Autonoma de Mexico',
        domain: null,
        connection_type: 'education',
        isp: 'Universidad Nacional Autonoma de Mexico',
      },
      { ...identity, asn: 64501, organization: 'Net Global Srl', domain: null, connection_type: null, isp: 'Net Global Srl' },
      { ...identity, asn: 64502, organization: 'NAL-AS', domain: null, connection_type: null, asn_name: 'NAL-AS', isp: 'NAL-AS' },
    ]);
  });

  it('counts the addresses by where their type comes from, per rule, and those left with a handle', () => {
    expect(stats.connectionTypeAddresses).toEqual({ curated: 1048576n, rule: 256n, peeringdb: 0n, none: 1024n + 256n });
    expect(stats.ruleAddresses).toEqual({ 'university or school': 256n });
    expect(stats.handleAddresses).toEqual({ source: 1048576n + 256n, table: 256n });
  });

  it('lets a curated row win over a rule', () => {
    const overridden = build(
      new Map<number, CuratedAsn>([
        [
          64500,
          {
            connection_type: 'research',
            domain: null,
            organization: null,
            isp: null,
            org_domain: null,
            holding: null,
            holding_domain: null,
          },
        ],
      ]),
    );
    expect(overridden.asRows[1].connection_type).toBe('research');
    expect(overridden.stats.connectionTypeAddresses.rule).toBe(0n);
  });

  it('gives a hosting network its one datacenter, and no other network the one PeeringDB names', () => {
    const hosted = build(
      new Map(),
      [
        { start: ip('64.0.0.0'), end: ip('64.0.0.255'), asn: 64510, organization: 'Example Hosting GmbH' },
        { start: ip('65.0.0.0'), end: ip('65.0.0.255'), asn: 64500, organization: 'Universidad Nacional Autonoma de Mexico' },
      ],
      new Map([
        [64510, { address: 'Kleyerstraße 90, Frankfurt am Main, 60326', countryCode: 'DE' }],
        [64500, { address: 'Av. Universidad 3000, Ciudad de México, 04510', countryCode: 'MX' }],
      ]),
    );
    expect(hosted.asRows[0]).toMatchObject({
      connection_type: 'hosting',
      datacenter_address: 'Kleyerstraße 90, Frankfurt am Main, 60326',
      datacenter_country: 'DE',
    });
    // a university is not at a datacenter because PeeringDB lists it at one facility
    expect(hosted.asRows[1]).toMatchObject({ connection_type: 'education', datacenter_address: null, datacenter_country: null });
  });

  it('stores what a routed source says apart: the AS name, the organisation, the holding of a group of ASNs', () => {
    const routed = build(new Map(), [
      {
        start: ip('41.32.0.0'),
        end: ip('41.47.255.255'),
        asn: 8452,
        organization: 'Telecom Egypt',
        asName: 'TE-AS',
        organizationId: 'ORG-TE1-RIPE',
        holding: 'Telecom Egypt',
      },
      {
        start: ip('64.0.0.0'),
        end: ip('64.0.0.255'),
        asn: 64500,
        organization: 'Example Org',
        asName: 'EXAMPLE',
        organizationId: 'X-1',
        holding: null,
      },
    ]);
    expect(routed.asRows[0]).toMatchObject({
      organization: 'Telecom Egypt',
      asn_name: 'TE-AS',
      isp: 'Telecom Egypt',
      holding: 'Telecom Egypt',
      holding_domain: null,
    });
    expect(routed.asRows[1]).toMatchObject({ organization: 'Example Org', asn_name: 'EXAMPLE', holding: null });
  });
});

describe('location rows of a built ip table', () => {
  // Two records of one city: "Berlin (Mitte)" and "Berlin"; the first placed on 1.1.0.0/16, which
  // an anycast block (1.1.1.0/24) cuts in three.
  const records: Record<number, object> = {
    1: { country_code: 'DE', state1: 'Berlin', city: 'Berlin (Mitte)', postcode: '', latitude: 52.52, longitude: 13.4, timezone: '' },
    2: { country_code: 'DE', state1: 'Berlin', city: 'Berlin', postcode: '', latitude: 52.5, longitude: 13.3, timezone: '' },
  };
  const file = {
    walk: (_family: 4, visit: (words: Uint32Array, prefixLength: number, offset: number) => void) => {
      visit(Uint32Array.of(Number(ip('1.1.0.0'))), 16, 1);
      visit(Uint32Array.of(Number(ip('2.0.0.0'))), 8, 2);
    },
    record: (offset: number) => records[offset],
  } as unknown as MmdbFile;
  const { parts } = buildIpTable({
    family: 4,
    locations: mmdbLocations(file, 'dbip-flat'),
    asn: [],
    curatedAsn: new Map(),
    anycast: [{ family: 4, start: ip('1.1.1.0'), end: ip('1.1.1.255'), operator: 'Example DNS' }],
    countries: [germany],
    countryAreaKm2: () => 357_000,
    timezoneAt: () => 'Europe/Berlin',
    meta: { kind: 'ip4', built_at: '2026-01-01T00:00:00.000Z', builder_version: 'test', sources: [], counts: {} },
    builtAt: new Date('2026-01-01T00:00:00Z'),
    sourceDate: null,
    progress: () => {},
  });
  const table = new IpTable(aligned(writeIpTable(parts)), 'built-ip4.nlt', 4);
  const at = (text: string) => table.location(table.rangeLocation[rangeOf(table, Number(ip(text)))]);

  it('splits the district off where the source names the city on its own', () => {
    expect(at('1.1.0.1')).toMatchObject({ city: 'Berlin', district: 'Mitte', accuracy_radius_km: 50, timezone: 'Europe/Berlin' });
    expect(at('2.0.0.1')).toMatchObject({ city: 'Berlin', district: null });
  });

  it('gives the anycast part of a range no radius, and the rest of it its own', () => {
    expect(at('1.1.1.1')).toMatchObject({ city: 'Berlin', district: 'Mitte', accuracy_radius_km: null });
    expect(at('1.1.2.0')).toMatchObject({ accuracy_radius_km: 50 });
    expect(at('1.1.0.255').accuracy_radius_km).toBe(50);
  });

  it('gives a row that holds 2^24 addresses at one point the seat radius, bounded by its country', () => {
    expect(at('2.0.0.1').accuracy_radius_km).toBe(337);
    expect(table.header.sourceDate).toBeNull();
  });
});

/** The last range whose key is at or below the address. */
function rangeOf(table: IpTable, address: number): number {
  let lo = 0;
  let hi = table.rangeCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (table.keys![mid] <= address) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
