/**
 * Builds one IP range table (ip4 or ip6) from a city `.mmdb` (location) and the ASN CSV
 * (network), plus our curated facts about well-known ASNs.
 */
import { ipv6Value } from '../../address/ipAddress.js';
import { packCountryCode } from '../format/containerLayout.js';
import { connectionTypes, type Family, type IpTableParts } from '../format/ipTable.js';
import { ADDRESS6, AS_ROW, AS_STRING_FIELDS, LOCATION_ROW, NETWORK_ROW, NONE } from '../format/ipTableLayout.js';
import { StringPoolBuilder } from '../format/stringPool.js';
import type { CountryFacts, TableMeta } from '../format/tableMeta.js';
import type { AsnRange } from '../sources/asnCsv.js';
import type { AnycastPrefix } from '../sources/anycastPrefixes.js';
import { connectionTypeOfAs, isRegistryHandle, type AsConnectionType } from '../sources/connectionTypeRules.js';
import type { CuratedAsn } from '../sources/curated.js';
import { locationFields, type LocationFields, type LocationSchema } from '../sources/locationRecord.js';
import type { MmdbFile } from '../sources/mmdb.js';
import { networkIdentity } from '../sources/networkIdentity.js';
import type { PeeringDbDatacenter, PeeringDbNetwork } from '../sources/peeringDb.js';
import { estimateRadiusKm } from './accuracyRadius.js';
import { PlaceNames } from './placeNames.js';
import { tileEnd, tileRanges, type ValuedRanges } from './rangeMerge.js';

/**
 * Where the builder reads places from: a city MMDB (npm's DB-IP Lite, or a MaxMind City file) or
 * DB-IP's own CSV. Ranges come in ascending order, each naming a record; equal places may share one.
 */
export interface LocationSource {
  walk(family: Family, visit: (start: bigint, end: bigint, record: number) => void): void;
  record(family: Family, id: number): LocationFields;
  /** DB-IP's city names carry districts ("Paris 01"): split them off (MaxMind's are GeoNames' official names) */
  splitsCityNames: boolean;
}

/** A city MMDB as a location source: its leaves are the ranges, its data offsets the records. */
export function mmdbLocations(file: MmdbFile, schema: LocationSchema): LocationSource {
  return {
    walk: (family, visit) => {
      const bits = family === 4 ? 32 : 128;
      file.walk(family, (words, prefixLength, dataOffset) => {
        const start = family === 4 ? BigInt(words[0]) : ipv6Value(words);
        visit(start, start + (1n << BigInt(bits - prefixLength)) - 1n, dataOffset);
      });
    },
    record: (_family, offset) => locationFields(file.record(offset), schema),
    splitsCityNames: schema === 'dbip-flat',
  };
}

export interface IpBuildInput {
  family: Family;
  locations: LocationSource;
  asn: AsnRange[];
  curatedAsn: Map<number, CuratedAsn>;
  /** what PeeringDB's operators say of each AS, where the operator turned PeeringDB on */
  peeringDb?: Map<number, PeeringDbNetwork> | null;
  /** the datacenter of each AS that PeeringDB places at one facility, where the operator turned PeeringDB on */
  datacenters?: Map<number, PeeringDbDatacenter> | null;
  /** anycast blocks of this family (data/curated/anycast-prefixes.csv), sorted */
  anycast: AnycastPrefix[];
  countries: CountryFacts[];
  countryAreaKm2: (code: string) => number | null;
  timezoneAt: (latitude: number, longitude: number, countryCode: string | null) => string | null;
  /** the zone of a place known only by its country, where the country keeps one clock */
  countryZone?: (countryCode: string | null) => string | null;
  meta: TableMeta;
  builtAt: Date;
  sourceDate: Date | null;
  progress: (phase: string, done: number, total: number) => void;
}

export interface IpBuildStats {
  leaves: number;
  locationRanges: number;
  locationRows: number;
  networkRows: number;
  asRows: number;
  ranges: number;
  /** addresses of the ASN ranges by where their connection type comes from */
  connectionTypeAddresses: { curated: bigint; rule: bigint; peeringdb: bigint; none: bigint };
  /** addresses typed by each organisation-name rule */
  ruleAddresses: Record<string, bigint>;
  /** addresses whose AS organisation is a registry handle, as the ASN data has it and as the table has it */
  handleAddresses: { source: bigint; table: bigint };
  /** where the registrations and routes overruled the location source (believedPlaces.ts); absent without them */
  believed?: { unregistered: number; unannounced: number; namedAfterRegistration: number };
}

