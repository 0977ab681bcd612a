import { describe, expect, it } from 'vitest';
import { buildIpTable, type CuratedAsn } from '../../src/tables/build/ipTableBuilder.js';
import { IpTable, writeIpTable } from '../../src/tables/format/ipTable.js';
import type { MmdbFile } from '../../src/tables/sources/mmdb.js';
import { aligned, germany } from './tinyTables.js';

/** A city database without leaves: these tests look only at the network side of the table. */
const noLocations = { walk: () => {}, record: () => ({}) } as unknown as MmdbFile;

const ip = (text: string) => BigInt(text.split('.').reduce((n, octet) => n * 256 + Number(octet), 0));

function build(curated: Map<number, CuratedAsn>) {
  const { parts, stats } = buildIpTable({
    family: 4,
    locations: { file: noLocations, schema: 'dbip-flat' },
    asn: [
      { start: ip('41.32.0.0'), end: ip('41.47.255.255'), asn: 8452, organization: 'TE-AS' },
      { start: ip('64.0.0.0'), end: ip('64.0.0.255'), asn: 64500, organization: 'Universidad Nacional Autonoma de Mexico' },
      { start: ip('65.0.0.0'), end: ip('65.0.3.255'), asn: 64501, organization: 'Net Global Srl' },
      { start: ip('66.0.0.0'), end: ip('66.0.0.255'), asn: 64502, organization: 'NAL-AS' },
    ],
    curatedAsn: curated,
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
  const curated = new Map<number, CuratedAsn>([[8452, { connection_type: 'residential', domain: 'te.eg', organization: 'Telecom Egypt' }]]);
  const { stats, asRows } = build(curated);

  it('takes the curated type, else the name rule, else none, and the curated name in place of a handle', () => {
    expect(asRows).toEqual([
      { asn: 8452, organization: 'Telecom Egypt', domain: 'te.eg', connection_type: 'residential' },
      { asn: 64500, organization: 'Universidad Nacional Autonoma de Mexico', domain: null, connection_type: 'education' },
      { asn: 64501, organization: 'Net Global Srl', domain: null, connection_type: null },
      { asn: 64502, organization: 'NAL-AS', domain: null, connection_type: null },
    ]);
  });

  it('counts the addresses by where their type comes from, per rule, and those left with a handle', () => {
    expect(stats.connectionTypeAddresses).toEqual({ curated: 1048576n, rule: 256n, none: 1024n + 256n });
    expect(stats.ruleAddresses).toEqual({ 'university or school': 256n });
    expect(stats.handleAddresses).toEqual({ source: 1048576n + 256n, table: 256n });
  });

  it('lets a curated row win over a rule', () => {
    const overridden = build(new Map([[64500, { connection_type: 'research', domain: null, organization: null }]]));
    expect(overridden.asRows[1].connection_type).toBe('research');
    expect(overridden.stats.connectionTypeAddresses.rule).toBe(0n);
  });
});
