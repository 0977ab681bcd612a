/**
 * The compact IP range table (kinds ip4c and ip6c) for size-limited hosts: the ranges of the full
 * table (ipTable.ts) reduced to country and AS, with neighbouring ranges of equal answer merged.
 * Layout in compactIpTableLayout.ts, documented in src/tables/FORMAT.md ("Compact sets"). Searched in
 * place by the same WASM range search.
 */
import {
  directoryEntryAt,
  sectionView,
  TableFormatError,
  u32Section,
  writeContainer,
  type SectionSpec,
  type TableHeader,
} from './container.js';
import { asciiAt, DIRECTORY_ENTRY, FIXED_HEADER_BYTES, HEADER, U64_BYTES, unpackCountryCode } from './containerLayout.js';
import {
  ANSWER_ROW,
  COMPACT_INDEX_BITS,
  COMPACT_SECTION,
  compactIpSectionLayout,
  HAS_NETWORK,
  SPARSE_LOW,
} from './compactIpTableLayout.js';
import { rangeHeadSections, RangeTable, rangeTableHeader, u8, validateRangeKeys, type Family } from './ipTable.js';
import { IP_SECTION, NONE } from './ipTableLayout.js';
import { stringPoolOf, stringPoolSections, type StringPool } from './stringPool.js';
import { jsTableChecks, type TableChecks } from './tableChecks.js';
import type { CountryFacts, TableMeta } from './tableMeta.js';

export interface CompactIpTableParts {
  family: Family;
  builtAt: Date;
  sourceDate: Date | null;
  meta: TableMeta;
  countries: CountryFacts[];
  keys: Uint32Array | { hi: BigUint64Array; lo: BigUint64Array };
  /** answer row of each range, NONE where no source knows the range */
  rangeAnswer: Uint32Array;
  /** rows of ANSWER_ROW: country u16, flags u16, AS number u32, organisation string id u32 */
  answerRows: Uint8Array;
  strings: { offsets: Uint32Array; bytes: Uint8Array };
}

/** What a compact range answers: the country and network facts the full table's answer carries. */
export interface CompactRow {
  country_code: string | null;
  /** null where no network source covers the range */
  network: { asn: number | null; organization: string | null } | null;
}

export function writeCompactIpTable(parts: CompactIpTableParts): Uint8Array {
  return writeContainer(parts.family === 4 ? 'ip4c' : 'ip6c', parts.builtAt, parts.sourceDate, [
    ...rangeHeadSections(parts, COMPACT_INDEX_BITS).map((section) =>
      section.id === IP_SECTION.keysLow ? sparseLow(section.bytes) : section,
    ),
    { id: COMPACT_SECTION.rangeAnswer, count: parts.rangeAnswer.length, bytes: u8(parts.rangeAnswer) },
    { id: COMPACT_SECTION.answerRows, count: parts.answerRows.byteLength / ANSWER_ROW.bytes, bytes: parts.answerRows },
    ...stringPoolSections(parts.strings),
  ]);
}

/**
 * IPv6 range starts nearly all end in 64 zero bits (447 of 417,958 do not, in the data of November 2026), so the compact set
 * stores only the others (KLOW) and the loader rebuilds the dense low halves (KEYL of the full
 * format) in memory it reserves after the file: 3.3 MB that are neither sent nor decompressed.
 */
function sparseLow(dense: Uint8Array): SectionSpec {
  const lo = new BigUint64Array(dense.buffer, dense.byteOffset, dense.byteLength / U64_BYTES);
  const entries: number[] = [];
  lo.forEach((value, i) => {
    if (value !== 0n) entries.push(i);
  });
  const bytes = new Uint8Array(entries.length * SPARSE_LOW.bytes);
  const view = new DataView(bytes.buffer);
  entries.forEach((i, k) => {
    view.setUint32(k * SPARSE_LOW.bytes + SPARSE_LOW.range, i, true);
    view.setBigUint64(k * SPARSE_LOW.bytes + SPARSE_LOW.low, lo[i], true);
  });
  return { id: COMPACT_SECTION.sparseLow, count: entries.length, bytes };
}

/** Bytes the loader reserves after a compact table for what it rebuilds (ip6c: the dense low halves). */
export function compactReserve(family: Family, head: Uint8Array, file: string): number {
  if (family === 4) return 0;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const fail = (problem: string): never => {
    throw new TableFormatError(file, problem);
  };
  if (head.byteLength < FIXED_HEADER_BYTES) fail(`truncated: ${head.byteLength} bytes is shorter than a table header`);
  const sections = view.getUint32(HEADER.sectionCount, true);
  if (head.byteLength < directoryEntryAt(sections)) fail('the section directory is not in the bytes read before placement');
  const { keysHigh } = IP_SECTION;
  for (let i = 0; i < sections; i++) {
    const at = directoryEntryAt(i);
    if (asciiAt(head, at + DIRECTORY_ENTRY.id) !== keysHigh) continue;
    // The reserve is sized from these bytes before the reader has checked anything: it must be the
    // KEYH section's own size, and that section must lie inside the file the header declares.
    const count = view.getUint32(at + DIRECTORY_ENTRY.count, true);
    const offset = view.getUint32(at + DIRECTORY_ENTRY.offset, true);
    const length = view.getUint32(at + DIRECTORY_ENTRY.byteLength, true);
    const fileLength = view.getUint32(HEADER.fileLengthLow, true) + view.getUint32(HEADER.fileLengthHigh, true) * 2 ** 32;
    if (length !== count * U64_BYTES || offset + length > fileLength) {
      fail(`section ${keysHigh} (${count} keys, ${length} bytes at ${offset}) does not fit the file`);
    }
    return length;
  }
  return fail(`section ${keysHigh} is missing`);
}

