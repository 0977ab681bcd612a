/**
 * The byte layout of the MAC vendor table, kinds mac and macc: src/tables/FORMAT.md, "mac" ("macc:
 * the mac layout, every block, company and special range kept, with company address ids all 0").
 */
import { metaAndCountriesLayout, stringPoolLayout, type SectionLayout } from './containerLayout.js';

export const MAC_SECTION = {
  /** JSON virtualisation prefixes */
  vmPrefixes: 'VMPF',
  /** "open-addressing hash table of blocks" */
  hash: 'HASH',
  blockRows: 'BROW',
  companyRows: 'CROW',
  /** "special address ranges" */
  specialRows: 'SPCL',
} as const;

/** "Hash slot: key u64, value u32, 4 zero bytes; key 0 = empty." `keyHigh`: the key's high u32, whose top byte is the prefix length. */
export const HASH_SLOT = { bytes: 16, key: 0, keyHigh: 4, value: 8 } as const;
/** "Key = (prefix length << 56) | the 48-bit address of the block's first MAC with the bits past the prefix cleared." */
export const KEY_PREFIX_LENGTH_SHIFT = 56;
/** "Home slot = (key × 0x9E3779B97F4A7C15 mod 2^64) >> (64 − K)" */
export const HASH_MULTIPLIER = 0x9e3779b97f4a7c15n;
/** K of the smallest hash the builder writes and the bounds a reader accepts. */
export const MIN_SLOT_BITS = 4;
export const MAX_SLOT_BITS = 24;
/** Prefix length of an OUI (MA-L) block, the entry every probe tries first. */
export const OUI_BITS = 24;
/** Slot value bit 31: "set on a 24-bit entry when longer (28- or 36-bit) blocks exist under that OUI". */
export const HAS_LONGER = 0x80000000;
/** "a 24-bit entry that exists only to carry that bit has row 0x7FFFFFFE". */
export const NO_ROW = 0x7ffffffe;

/**
 * "Block row: first 24 bits u32, next 24 bits u32 (zero past the prefix), prefix length u8 (24, 28,
 * 36), type u8 ..., 2 zero bytes, company row u32."
 */
export const BLOCK_ROW = { bytes: 16, hi24: 0, lo24: 4, prefixLength: 8, type: 9, company: 12 } as const;

/**
 * "Company row: name, address string ids, country code u16 (as in location rows), flags u16, number
 * of prefixes registered to the company u32, short name and website string ids."
 */
export const COMPANY_ROW = {
  bytes: 24,
  name: 0,
  address: 4,
  countryCode: 8,
  flags: 10,
  totalOuis: 12,
  shortName: 16,
  website: 20,
} as const;
/** Company row flag bit 0: "private registration". */
export const COMPANY_PRIVATE = 1;

/**
 * "Special range row: first address u64, last address u64 (48-bit values), name, protocol, assigned
 * by and reference string ids (u32 each)."
 */
export const SPECIAL_ROW = { bytes: 32, first: 0, last: 8, name: 16, protocol: 20, assignedBy: 24, reference: 28 } as const;

/** The sections of mac and macc, in directory order, with their element sizes. */
export const macSectionLayout: SectionLayout = {
  ...metaAndCountriesLayout,
  [MAC_SECTION.vmPrefixes]: { elementBytes: 0 },
  [MAC_SECTION.hash]: { elementBytes: HASH_SLOT.bytes },
  [MAC_SECTION.blockRows]: { elementBytes: BLOCK_ROW.bytes },
  [MAC_SECTION.companyRows]: { elementBytes: COMPANY_ROW.bytes },
  [MAC_SECTION.specialRows]: { elementBytes: SPECIAL_ROW.bytes },
  ...stringPoolLayout,
};
