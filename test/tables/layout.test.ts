/**
 * The layout modules against what cannot import them: the numbers the WASM engine (assembly/) names
 * for itself, and the tables of src/tables/FORMAT.md they transcribe.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPACT_INDEX_BITS, compactIpSectionLayout } from '../../src/tables/format/compactIpTableLayout.js';
import { FIXED_HEADER_BYTES, HEADER, type SectionLayout } from '../../src/tables/format/containerLayout.js';
import { AS_ROW, INDEX_BITS, ipSectionLayout, LOCATION_ROW, NETWORK_ROW, NONE } from '../../src/tables/format/ipTableLayout.js';
import { blockBits } from '../../src/tables/format/macTable.js';
import {
  HAS_LONGER,
  HASH_MULTIPLIER,
  HASH_SLOT,
  KEY_PREFIX_LENGTH_SHIFT,
  macSectionLayout,
  NO_ROW,
  OUI_BITS,
  SPECIAL_ROW,
} from '../../src/tables/format/macTableLayout.js';

/** The `const NAME: type = number;` declarations of an assembly source file. */
function assemblyConstants(file: string): Map<string, bigint> {
  const source = fs.readFileSync(new URL(`../../assembly/${file}`, import.meta.url), 'utf8');
  return new Map([...source.matchAll(/^const (\w+): \w+ = (0x[0-9a-f]+|\d+);/gim)].map((m) => [m[1], BigInt(m[2])]));
}

const formatMd = fs.readFileSync(new URL('../../src/tables/FORMAT.md', import.meta.url), 'utf8');

/** The text of the FORMAT.md section whose heading starts with `heading`, up to the next heading. */
function formatSection(heading: string): string {
  const start = formatMd.indexOf(`\n## ${heading}`);
  expect(start, `FORMAT.md has a section "${heading}"`).toBeGreaterThanOrEqual(0);
  const end = formatMd.indexOf('\n## ', start + 1);
  return formatMd.slice(start, end < 0 ? undefined : end);
}

/** Rows `| `ID`, `ID` ... | element | content |` of a section table: each id with the element sizes its row states. */
function documentedElementBytes(text: string): Map<string, number[]> {
  const sizes = new Map<string, number[]>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 4 || !cells[1].startsWith('`')) continue;
    const element = cells[2];
    const stated = [...element.matchAll(/(\d+) bytes/g)].map((m) => Number(m[1]));
    if (/^u32\b/.test(element)) stated.push(4);
    if (/^u64\b/.test(element)) stated.push(8);
    if (/\bu32, u64\b/.test(element)) stated.push(4, 8);
    for (const id of cells[1].matchAll(/`([A-Z0-9]{4})`/g)) sizes.set(id[1], stated);
  }
  return sizes;
}

function expectDocumented(text: string, layouts: SectionLayout[]): void {
  const documented = documentedElementBytes(text);
  for (const layout of layouts) {
    for (const [id, { elementBytes }] of Object.entries(layout)) {
      // JSON, bytes, and the rows that refer to another section's table ("as in the full tables") state no size
      if (elementBytes <= 1 || !documented.get(id)?.length) continue;
      expect(documented.get(id), `${id} holds elements of ${elementBytes} bytes`).toContain(elementBytes);
    }
  }
}

