/**
 * The IP range table, one file per family (kinds ip4 and ip6). Layout in ipTableLayout.ts, documented
 * in src/tables/FORMAT.md.
 *
 * The ranges tile the family's whole address space: range i covers [key i, key i+1 - 1] and
 * points to a location row and a network row (NONE where the sources say nothing), so that one
 * search answers location, network and the exact block of any address.
 */
import {
  jsonBytes,
  jsonSection,
  readContainer,
  requireSections,
  sectionView,
  TableFormatError,
  u32Section,
  writeContainer,
  type SectionSpec,
  type TableHeader,
  type TableKind,
} from './container.js';
import { HIGH_WORD_OF_U64, SHARED_SECTION, unpackCountryCode, type SectionLayout } from './containerLayout.js';
import {
  ADDRESS6,
  AS_ROW,
  AS_STRING_FIELDS,
  INDEX_BITS,
  IP_SECTION,
  ipSectionLayout,
  LOCATION_ROW,
  LOCATION_STRING_FIELDS,
  NETWORK_ROW,
  type Family,
} from './ipTableLayout.js';
import { stringPoolOf, stringPoolSections, type StringPool } from './stringPool.js';
import { jsTableChecks, type TableChecks } from './tableChecks.js';
import type { CountryFacts, TableMeta } from './tableMeta.js';

/** SPEC 2.2 network.connection_type values; the table stores the position (0: unknown). */
export const connectionTypes = [
  null,
  'residential',
  'cable',
  'mobile',
  'hosting',
  'business',
  'backbone',
  'education',
  'research',
  'government',
  'military',
  'financial',
  'healthcare',
  'media',
  'satellite',
  'fixed_wireless',
  'ixp',
] as const;
export type ConnectionType = Exclude<(typeof connectionTypes)[number], null>;
export type { Family } from './ipTableLayout.js';

/** What the builder hands the writer: packed rows, already in the layout of FORMAT.md. */
export interface IpTableParts {
  family: Family;
  builtAt: Date;
  sourceDate: Date | null;
  meta: TableMeta;
  countries: CountryFacts[];
  /** ip4: u32 keys. ip6: high and low 64-bit halves of each key. */
  keys: Uint32Array | { hi: BigUint64Array; lo: BigUint64Array };
  rangeLocation: Uint32Array;
  rangeNetwork: Uint32Array;
  locationRows: Uint8Array;
  networkRows: Uint8Array;
  asRows: Uint8Array;
  strings: { offsets: Uint32Array; bytes: Uint8Array };
}

export interface LocationRow {
  country_code: string | null;
  region: string | null;
  city: string | null;
  /** the part of the source's place name that names a district, neighbourhood or street of the city */
  district: string | null;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy_radius_km: number | null;
  timezone: string | null;
}

export interface AsRow {
  asn: number;
  /** the registered organisation */
  organization: string | null;
  /** the network's website domain */
  domain: string | null;
  connection_type: ConnectionType | null;
  /** the AS name as registered (a handle such as TE-AS) */
  asn_name: string | null;
  /** the provider as people call it */
  isp: string | null;
  /** the organisation's own domain, where a source gives it apart from the network's */
  org_domain: string | null;
  /** the parent organisation of a group */
  holding: string | null;
  holding_domain: string | null;
  /** the street address of the one datacenter a hosting network is at, where a source names one */
  datacenter_address: string | null;
  /** that datacenter's country (ISO 3166 alpha-2) */
  datacenter_country: string | null;
}

/** INDX[b] = first range whose key's top `bits` bits are >= b; INDX[2^bits] = range count. */
export function bucketIndex(family: Family, keys: IpTableParts['keys'], bits: number = INDEX_BITS[family]): Uint32Array {
  const buckets = 2 ** bits;
  const index = new Uint32Array(buckets + 1);
  const count = keys instanceof Uint32Array ? keys.length : keys.hi.length;
  const bucketOf =
    keys instanceof Uint32Array ? (i: number) => keys[i] >>> (32 - bits) : (i: number) => Number(keys.hi[i] >> BigInt(64 - bits));
  let bucket = 0;
  for (let i = 0; i < count; i++) {
    const b = bucketOf(i);
    while (bucket <= b) index[bucket++] = i;
  }
  while (bucket <= buckets) index[bucket++] = count;
  return index;
}

