/**
 * A strict, build-time reader of MaxMind DB (MMDB v2) files: it walks the whole search tree in
 * address order and decodes data records. The lookup path never uses it; it only turns a `.mmdb`
 * into ranges for our own table builder. Format: https://maxmind.github.io/MaxMind-DB/
 */

const METADATA_MARKER = Uint8Array.from([0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com')]);
const METADATA_MAX_SIZE = 128 * 1024;
const DATA_SECTION_SEPARATOR = 16;

export interface MmdbMetadata {
  binaryFormatMajorVersion: number;
  binaryFormatMinorVersion: number;
  buildEpoch: number;
  databaseType: string;
  ipVersion: 4 | 6;
  nodeCount: number;
  recordSize: 24 | 28 | 32;
  languages: string[];
  description: Record<string, string>;
}

export type MmdbValue = string | number | bigint | boolean | Uint8Array | MmdbValue[] | { [key: string]: MmdbValue };

/** One leaf of the search tree: the network `start/prefix` maps to the record at `dataOffset`. */
export type LeafVisitor = (start: Uint32Array, prefixLength: number, dataOffset: number) => void;

class MmdbFormatError extends Error {
  constructor(file: string, problem: string) {
    super(`${file}: not a usable MaxMind DB file: ${problem}`);
    this.name = 'MmdbFormatError';
  }
}

export class MmdbFile {
  readonly metadata: MmdbMetadata;
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly nodeByteSize: number;
  private readonly searchTreeSize: number;
  private readonly dataStart: number;
  private readonly dataEnd: number;
  private readonly textDecoder = new TextDecoder('utf-8', { fatal: true });

  constructor(
    bytes: Uint8Array,
    private readonly name: string,
  ) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const markerAt = findLast(bytes, METADATA_MARKER, Math.max(0, bytes.length - METADATA_MAX_SIZE));
    if (markerAt < 0) throw new MmdbFormatError(name, 'metadata marker not found');
    this.dataStart = 0;
    this.dataEnd = bytes.length;
    const metaStart = markerAt + METADATA_MARKER.length;
    const raw = this.decodeAt(metaStart, metaStart).value;
    this.metadata = this.checkMetadata(raw);
    this.nodeByteSize = this.metadata.recordSize / 4;
    this.searchTreeSize = this.metadata.nodeCount * this.nodeByteSize;
    this.dataStart = this.searchTreeSize + DATA_SECTION_SEPARATOR;
    this.dataEnd = markerAt;
    if (this.dataStart > markerAt) throw new MmdbFormatError(name, 'search tree larger than the file');
  }

  /**
   * Visits every leaf that holds data, in ascending address order, for one address family.
   * IPv4 in an IPv6 tree is the subtree at ::/96; when walking IPv6 that subtree and the
   * aliases that point into it (MaxMind files alias ::ffff:0:0/96, 2002::/16 and 2001::/32) are
   * skipped.
   */
  walk(family: 4 | 6, visit: LeafVisitor): void {
    const { ipVersion, nodeCount } = this.metadata;
    if (family === 6 && ipVersion === 4) return;
    let root = 0;
    let ipv4Root = -1;
    if (ipVersion === 6) {
      ipv4Root = this.ipv4StartNode();
      if (family === 4) root = ipv4Root;
    }
    if (family === 4 && root >= nodeCount) return;
    const bits = family === 4 ? 32 : 128;
    this.walkFrom(root, bits, family === 6 ? ipv4Root : -1, visit);
  }

  /** Decodes the data record at an offset relative to the data section, as given to a visitor. */
  record(dataOffset: number): MmdbValue {
    const at = this.dataStart + dataOffset;
    if (dataOffset < 0 || at >= this.dataEnd) throw new MmdbFormatError(this.name, `record offset ${dataOffset} outside the data section`);
    return this.decodeAt(at, this.dataStart).value;
  }

  private ipv4StartNode(): number {
    let node = 0;
    for (let i = 0; i < 96 && node < this.metadata.nodeCount; i++) node = this.readRecord(node, 0);
    return node;
  }

  private walkFrom(root: number, bits: number, skipNode: number, visit: LeafVisitor): void {
    const { nodeCount } = this.metadata;
    const depthLimit = bits + 1;
    const stackNode = new Float64Array(depthLimit + 1);
    const stackDepth = new Uint8Array(depthLimit + 1);
    const stackWords = new Uint32Array((depthLimit + 1) * 4);
    const start = new Uint32Array(4);
    stackNode[0] = root;
    stackDepth[0] = 0;
    let top = 1;
    while (top > 0) {
      top--;
      const node = stackNode[top];
      const depth = stackDepth[top];
      const w = top * 4;
      if (node >= nodeCount) {
        if (node === nodeCount) continue;
        for (let i = 0; i < 4; i++) start[i] = stackWords[w + i];
        if (bits === 32) {
          start[0] = start[3];
          start[1] = start[2] = start[3] = 0;
        }
        visit(start, depth, node - nodeCount - DATA_SECTION_SEPARATOR);
        continue;
      }
      if (depth >= bits) throw new MmdbFormatError(this.name, `search tree deeper than ${bits} bits`);
      if (node === skipNode && depth > 0) continue;
      const right = this.readRecord(node, 1);
      const left = this.readRecord(node, 0);
      const bit = bits - 1 - depth;
      const wordIndex = 3 - (bit >>> 5);
      const mask = 1 << (bit & 31);
      // Right child first so that the left (lower) half is popped and visited first.
      const r = top * 4;
      stackNode[top] = right;
      stackDepth[top] = depth + 1;
      for (let i = 0; i < 4; i++) stackWords[r + i] = stackWords[w + i];
      stackWords[r + wordIndex] = (stackWords[r + wordIndex] | mask) >>> 0;
      top++;
      const l = top * 4;
      stackNode[top] = left;
      stackDepth[top] = depth + 1;
      for (let i = 0; i < 4; i++) stackWords[l + i] = stackWords[r + i];
      stackWords[l + wordIndex] = (stackWords[l + wordIndex] & ~mask) >>> 0;
      top++;
    }
  }

  private readRecord(node: number, side: 0 | 1): number {
    const b = this.bytes;
    const at = node * this.nodeByteSize;
    switch (this.metadata.recordSize) {
      case 24: {
        const o = at + side * 3;
        return (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
      }
      case 28: {
        if (side === 0) return (((b[at + 3] & 0xf0) << 20) | (b[at] << 16) | (b[at + 1] << 8) | b[at + 2]) >>> 0;
        return (((b[at + 3] & 0x0f) << 24) | (b[at + 4] << 16) | (b[at + 5] << 8) | b[at + 6]) >>> 0;
      }
      default:
        return this.view.getUint32(at + side * 4);
    }
  }

  private checkMetadata(raw: MmdbValue): MmdbMetadata {
    if (!isMap(raw)) throw new MmdbFormatError(this.name, 'metadata is not a map');
    const num = (key: string): number => {
      const v = raw[key];
      if (typeof v === 'bigint') return Number(v);
      if (typeof v !== 'number') throw new MmdbFormatError(this.name, `metadata field ${key} missing`);
      return v;
    };
    const major = num('binary_format_major_version');
    if (major !== 2) throw new MmdbFormatError(this.name, `binary format version ${major} is not 2`);
    const recordSize = num('record_size');
    if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) throw new MmdbFormatError(this.name, `record size ${recordSize}`);
    const ipVersion = num('ip_version');
    if (ipVersion !== 4 && ipVersion !== 6) throw new MmdbFormatError(this.name, `ip version ${ipVersion}`);
    const nodeCount = num('node_count');
    if (!Number.isInteger(nodeCount) || nodeCount <= 0 || nodeCount * (recordSize / 4) > this.bytes.length) {
      throw new MmdbFormatError(this.name, `node count ${nodeCount} does not fit the file`);
    }
    const databaseType = raw.database_type;
    if (typeof databaseType !== 'string') throw new MmdbFormatError(this.name, 'metadata field database_type missing');
    const languages = Array.isArray(raw.languages) ? raw.languages.filter((l): l is string => typeof l === 'string') : [];
    const description: Record<string, string> = {};
    if (isMap(raw.description)) for (const [k, v] of Object.entries(raw.description)) if (typeof v === 'string') description[k] = v;
    return {
      binaryFormatMajorVersion: major,
      binaryFormatMinorVersion: num('binary_format_minor_version'),
      buildEpoch: num('build_epoch'),
      databaseType,
      ipVersion,
      nodeCount,
      recordSize,
      languages,
      description,
    };
  }

  private decodeAt(at: number, pointerBase: number): { value: MmdbValue; next: number } {
    const b = this.bytes;
    if (at >= this.dataEnd) throw new MmdbFormatError(this.name, `data offset ${at} past the end`);
    const ctrl = b[at++];
    let type = ctrl >>> 5;
    if (type === 1) {
      const ss = (ctrl >>> 3) & 3;
      const vvv = ctrl & 7;
      let target: number;
      if (ss === 0) target = (vvv << 8) | b[at];
      else if (ss === 1) target = ((vvv << 16) | (b[at] << 8) | b[at + 1]) + 2048;
      else if (ss === 2) target = ((vvv << 24) | (b[at] << 16) | (b[at + 1] << 8) | b[at + 2]) + 526336;
      else target = this.view.getUint32(at);
      const pointed = this.decodeAt(pointerBase + target, pointerBase);
      return { value: pointed.value, next: at + ss + 1 };
    }
    if (type === 0) type = 7 + b[at++];
    let size = ctrl & 0x1f;
    if (size === 29) size = 29 + b[at++];
    else if (size === 30) {
      size = 285 + ((b[at] << 8) | b[at + 1]);
      at += 2;
    } else if (size === 31) {
      size = 65821 + ((b[at] << 16) | (b[at + 1] << 8) | b[at + 2]);
      at += 3;
    }
    switch (type) {
      case 2:
        return { value: this.textDecoder.decode(b.subarray(at, at + size)), next: at + size };
      case 3:
        return { value: this.view.getFloat64(at), next: at + 8 };
      case 4:
        return { value: b.slice(at, at + size), next: at + size };
      case 5:
      case 6:
      case 9:
      case 10:
        return { value: readUnsigned(b, at, size), next: at + size };
      case 7: {
        const map: Record<string, MmdbValue> = {};
        let p = at;
        for (let i = 0; i < size; i++) {
          const key = this.decodeAt(p, pointerBase);
          if (typeof key.value !== 'string') throw new MmdbFormatError(this.name, 'map key is not a string');
          const value = this.decodeAt(key.next, pointerBase);
          map[key.value] = value.value;
          p = value.next;
        }
        return { value: map, next: p };
      }
      case 8: {
        let v = 0;
        for (let i = 0; i < size; i++) v = (v << 8) | b[at + i];
        return { value: v | 0, next: at + size };
      }
      case 11: {
        const list: MmdbValue[] = [];
        let p = at;
        for (let i = 0; i < size; i++) {
          const item = this.decodeAt(p, pointerBase);
          list.push(item.value);
          p = item.next;
        }
        return { value: list, next: p };
      }
      case 14:
        return { value: size !== 0, next: at };
      case 15:
        return { value: this.view.getFloat32(at), next: at + 4 };
      default:
        throw new MmdbFormatError(this.name, `unknown data type ${type} at ${at - 1}`);
    }
  }
}

function readUnsigned(b: Uint8Array, at: number, size: number): number | bigint {
  if (size <= 6) {
    let v = 0;
    for (let i = 0; i < size; i++) v = v * 256 + b[at + i];
    return v;
  }
  let v = 0n;
  for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(b[at + i]);
  return v;
}

function findLast(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = haystack.length - needle.length; i >= from; i--) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

export function isMap(v: MmdbValue | undefined): v is { [key: string]: MmdbValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}
