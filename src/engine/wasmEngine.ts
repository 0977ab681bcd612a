/**
 * The WASM module and its linear memory: places table files above the module's heap base,
 * validates them (checksum in WASM, structure in the table readers) and points the engine at
 * their search sections. Platform-neutral: bytes in, no `node:` imports.
 */
import { IpTable, type Family, type RangeKeys } from '../tables/format/ipTable.js';
import { INDEX_BITS } from '../tables/format/ipTableLayout.js';
import { MacTable } from '../tables/format/macTable.js';
import { CompactIpTable, compactReserve } from '../tables/format/compactIpTable.js';
import { COMPACT_INDEX_BITS } from '../tables/format/compactIpTableLayout.js';
import { checksumHex } from '../tables/format/checksum.js';
import { TableFormatError } from '../tables/format/container.js';
import { SECTION_ALIGN } from '../tables/format/containerLayout.js';
import { MAC_SECTION } from '../tables/format/macTableLayout.js';
import type { TableChecks } from '../tables/format/tableChecks.js';

export interface WasmExports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  v4Configure(index: number, keys: number, indexBits: number): void;
  v4Find(ip: number): number;
  v6Configure(index: number, keysHi: number, keysLo: number, indexBits: number): void;
  v6FindWords(w0: number, w1: number, w2: number, w3: number): number;
  ouiConfigure(table: number, slotBits: number): void;
  ouiFind(hi24: number, lo24: number, bitsKnown: number): number;
  macFlags(hi24: number): number;
  specialConfigure(table: number, count: number): void;
  specialFind(hi24: number, lo24: number, digits: number): number;
  checksumReset(): void;
  checksumUpdate(ptr: number, length: number): void;
  checksumHigh(): number;
  checksumLow(): number;
  firstRowAtOrAbove(rows: number, from: number, to: number, limit: number): number;
  firstBadKey4(keys: number, index: number, shift: number, from: number, to: number): number;
  firstBadKey6(keysHi: number, keysLo: number, index: number, shift: bigint, from: number, to: number): number;
  jsonOutput(at: number, end: number, utf16At: number, latin1: boolean): void;
  mapSet(map: number, mask: number, key: number, value: number): boolean;
  ipJsonConfigure(family: number, description: number): void;
  ip4Json(address: number, level: number, ms: number, quiet: number): number;
  ip6Json(w0: number, w1: number, w2: number, w3: number, level: number, ms: number, quiet: number): number;
  jsonPendingZone(): number;
  jsonHosting(): number;
  macJsonConfigure(description: number): void;
  macJson(hi24: number, lo24: number, digits: number, level: number, text: number, length: number): number;
}

/** Elements per call of a long check: short calls let V8 switch to optimised code early. */
const CHECK_CHUNK = 1 << 16;

/** The table checks of the readers, run in WASM over the tables in place (see tableChecks.ts). */
export function wasmTableChecks(exports: WasmExports): TableChecks {
  const chunked = (count: number, run: (from: number, to: number) => number): number => {
    for (let from = 0; from < count; from += CHECK_CHUNK) {
      const bad = run(from, Math.min(count, from + CHECK_CHUNK));
      if (bad >= 0) return bad;
    }
    return -1;
  };
  return {
    checksum(checked) {
      exports.checksumReset();
      // whole groups of four checksummed words per call (SECTION_ALIGN bytes)
      const bytes = CHECK_CHUNK * SECTION_ALIGN;
      for (let done = 0; done < checked.byteLength; done += bytes) {
        exports.checksumUpdate(checked.byteOffset + done, Math.min(bytes, checked.byteLength - done));
      }
      return checksumHex(exports.checksumHigh(), exports.checksumLow());
    },
    firstRowAtOrAbove: (rows, limit) => chunked(rows.length, (from, to) => exports.firstRowAtOrAbove(rows.byteOffset, from, to, limit)),
    firstBadKey4: (keys, index, shift) =>
      chunked(keys.length, (from, to) => exports.firstBadKey4(keys.byteOffset, index.byteOffset, shift, from, to)),
    firstBadKey6: (hi, lo, index, shift) =>
      chunked(hi.length >>> 1, (from, to) => exports.firstBadKey6(hi.byteOffset, lo.byteOffset, index.byteOffset, BigInt(shift), from, to)),
  };
}

