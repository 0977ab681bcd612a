// The found IP record (SPEC 2.2) as JSON, written straight from the packed range tables.
//
// The host describes each family once (ipJsonConfigure): where the table's sections lie, the
// template of each field level (the object path's own JSON split at its values, so every key and
// constant comes from there) and the fragments it rendered: per country, per connection type, the
// quiet security blocks, and per time zone the full level's clock, refreshed once a minute. Here
// the values go into the template's holes, in its order (src/engine/recordJsonLayout.ts, ipHoles):
//
//   ip, location.{continent, continent_code, country, country_code, region, city, district,
//   postal_code, latitude, longitude, accuracy_radius_km, is_eu}, location.address (full level, where
//   the AS row's datacenter is in the location row's country: its own keys around it), timezone.id
//   (basic) or timezone (full), network.{asn, isp, organization, domain, connection_type}; full level only:
//   network.{asn_name, org_domain, holding, holding_domain, usage, range.start, range.end,
//   range.size (IPv4) or range.prefix (IPv6)}, country_info, security.
//
// Answers without table data (not found) and values this writer does not print return a code and
// leave the record to the object path.

import { v4Find, v6Find } from './ipRange';
import { mapGet } from './smallMap';
import {
  begin,
  byte,
  copy,
  countryCode,
  finish,
  fragment,
  ipv4,
  ipv6,
  noteCharacters,
  poolString,
  rounded4,
  twoDigits,
  unsigned,
  writeNull,
  OBJECT_PATH,
  UTF8_RECORD,
} from './jsonWriter';

// src/tables/FORMAT.md, "ip4 and ip6" (src/tables/format/ipTableLayout.ts; test/tables/layout.test.ts
// holds the two equal).
const NONE: u32 = 0xffffffff;
const LOCATION_ROW_BYTES: usize = 40;
const LATITUDE_AT: usize = 0;
const LONGITUDE_AT: usize = 8;
const REGION_AT: usize = 16;
const CITY_AT: usize = 20;
const POSTAL_CODE_AT: usize = 24;
const TIME_ZONE_AT: usize = 28;
const COUNTRY_CODE_AT: usize = 32;
const ACCURACY_RADIUS_AT: usize = 34;
const DISTRICT_AT: usize = 36;
const NETWORK_ROW4_BYTES: usize = 16;
const NETWORK_ROW6_BYTES: usize = 40;
const NETWORK_AS_ROW4_AT: usize = 8;
const NETWORK_AS_ROW6_AT: usize = 32;
const AS_ROW_BYTES: usize = 40;
const AS_ORGANIZATION_AT: usize = 4;
const AS_DOMAIN_AT: usize = 8;
const AS_CONNECTION_TYPE_AT: usize = 12;
const AS_DATACENTER_COUNTRY_AT: usize = 14;
const AS_NAME_AT: usize = 16;
const AS_ISP_AT: usize = 20;
const AS_ORG_DOMAIN_AT: usize = 24;
const AS_HOLDING_AT: usize = 28;
const AS_HOLDING_DOMAIN_AT: usize = 32;
const AS_DATACENTER_ADDRESS_AT: usize = 36;
const HOSTING: u32 = 4;

// What the host places in WASM memory (src/engine/recordJson.ts) by the layout of
// src/engine/recordJsonLayout.ts; test/tables/layout.test.ts holds the two equal.
//
// A fragment (FRAGMENT): lists of them are indexed by a code (connection type, is_hosting).
const FRAGMENT_BYTES: usize = 8;

// The description of one family, u32 words (IP_DESCRIPTION).
const RANGE_LOCATIONS: usize = 0;
const RANGE_NETWORKS: usize = 4;
const LOCATION_ROWS: usize = 8;
const NETWORK_ROWS: usize = 12;
const AS_ROWS: usize = 16;
const STRING_OFFSETS: usize = 20;
const STRING_BYTES: usize = 24;
const KEYS_HIGH: usize = 28;
const KEYS_LOW: usize = 32;
const RANGE_COUNT: usize = 36;
const COUNTRIES: usize = 40;
const COUNTRY_MASK: usize = 44;
const NO_COUNTRY: usize = 48;
const ZONES: usize = 52;
const ZONE_MASK: usize = 56;
const TEMPLATE_BASIC: usize = 60;
const TEMPLATE_FULL: usize = 64;
const CONNECTION_TYPES: usize = 68;
const QUIET_SECURITY: usize = 72;
const USAGES: usize = 76;
const ADDRESS: usize = 80;