const MASK64 = (1n << 64n) - 1n;

export function buildIpTable(input: IpBuildInput): { parts: IpTableParts; stats: IpBuildStats } {
  const { family } = input;
  const strings = new StringPoolBuilder();
  const last = family === 4 ? 0xffffffffn : (1n << 128n) - 1n;
  const located = walkLocations(input);
  const places = markAnycast(located.ranges, input.anycast, last);
  const { rows: locationRows, rowOfPlace } = buildLocationRows(input, places, located.rowSize, strings);
  const locationRanges = joinEqualNeighbours(places, rowOfPlace);
  const { networkRanges, networkRows, asRows, coverage } = buildNetworkRows(input, strings);
  input.progress('merging ranges', 0, 1);
  const tiled = tileRanges(locationRanges, networkRanges, last);
  input.progress('merging ranges', 1, 1);
  const n = tiled.keys.length;
  const keys =
    family === 4
      ? Uint32Array.from(tiled.keys, (k) => Number(k))
      : { hi: BigUint64Array.from(tiled.keys, (k) => k >> 64n), lo: BigUint64Array.from(tiled.keys, (k) => k & MASK64) };
  const meta: TableMeta = {
    ...input.meta,
    counts: {
      ranges: n,
      location_rows: locationRows.byteLength / LOCATION_ROW.bytes,
      network_rows: networkRanges.start.length,
      as_rows: asRows.byteLength / AS_ROW.bytes,
      strings: strings.size,
    },
  };
  return {
    parts: {
      family,
      builtAt: input.builtAt,
      sourceDate: input.sourceDate,
      meta,
      countries: input.countries,
      keys,
      rangeLocation: Uint32Array.from(tiled.first),
      rangeNetwork: Uint32Array.from(tiled.second),
      locationRows,
      networkRows,
      asRows,
      strings: strings.sections(),
    },
    stats: {
      leaves: located.leaves,
      locationRanges: locationRanges.start.length,
      locationRows: locationRows.byteLength / LOCATION_ROW.bytes,
      networkRows: networkRanges.start.length,
      asRows: asRows.byteLength / AS_ROW.bytes,
      ranges: n,
      ...coverage,
    },
  };
}

/**
 * Leaves of the tree as ranges of data offsets, neighbours with the same record joined; and the
 * size of each record: how many addresses (IPv4) or /64 networks (IPv6) the source places at it.
 */
function walkLocations(input: IpBuildInput): { ranges: ValuedRanges; rowSize: Map<number, number>; leaves: number } {
  // IPv4 places are sized in addresses, IPv6 places in /64 networks
  const unit = input.family === 4 ? 1 : 2 ** 64;
  const ranges: ValuedRanges = { start: [], end: [], value: [] };
  const rowSize = new Map<number, number>();
  let leaves = 0;
  input.progress('walking the location ranges', 0, 1);
  input.locations.walk(input.family, (start, end, dataOffset) => {
    leaves++;
    rowSize.set(dataOffset, (rowSize.get(dataOffset) ?? 0) + Number(end - start + 1n) / unit);
    const n = ranges.start.length;
    if (n > 0 && ranges.value[n - 1] === dataOffset && ranges.end[n - 1] + 1n === start) {
      ranges.end[n - 1] = end;
    } else {
      ranges.start.push(start);
      ranges.end.push(end);
      ranges.value.push(dataOffset);
    }
  });
  input.progress('walking the location ranges', 1, 1);
  return { ranges, rowSize, leaves };
}

/** A place: a source record's data offset, doubled, plus 1 inside an anycast block. */
const placeOf = (offset: number, anycast: boolean): number => offset * 2 + (anycast ? 1 : 0);

/** The location ranges with each range's value turned into a place, split at anycast block bounds. */
function markAnycast(ranges: ValuedRanges, anycast: AnycastPrefix[], last: bigint): ValuedRanges {
  const blocks: ValuedRanges = { start: anycast.map((a) => a.start), end: anycast.map((a) => a.end), value: anycast.map(() => 0) };
  const tiled = tileRanges(ranges, blocks, last);
  const out: ValuedRanges = { start: [], end: [], value: [] };
  tiled.keys.forEach((key, i) => {
    if (tiled.first[i] === NONE) return;
    out.start.push(key);
    out.end.push(tileEnd(tiled, i, last));
    out.value.push(placeOf(tiled.first[i], tiled.second[i] !== NONE));
  });
  return out;
}

