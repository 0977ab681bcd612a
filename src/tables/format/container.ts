/**
 * The container every netlookup table file shares (layout in containerLayout.ts, documented in
 * src/tables/FORMAT.md): a fixed header, a section directory, then 16-byte aligned sections.
 * The reader validates every length, offset and the checksum before anything trusts the file.
 */
import { checksumHex, tableChecksum } from './checksum.js';
import {
  asciiAt,
  CHECKED_FROM,
  DIRECTORY_ENTRY,
  FIXED_HEADER_BYTES,
  FORMAT_VERSION,
  HEADER,
  SECTION_ALIGN,
  TABLE_MAGIC,
  tableKinds,
  type SectionLayout,
} from './containerLayout.js';

/** ip4c, ip6c and macc are the compact sets for size-limited hosts (browsers, edge functions). */
export type TableKind = keyof typeof tableKinds;

export interface SectionSpec {
  /** four ASCII characters */
  id: string;
  /** number of elements (rows, keys, bytes: whatever the kind's layout says) */
  count: number;
  bytes: Uint8Array;
}

export interface Section {
  id: string;
  count: number;
  /** offset of the section from the start of the file */
  offset: number;
  byteLength: number;
}

export interface TableHeader {
  kind: TableKind;
  formatVersion: number;
  builtAt: Date;
  /** the newest date a source of the file states; null when none states one */
  sourceDate: Date | null;
  checksum: string;
  fileLength: number;
  sections: Map<string, Section>;
}

/** A file that is not a usable table. The message always names the file. */
export class TableFormatError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'TableFormatError';
  }
}

function align(n: number): number {
  return Math.ceil(n / SECTION_ALIGN) * SECTION_ALIGN;
}

/** Where the directory entry of section `i` starts. */
export function directoryEntryAt(i: number): number {
  return FIXED_HEADER_BYTES + i * DIRECTORY_ENTRY.bytes;
}

export function writeContainer(kind: TableKind, builtAt: Date, sourceDate: Date | null, sections: SectionSpec[]): Uint8Array {
  const headerLength = align(FIXED_HEADER_BYTES + sections.length * DIRECTORY_ENTRY.bytes);
  let length = headerLength;
  const placed = sections.map((s) => {
    if (!/^[A-Z0-9]{4}$/.test(s.id)) throw new Error(`section id ${s.id} is not four capitals or digits`);
    const offset = length;
    length = align(offset + s.bytes.byteLength);
    return { ...s, offset };
  });
  const file = new Uint8Array(length);
  const view = new DataView(file.buffer);
  file.set(new TextEncoder().encode(TABLE_MAGIC), HEADER.magic);
  view.setUint16(HEADER.formatVersion, FORMAT_VERSION, true);
  view.setUint16(HEADER.kind, tableKinds[kind], true);
  view.setUint32(HEADER.headerLength, headerLength, true);
  view.setUint32(HEADER.sectionCount, sections.length, true);
  view.setUint32(HEADER.fileLengthLow, length, true);
  view.setUint32(HEADER.fileLengthHigh, 0, true);
  view.setUint32(HEADER.builtAt, Math.floor(builtAt.getTime() / 1000), true);
  view.setUint32(HEADER.sourceDate, sourceDate === null ? 0 : Math.floor(sourceDate.getTime() / 1000), true);
  placed.forEach((s, i) => {
    const at = directoryEntryAt(i);
    file.set(new TextEncoder().encode(s.id), at + DIRECTORY_ENTRY.id);
    view.setUint32(at + DIRECTORY_ENTRY.count, s.count, true);
    view.setUint32(at + DIRECTORY_ENTRY.offset, s.offset, true);
    view.setUint32(at + DIRECTORY_ENTRY.byteLength, s.bytes.byteLength, true);
    file.set(s.bytes, s.offset);
  });
  const sum = tableChecksum(file.subarray(CHECKED_FROM));
  view.setUint32(HEADER.checksumHigh, parseInt(sum.slice(0, 8), 16), true);
  view.setUint32(HEADER.checksumLow, parseInt(sum.slice(8), 16), true);
  return file;
}

export type ChecksumFn = (checked: Uint8Array) => string;

/**
 * Validates the container of `bytes` (which must start 16-byte aligned) as a table of `kind`.
 * `checksum` may be a faster implementation of tableChecksum (the engine passes its WASM one).
 */