// A country's fragments (COUNTRY_FRAGMENTS): continent, continent_code, country, is_eu, country_info.
const CONTINENT: usize = 0;
const CONTINENT_CODE: usize = 8;
const COUNTRY_NAME: usize = 16;
const IS_EU: usize = 24;
const COUNTRY_INFO: usize = 32;

// The location's JSON around a datacenter address (ADDRESS_PARTS).
const ADDRESS_BEFORE: usize = 0;
const ADDRESS_AFTER: usize = 8;

// The parts of a template, each the JSON up to the value it is named for (ipHoles); the basic
// level's parts end at BASIC_END, the full level's go on.
const BEFORE_IP: usize = 0;
const BEFORE_CONTINENT: usize = 8;
const BEFORE_CONTINENT_CODE: usize = 16;
const BEFORE_COUNTRY: usize = 24;
const BEFORE_COUNTRY_CODE: usize = 32;
const BEFORE_REGION: usize = 40;
const BEFORE_CITY: usize = 48;
const BEFORE_DISTRICT: usize = 56;
const BEFORE_POSTAL_CODE: usize = 64;
const BEFORE_LATITUDE: usize = 72;
const BEFORE_LONGITUDE: usize = 80;
const BEFORE_ACCURACY_RADIUS: usize = 88;
const BEFORE_IS_EU: usize = 96;
const BEFORE_TIMEZONE: usize = 104;
const BEFORE_ASN: usize = 112;
const BEFORE_ISP: usize = 120;
const BEFORE_ORGANIZATION: usize = 128;
const BEFORE_DOMAIN: usize = 136;
const BEFORE_CONNECTION_TYPE: usize = 144;
const BASIC_END: usize = 152;
const BEFORE_ASN_NAME: usize = 152;
const BEFORE_ORG_DOMAIN: usize = 160;
const BEFORE_HOLDING: usize = 168;
const BEFORE_HOLDING_DOMAIN: usize = 176;
const BEFORE_USAGE: usize = 184;
const BEFORE_RANGE_START: usize = 192;
const BEFORE_RANGE_END: usize = 200;
/** range.size (IPv4) or range.prefix (IPv6) */
const BEFORE_RANGE_SIZE: usize = 208;
const BEFORE_COUNTRY_INFO: usize = 216;
const BEFORE_SECURITY: usize = 224;
const FULL_END: usize = 232;

// is_hosting (IS_HOSTING): the index of the quiet security block, and jsonHosting()'s answer.
const IS_HOSTING_FALSE: u32 = 0;
const IS_HOSTING_TRUE: u32 = 1;
const IS_HOSTING_NULL: u32 = 2;

// A time zone's slot (ZONE_SLOT): the full level's timezone object for one UTC minute, `head` up
// to the seconds of current_time and `tail` after them; a constant slot is all head. Its
// characters class is that of jsonWriter's fragments (0 ASCII, 1 beyond ASCII, 3 beyond Latin-1).
const SLOT_MINUTE: usize = 0;
const SLOT_CONSTANT: usize = 8;
const SLOT_HEAD_LENGTH: usize = 12;
const SLOT_TAIL_LENGTH: usize = 16;
const SLOT_CHARACTERS: usize = 20;
const SLOT_TEXT: usize = 24;

/** A map value that sends the record to the object path. */
const OBJECT_PATH_VALUE: u32 = 1;

const NOT_FOUND: i32 = -1;
const NEED_ZONE: i32 = -2;