/** One packed row per distinct location (places with equal fields share a row). */
function buildLocationRows(input: IpBuildInput, places: ValuedRanges, rowSize: Map<number, number>, strings: StringPoolBuilder) {
  const offsets = [...rowSize.keys()];
  const decoded = new Map<number, LocationFields>();
  const names = new PlaceNames();
  offsets.forEach((offset, done) => {
    if (done % 20000 === 0) input.progress('decoding location records', done, offsets.length);
    const fields = input.locations.record(input.family, offset);
    names.observe(fields.country_code, fields.region, fields.city);
    decoded.set(offset, fields);
  });
  input.progress('decoding location records', offsets.length, offsets.length);
  const rowOfKey = new Map<string, number>();
  const rowOfPlace = new Map<number, number>();
  const packed: LocationFields[] = [];
  for (const place of new Set(places.value)) {
    const offset = Math.floor(place / 2);
    const fields = completeLocation(decoded.get(offset)!, place % 2 === 1, rowSize.get(offset)!, names, input);
    const key = JSON.stringify(fields);
    let row = rowOfKey.get(key);
    if (row === undefined) {
      row = packed.length;
      packed.push(fields);
      rowOfKey.set(key, row);
    }
    rowOfPlace.set(place, row);
  }
  const rows = new Uint8Array(packed.length * LOCATION_ROW.bytes);
  const v = new DataView(rows.buffer);
  packed.forEach((f, row) => {
    const at = row * LOCATION_ROW.bytes;
    v.setFloat64(at + LOCATION_ROW.latitude, f.latitude ?? NaN, true);
    v.setFloat64(at + LOCATION_ROW.longitude, f.longitude ?? NaN, true);
    v.setUint32(at + LOCATION_ROW.region, strings.intern(f.region), true);
    v.setUint32(at + LOCATION_ROW.city, strings.intern(f.city), true);
    v.setUint32(at + LOCATION_ROW.postalCode, strings.intern(f.postal_code), true);
    v.setUint32(at + LOCATION_ROW.timeZone, strings.intern(f.timezone), true);
    const cc = f.country_code;
    if (cc !== null && !/^[A-Z]{2}$/.test(cc)) throw new Error(`location record with country code ${JSON.stringify(cc)}`);
    v.setUint16(at + LOCATION_ROW.countryCode, packCountryCode(cc), true);
    v.setUint16(at + LOCATION_ROW.accuracyRadiusKm, Math.min(0xffff, Math.max(0, Math.round(f.accuracy_radius_km ?? 0))), true);
    v.setUint32(at + LOCATION_ROW.district, strings.intern(f.district), true);
  });
  return { rows, rowOfPlace };
}

/**
 * Fills what the source leaves empty by the documented rules: the district split off the city
 * name (placeNames.ts), the time zone and the radius estimate (accuracyRadius.ts).
 */
function completeLocation(fields: LocationFields, anycast: boolean, rowSize: number, names: PlaceNames, input: IpBuildInput): LocationFields {
  const hasPoint = fields.latitude !== null && fields.longitude !== null;
  const splits = fields.city !== null && input.locations.splitsCityNames;
  const name = splits ? names.split(fields.country_code, fields.region, fields.city!) : { city: fields.city, district: null };
  return {
    ...fields,
    ...name,
    timezone:
      fields.timezone ??
      (hasPoint ? input.timezoneAt(fields.latitude!, fields.longitude!, fields.country_code) : (input.countryZone?.(fields.country_code) ?? null)),
    accuracy_radius_km: estimateRadiusKm(fields, { family: input.family, rowSize, anycast, countryAreaKm2: input.countryAreaKm2 }),
  };
}

function joinEqualNeighbours(ranges: ValuedRanges, rowOf: Map<number, number>): ValuedRanges {
  const out: ValuedRanges = { start: [], end: [], value: [] };
  for (let i = 0; i < ranges.start.length; i++) {
    const row = rowOf.get(ranges.value[i])!;
    const n = out.start.length;
    if (n > 0 && out.value[n - 1] === row && out.end[n - 1] + 1n === ranges.start[i]) {
      out.end[n - 1] = ranges.end[i];
    } else {
      out.start.push(ranges.start[i]);
      out.end.push(ranges.end[i]);
      out.value.push(row);
    }
  }
  return out;
}

