// The MAC record (SPEC 2.5) as JSON, written straight from the MAC table.
//
// As for IP records, the host hands over the object path's JSON split at its values (one template
// per field level and found / not found) and the fragments it rendered (country names, block
// types, virtualisation platforms). The holes, in order (src/engine/recordJsonLayout.ts, macHoles):
//
//   mac, oui, normalized, is_multicast, is_local, is_randomized, special, then, when found,
//   vendor.{company, country_code} and at the full level vendor.{short_name, website, country,
//   address, total_ouis, is_private}, block.{type, start, end, size}; at the full level, found or
//   not, device.{is_virtual_machine, vm_platform}.
//
// `special` is null, or the special range's object written from its own parts around name,
// protocol, assigned_by, reference, start and end (MAC_SPECIAL_HOLES).

import { macFlags, LOCAL, MULTICAST, RANDOMIZED } from './macBits';
import { ouiFind } from './ouiBlock';
import { specialFind, specialRowAt } from './macSpecial';
import { mapGet } from './smallMap';
import { begin, byte, colonHex24, countryCode, finish, fragment, poolString, quoted, unsigned, upperHex48, writeBool, writeNull } from './jsonWriter';

// src/tables/FORMAT.md, "mac" (src/tables/format/macTableLayout.ts; test/tables/layout.test.ts holds
// the two equal).
const BLOCK_ROW_BYTES: usize = 16;
const BLOCK_LO24_AT: usize = 4;
const BLOCK_PREFIX_LENGTH_AT: usize = 8;
const BLOCK_TYPE_AT: usize = 9;
const BLOCK_COMPANY_AT: usize = 12;
const COMPANY_ROW_BYTES: usize = 24;
const COMPANY_ADDRESS_AT: usize = 4;
const COMPANY_COUNTRY_CODE_AT: usize = 8;
const COMPANY_FLAGS_AT: usize = 10;
const COMPANY_TOTAL_OUIS_AT: usize = 12;
const COMPANY_SHORT_NAME_AT: usize = 16;
const COMPANY_WEBSITE_AT: usize = 20;
const COMPANY_PRIVATE: u32 = 1;
const SPECIAL_FIRST_AT: usize = 0;
const SPECIAL_LAST_AT: usize = 8;
const SPECIAL_NAME_AT: usize = 16;
const SPECIAL_PROTOCOL_AT: usize = 20;
const SPECIAL_ASSIGNED_BY_AT: usize = 24;
const SPECIAL_REFERENCE_AT: usize = 28;

// What the host places in WASM memory (src/engine/recordJson.ts) by the layout of
// src/engine/recordJsonLayout.ts; test/tables/layout.test.ts holds the two equal.
//
// The description of the MAC table, u32 words (MAC_DESCRIPTION).
const BLOCK_ROWS: usize = 0;
const COMPANY_ROWS: usize = 4;
const STRING_OFFSETS: usize = 8;
const STRING_BYTES: usize = 12;
const COUNTRIES: usize = 16;
const COUNTRY_MASK: usize = 20;
const NO_COUNTRY: usize = 24;
const TEMPLATE_FOUND_BASIC: usize = 28;
const TEMPLATE_FOUND_FULL: usize = 32;
const TEMPLATE_MISSING_BASIC: usize = 36;
const TEMPLATE_MISSING_FULL: usize = 40;
const BLOCK_TYPES: usize = 44;
const VM_PREFIXES: usize = 48;
const VM_PREFIX_COUNT: usize = 52;
const SPECIAL_PARTS: usize = 56;