let family4: usize = 0;
let family6: usize = 0;
/** the zone string id of the last NEED_ZONE */
let pendingZone: u32 = 0;
let touched: u32 = 0;
/**
 * is_hosting of the last record written without its security block; IS_HOSTING_NULL at first,
 * spelt as its number: a named initial value would be set by a start function
 */
let hosting: u32 = 2;

export function ipJsonConfigure(family: u32, description: usize): void {
  if (family == 4) family4 = description;
  else family6 = description;
}

export function jsonPendingZone(): u32 {
  return pendingZone;
}

export function jsonHosting(): u32 {
  return hosting;
}

@inline function field(description: usize, at: usize): usize {
  return <usize>load<u32>(description + at);
}

/**
 * The record of a public IPv4 address at the field level (0 basic, 1 full; plus UTF8_RECORD for
 * its bytes) and instant `ms` (Unix milliseconds, finite). `quiet`: 1 writes the security block
 * without threat facts, 0 stops before it (the host appends the block and the rest). Returns the
 * length of the text written at the output (jsonOutput), or NOT_FOUND (-1), NEED_ZONE (-2) or
 * OBJECT_PATH (-3).
 */
export function ip4Json(address: u32, level: u32, ms: f64, quiet: u32): i32 {
  const d = family4;
  const range = v4Find(address);
  return record(d, 4, <u64>address, 0, range, level, ms, quiet);
}

/** The same for a public IPv6 address given as four words, most significant first. */
export function ip6Json(w0: u32, w1: u32, w2: u32, w3: u32, level: u32, ms: f64, quiet: u32): i32 {
  const hi = (<u64>w0 << 32) | <u64>w1;
  const lo = (<u64>w2 << 32) | <u64>w3;
  return record(family6, 6, hi, lo, v6Find(hi, lo), level, ms, quiet);
}