/**
 * One network row per network range and one AS row per distinct AS number and network identity
 * (what the source says of the AS: organisation, AS name, holding). The connection type is the
 * curated row's, else the organisation-name rule's, else PeeringDB's, else unknown
 * (connectionTypeOfAs); the identity follows the rules
 * of networkIdentity.ts (a curated organisation name replaces a registry handle such as `TE-AS`,
 * which stays the AS name). A hosting network that PeeringDB places at one facility carries that
 * datacenter's address and country; the record shows it only where the range's own country is
 * the datacenter's (docs/tables.md "Datacenter address").
 */
function buildNetworkRows(input: IpBuildInput, strings: StringPoolBuilder) {
  const { family } = input;
  const asRowOf = new Map<string, number>();
  const asList: ({ asn: number; strings: number[]; type: number; datacenterCountry: string | null; handle: 'kept' | 'replaced' | null } & Omit<
    AsConnectionType,
    'type'
  >)[] = [];
  const networkRanges: ValuedRanges = { start: [], end: [], value: [] };
  const layout = NETWORK_ROW[family];
  const networkRows = new Uint8Array(input.asn.length * layout.bytes);
  const v = new DataView(networkRows.buffer);
  const coverage: Pick<IpBuildStats, 'connectionTypeAddresses' | 'ruleAddresses' | 'handleAddresses'> = {
    connectionTypeAddresses: { curated: 0n, rule: 0n, peeringdb: 0n, none: 0n },
    ruleAddresses: {},
    handleAddresses: { source: 0n, table: 0n },
  };
  input.asn.forEach((range, networkRow) => {
    const key = `${range.asn}\u0000${range.organization ?? ''}\u0000${range.asName ?? ''}\u0000${range.holding ?? ''}`;
    let asRow = asRowOf.get(key);
    if (asRow === undefined) {
      const curated = input.curatedAsn.get(range.asn);
      const described = input.peeringDb?.get(range.asn);
      const typed = connectionTypeOfAs(curated?.connection_type, range.organization, described?.connectionType ?? null);
      const isHandle = range.organization === null || isRegistryHandle(range.organization);
      const identity = networkIdentity(range, curated, described);
      const named = identity.organization;
      const datacenter = typed.type === 'hosting' ? (input.datacenters?.get(range.asn) ?? null) : null;
      asRow = asList.length;
      asList.push({
        asn: range.asn,
        // in the order of AS_STRING_FIELDS
        strings: [
          identity.organization,
          identity.domain,
          identity.asName,
          identity.isp,
          identity.orgDomain,
          identity.holding,
          identity.holdingDomain,
          datacenter?.address ?? null,
        ].map((text) => strings.intern(text)),
        type: typed.type ? connectionTypes.indexOf(typed.type) : 0,
        datacenterCountry: datacenter?.countryCode ?? null,
        provenance: typed.provenance,
        rule: typed.rule,
        handle: range.organization === null || !isHandle ? null : named === range.organization ? 'kept' : 'replaced',
      });
      asRowOf.set(key, asRow);
    }
    const a = asList[asRow];
    const addresses = range.end - range.start + 1n;
    coverage.connectionTypeAddresses[a.provenance] += addresses;
    if (a.rule !== null) coverage.ruleAddresses[a.rule] = (coverage.ruleAddresses[a.rule] ?? 0n) + addresses;
    if (a.handle !== null) coverage.handleAddresses.source += addresses;
    if (a.handle === 'kept') coverage.handleAddresses.table += addresses;
    networkRanges.start.push(range.start);
    networkRanges.end.push(range.end);
    networkRanges.value.push(networkRow);
    const at = networkRow * layout.bytes;
    if (family === 4) {
      v.setUint32(at + layout.first, Number(range.start), true);
      v.setUint32(at + layout.last, Number(range.end), true);
    } else {
      for (const [address, value] of [[at + layout.first, range.start], [at + layout.last, range.end]] as const) {
        v.setBigUint64(address + ADDRESS6.high, value >> 64n, true);
        v.setBigUint64(address + ADDRESS6.low, value & MASK64, true);
      }
    }
    v.setUint32(at + layout.asRow, asRow, true);
  });
  const asRows = new Uint8Array(asList.length * AS_ROW.bytes);
  const av = new DataView(asRows.buffer);
  asList.forEach((a, row) => {
    const at = row * AS_ROW.bytes;
    av.setUint32(at + AS_ROW.asn, a.asn, true);
    AS_STRING_FIELDS.forEach((field, i) => av.setUint32(at + field, a.strings[i], true));
    av.setUint8(at + AS_ROW.connectionType, a.type);
    av.setUint16(at + AS_ROW.datacenterCountry, packCountryCode(a.datacenterCountry), true);
  });
  return { networkRanges, networkRows, asRows, coverage };
}