// The parts of a template, each the JSON up to the value it is named for (macHoles). All four
// templates start with the input's parts. A found block's go on with the vendor's, where the basic
// level's end; the full level's with the rest of the vendor's, the block's and the device's. Not
// found, the basic level's end after the input's and the full level's go on with the device's.
const BEFORE_MAC: usize = 0;
const BEFORE_OUI: usize = 8;
const BEFORE_NORMALIZED: usize = 16;
const BEFORE_IS_MULTICAST: usize = 24;
const BEFORE_IS_LOCAL: usize = 32;
const BEFORE_IS_RANDOMIZED: usize = 40;
const BEFORE_SPECIAL: usize = 48;
const BEFORE_COMPANY: usize = 56;
const BEFORE_COUNTRY_CODE: usize = 64;
const FOUND_BASIC_END: usize = 72;
const BEFORE_SHORT_NAME: usize = 72;
const BEFORE_WEBSITE: usize = 80;
/** vendor.country, the country's name */
const BEFORE_COUNTRY: usize = 88;
const BEFORE_ADDRESS: usize = 96;
const BEFORE_TOTAL_OUIS: usize = 104;
const BEFORE_IS_PRIVATE: usize = 112;
const BEFORE_BLOCK_TYPE: usize = 120;
const BEFORE_BLOCK_START: usize = 128;
const BEFORE_BLOCK_END: usize = 136;
const BEFORE_BLOCK_SIZE: usize = 144;
const FOUND_BEFORE_IS_VIRTUAL_MACHINE: usize = 152;
const FOUND_BEFORE_VM_PLATFORM: usize = 160;
const FOUND_FULL_END: usize = 168;
const MISSING_BASIC_END: usize = 56;
const MISSING_BEFORE_IS_VIRTUAL_MACHINE: usize = 56;
const MISSING_BEFORE_VM_PLATFORM: usize = 64;
const MISSING_FULL_END: usize = 72;

// The special range object's parts, each the JSON up to the value it is named for
// (MAC_SPECIAL_HOLES).
const SPECIAL_BEFORE_NAME: usize = 0;
const SPECIAL_BEFORE_PROTOCOL: usize = 8;
const SPECIAL_BEFORE_ASSIGNED_BY: usize = 16;
const SPECIAL_BEFORE_REFERENCE: usize = 24;
const SPECIAL_BEFORE_START: usize = 32;
const SPECIAL_BEFORE_END: usize = 40;
const SPECIAL_END: usize = 48;

// A virtualisation prefix (VM_PREFIX): the prefix left-aligned in 48 bits u64, its hex digits
// u32, 4 zero bytes, the fragment of its platform name.
const VM_VALUE_AT: usize = 0;
const VM_DIGITS_AT: usize = 8;
const VM_PLATFORM_AT: usize = 16;
const VM_PREFIX_BYTES: usize = 24;

let table: usize = 0;
/**
 * A bit per value of an address's first 16 bits, set where a virtualisation prefix (of four hex
 * digits or more, or all those a shorter one covers) starts so: most addresses need no scan.
 */
const VM_FIRST16 = memory.data(8192);

export function macJsonConfigure(description: usize): void {
  table = description;
  memory.fill(VM_FIRST16, 0, 8192);
  const list = field(VM_PREFIXES);
  const count = field(VM_PREFIX_COUNT);
  for (let i: usize = 0; i < count; i++) {
    const at = list + i * VM_PREFIX_BYTES;
    const prefixDigits = load<u32>(at + VM_DIGITS_AT);
    const first16 = <u32>(load<u64>(at + VM_VALUE_AT) >>> 32);
    const span: u32 = prefixDigits >= 4 ? 1 : 1 << ((4 - prefixDigits) << 2);
    for (let k: u32 = 0; k < span; k++) {
      const bit = (first16 + k) & 0xffff;
      const byteAt = VM_FIRST16 + (bit >>> 3);
      store<u8>(byteAt, <u8>(<u32>load<u8>(byteAt) | (<u32>1 << (bit & 7))));
    }
  }
}

@inline function field(at: usize): usize {
  return <usize>load<u32>(table + at);
}

/**
 * The record of a parsed MAC address or prefix (`digits` hex digits given) at the field level
 * (0 basic, 1 full); `text` (`length` bytes) is the input as the client sent it. Returns the length
 * of the text written at the output (jsonOutput), or OBJECT_PATH when a string does not fit.
 */