function record(d: usize, family: u32, hi: u64, lo: u64, range: i32, asked: u32, ms: f64, quiet: u32): i32 {
  const level = asked & ~UTF8_RECORD;
  const locationRow = load<u32>(field(d, RANGE_LOCATIONS) + (<usize>range << 2));
  const networkRow = load<u32>(field(d, RANGE_NETWORKS) + (<usize>range << 2));
  if (locationRow == NONE && networkRow == NONE) return NOT_FOUND;
  const offsets = field(d, STRING_OFFSETS);
  const bytes = field(d, STRING_BYTES);

  // Every row this record reads, first, so that their memory loads overlap.
  const location: usize = locationRow == NONE ? 0 : field(d, LOCATION_ROWS) + <usize>locationRow * LOCATION_ROW_BYTES;
  let network: usize = 0;
  let as: usize = 0;
  if (networkRow != NONE) {
    network = field(d, NETWORK_ROWS) + <usize>networkRow * (family == 4 ? NETWORK_ROW4_BYTES : NETWORK_ROW6_BYTES);
    as = field(d, AS_ROWS) + <usize>load<u32>(network + (family == 4 ? NETWORK_AS_ROW4_AT : NETWORK_AS_ROW6_AT)) * AS_ROW_BYTES;
  }
  const packedCountry: u32 = location == 0 ? 0 : <u32>load<u16>(location + COUNTRY_CODE_AT);
  let country = field(d, NO_COUNTRY);
  if (packedCountry != 0) {
    const known = mapGet(field(d, COUNTRIES), <u32>field(d, COUNTRY_MASK), packedCountry);
    if (known == OBJECT_PATH_VALUE) return OBJECT_PATH;
    if (known != 0) country = <usize>known;
  }
  const zone: u32 = location == 0 ? 0 : load<u32>(location + TIME_ZONE_AT);
  let zoneSlot: usize = 0;
  let minute: f64 = 0;
  if (level != 0) {
    const value = mapGet(field(d, ZONES), <u32>field(d, ZONE_MASK), zone);
    if (value == OBJECT_PATH_VALUE) return OBJECT_PATH;
    minute = Math.floor(ms / 60000);
    zoneSlot = <usize>value;
    if (zoneSlot == 0 || (load<u32>(zoneSlot + SLOT_CONSTANT) == 0 && load<f64>(zoneSlot + SLOT_MINUTE) != minute)) {
      pendingZone = zone;
      return NEED_ZONE;
    }
  }
  const connectionType: u32 = as == 0 ? 0 : <u32>load<u8>(as + AS_CONNECTION_TYPE_AT);
  const organization: u32 = as == 0 ? 0 : load<u32>(as + AS_ORGANIZATION_AT);
  const domain: u32 = as == 0 ? 0 : load<u32>(as + AS_DOMAIN_AT);
  const isp: u32 = as == 0 ? 0 : load<u32>(as + AS_ISP_AT);
  // The strings' first bytes, all asked for before any is written, so that their misses overlap.
  if (location != 0) {
    touch(offsets, bytes, load<u32>(location + REGION_AT));
    touch(offsets, bytes, load<u32>(location + CITY_AT));
    touch(offsets, bytes, load<u32>(location + DISTRICT_AT));
    touch(offsets, bytes, load<u32>(location + POSTAL_CODE_AT));
    if (level == 0) touch(offsets, bytes, zone);
  }
  touch(offsets, bytes, isp);
  touch(offsets, bytes, organization);
  touch(offsets, bytes, domain);

  const parts = field(d, level == 0 ? TEMPLATE_BASIC : TEMPLATE_FULL);
  let at = begin(asked);
  at = byte(fragment(at, parts + BEFORE_IP), 0x22);
  if (family == 4) at = ipv4(at, <u32>hi);
  else at = ipv6(at, hi, lo);
  at = byte(at, 0x22);
  at = fragment(at, parts + BEFORE_CONTINENT);
  at = fragment(at, country + CONTINENT);
  at = fragment(at, parts + BEFORE_CONTINENT_CODE);
  at = fragment(at, country + CONTINENT_CODE);
  at = fragment(at, parts + BEFORE_COUNTRY);
  at = fragment(at, country + COUNTRY_NAME);
  at = fragment(at, parts + BEFORE_COUNTRY_CODE);
  at = countryCode(at, packedCountry);
  at = fragment(at, parts + BEFORE_REGION);
  at = poolString(at, offsets, bytes, location == 0 ? 0 : load<u32>(location + REGION_AT));
  at = fragment(at, parts + BEFORE_CITY);
  at = poolString(at, offsets, bytes, location == 0 ? 0 : load<u32>(location + CITY_AT));
  at = fragment(at, parts + BEFORE_DISTRICT);
  at = poolString(at, offsets, bytes, location == 0 ? 0 : load<u32>(location + DISTRICT_AT));
  at = fragment(at, parts + BEFORE_POSTAL_CODE);
  at = poolString(at, offsets, bytes, location == 0 ? 0 : load<u32>(location + POSTAL_CODE_AT));
  at = fragment(at, parts + BEFORE_LATITUDE);
  at = coordinate(at, location, LATITUDE_AT);
  if (at == 0) return OBJECT_PATH;
  at = fragment(at, parts + BEFORE_LONGITUDE);
  at = coordinate(at, location, LONGITUDE_AT);
  if (at == 0) return OBJECT_PATH;
  at = fragment(at, parts + BEFORE_ACCURACY_RADIUS);
  const radius: u32 = location == 0 ? 0 : <u32>load<u16>(location + ACCURACY_RADIUS_AT);
  if (radius == 0) at = writeNull(at);
  else at = unsigned(at, radius);
  at = fragment(at, parts + BEFORE_IS_EU);
  at = fragment(at, country + IS_EU);
  // a datacenter's street only where the geolocation puts the range in the datacenter's country
  if (level != 0 && as != 0 && packedCountry != 0 && <u32>load<u16>(as + AS_DATACENTER_COUNTRY_AT) == packedCountry) {
    const address = field(d, ADDRESS);
    at = fragment(at, address + ADDRESS_BEFORE);
    at = poolString(at, offsets, bytes, load<u32>(as + AS_DATACENTER_ADDRESS_AT));
    at = fragment(at, address + ADDRESS_AFTER);
  }
  at = fragment(at, parts + BEFORE_TIMEZONE);
  if (level == 0) at = poolString(at, offsets, bytes, zone);
  else at = clock(at, zoneSlot, ms, minute);
  at = fragment(at, parts + BEFORE_ASN);
  const asn: u32 = as == 0 ? 0 : load<u32>(as);
  if (asn == 0) at = writeNull(at);
  else at = unsigned(at, asn);
  at = fragment(at, parts + BEFORE_ISP);
  at = poolString(at, offsets, bytes, isp);
  at = fragment(at, parts + BEFORE_ORGANIZATION);
  at = poolString(at, offsets, bytes, organization);
  at = fragment(at, parts + BEFORE_DOMAIN);
  at = poolString(at, offsets, bytes, domain);
  at = fragment(at, parts + BEFORE_CONNECTION_TYPE);
  at = fragment(at, field(d, CONNECTION_TYPES) + <usize>connectionType * FRAGMENT_BYTES);
  // the basic level ends where the full level's asn_name starts
  at = fragment(at, parts + BASIC_END);
  if (level == 0) return finish(at);

  at = poolString(at, offsets, bytes, as == 0 ? 0 : load<u32>(as + AS_NAME_AT));
  at = fragment(at, parts + BEFORE_ORG_DOMAIN);
  at = poolString(at, offsets, bytes, as == 0 ? 0 : load<u32>(as + AS_ORG_DOMAIN_AT));
  at = fragment(at, parts + BEFORE_HOLDING);
  at = poolString(at, offsets, bytes, as == 0 ? 0 : load<u32>(as + AS_HOLDING_AT));
  at = fragment(at, parts + BEFORE_HOLDING_DOMAIN);
  at = poolString(at, offsets, bytes, as == 0 ? 0 : load<u32>(as + AS_HOLDING_DOMAIN_AT));
  at = fragment(at, parts + BEFORE_USAGE);
  at = fragment(at, field(d, USAGES) + <usize>connectionType * FRAGMENT_BYTES);
  at = fragment(at, parts + BEFORE_RANGE_START);
  if (family == 4) at = block4(at, d, range, network);
  else at = block6(at, d, range, network, hi, lo);
  at = fragment(at, parts + BEFORE_COUNTRY_INFO);
  at = fragment(at, country + COUNTRY_INFO);
  at = fragment(at, parts + BEFORE_SECURITY);
  const hostingState: u32 = connectionType == 0 ? IS_HOSTING_NULL : connectionType == HOSTING ? IS_HOSTING_TRUE : IS_HOSTING_FALSE;
  if (quiet == 0) {
    hosting = hostingState;
    return finish(at);
  }
  at = fragment(at, field(d, QUIET_SECURITY) + <usize>hostingState * FRAGMENT_BYTES);
  at = fragment(at, parts + FULL_END);
  return finish(at);
}

