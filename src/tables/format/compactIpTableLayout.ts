/**
 * The byte layout of the compact range tables, kinds ip4c and ip6c: src/tables/FORMAT.md, "Compact
 * sets: ip4c, ip6c, macc". "A range answers only country and AS, and neighbouring ranges whose
 * reduced answer is equal are merged." INDX, KEYS and KEYH are the full tables' (ipTableLayout.ts).
 */
import { stringPoolLayout, U32_BYTES, type SectionLayout } from './containerLayout.js';
import { rangeHeadLayout, type Family } from './ipTableLayout.js';

export const COMPACT_SECTION = {
  /** ip6c: the range starts whose low 64 bits are not zero */
  sparseLow: 'KLOW',
  /** u32 answer row of each range (NONE: not found) */
  rangeAnswer: 'RANS',
  answerRows: 'AROW',
} as const;

/** "bucket index as in the full tables, B = 12": the compact sets are loaded, not searched millions of times. */
export const COMPACT_INDEX_BITS = 12;

/** "KLOW: range index u32, 4 zero bytes, low half u64; strictly ascending by index". */
export const SPARSE_LOW = { bytes: 16, range: 0, zero: 4, low: 8 } as const;

/**
 * "AROW: country code u16 (0: unknown), flags u16 (bit 0: a network source covers the range), AS
 * number u32 (0: unknown), organisation string id u32".
 */
export const ANSWER_ROW = { bytes: 12, countryCode: 0, flags: 2, asn: 4, organization: 8 } as const;
/** Answer row flag: a network (ASN) source covers the range. */
export const HAS_NETWORK = 1;

/** The sections of ip4c and ip6c, in directory order, with their element sizes. */
export const compactIpSectionLayout = (family: Family): SectionLayout => ({
  ...rangeHeadLayout(family, { [COMPACT_SECTION.sparseLow]: { elementBytes: SPARSE_LOW.bytes } }),
  [COMPACT_SECTION.rangeAnswer]: { elementBytes: U32_BYTES },
  [COMPACT_SECTION.answerRows]: { elementBytes: ANSWER_ROW.bytes },
  ...stringPoolLayout,
});