/**
 * A table file to place: its bytes, or its length and a function that fills the destination
 * (asynchronously where the host can read in the background while other tables are checked).
 */
export type TableSource =
  Uint8Array | { name: string; byteLength: number; fill(destination: Uint8Array): void | Promise<void>; head?: Uint8Array };

export interface TableSources {
  ip4?: TableSource;
  ip6?: TableSource;
  mac?: TableSource;
}

export interface TableNames {
  ip4?: string;
  ip6?: string;
  mac?: string;
}

const PAGE = 65536;
/** wasm32 linear memory: 65,536 pages of 64 KiB */
const MAX_MEMORY = 65536 * PAGE;

/** What the WASM range search needs of a range table, full or compact: its key views, in WASM memory. */
export type RangeTable = RangeKeys;

/** How placed bytes become validated tables: the full readers, or the compact sets'. */
export interface TableReaders<I extends RangeTable> {
  /** `scratch`: the reserve() bytes after the table, for what the reader rebuilds */
  ip(bytes: Uint8Array, name: string, family: Family, checks: TableChecks, scratch: Uint8Array): I;
  mac(bytes: Uint8Array, name: string, checks: TableChecks): MacTable;
  indexBits: Readonly<Record<Family, number>>;
  /** memory to reserve after an IP table, from its first bytes (at least its header and directory) */
  reserve(family: Family, head: Uint8Array | undefined, name: string): number;
  /** bytes of the area where the engine writes records' JSON (0: none) */
  jsonAreaBytes: number;
}

/**
 * The record JSON area of the full tables: output, fragments and clock slots (recordJson.ts).
 * Reserved before the tables because memory cannot grow under their views; pages never written
 * cost no resident memory.
 */
const JSON_AREA_BYTES = 4 << 20;

const fullReaders: TableReaders<IpTable> = {
  ip: (bytes, name, family, checks) => new IpTable(bytes, name, family, checks),
  mac: (bytes, name, checks) => new MacTable(bytes, name, checks),
  indexBits: INDEX_BITS,
  reserve: () => 0,
  jsonAreaBytes: JSON_AREA_BYTES,
};

export const compactReaders: TableReaders<CompactIpTable> = {
  ip: (bytes, name, family, checks, scratch) => new CompactIpTable(bytes, name, family, checks, scratch),
  mac: (bytes, name, checks) => new MacTable(bytes, name, checks, 'macc'),
  indexBits: { 4: COMPACT_INDEX_BITS, 6: COMPACT_INDEX_BITS },
  reserve: (family, head, name) => {
    if (family === 4) return 0;
    if (!head) throw new TableFormatError(name, 'a compact IPv6 table needs its first bytes before placement (TableSource.head)');
    return compactReserve(family, head, name);
  },
  jsonAreaBytes: 0,
};

export interface PlacedTables<I extends RangeTable = IpTable> {
  exports: WasmExports;
  ip4: I | null;
  ip6: I | null;
  mac: MacTable | null;
  /** the record JSON area (src/engine/recordJson.ts): address and bytes (0: none) */
  jsonArea: number;
  jsonAreaBytes: number;
}

/** Tables are placed at SECTION_ALIGN boundaries so that their sections are aligned in WASM memory too. */
const alignUp = (n: number) => Math.ceil(n / SECTION_ALIGN) * SECTION_ALIGN;

export async function instantiateEngine(wasm: BufferSource | WebAssembly.Module): Promise<WasmExports> {
  const instance =
    wasm instanceof WebAssembly.Module ? await WebAssembly.instantiate(wasm, {}) : (await WebAssembly.instantiate(wasm, {})).instance;
  return instance.exports as unknown as WasmExports;
}

/**
 * Grows the module's memory once, copies every table in and validates it before use. Tables are
 * checked in the order their reads complete, so that checking overlaps the remaining reads.
 */