export function writeIpTable(parts: IpTableParts): Uint8Array {
  const { family } = parts;
  return writeContainer(family === 4 ? 'ip4' : 'ip6', parts.builtAt, parts.sourceDate, [
    ...rangeHeadSections(parts, INDEX_BITS[family]),
    { id: IP_SECTION.rangeLocation, count: parts.rangeLocation.length, bytes: u8(parts.rangeLocation) },
    { id: IP_SECTION.rangeNetwork, count: parts.rangeNetwork.length, bytes: u8(parts.rangeNetwork) },
    { id: IP_SECTION.locationRows, count: parts.locationRows.byteLength / LOCATION_ROW.bytes, bytes: parts.locationRows },
    { id: IP_SECTION.networkRows, count: parts.networkRows.byteLength / NETWORK_ROW[family].bytes, bytes: parts.networkRows },
    { id: IP_SECTION.asRows, count: parts.asRows.byteLength / AS_ROW.bytes, bytes: parts.asRows },
    ...stringPoolSections(parts.strings),
  ]);
}

/** The sections every range table, full or compact, starts with: provenance, countries, bucket index, keys. */
export function rangeHeadSections(parts: Pick<IpTableParts, 'family' | 'meta' | 'countries' | 'keys'>, indexBits: number): SectionSpec[] {
  const { keys } = parts;
  const index = bucketIndex(parts.family, keys, indexBits);
  const keySections: SectionSpec[] =
    keys instanceof Uint32Array
      ? [{ id: IP_SECTION.keys, count: keys.length, bytes: u8(keys) }]
      : [
          { id: IP_SECTION.keysHigh, count: keys.hi.length, bytes: u8(keys.hi) },
          { id: IP_SECTION.keysLow, count: keys.lo.length, bytes: u8(keys.lo) },
        ];
  return [
    { id: SHARED_SECTION.meta, count: 0, bytes: jsonBytes(parts.meta) },
    { id: SHARED_SECTION.countries, count: parts.countries.length, bytes: jsonBytes(parts.countries) },
    { id: IP_SECTION.index, count: index.length, bytes: u8(index) },
    ...keySections,
  ];
}

/** A container of `kind` whose sections are the layout's: its header. */
export function rangeTableHeader(
  bytes: Uint8Array,
  file: string,
  kind: TableKind,
  layout: SectionLayout,
  checks: TableChecks,
): TableHeader {
  const header = readContainer(bytes, file, kind, checks.checksum);
  requireSections(header, file, layout);
  return header;
}

/**
 * What both IP table kinds (full and compact) share: rangeHeadSections read back as views over the
 * bytes. `keysLo`: the low halves of IPv6 keys where the file does not hold them as a section
 * (compact sets).
 */
export abstract class RangeTable {
  readonly meta: TableMeta;
  readonly countries: Map<string, CountryFacts>;
  readonly rangeCount: number;
  readonly index: Uint32Array;
  /** ip4 only */
  readonly keys: Uint32Array | null;
  /** ip6 only: the key halves as pairs of u32 (little-endian word order: [lo32, hi32]) */
  readonly keysHi: Uint32Array | null;
  readonly keysLo: Uint32Array | null;

  protected constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
    readonly family: Family,
    readonly header: TableHeader,
    keysLo?: Uint32Array,
  ) {
    const s = (id: string) => header.sections.get(id)!;
    this.meta = jsonSection<TableMeta>(bytes, s(SHARED_SECTION.meta), file);
    const countryList = jsonSection<CountryFacts[]>(bytes, s(SHARED_SECTION.countries), file);
    if (!Array.isArray(countryList)) throw new TableFormatError(file, `section ${SHARED_SECTION.countries} is not a list`);
    this.countries = new Map(countryList.map((c) => [c.code, c]));
    this.index = u32Section(bytes, s(IP_SECTION.index));
    if (family === 4) {
      this.keys = u32Section(bytes, s(IP_SECTION.keys));
      this.keysHi = this.keysLo = null;
      this.rangeCount = this.keys.length;
      return;
    }
    const { keysHigh, keysLow } = IP_SECTION;
    if (!keysLo && s(keysLow).count !== s(keysHigh).count) throw new TableFormatError(file, `${keysHigh} and ${keysLow} differ in length`);
    this.keys = null;
    this.keysHi = u32Section(bytes, s(keysHigh));
    this.keysLo = keysLo ?? u32Section(bytes, s(keysLow));
    this.rangeCount = s(keysHigh).count;
  }
}

