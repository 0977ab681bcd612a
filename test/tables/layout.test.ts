/**
 * The layout modules against what cannot import them: the numbers the WASM engine (assembly/) names
 * for itself, and the tables of src/tables/FORMAT.md they transcribe.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ADDRESS_PARTS,
  COUNTRY_FRAGMENTS,
  FRAGMENT,
  IP_DESCRIPTION,
  ipHoles,
  IS_HOSTING,
  MAC_DESCRIPTION,
  MAC_SPECIAL_HOLES,
  macHoles,
  NEED_ZONE,
  OBJECT_PATH_VALUE,
  UTF8_RECORD,
  VM_PREFIX,
  ZONE_SLOT,
} from '../../src/engine/recordJsonLayout.js';
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
  return new Map([...source.matchAll(/^(?:export )?const (\w+): \w+ = (-?0x[0-9a-f]+|-?\d+);/gim)].map((m) => [m[1], BigInt(m[2])]));
}

/** The assembly's constants of `names` (a name it lacks shows as missing), as numbers. */
function named(constants: Map<string, bigint>, names: string[]): Record<string, number | undefined> {
  return Object.fromEntries(names.map((name) => [name, constants.has(name) ? Number(constants.get(name)) : undefined]));
}

/** The layout's offsets under the assembly's names: `names` maps each key of `layout` to one. */
function renamed<L extends Record<string, number>>(layout: L, names: { [K in keyof L]: string }): Record<string, number> {
  return Object.fromEntries(Object.entries(layout).map(([key, at]) => [names[key as keyof L], at]));
}

/** The offsets of a list laid out one after another: 0, `bytes`, 2 × `bytes` ... */
const dense = (offsets: number[], bytes: number) => expect([...offsets].sort((a, b) => a - b)).toEqual(offsets.map((_, i) => i * bytes));

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