export function readContainer(bytes: Uint8Array, file: string, kind: TableKind, checksum: ChecksumFn = tableChecksum): TableHeader {
  const fail = (problem: string): never => {
    throw new TableFormatError(file, problem);
  };
  if (bytes.byteLength < FIXED_HEADER_BYTES) fail(`truncated: ${bytes.byteLength} bytes is shorter than a table header`);
  if (bytes.byteOffset % SECTION_ALIGN !== 0) fail('table bytes are not 16-byte aligned in memory');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = asciiAt(bytes, HEADER.magic, TABLE_MAGIC.length);
  if (magic !== TABLE_MAGIC) fail(`not a netlookup table (magic ${JSON.stringify(magic)}, expected ${TABLE_MAGIC})`);
  const formatVersion = view.getUint16(HEADER.formatVersion, true);
  if (formatVersion !== FORMAT_VERSION)
    fail(`table format version ${formatVersion} is not supported (this build reads version ${FORMAT_VERSION})`);
  const kindCode = view.getUint16(HEADER.kind, true);
  const foundKind = (Object.keys(tableKinds) as TableKind[]).find((k) => tableKinds[k] === kindCode);
  if (foundKind !== kind) fail(`wrong table kind: holds ${foundKind ?? `unknown kind ${kindCode}`}, expected ${kind}`);
  const headerLength = view.getUint32(HEADER.headerLength, true);
  const sectionCount = view.getUint32(HEADER.sectionCount, true);
  const fileLength = view.getUint32(HEADER.fileLengthLow, true);
  if (view.getUint32(HEADER.fileLengthHigh, true) !== 0 || fileLength !== bytes.byteLength) {
    fail(`truncated or padded: header says ${fileLength} bytes, file has ${bytes.byteLength}`);
  }
  if (headerLength !== align(FIXED_HEADER_BYTES + sectionCount * DIRECTORY_ENTRY.bytes) || headerLength > fileLength) {
    fail(`header length ${headerLength} does not match ${sectionCount} sections`);
  }
  const stored = checksumHex(view.getUint32(HEADER.checksumHigh, true), view.getUint32(HEADER.checksumLow, true));
  const actual = checksum(bytes.subarray(CHECKED_FROM));
  if (stored !== actual) fail(`checksum mismatch (stored ${stored}, computed ${actual}): the file is corrupt`);
  const sections = new Map<string, Section>();
  let previousEnd = headerLength;
  for (let i = 0; i < sectionCount; i++) {
    const at = directoryEntryAt(i);
    const id = asciiAt(bytes, at + DIRECTORY_ENTRY.id);
    const section: Section = {
      id,
      count: view.getUint32(at + DIRECTORY_ENTRY.count, true),
      offset: view.getUint32(at + DIRECTORY_ENTRY.offset, true),
      byteLength: view.getUint32(at + DIRECTORY_ENTRY.byteLength, true),
    };
    if (section.offset % SECTION_ALIGN !== 0 || section.offset < previousEnd || section.offset + section.byteLength > fileLength) {
      fail(`section ${id} lies outside the file or overlaps another`);
    }
    if (sections.has(id)) fail(`section ${id} appears twice`);
    sections.set(id, section);
    previousEnd = section.offset + section.byteLength;
  }
  return {
    kind,
    formatVersion,
    builtAt: new Date(view.getUint32(HEADER.builtAt, true) * 1000),
    sourceDate: view.getUint32(HEADER.sourceDate, true) === 0 ? null : new Date(view.getUint32(HEADER.sourceDate, true) * 1000),
    checksum: stored,
    fileLength,
    sections,
  };
}

/** Checks that every section of the layout is present and sized count × elementBytes. */
export function requireSections(header: TableHeader, file: string, layout: SectionLayout): void {
  for (const [id, { elementBytes }] of Object.entries(layout)) {
    const section = header.sections.get(id);
    if (!section) throw new TableFormatError(file, `section ${id} is missing`);
    if (elementBytes > 0 && section.byteLength !== section.count * elementBytes) {
      throw new TableFormatError(file, `section ${id} holds ${section.byteLength} bytes, expected ${section.count} × ${elementBytes}`);
    }
  }
}

export function sectionBytes(bytes: Uint8Array, section: Section): Uint8Array {
  return bytes.subarray(section.offset, section.offset + section.byteLength);
}

export function u32Section(bytes: Uint8Array, section: Section): Uint32Array {
  return new Uint32Array(bytes.buffer, bytes.byteOffset + section.offset, section.byteLength / Uint32Array.BYTES_PER_ELEMENT);
}

/** A DataView over one section (rows read field by field). */
export function sectionView(bytes: Uint8Array, section: Section): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset + section.offset, section.byteLength);
}

export function jsonSection<T>(bytes: Uint8Array, section: Section, file: string): T {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(sectionBytes(bytes, section))) as T;
  } catch (e) {
    throw new TableFormatError(file, `section ${section.id} is not valid JSON: ${(e as Error).message}`);
  }
}

export function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}