/** Reads a string's first byte (kept, so that the read is not optimised away). */
@inline function touch(offsets: usize, bytes: usize, id: u32): void {
  touched += load<u8>(bytes + <usize>load<u32>(offsets + (<usize>id << 2)));
}

/** A latitude or longitude (NaN: unknown) as ipRecord rounds it; 0 for one it cannot print. */
function coordinate(at: usize, location: usize, column: usize): usize {
  const value = location == 0 ? NaN : load<f64>(location + column);
  if (isNaN(value)) return writeNull(at);
  return rounded4(at, value);
}

/** The full level's timezone object: the zone's slot, with the seconds of `ms` in current_time. */
function clock(at: usize, slot: usize, ms: f64, minute: f64): usize {
  noteCharacters(at, load<u32>(slot + SLOT_CHARACTERS));
  at = copy(at, slot + SLOT_TEXT, <usize>load<u32>(slot + SLOT_HEAD_LENGTH));
  if (load<u32>(slot + SLOT_CONSTANT) != 0) return at;
  at = twoDigits(at, <u32>Math.floor((ms - minute * 60000) / 1000));
  return copy(at, slot + SLOT_TEXT + <usize>load<u32>(slot + SLOT_HEAD_LENGTH), <usize>load<u32>(slot + SLOT_TAIL_LENGTH));
}