export async function placeTables<I extends RangeTable = IpTable>(
  exports: WasmExports,
  sources: TableSources,
  names: TableNames,
  readers: TableReaders<I> = fullReaders as unknown as TableReaders<I>,
): Promise<PlacedTables<I>> {
  const kinds = (['ip4', 'ip6', 'mac'] as const).filter((k) => sources[k] !== undefined);
  let cursor = alignUp(exports.heapBase());
  const jsonArea = cursor;
  cursor += readers.jsonAreaBytes;
  const offsets: Partial<Record<(typeof kinds)[number], number>> = {};
  const scratch: Partial<Record<(typeof kinds)[number], [number, number]>> = {};
  for (const kind of kinds) {
    const source = sources[kind]!;
    offsets[kind] = cursor;
    cursor = alignUp(cursor + source.byteLength);
    if (kind === 'mac') continue;
    const name = names[kind] ?? (source instanceof Uint8Array ? `${kind} table` : source.name);
    const reserved = readers.reserve(kind === 'ip4' ? 4 : 6, source instanceof Uint8Array ? source : source.head, name);
    if (reserved > source.byteLength)
      throw new TableFormatError(name, `asks for ${reserved} bytes of scratch memory, more than the file's ${source.byteLength}`);
    scratch[kind] = [cursor, reserved];
    cursor = alignUp(cursor + reserved);
  }
  // The record writer reads whole words, up to 15 bytes past a table's last string.
  cursor += SECTION_ALIGN;
  if (cursor > MAX_MEMORY) throw new RangeError(`the tables need ${cursor} bytes of WASM memory, more than its ${MAX_MEMORY} (4 GiB)`);
  const have = exports.memory.buffer.byteLength;
  if (cursor > have) exports.memory.grow(Math.ceil((cursor - have) / PAGE));
  const memory = new Uint8Array(exports.memory.buffer);
  const checks = wasmTableChecks(exports);
  const placed: PlacedTables<I> = {
    exports,
    ip4: null,
    ip6: null,
    mac: null,
    jsonArea,
    jsonAreaBytes: readers.jsonAreaBytes,
  };
  const destinations = new Map(kinds.map((kind) => [kind, memory.subarray(offsets[kind]!, offsets[kind]! + sources[kind]!.byteLength)]));
  const reads = new Map(
    kinds.map((kind) => {
      const source = sources[kind]!;
      const destination = destinations.get(kind)!;
      const filled = source instanceof Uint8Array ? destination.set(source) : source.fill(destination);
      return [kind, Promise.resolve(filled).then(() => kind)] as const;
    }),
  );
  try {
    while (reads.size > 0) {
      const kind = await Promise.race(reads.values());
      reads.delete(kind);
      const source = sources[kind]!;
      const name = names[kind] ?? (source instanceof Uint8Array ? `${kind} table` : source.name);
      const destination = destinations.get(kind)!;
      if (kind === 'mac') placed.mac = readers.mac(destination, name, checks);
      else
        placed[kind] = readers.ip(
          destination,
          name,
          kind === 'ip4' ? 4 : 6,
          checks,
          memory.subarray(scratch[kind]![0], scratch[kind]![0] + scratch[kind]![1]),
        );
    }
  } finally {
    await Promise.allSettled(reads.values());
  }
  configure(placed, readers.indexBits);
  return placed;
}

function configure(placed: PlacedTables<RangeTable>, indexBits: Readonly<Record<Family, number>>): void {
  const { exports, ip4, ip6, mac } = placed;
  // The key views lie in WASM memory: their byte offsets are the engine's addresses.
  if (ip4) exports.v4Configure(ip4.index.byteOffset, ip4.keys!.byteOffset, indexBits[4]);
  if (ip6) exports.v6Configure(ip6.index.byteOffset, ip6.keysHi!.byteOffset, ip6.keysLo!.byteOffset, indexBits[6]);
  if (mac) {
    exports.ouiConfigure(mac.bytes.byteOffset + mac.sectionOffset(MAC_SECTION.hash), mac.slotBits);
    exports.specialConfigure(mac.bytes.byteOffset + mac.sectionOffset(MAC_SECTION.specialRows), mac.specialCount);
    // The hash is only trusted once every block is found again through it.
    for (let row = 0; row < mac.blockCount; row++) {
      const block = mac.block(row);
      if (exports.ouiFind(block.hi24, block.lo24, block.bits) !== row) {
        throw new TableFormatError(mac.file, `block row ${row} cannot be found through the hash`);
      }
    }
  }
}