/** Rebuilds the dense low halves into `scratch` from KLOW, refusing unordered, out-of-range or zero entries. */
function denseLow(bytes: Uint8Array, header: TableHeader, file: string, scratch: Uint8Array | undefined): Uint32Array {
  const highs = header.sections.get(IP_SECTION.keysHigh)!.count;
  const sparse = header.sections.get(COMPACT_SECTION.sparseLow)!;
  const denseBytes = highs * U64_BYTES;
  const target = scratch ?? new Uint8Array(denseBytes);
  if (target.byteLength < denseBytes || target.byteOffset % U64_BYTES !== 0) {
    throw new TableFormatError(file, 'the memory reserved for the low key halves is too small or misaligned');
  }
  target.fill(0, 0, denseBytes);
  const low = new BigUint64Array(target.buffer, target.byteOffset, highs);
  const view = sectionView(bytes, sparse);
  let previous = -1;
  for (let k = 0; k < sparse.count; k++) {
    const at = k * SPARSE_LOW.bytes;
    const i = view.getUint32(at + SPARSE_LOW.range, true);
    const value = view.getBigUint64(at + SPARSE_LOW.low, true);
    if (i <= previous || i >= highs || value === 0n || view.getUint32(at + SPARSE_LOW.zero, true) !== 0) {
      throw new TableFormatError(file, `${COMPACT_SECTION.sparseLow} entry ${k} is out of order, out of range or zero`);
    }
    low[i] = value;
    previous = i;
  }
  return new Uint32Array(target.buffer, target.byteOffset, denseBytes / Uint32Array.BYTES_PER_ELEMENT);
}

/** A validated compact IP table: views over the bytes as they lie (in WASM memory in the engine). */
export class CompactIpTable extends RangeTable {
  readonly rangeAnswer: Uint32Array;
  readonly answerCount: number;
  readonly strings: StringPool;
  private readonly answers: DataView;
  private readonly rows: (CompactRow | undefined)[];

  /** `scratch`: ip6c only, compactReserve() bytes for the dense low halves (in WASM memory in the engine; allocated here without). */
  constructor(bytes: Uint8Array, file: string, family: Family, checks: TableChecks = jsTableChecks, scratch?: Uint8Array) {
    const header = rangeTableHeader(bytes, file, family === 4 ? 'ip4c' : 'ip6c', compactIpSectionLayout(family), checks);
    super(bytes, file, family, header, family === 6 ? denseLow(bytes, header, file, scratch) : undefined);
    const s = (id: string) => header.sections.get(id)!;
    const fail = (problem: string): never => {
      throw new TableFormatError(file, problem);
    };
    this.rangeAnswer = u32Section(bytes, s(COMPACT_SECTION.rangeAnswer));
    this.answerCount = s(COMPACT_SECTION.answerRows).count;
    this.answers = sectionView(bytes, s(COMPACT_SECTION.answerRows));
    this.strings = stringPoolOf(bytes, header, file);
    this.rows = new Array(this.answerCount);
    if (this.rangeCount === 0) fail('no ranges');
    if (this.rangeAnswer.length !== this.rangeCount) fail(`section ${COMPACT_SECTION.rangeAnswer} differs in length from the keys`);
    validateRangeKeys(this, COMPACT_INDEX_BITS, checks, fail);
    const bad = checks.firstRowAtOrAbove(this.rangeAnswer, this.answerCount);
    if (bad >= 0) fail(`range ${bad} points to answer row ${this.rangeAnswer[bad]} of ${this.answerCount}`);
    for (let r = 0; r < this.answerCount; r++) {
      const at = r * ANSWER_ROW.bytes;
      if (this.answers.getUint16(at + ANSWER_ROW.flags, true) > HAS_NETWORK) fail(`answer row ${r} has unknown flags`);
      if (!this.strings.has(this.answers.getUint32(at + ANSWER_ROW.organization, true))) fail(`answer row ${r} has a bad string id`);
    }
  }

  sectionOffset(id: string): number {
    return this.header.sections.get(id)!.offset;
  }

  /** The answer of range i, or null where no source knows the range. Rows are decoded once. */
  answer(range: number): CompactRow | null {
    const row = this.rangeAnswer[range];
    if (row === NONE) return null;
    let decoded = this.rows[row];
    if (decoded === undefined) {
      const v = this.answers;
      const at = row * ANSWER_ROW.bytes;
      const asn = v.getUint32(at + ANSWER_ROW.asn, true);
      const organization = v.getUint32(at + ANSWER_ROW.organization, true);
      const covered = (v.getUint16(at + ANSWER_ROW.flags, true) & HAS_NETWORK) !== 0;
      decoded = Object.freeze({
        country_code: unpackCountryCode(v.getUint16(at + ANSWER_ROW.countryCode, true)),
        network: covered ? Object.freeze({ asn: asn === 0 ? null : asn, organization: this.strings.get(organization) }) : null,
      });
      this.rows[row] = decoded;
    }
    return decoded;
  }
}
