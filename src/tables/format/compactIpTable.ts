/**
 * The compact IP range table (kinds ip4c and ip6c) for size-limited hosts: the ranges of the full
 * table (ipTable.ts) reduced to country and AS, with neighbouring ranges of equal answer merged.
 * Layout in src/tables/FORMAT.md ("Compact sets"). Searched in place by the same WASM range search.
 */
import { DIRECTORY_ENTRY_BYTES, FIXED_HEADER_BYTES, sectionBytes, TableFormatError, u32Section, writeContainer, type SectionSpec, type TableHeader } from './container.js';
import { NONE, rangeHeadLayout, rangeHeadSections, RangeTable, rangeTableHeader, u8, validateRangeKeys, type Family } from './ipTable.js';
import { StringPool } from './stringPool.js';
import { jsTableChecks, type TableChecks } from './tableChecks.js';
import type { CountryFacts, TableMeta } from './tableMeta.js';

/** A smaller bucket index than the full tables': the compact sets are loaded, not searched millions of times. */
export const COMPACT_INDEX_BITS = 12;
export const ANSWER_ROW_BYTES = 12;
/** Answer row flag: a network (ASN) source covers the range. */
export const HAS_NETWORK = 1;

export interface CompactIpTableParts {
  family: Family;
  builtAt: Date;
  sourceDate: Date | null;
  meta: TableMeta;
  countries: CountryFacts[];
  keys: Uint32Array | { hi: BigUint64Array; lo: BigUint64Array };
  /** answer row of each range, NONE where no source knows the range */
  rangeAnswer: Uint32Array;
  /** rows of ANSWER_ROW_BYTES: country u16, flags u16, AS number u32, organisation string id u32 */
  answerRows: Uint8Array;
  strings: { offsets: Uint32Array; bytes: Uint8Array };
}

/** What a compact range answers: the country and network facts the full table's answer carries. */
export interface CompactRow {
  country_code: string | null;
  /** null where no network source covers the range */
  network: { asn: number | null; organization: string | null } | null;
}

/** KLOW element: range index u32, 4 zero bytes, low half u64 (IPv6 keys whose low half is not zero). */
export const SPARSE_LOW_BYTES = 16;

const sectionLayout = (family: Family) => ({ ...rangeHeadLayout(family, true), ...rowLayout });

const rowLayout = {
  RANS: { elementBytes: 4 },
  AROW: { elementBytes: ANSWER_ROW_BYTES },
  STRO: { elementBytes: 4 },
  STRS: { elementBytes: 1 },
};

export function writeCompactIpTable(parts: CompactIpTableParts): Uint8Array {
  return writeContainer(parts.family === 4 ? 'ip4c' : 'ip6c', parts.builtAt, parts.sourceDate, [
    ...rangeHeadSections(parts, COMPACT_INDEX_BITS).map((section) => (section.id === 'KEYL' ? sparseLow(section.bytes) : section)),
    { id: 'RANS', count: parts.rangeAnswer.length, bytes: u8(parts.rangeAnswer) },
    { id: 'AROW', count: parts.answerRows.byteLength / ANSWER_ROW_BYTES, bytes: parts.answerRows },
    { id: 'STRO', count: parts.strings.offsets.length, bytes: u8(parts.strings.offsets) },
    { id: 'STRS', count: parts.strings.bytes.byteLength, bytes: parts.strings.bytes },
  ]);
}

/**
 * IPv6 range starts nearly all end in 64 zero bits (447 of 417,958 do not, in the data of November 2026), so the compact set
 * stores only the others (KLOW) and the loader rebuilds the dense low halves (KEYL of the full
 * format) in memory it reserves after the file: 3.3 MB that are neither sent nor decompressed.
 */
function sparseLow(dense: Uint8Array): SectionSpec {
  const lo = new BigUint64Array(dense.buffer, dense.byteOffset, dense.byteLength / 8);
  const entries: number[] = [];
  lo.forEach((value, i) => {
    if (value !== 0n) entries.push(i);
  });
  const bytes = new Uint8Array(entries.length * SPARSE_LOW_BYTES);
  const view = new DataView(bytes.buffer);
  entries.forEach((i, k) => {
    view.setUint32(k * SPARSE_LOW_BYTES, i, true);
    view.setBigUint64(k * SPARSE_LOW_BYTES + 8, lo[i], true);
  });
  return { id: 'KLOW', count: entries.length, bytes };
}