export function macJson(hi24: u32, lo24: u32, digits: u32, level: u32, text: usize, length: usize): i32 {
  const row = ouiFind(hi24, lo24, digits << 2);
  const block: usize = row < 0 ? 0 : field(BLOCK_ROWS) + <usize>row * BLOCK_ROW_BYTES;
  const company: usize = block == 0 ? 0 : field(COMPANY_ROWS) + <usize>load<u32>(block + BLOCK_COMPANY_AT) * COMPANY_ROW_BYTES;
  const offsets = field(STRING_OFFSETS);
  const bytes = field(STRING_BYTES);
  const parts = field(block == 0 ? (level == 0 ? TEMPLATE_MISSING_BASIC : TEMPLATE_MISSING_FULL) : level == 0 ? TEMPLATE_FOUND_BASIC : TEMPLATE_FOUND_FULL);
  const mac = (<u64>hi24 << 24) | <u64>lo24;

  let at = begin(level);
  at = fragment(at, parts + BEFORE_MAC);
  at = quoted(at, text, length);
  at = fragment(at, parts + BEFORE_OUI);
  at = byte(colonHex24(byte(at, 0x22), hi24), 0x22);
  at = fragment(at, parts + BEFORE_NORMALIZED);
  if (digits == 12) {
    at = colonHex24(byte(at, 0x22), hi24);
    at = byte(colonHex24(byte(at, 0x3a), lo24), 0x22);
  } else at = writeNull(at);
  at = fragment(at, parts + BEFORE_IS_MULTICAST);
  const flags = macFlags(hi24);
  at = writeBool(at, (flags & MULTICAST) != 0);
  at = fragment(at, parts + BEFORE_IS_LOCAL);
  at = writeBool(at, (flags & LOCAL) != 0);
  at = fragment(at, parts + BEFORE_IS_RANDOMIZED);
  at = writeBool(at, (flags & RANDOMIZED) != 0);
  at = fragment(at, parts + BEFORE_SPECIAL);
  const special = specialFind(hi24, lo24, digits);
  if (special < 0) at = writeNull(at);
  else at = specialObject(at, specialRowAt(special), offsets, bytes);
  if (block == 0) {
    if (level == 0) return finish(fragment(at, parts + MISSING_BASIC_END));
    at = fragment(at, parts + MISSING_BEFORE_IS_VIRTUAL_MACHINE);
    return finish(device(at, mac, digits, parts + MISSING_BEFORE_VM_PLATFORM, parts + MISSING_FULL_END));
  }
  at = fragment(at, parts + BEFORE_COMPANY);
  at = poolString(at, offsets, bytes, load<u32>(company));
  at = fragment(at, parts + BEFORE_COUNTRY_CODE);
  const packed = <u32>load<u16>(company + COMPANY_COUNTRY_CODE_AT);
  at = countryCode(at, packed);
  if (level == 0) return finish(fragment(at, parts + FOUND_BASIC_END));

  const isPrivate = (<u32>load<u16>(company + COMPANY_FLAGS_AT) & COMPANY_PRIVATE) != 0;
  at = fragment(at, parts + BEFORE_SHORT_NAME);
  at = poolString(at, offsets, bytes, load<u32>(company + COMPANY_SHORT_NAME_AT));
  at = fragment(at, parts + BEFORE_WEBSITE);
  at = poolString(at, offsets, bytes, load<u32>(company + COMPANY_WEBSITE_AT));
  at = fragment(at, parts + BEFORE_COUNTRY);
  let country = field(NO_COUNTRY);
  if (packed != 0) {
    const known = mapGet(field(COUNTRIES), <u32>field(COUNTRY_MASK), packed);
    if (known != 0) country = <usize>known;
  }
  at = fragment(at, country);
  at = fragment(at, parts + BEFORE_ADDRESS);
  at = poolString(at, offsets, bytes, load<u32>(company + COMPANY_ADDRESS_AT));
  at = fragment(at, parts + BEFORE_TOTAL_OUIS);
  if (isPrivate) at = writeNull(at);
  else at = unsigned(at, load<u32>(company + COMPANY_TOTAL_OUIS_AT));
  at = fragment(at, parts + BEFORE_IS_PRIVATE);
  at = writeBool(at, isPrivate);
  at = fragment(at, parts + BEFORE_BLOCK_TYPE);
  at = fragment(at, field(BLOCK_TYPES) + (<usize>load<u8>(block + BLOCK_TYPE_AT) << 3));
  at = fragment(at, parts + BEFORE_BLOCK_START);
  const first = ((<u64>load<u32>(block)) << 24) | <u64>load<u32>(block + BLOCK_LO24_AT);
  const size = <u64>1 << <u64>(48 - <u32>load<u8>(block + BLOCK_PREFIX_LENGTH_AT));
  at = byte(upperHex48(byte(at, 0x22), first), 0x22);
  at = fragment(at, parts + BEFORE_BLOCK_END);
  at = byte(upperHex48(byte(at, 0x22), first + size - 1), 0x22);
  at = fragment(at, parts + BEFORE_BLOCK_SIZE);
  at = unsigned(at, size);
  at = fragment(at, parts + FOUND_BEFORE_IS_VIRTUAL_MACHINE);
  return finish(device(at, mac, digits, parts + FOUND_BEFORE_VM_PLATFORM, parts + FOUND_FULL_END));
}

