/**
 * The WASM module and its linear memory: places table files above the module's heap base,
 * validates them (checksum in WASM, structure in the table readers) and points the engine at
 * their search sections. Platform-neutral: bytes in, no `node:` imports.
 */
import { IpTable } from '../tables/format/ipTable.js';
import { MacTable } from '../tables/format/macTable.js';
import { checksumHex } from '../tables/format/checksum.js';
import { INDEX_BITS } from '../tables/format/ipTable.js';
import { TableFormatError } from '../tables/format/container.js';

export interface WasmExports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  v4Configure(index: number, keys: number, indexBits: number): void;
  v4Find(ip: number): number;
  v4FindBatch(input: number, output: number, count: number): void;
  v6Configure(index: number, keysHi: number, keysLo: number, count: number, indexBits: number): void;
  v6FindWords(w0: number, w1: number, w2: number, w3: number): number;
  v6FindBatch(input: number, output: number, count: number): void;
  ouiConfigure(table: number, slotBits: number): void;
  ouiFind(hi24: number, lo24: number, bitsKnown: number): number;
  ouiFindBatch(input: number, output: number, count: number): void;
  macFlags(hi24: number): number;
  macFlagsBatch(input: number, output: number, count: number): void;
  checksum(ptr: number, length: number): number;
  checksumHigh(): number;
}

/** A table file to place: its bytes, or its length and a function that fills the destination. */
export type TableSource = Uint8Array | { name: string; byteLength: number; fill(destination: Uint8Array): void };

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

/** Inputs per batch call; larger batches are cut into chunks of this size. */
export const BATCH_CAPACITY = 65536;
const PAGE = 65536;
const ALIGN = 16;

export interface PlacedTables {
  exports: WasmExports;
  ip4: IpTable | null;
  ip6: IpTable | null;
  mac: MacTable | null;
  /** batch scratch: inputs (16 bytes per item at most) and outputs (4 bytes per item) */
  batchInput: number;
  batchOutput: number;
  batchFlags: number;
}

const alignUp = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

export async function instantiateEngine(wasm: BufferSource | WebAssembly.Module): Promise<WasmExports> {
  const instance =
    wasm instanceof WebAssembly.Module ? await WebAssembly.instantiate(wasm, {}) : (await WebAssembly.instantiate(wasm, {})).instance;
  return instance.exports as unknown as WasmExports;
}

function sourceLength(source: TableSource): number {
  return source instanceof Uint8Array ? source.byteLength : source.byteLength;
}

/** Grows the module's memory once, copies every table in and validates it before use. */
export function placeTables(exports: WasmExports, sources: TableSources, names: TableNames): PlacedTables {
  const kinds = (['ip4', 'ip6', 'mac'] as const).filter((k) => sources[k] !== undefined);
  let cursor = alignUp(exports.heapBase());
  const batchInput = cursor;
  cursor += BATCH_CAPACITY * 16;
  const batchOutput = cursor;
  cursor += BATCH_CAPACITY * 4;
  const batchFlags = cursor;
  cursor += BATCH_CAPACITY * 4;
  const offsets: Partial<Record<(typeof kinds)[number], number>> = {};
  for (const kind of kinds) {
    offsets[kind] = cursor;
    cursor = alignUp(cursor + sourceLength(sources[kind]!));
  }
  const have = exports.memory.buffer.byteLength;
  if (cursor > have) exports.memory.grow(Math.ceil((cursor - have) / PAGE));
  const memory = new Uint8Array(exports.memory.buffer);
  const checksum = (checked: Uint8Array) => {
    const lo = exports.checksum(checked.byteOffset, checked.byteLength);
    return checksumHex(exports.checksumHigh(), lo);
  };
  const placed: PlacedTables = { exports, ip4: null, ip6: null, mac: null, batchInput, batchOutput, batchFlags };
  for (const kind of kinds) {
    const source = sources[kind]!;
    const at = offsets[kind]!;
    const length = sourceLength(source);
    const destination = memory.subarray(at, at + length);
    if (source instanceof Uint8Array) destination.set(source);
    else source.fill(destination);
    const name = names[kind] ?? (source instanceof Uint8Array ? `${kind} table` : source.name);
    if (kind === 'mac') placed.mac = new MacTable(destination, name, checksum);
    else placed[kind] = new IpTable(destination, name, kind === 'ip4' ? 4 : 6, checksum);
  }
  configure(placed);
  return placed;
}

function configure(placed: PlacedTables): void {
  const { exports, ip4, ip6, mac } = placed;
  if (ip4) {
    const base = ip4.bytes.byteOffset;
    exports.v4Configure(base + ip4.sectionOffset('INDX'), base + ip4.sectionOffset('KEYS'), INDEX_BITS[4]);
  }
  if (ip6) {
    const base = ip6.bytes.byteOffset;
    exports.v6Configure(base + ip6.sectionOffset('INDX'), base + ip6.sectionOffset('KEYH'), base + ip6.sectionOffset('KEYL'), ip6.rangeCount, INDEX_BITS[6]);
  }
  if (mac) {
    exports.ouiConfigure(mac.bytes.byteOffset + mac.sectionOffset('HASH'), mac.slotBits);
    // The hash is only trusted once every block is found again through it.
    for (let row = 0; row < mac.blockCount; row++) {
      const block = mac.block(row);
      if (exports.ouiFind(block.hi24, block.lo24, block.bits) !== row) {
        throw new TableFormatError(mac.file, `block row ${row} cannot be found through the hash`);
      }
    }
  }
}