/** Bytes the loader reserves after a compact table for what it rebuilds (ip6c: the dense low halves). */
export function compactReserve(family: Family, head: Uint8Array, file: string): number {
  if (family === 4) return 0;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const fail = (problem: string): never => {
    throw new TableFormatError(file, problem);
  };
  if (head.byteLength < FIXED_HEADER_BYTES) fail(`truncated: ${head.byteLength} bytes is shorter than a table header`);
  const sections = view.getUint32(12, true);
  if (head.byteLength < FIXED_HEADER_BYTES + sections * DIRECTORY_ENTRY_BYTES) fail('the section directory is not in the bytes read before placement');
  for (let i = 0; i < sections; i++) {
    const at = FIXED_HEADER_BYTES + i * DIRECTORY_ENTRY_BYTES;
    if (String.fromCharCode(head[at], head[at + 1], head[at + 2], head[at + 3]) !== 'KEYH') continue;
    // The reserve is sized from these bytes before the reader has checked anything: it must be the
    // KEYH section's own size, and that section must lie inside the file the header declares.
    const count = view.getUint32(at + 4, true);
    const offset = view.getUint32(at + 8, true);
    const length = view.getUint32(at + 12, true);
    const fileLength = view.getUint32(16, true) + view.getUint32(20, true) * 2 ** 32;
    if (length !== count * 8 || offset + length > fileLength) fail(`section KEYH (${count} keys, ${length} bytes at ${offset}) does not fit the file`);
    return length;
  }
  return fail('section KEYH is missing');
}

/** Rebuilds the dense low halves into `scratch` from KLOW, refusing unordered, out-of-range or zero entries. */
function denseLow(bytes: Uint8Array, header: TableHeader, file: string, scratch: Uint8Array | undefined): Uint32Array {
  const highs = header.sections.get('KEYH')!.count;
  const sparse = header.sections.get('KLOW')!;
  const target = scratch ?? new Uint8Array(highs * 8);
  if (target.byteLength < highs * 8 || target.byteOffset % 8 !== 0) throw new TableFormatError(file, 'the memory reserved for the low key halves is too small or misaligned');
  target.fill(0, 0, highs * 8);
  const low = new BigUint64Array(target.buffer, target.byteOffset, highs);
  const view = new DataView(bytes.buffer, bytes.byteOffset + sparse.offset, sparse.byteLength);
  let previous = -1;
  for (let k = 0; k < sparse.count; k++) {
    const at = k * SPARSE_LOW_BYTES;
    const i = view.getUint32(at, true);
    const value = view.getBigUint64(at + 8, true);
    if (i <= previous || i >= highs || value === 0n || view.getUint32(at + 4, true) !== 0) throw new TableFormatError(file, `KLOW entry ${k} is out of order, out of range or zero`);
    low[i] = value;
    previous = i;
  }
  return new Uint32Array(target.buffer, target.byteOffset, highs * 2);
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
    const header = rangeTableHeader(bytes, file, family === 4 ? 'ip4c' : 'ip6c', sectionLayout(family), checks);
    super(bytes, file, family, header, family === 6 ? denseLow(bytes, header, file, scratch) : undefined);
    const s = (id: string) => header.sections.get(id)!;
    const fail = (problem: string): never => {
      throw new TableFormatError(file, problem);
    };
    this.rangeAnswer = u32Section(bytes, s('RANS'));
    this.answerCount = s('AROW').count;
    this.answers = new DataView(bytes.buffer, bytes.byteOffset + s('AROW').offset, s('AROW').byteLength);
    this.strings = new StringPool(u32Section(bytes, s('STRO')), sectionBytes(bytes, s('STRS')), file);
    this.rows = new Array(this.answerCount);
    if (this.rangeCount === 0) fail('no ranges');
    if (this.rangeAnswer.length !== this.rangeCount) fail('section RANS differs in length from the keys');
    validateRangeKeys(this, COMPACT_INDEX_BITS, checks, fail);
    const bad = checks.firstRowAtOrAbove(this.rangeAnswer, this.answerCount);
    if (bad >= 0) fail(`range ${bad} points to answer row ${this.rangeAnswer[bad]} of ${this.answerCount}`);
    for (let r = 0; r < this.answerCount; r++) {
      const at = r * ANSWER_ROW_BYTES;
      if (this.answers.getUint16(at + 2, true) > HAS_NETWORK) fail(`answer row ${r} has unknown flags`);
      if (!this.strings.has(this.answers.getUint32(at + 8, true))) fail(`answer row ${r} has a bad string id`);
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
      const at = row * ANSWER_ROW_BYTES;
      const cc = v.getUint16(at, true);
      const asn = v.getUint32(at + 4, true);
      decoded = Object.freeze({
        country_code: cc === 0 ? null : String.fromCharCode(cc & 0xff, cc >>> 8),
        network: (v.getUint16(at + 2, true) & HAS_NETWORK) === 0 ? null : Object.freeze({ asn: asn === 0 ? null : asn, organization: this.strings.get(v.getUint32(at + 8, true)) }),
      });
      this.rows[row] = decoded;
    }
    return decoded;
  }
}
