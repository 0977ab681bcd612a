/**
 * The byte layout of the container every table file shares: src/tables/FORMAT.md, "Container" and
 * "Shared sections". "All integers are little-endian. Sections start at multiples of 16 bytes."
 * Writers and readers use these names; no other module spells a header offset.
 */

export const TABLE_MAGIC = 'NLTB';
/** 2: the AS rows of ip4 and ip6 carry the network identity (AS name, ISP, domains, holding); version 1 files are refused. */
export const FORMAT_VERSION = 2;

/** "kind: 1 = ip4, 2 = ip6, 3 = mac"; 4, 5, 6: the compact sets ("Compact sets: ip4c, ip6c, macc"); 7: a feed table ("feed"). */
export const tableKinds = { ip4: 1, ip6: 2, mac: 3, ip4c: 4, ip6c: 5, macc: 6, feed: 7 } as const;

/** Offsets of the fixed header's fields (the "Container" table). */
export const HEADER = {
  /** u8 × 4, `NLTB` */
  magic: 0,
  /** u16 */
  formatVersion: 4,
  /** u16, a tableKinds code */
  kind: 6,
  /** u32: H = 40 + 16 × S, rounded up to 16 */
  headerLength: 8,
  /** u32: S */
  sectionCount: 12,
  /** u64 file length: its low u32, then its high u32 (which the reader needs to be 0) */
  fileLengthLow: 16,
  fileLengthHigh: 20,
  /** "checksum: high u32, then low u32" */
  checksumHigh: 24,
  checksumLow: 28,
  /** u32, Unix seconds */
  builtAt: 32,
  /** u32, Unix seconds (0: no source states a date) */
  sourceDate: 36,
} as const;

/** Bytes of the fixed header: the section directory starts here. */
export const FIXED_HEADER_BYTES = 40;
/** "Checksum. Over bytes 32 to the end of the file". */
export const CHECKED_FROM = 32;
/** "Sections start at multiples of 16 bytes"; so do the header length, the file length and the checksummed words. */
export const SECTION_ALIGN = 16;

/**
 * A directory entry: "section id (4 ASCII capitals or digits), element count (u32), offset from the
 * file start (u32), byte length (u32)".
 */
export const DIRECTORY_ENTRY = { bytes: 16, id: 0, count: 4, offset: 8, byteLength: 12 } as const;
const SECTION_ID_BYTES = 4;

/** "Shared sections": META and CTRY are JSON, STRO u32 × (N + 1) string offsets, STRS UTF-8 bytes. */
export const SHARED_SECTION = { meta: 'META', countries: 'CTRY', stringOffsets: 'STRO', strings: 'STRS' } as const;

/** Element sizes of the fixed-size sections (0: JSON or bytes of any length). */
export type SectionLayout = Record<string, { elementBytes: number }>;

export const U32_BYTES = 4;
export const U64_BYTES = 8;
/** Little-endian: the high u32 of a u64 field lies 4 bytes after its low u32. */
export const HIGH_WORD_OF_U64 = 4;

/** META and CTRY, which every kind's directory lists first. */
export const metaAndCountriesLayout = {
  [SHARED_SECTION.meta]: { elementBytes: 0 },
  [SHARED_SECTION.countries]: { elementBytes: 0 },
} as const satisfies SectionLayout;

/** STRO and STRS, which every kind's directory lists last. */
export const stringPoolLayout = {
  [SHARED_SECTION.stringOffsets]: { elementBytes: U32_BYTES },
  [SHARED_SECTION.strings]: { elementBytes: 1 },
} as const satisfies SectionLayout;

/** `length` ASCII characters at `at`: the magic, or a directory entry's section id. */
export function asciiAt(bytes: Uint8Array, at: number, length: number = SECTION_ID_BYTES): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** "country code u16 (two ASCII letters, first in the low byte; 0: unknown)", in location, answer and company rows. */
export function packCountryCode(code: string | null): number {
  return code ? code.charCodeAt(0) | (code.charCodeAt(1) << 8) : 0;
}

export function unpackCountryCode(packed: number): string | null {
  return packed === 0 ? null : String.fromCharCode(packed & 0xff, packed >>> 8);
}