/**
 * IPv4 network.range: the network block when a network row covers the range, else the range
 * itself (to the next range's start, or the end of the space).
 */
function block4(at: usize, d: usize, range: i32, network: usize): usize {
  let first: u32;
  let last: u32;
  if (network != 0) {
    first = load<u32>(network);
    last = load<u32>(network, 4);
  } else {
    const keys = field(d, KEYS_HIGH);
    first = load<u32>(keys + (<usize>range << 2));
    last = range + 1 < <i32>field(d, RANGE_COUNT) ? load<u32>(keys + (<usize>(range + 1) << 2)) - 1 : 0xffffffff;
  }
  const parts = field(d, TEMPLATE_FULL);
  at = byte(ipv4(byte(at, 0x22), first), 0x22);
  at = fragment(at, parts + BEFORE_RANGE_END);
  at = byte(ipv4(byte(at, 0x22), last), 0x22);
  at = fragment(at, parts + BEFORE_RANGE_SIZE);
  return unsigned(at, <u64>last - <u64>first + 1);
}

/**
 * IPv6 network.range: the largest CIDR block around the address within the network block (or
 * the range, as for IPv4): the shortest prefix whose block fits, found by binary search.
 */
function block6(at: usize, d: usize, range: i32, network: usize, hi: u64, lo: u64): usize {
  let startHi: u64;
  let startLo: u64;
  let endHi: u64;
  let endLo: u64;
  if (network != 0) {
    startHi = load<u64>(network);
    startLo = load<u64>(network, 8);
    endHi = load<u64>(network, 16);
    endLo = load<u64>(network, 24);
  } else {
    const keysHi = field(d, KEYS_HIGH);
    const keysLo = field(d, KEYS_LOW);
    startHi = load<u64>(keysHi + (<usize>range << 3));
    startLo = load<u64>(keysLo + (<usize>range << 3));
    if (range + 1 < <i32>field(d, RANGE_COUNT)) {
      endHi = load<u64>(keysHi + (<usize>(range + 1) << 3));
      endLo = load<u64>(keysLo + (<usize>(range + 1) << 3));
      if (endLo == 0) endHi -= 1;
      endLo -= 1;
    } else {
      endHi = 0xffffffffffffffff;
      endLo = 0xffffffffffffffff;
    }
  }
  let low: u32 = 0;
  let high: u32 = 128;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const maskHi = highMask(middle);
    const maskLo = lowMask(middle);
    const firstHi = hi & maskHi;
    const firstLo = lo & maskLo;
    const lastHi = hi | ~maskHi;
    const lastLo = lo | ~maskLo;
    const startsInside = firstHi > startHi || (firstHi == startHi && firstLo >= startLo);
    const endsInside = lastHi < endHi || (lastHi == endHi && lastLo <= endLo);
    if (startsInside && endsInside) high = middle;
    else low = middle + 1;
  }
  const maskHi = highMask(low);
  const maskLo = lowMask(low);
  const parts = field(d, TEMPLATE_FULL);
  at = byte(ipv6(byte(at, 0x22), hi & maskHi, lo & maskLo), 0x22);
  at = fragment(at, parts + BEFORE_RANGE_END);
  at = byte(ipv6(byte(at, 0x22), hi | ~maskHi, lo | ~maskLo), 0x22);
  at = fragment(at, parts + BEFORE_RANGE_SIZE);
  return unsigned(at, low);
}

/** The high 64 bits of a /prefix mask. */
@inline function highMask(prefix: u32): u64 {
  if (prefix >= 64) return 0xffffffffffffffff;
  return prefix == 0 ? 0 : 0xffffffffffffffff << <u64>(64 - prefix);
}

@inline function lowMask(prefix: u32): u64 {
  if (prefix <= 64) return 0;
  return 0xffffffffffffffff << <u64>(128 - prefix);
}