describe('table layouts', () => {
  it('the WASM engine names the MAC hash layout as macTableLayout.ts does', () => {
    const oui = assemblyConstants('ouiBlock.ts');
    expect(Object.fromEntries(oui)).toEqual({
      SLOT_BYTES: BigInt(HASH_SLOT.bytes),
      SLOT_KEY_AT: BigInt(HASH_SLOT.key),
      SLOT_VALUE_AT: BigInt(HASH_SLOT.value),
      KEY_PREFIX_LENGTH_SHIFT: BigInt(KEY_PREFIX_LENGTH_SHIFT),
      HASH_MULTIPLIER,
      NO_ROW: BigInt(NO_ROW),
      HAS_LONGER: BigInt(HAS_LONGER),
      ABSENT: 0xffffffffn,
      OUI_BITS: BigInt(OUI_BITS),
      MA_M_BITS: BigInt(blockBits['MA-M']),
      MA_S_BITS: BigInt(blockBits['MA-S']),
    });
    expect(blockBits['MA-L']).toBe(OUI_BITS);
    expect(blockBits.IAB).toBe(blockBits['MA-S']);
  });

  it('the WASM engine names the special range row as macTableLayout.ts does', () => {
    expect(Object.fromEntries(assemblyConstants('macSpecial.ts'))).toEqual({
      SPECIAL_ROW_BYTES: BigInt(SPECIAL_ROW.bytes),
      SPECIAL_FIRST_AT: BigInt(SPECIAL_ROW.first),
      SPECIAL_LAST_AT: BigInt(SPECIAL_ROW.last),
    });
    const writer = [...assemblyConstants('macRecordJson.ts')].filter(([name]) => name.startsWith('SPECIAL_') && name.endsWith('_AT'));
    expect(Object.fromEntries(writer)).toEqual({
      SPECIAL_FIRST_AT: BigInt(SPECIAL_ROW.first),
      SPECIAL_LAST_AT: BigInt(SPECIAL_ROW.last),
      SPECIAL_NAME_AT: BigInt(SPECIAL_ROW.name),
      SPECIAL_PROTOCOL_AT: BigInt(SPECIAL_ROW.protocol),
      SPECIAL_ASSIGNED_BY_AT: BigInt(SPECIAL_ROW.assignedBy),
      SPECIAL_REFERENCE_AT: BigInt(SPECIAL_ROW.reference),
    });
  });

  it('the WASM record writer names the IP rows as ipTableLayout.ts does', () => {
    const writer = assemblyConstants('ipRecordJson.ts');
    const rows = Object.fromEntries([...writer].filter(([name]) => /^(LOCATION|NETWORK|AS)_|_AT$/.test(name) && !/_ROWS$/.test(name)));
    const offsets = (entries: Record<string, number>) =>
      Object.fromEntries(Object.entries(entries).map(([name, at]) => [name, BigInt(at)]));
    expect(rows).toEqual(
      offsets({
        LOCATION_ROW_BYTES: LOCATION_ROW.bytes,
        LATITUDE_AT: LOCATION_ROW.latitude,
        LONGITUDE_AT: LOCATION_ROW.longitude,
        REGION_AT: LOCATION_ROW.region,
        CITY_AT: LOCATION_ROW.city,
        POSTAL_CODE_AT: LOCATION_ROW.postalCode,
        TIME_ZONE_AT: LOCATION_ROW.timeZone,
        COUNTRY_CODE_AT: LOCATION_ROW.countryCode,
        ACCURACY_RADIUS_AT: LOCATION_ROW.accuracyRadiusKm,
        DISTRICT_AT: LOCATION_ROW.district,
        NETWORK_ROW4_BYTES: NETWORK_ROW[4].bytes,
        NETWORK_ROW6_BYTES: NETWORK_ROW[6].bytes,
        NETWORK_AS_ROW4_AT: NETWORK_ROW[4].asRow,
        NETWORK_AS_ROW6_AT: NETWORK_ROW[6].asRow,
        AS_ROW_BYTES: AS_ROW.bytes,
        AS_ORGANIZATION_AT: AS_ROW.organization,
        AS_DOMAIN_AT: AS_ROW.domain,
        AS_CONNECTION_TYPE_AT: AS_ROW.connectionType,
        AS_DATACENTER_COUNTRY_AT: AS_ROW.datacenterCountry,
        AS_NAME_AT: AS_ROW.asName,
        AS_ISP_AT: AS_ROW.isp,
        AS_ORG_DOMAIN_AT: AS_ROW.orgDomain,
        AS_HOLDING_AT: AS_ROW.holding,
        AS_HOLDING_DOMAIN_AT: AS_ROW.holdingDomain,
        AS_DATACENTER_ADDRESS_AT: AS_ROW.datacenterAddress,
      }),
    );
    expect(writer.get('NONE')).toBe(BigInt(NONE));
  });

  it('the WASM load-time checks name the absent row reference as ipTableLayout.ts does', () => {
    expect(assemblyConstants('tableCheck.ts').get('NONE')).toBe(BigInt(NONE));
  });

  it('the container header offsets are the ones FORMAT.md states', () => {
    const table = formatSection('Container').matchAll(/^\| (\d+) \| ([^|]+) \|/gm);
    const rows = [...table].map((m) => ({ offset: Number(m[1]), size: Number(m[2]) }));
    const fields = rows.filter((row) => row.offset < FIXED_HEADER_BYTES);
    // a field of 8 bytes is named by its two u32 halves
    const documented = fields.flatMap((row) => (row.size === 8 ? [row.offset, row.offset + 4] : [row.offset]));
    expect(Object.values(HEADER).sort((a, b) => a - b)).toEqual(documented);
    expect(fields.at(-1)!.offset + fields.at(-1)!.size).toBe(FIXED_HEADER_BYTES);
    expect(rows.some((row) => row.offset === FIXED_HEADER_BYTES)).toBe(true);
  });

  it('the section element sizes are the ones FORMAT.md states', () => {
    expectDocumented(formatSection('ip4 and ip6'), [ipSectionLayout(4), ipSectionLayout(6)]);
    expectDocumented(formatSection('mac'), [macSectionLayout]);
    expectDocumented(formatSection('Compact sets'), [compactIpSectionLayout(4), compactIpSectionLayout(6)]);
  });

  it('the bucket index bits are the ones FORMAT.md states', () => {
    expect(INDEX_BITS[4]).toBe(INDEX_BITS[6]);
    expect(formatSection('ip4 and ip6')).toContain(`B = ${INDEX_BITS[4]} `);
    expect(formatSection('Compact sets')).toContain(`B = ${COMPACT_INDEX_BITS} `);
  });
});