describe('record writer layout', () => {
  const ip = assemblyConstants('ipRecordJson.ts');
  const mac = assemblyConstants('macRecordJson.ts');

  it('lays out descriptions and fragment lists word after word, fragment after fragment', () => {
    dense(Object.values(IP_DESCRIPTION), 4);
    dense(Object.values(MAC_DESCRIPTION), 4);
    dense(Object.values(COUNTRY_FRAGMENTS), FRAGMENT.bytes);
    dense(Object.values(ADDRESS_PARTS), FRAGMENT.bytes);
    dense(Object.values(IS_HOSTING), 1);
  });

  it('the WASM IP writer reads the description, fragments and zone slots as recordJsonLayout.ts lays them out', () => {
    const description = renamed(IP_DESCRIPTION, {
      rangeLocations: 'RANGE_LOCATIONS',
      rangeNetworks: 'RANGE_NETWORKS',
      locationRows: 'LOCATION_ROWS',
      networkRows: 'NETWORK_ROWS',
      asRows: 'AS_ROWS',
      stringOffsets: 'STRING_OFFSETS',
      stringBytes: 'STRING_BYTES',
      keysHigh: 'KEYS_HIGH',
      keysLow: 'KEYS_LOW',
      rangeCount: 'RANGE_COUNT',
      countries: 'COUNTRIES',
      countryMask: 'COUNTRY_MASK',
      noCountry: 'NO_COUNTRY',
      zones: 'ZONES',
      zoneMask: 'ZONE_MASK',
      templateBasic: 'TEMPLATE_BASIC',
      templateFull: 'TEMPLATE_FULL',
      connectionTypes: 'CONNECTION_TYPES',
      quietSecurity: 'QUIET_SECURITY',
      usages: 'USAGES',
      address: 'ADDRESS',
    });
    const country = renamed(COUNTRY_FRAGMENTS, {
      continent: 'CONTINENT',
      continentCode: 'CONTINENT_CODE',
      country: 'COUNTRY_NAME',
      isEu: 'IS_EU',
      countryInfo: 'COUNTRY_INFO',
    });
    const address = renamed(ADDRESS_PARTS, { before: 'ADDRESS_BEFORE', after: 'ADDRESS_AFTER' });
    const hosting = renamed(IS_HOSTING, { false: 'IS_HOSTING_FALSE', true: 'IS_HOSTING_TRUE', null: 'IS_HOSTING_NULL' });
    const slot = renamed(ZONE_SLOT, {
      bytes: 'SLOT_BYTES',
      minute: 'SLOT_MINUTE',
      constant: 'SLOT_CONSTANT',
      headLength: 'SLOT_HEAD_LENGTH',
      tailLength: 'SLOT_TAIL_LENGTH',
      characters: 'SLOT_CHARACTERS',
      text: 'SLOT_TEXT',
    });
    // the slot's size is the host's alone: the writer reads within it
    delete slot.SLOT_BYTES;
    const expected = {
      ...description,
      ...country,
      ...address,
      ...hosting,
      ...slot,
      FRAGMENT_BYTES: FRAGMENT.bytes,
      OBJECT_PATH_VALUE,
      NEED_ZONE,
    };
    expect(named(ip, Object.keys(expected))).toEqual(expected);
  });

  it("the WASM writer keeps a record UTF-8 when asked at a level plus recordJsonLayout.ts's UTF8_RECORD", () => {
    expect(named(assemblyConstants('jsonWriter.ts'), ['UTF8_RECORD'])).toEqual({ UTF8_RECORD });
    // above both levels, so that the level is what remains without it
    expect(UTF8_RECORD).toBeGreaterThan(1);
  });

  it('the WASM IP writer fills the template holes in the order of ipHoles', () => {
    // each part is named for the value it leads to
    const parts: Record<string, string> = {
      BEFORE_IP: 'ip',
      BEFORE_CONTINENT: 'location.continent',
      BEFORE_CONTINENT_CODE: 'location.continent_code',
      BEFORE_COUNTRY: 'location.country',
      BEFORE_COUNTRY_CODE: 'location.country_code',
      BEFORE_REGION: 'location.region',
      BEFORE_CITY: 'location.city',
      BEFORE_DISTRICT: 'location.district',
      BEFORE_POSTAL_CODE: 'location.postal_code',
      BEFORE_LATITUDE: 'location.latitude',
      BEFORE_LONGITUDE: 'location.longitude',
      BEFORE_ACCURACY_RADIUS: 'location.accuracy_radius_km',
      BEFORE_IS_EU: 'location.is_eu',
      BEFORE_TIMEZONE: 'timezone',
      BEFORE_ASN: 'network.asn',
      BEFORE_ISP: 'network.isp',
      BEFORE_ORGANIZATION: 'network.organization',
      BEFORE_DOMAIN: 'network.domain',
      BEFORE_CONNECTION_TYPE: 'network.connection_type',
      BEFORE_ASN_NAME: 'network.asn_name',
      BEFORE_ORG_DOMAIN: 'network.org_domain',
      BEFORE_HOLDING: 'network.holding',
      BEFORE_HOLDING_DOMAIN: 'network.holding_domain',
      BEFORE_USAGE: 'network.usage',
      BEFORE_RANGE_START: 'network.range.start',
      BEFORE_RANGE_END: 'network.range.end',
      BEFORE_RANGE_SIZE: 'network.range.size',
      BEFORE_COUNTRY_INFO: 'country_info',
      BEFORE_SECURITY: 'security',
    };
    const full4 = ipHoles('full', 4);
    const basic = ipHoles('basic', 4);
    const expected = {
      ...Object.fromEntries(Object.entries(parts).map(([name, hole]) => [name, FRAGMENT.bytes * full4.indexOf(hole)])),
      BASIC_END: FRAGMENT.bytes * basic.length,
      FULL_END: FRAGMENT.bytes * full4.length,
    };
    const written = [...ip.keys()].filter((name) => /^BEFORE_|_END$/.test(name));
    expect(named(ip, written)).toEqual(expected);
    expect(new Set(Object.values(parts)).size).toBe(full4.length);
    // the levels and families differ in the values the writer puts in the same places
    expect(basic).toEqual(full4.slice(0, basic.length).map((hole) => (hole === 'timezone' ? 'timezone.id' : hole)));
    expect(ipHoles('basic', 6)).toEqual(basic);
    expect(ipHoles('full', 6)).toEqual(full4.map((hole) => (hole === 'network.range.size' ? 'network.range.prefix' : hole)));
  });

  it('the WASM MAC writer reads the description and virtualisation prefixes as recordJsonLayout.ts lays them out', () => {
    const expected = {
      ...renamed(MAC_DESCRIPTION, {
        blockRows: 'BLOCK_ROWS',
        companyRows: 'COMPANY_ROWS',
        stringOffsets: 'STRING_OFFSETS',
        stringBytes: 'STRING_BYTES',
        countries: 'COUNTRIES',
        countryMask: 'COUNTRY_MASK',
        noCountry: 'NO_COUNTRY',
        templateFoundBasic: 'TEMPLATE_FOUND_BASIC',
        templateFoundFull: 'TEMPLATE_FOUND_FULL',
        templateMissingBasic: 'TEMPLATE_MISSING_BASIC',
        templateMissingFull: 'TEMPLATE_MISSING_FULL',
        blockTypes: 'BLOCK_TYPES',
        vmPrefixes: 'VM_PREFIXES',
        vmPrefixCount: 'VM_PREFIX_COUNT',
        specialParts: 'SPECIAL_PARTS',
      }),
      ...renamed(VM_PREFIX, { bytes: 'VM_PREFIX_BYTES', value: 'VM_VALUE_AT', digits: 'VM_DIGITS_AT', platform: 'VM_PLATFORM_AT' }),
    };
    expect(named(mac, Object.keys(expected))).toEqual(expected);
  });

  it('the WASM MAC writer fills the template holes in the order of macHoles', () => {
    // each part is named for the value it leads to; FOUND_ and MISSING_ where the two differ
    const parts: Record<string, string> = {
      BEFORE_MAC: 'mac',
      BEFORE_OUI: 'oui',
      BEFORE_NORMALIZED: 'normalized',
      BEFORE_IS_MULTICAST: 'is_multicast',
      BEFORE_IS_LOCAL: 'is_local',
      BEFORE_IS_RANDOMIZED: 'is_randomized',
      BEFORE_SPECIAL: 'special',
      BEFORE_COMPANY: 'vendor.company',
      BEFORE_COUNTRY_CODE: 'vendor.country_code',
      BEFORE_SHORT_NAME: 'vendor.short_name',
      BEFORE_WEBSITE: 'vendor.website',
      BEFORE_COUNTRY: 'vendor.country',
      BEFORE_ADDRESS: 'vendor.address',
      BEFORE_TOTAL_OUIS: 'vendor.total_ouis',
      BEFORE_IS_PRIVATE: 'vendor.is_private',
      BEFORE_BLOCK_TYPE: 'block.type',
      BEFORE_BLOCK_START: 'block.start',
      BEFORE_BLOCK_END: 'block.end',
      BEFORE_BLOCK_SIZE: 'block.size',
    };
    const device: Record<string, string> = {
      BEFORE_IS_VIRTUAL_MACHINE: 'device.is_virtual_machine',
      BEFORE_VM_PLATFORM: 'device.vm_platform',
    };
    const foundFull = macHoles('full', true);
    const missingFull = macHoles('full', false);
    const at = (holes: string[], names: Record<string, string>, prefix = '') =>
      Object.fromEntries(Object.entries(names).map(([name, hole]) => [prefix + name, FRAGMENT.bytes * holes.indexOf(hole)]));
    const expected = {
      ...at(foundFull, parts),
      ...at(foundFull, device, 'FOUND_'),
      ...at(missingFull, device, 'MISSING_'),
      FOUND_BASIC_END: FRAGMENT.bytes * macHoles('basic', true).length,
      FOUND_FULL_END: FRAGMENT.bytes * foundFull.length,
      MISSING_BASIC_END: FRAGMENT.bytes * macHoles('basic', false).length,
      MISSING_FULL_END: FRAGMENT.bytes * missingFull.length,
    };
    const written = [...mac.keys()].filter((name) => /^(FOUND_|MISSING_)?BEFORE_|^(FOUND|MISSING)_\w+_END$/.test(name));
    expect(named(mac, written)).toEqual(expected);
    expect(new Set([...Object.values(parts), ...Object.values(device)]).size).toBe(foundFull.length);
    // the templates share the parts named once: the input's in all four, and the vendor's where found
    const input = macHoles('basic', false);
    for (const holes of [macHoles('basic', true), foundFull, missingFull]) expect(holes.slice(0, input.length)).toEqual(input);
    expect(foundFull.slice(0, macHoles('basic', true).length)).toEqual(macHoles('basic', true));
    expect(missingFull).toEqual([...input, ...Object.values(device)]);
  });

  it('the WASM MAC writer fills the special range object in the order of MAC_SPECIAL_HOLES', () => {
    const parts = {
      SPECIAL_BEFORE_NAME: 'name',
      SPECIAL_BEFORE_PROTOCOL: 'protocol',
      SPECIAL_BEFORE_ASSIGNED_BY: 'assigned_by',
      SPECIAL_BEFORE_REFERENCE: 'reference',
      SPECIAL_BEFORE_START: 'start',
      SPECIAL_BEFORE_END: 'end',
    };
    const expected = {
      ...Object.fromEntries(Object.entries(parts).map(([name, hole]) => [name, FRAGMENT.bytes * MAC_SPECIAL_HOLES.indexOf(hole)])),
      SPECIAL_END: FRAGMENT.bytes * MAC_SPECIAL_HOLES.length,
    };
    const written = [...mac.keys()].filter((name) => /^SPECIAL_BEFORE_|^SPECIAL_END$/.test(name));
    expect(named(mac, written)).toEqual(expected);
    expect(new Set(Object.values(parts)).size).toBe(MAC_SPECIAL_HOLES.length);
  });
});