export function u8(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** A validated IP table: typed views over the file bytes plus row decoders. */
export class IpTable extends RangeTable {
  readonly rangeLocation: Uint32Array;
  readonly rangeNetwork: Uint32Array;
  readonly strings: StringPool;
  private readonly locations: DataView;
  private readonly networks: DataView;
  private readonly asRows: DataView;
  readonly locationCount: number;
  readonly networkCount: number;
  readonly asCount: number;

  constructor(
    bytes: Uint8Array,
    file: string,
    family: Family,
    private readonly checks: TableChecks = jsTableChecks,
  ) {
    super(bytes, file, family, rangeTableHeader(bytes, file, family === 4 ? 'ip4' : 'ip6', ipSectionLayout(family), checks));
    const s = (id: string) => this.header.sections.get(id)!;
    this.rangeLocation = u32Section(bytes, s(IP_SECTION.rangeLocation));
    this.rangeNetwork = u32Section(bytes, s(IP_SECTION.rangeNetwork));
    this.strings = stringPoolOf(bytes, this.header, file);
    this.locations = sectionView(bytes, s(IP_SECTION.locationRows));
    this.networks = sectionView(bytes, s(IP_SECTION.networkRows));
    this.asRows = sectionView(bytes, s(IP_SECTION.asRows));
    this.locationCount = s(IP_SECTION.locationRows).count;
    this.networkCount = s(IP_SECTION.networkRows).count;
    this.asCount = s(IP_SECTION.asRows).count;
    this.validate();
  }

  /** Section offset within the file, for placing views and WASM pointers. */
  sectionOffset(id: string): number {
    return this.header.sections.get(id)!.offset;
  }

  private validate(): void {
    const fail = (problem: string): never => {
      throw new TableFormatError(this.file, problem);
    };
    const n = this.rangeCount;
    if (n === 0) fail('no ranges');
    if (this.rangeLocation.length !== n || this.rangeNetwork.length !== n) fail('range row sections differ in length from the keys');
    validateRangeKeys(this, INDEX_BITS[this.family], this.checks, fail);
    const badLocation = this.checks.firstRowAtOrAbove(this.rangeLocation, this.locationCount);
    if (badLocation >= 0) fail(`range ${badLocation} points to location row ${this.rangeLocation[badLocation]} of ${this.locationCount}`);
    const badNetwork = this.checks.firstRowAtOrAbove(this.rangeNetwork, this.networkCount);
    if (badNetwork >= 0) fail(`range ${badNetwork} points to network row ${this.rangeNetwork[badNetwork]} of ${this.networkCount}`);
    for (let r = 0; r < this.locationCount; r++) {
      const at = r * LOCATION_ROW.bytes;
      for (const field of LOCATION_STRING_FIELDS) {
        if (!this.strings.has(this.locations.getUint32(at + field, true))) fail(`location row ${r} has a bad string id`);
      }
    }
    for (let r = 0; r < this.networkCount; r++) {
      if (this.asRowOfNetwork(r) >= this.asCount) fail(`network row ${r} points past the AS rows`);
    }
    for (let r = 0; r < this.asCount; r++) {
      const at = r * AS_ROW.bytes;
      for (const field of AS_STRING_FIELDS) {
        if (!this.strings.has(this.asRows.getUint32(at + field, true))) fail(`AS row ${r} has a bad string id`);
      }
      const type = this.asRows.getUint8(at + AS_ROW.connectionType);
      if (type >= connectionTypes.length) fail(`AS row ${r} has an unknown connection type`);
      if (this.asRows.getUint8(at + AS_ROW.connectionType + 1) !== 0) fail(`AS row ${r} has bytes set that must be zero`);
      const datacenter = this.asRows.getUint32(at + AS_ROW.datacenterAddress, true) !== 0;
      if (datacenter !== (this.asRows.getUint16(at + AS_ROW.datacenterCountry, true) !== 0))
        fail(`AS row ${r} has a datacenter address without its country or a country without an address`);
      if (datacenter && connectionTypes[type] !== 'hosting') fail(`AS row ${r} has a datacenter address but is not a hosting network`);
    }
  }

  /** The first address of range i: ip4 a u32; ip6 four words, most significant first. */
  rangeStart(i: number, out: Uint32Array): void {
    if (this.keys) {
      out[0] = this.keys[i];
      return;
    }
    out[0] = this.keysHi![2 * i + 1];
    out[1] = this.keysHi![2 * i];
    out[2] = this.keysLo![2 * i + 1];
    out[3] = this.keysLo![2 * i];
  }

  location(row: number): LocationRow {
    const v = this.locations;
    const at = row * LOCATION_ROW.bytes;
    const lat = v.getFloat64(at + LOCATION_ROW.latitude, true);
    const lon = v.getFloat64(at + LOCATION_ROW.longitude, true);
    const radius = v.getUint16(at + LOCATION_ROW.accuracyRadiusKm, true);
    return {
      country_code: unpackCountryCode(v.getUint16(at + LOCATION_ROW.countryCode, true)),
      region: this.strings.get(v.getUint32(at + LOCATION_ROW.region, true)),
      city: this.strings.get(v.getUint32(at + LOCATION_ROW.city, true)),
      district: this.strings.get(v.getUint32(at + LOCATION_ROW.district, true)),
      postal_code: this.strings.get(v.getUint32(at + LOCATION_ROW.postalCode, true)),
      latitude: Number.isNaN(lat) ? null : lat,
      longitude: Number.isNaN(lon) ? null : lon,
      accuracy_radius_km: radius === 0 ? null : radius,
      timezone: this.strings.get(v.getUint32(at + LOCATION_ROW.timeZone, true)),
    };
  }

  /** The block of network row `row`: first and last address (words as in rangeStart). */
  networkBlock(row: number, start: Uint32Array, end: Uint32Array): void {
    const v = this.networks;
    if (this.family === 4) {
      const at = row * NETWORK_ROW[4].bytes;
      start[0] = v.getUint32(at + NETWORK_ROW[4].first, true);
      end[0] = v.getUint32(at + NETWORK_ROW[4].last, true);
      return;
    }
    const at = row * NETWORK_ROW[6].bytes;
    for (const [out, address] of [
      [start, at + NETWORK_ROW[6].first],
      [end, at + NETWORK_ROW[6].last],
    ] as const) {
      const high = address + ADDRESS6.high;
      const low = address + ADDRESS6.low;
      out[0] = v.getUint32(high + HIGH_WORD_OF_U64, true);
      out[1] = v.getUint32(high, true);
      out[2] = v.getUint32(low + HIGH_WORD_OF_U64, true);
      out[3] = v.getUint32(low, true);
    }
  }

  asRowOfNetwork(row: number): number {
    const layout = NETWORK_ROW[this.family];
    return this.networks.getUint32(row * layout.bytes + layout.asRow, true);
  }

  /** The AS number of AS row `row`, without decoding its strings (the ASN index reads every row). */
  asnOfAsRow(row: number): number {
    return this.asRows.getUint32(row * AS_ROW.bytes + AS_ROW.asn, true);
  }

  /** The country code of location row `row`, without decoding its strings. */
  countryOfLocation(row: number): string | null {
    return unpackCountryCode(this.locations.getUint16(row * LOCATION_ROW.bytes + LOCATION_ROW.countryCode, true));
  }

  asRow(row: number): AsRow {
    const v = this.asRows;
    const at = row * AS_ROW.bytes;
    return {
      asn: v.getUint32(at + AS_ROW.asn, true),
      organization: this.strings.get(v.getUint32(at + AS_ROW.organization, true)),
      domain: this.strings.get(v.getUint32(at + AS_ROW.domain, true)),
      connection_type: connectionTypes[v.getUint8(at + AS_ROW.connectionType)],
      asn_name: this.strings.get(v.getUint32(at + AS_ROW.asName, true)),
      isp: this.strings.get(v.getUint32(at + AS_ROW.isp, true)),
      org_domain: this.strings.get(v.getUint32(at + AS_ROW.orgDomain, true)),
      holding: this.strings.get(v.getUint32(at + AS_ROW.holding, true)),
      holding_domain: this.strings.get(v.getUint32(at + AS_ROW.holdingDomain, true)),
      datacenter_address: this.strings.get(v.getUint32(at + AS_ROW.datacenterAddress, true)),
      datacenter_country: unpackCountryCode(v.getUint16(at + AS_ROW.datacenterCountry, true)),
    };
  }
}

/** The key sections of a range table (full or compact), as the key checks need them. */
export interface RangeKeys {
  family: Family;
  rangeCount: number;
  index: Uint32Array;
  keys: Uint32Array | null;
  keysHi: Uint32Array | null;
  keysLo: Uint32Array | null;
}

/** Keys ascend strictly from the family's first address and the bucket index of `bits` bits agrees. */
export function validateRangeKeys(table: RangeKeys, bits: number, checks: TableChecks, fail: (problem: string) => never): void {
  const n = table.rangeCount;
  if (table.index.length !== 2 ** bits + 1) fail('bucket index has the wrong size');
  const shift = (table.family === 4 ? 32 : 64) - bits;
  let lastBucket: number;
  if (table.keys) {
    if (table.keys[0] !== 0) fail('the first range does not start at 0');
    const bad = checks.firstBadKey4(table.keys, table.index, shift);
    if (bad >= 0) fail(`range keys not ascending or bucket index wrong at range ${bad}`);
    lastBucket = table.keys[n - 1] >>> shift;
  } else {
    const hi = table.keysHi!;
    if ((hi[0] | hi[1] | table.keysLo![0] | table.keysLo![1]) !== 0) fail('the first range does not start at ::');
    const bad = checks.firstBadKey6(hi, table.keysLo!, table.index, shift);
    if (bad >= 0) fail(`range keys not ascending or bucket index wrong at range ${bad}`);
    lastBucket = hi[2 * n - 1] >>> (shift - 32);
  }
  for (let b = lastBucket + 1; b < table.index.length; b++) if (table.index[b] !== n) fail('bucket index does not end at the range count');
}