/** The full level's device: is_virtual_machine, the part before vm_platform, vm_platform and the record's last part. */
function device(at: usize, mac: u64, digits: u32, beforePlatform: usize, end: usize): usize {
  const platform = vmPlatform(mac, digits);
  at = writeBool(at, platform != 0);
  at = fragment(at, beforePlatform);
  if (platform == 0) at = writeNull(at);
  else at = fragment(at, platform);
  return fragment(at, end);
}

/** A special range row as the record's object, from the parts around its six values. */
function specialObject(at: usize, row: usize, offsets: usize, bytes: usize): usize {
  const parts = field(SPECIAL_PARTS);
  at = fragment(at, parts + SPECIAL_BEFORE_NAME);
  at = poolString(at, offsets, bytes, load<u32>(row + SPECIAL_NAME_AT));
  at = fragment(at, parts + SPECIAL_BEFORE_PROTOCOL);
  at = poolString(at, offsets, bytes, load<u32>(row + SPECIAL_PROTOCOL_AT));
  at = fragment(at, parts + SPECIAL_BEFORE_ASSIGNED_BY);
  at = poolString(at, offsets, bytes, load<u32>(row + SPECIAL_ASSIGNED_BY_AT));
  at = fragment(at, parts + SPECIAL_BEFORE_REFERENCE);
  at = poolString(at, offsets, bytes, load<u32>(row + SPECIAL_REFERENCE_AT));
  at = fragment(at, parts + SPECIAL_BEFORE_START);
  at = byte(upperHex48(byte(at, 0x22), load<u64>(row + SPECIAL_FIRST_AT)), 0x22);
  at = fragment(at, parts + SPECIAL_BEFORE_END);
  at = byte(upperHex48(byte(at, 0x22), load<u64>(row + SPECIAL_LAST_AT)), 0x22);
  return fragment(at, parts + SPECIAL_END);
}

/** The platform fragment of the first virtualisation prefix the address starts with, or 0. */
function vmPlatform(mac: u64, digits: u32): usize {
  const first16 = <u32>(mac >>> 32);
  if (((<u32>load<u8>(VM_FIRST16 + (first16 >>> 3)) >>> (first16 & 7)) & 1) == 0) return 0;
  const list = field(VM_PREFIXES);
  const count = field(VM_PREFIX_COUNT);
  for (let i: usize = 0; i < count; i++) {
    const at = list + i * VM_PREFIX_BYTES;
    const prefixDigits = load<u32>(at + VM_DIGITS_AT);
    if (prefixDigits > digits) continue;
    const shift = <u64>((12 - prefixDigits) << 2);
    if (mac >>> shift == load<u64>(at + VM_VALUE_AT) >>> shift) return at + VM_PLATFORM_AT;
  }
  return 0;
}
