/**
 * A strict, build-time reader of MaxMind DB (MMDB v2) files: it walks the whole search tree in
 * address order and decodes data records. The lookup path never uses it; it only turns a `.mmdb`
 * into ranges for our own table builder. Format: https://maxmind.github.io/MaxMind-DB/
 */

const METADATA_MARKER = Uint8Array.from([0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com')]);
const METADATA_MAX_SIZE = 128 * 1024;
const DATA_SECTION_SEPARATOR = 16;
/** Nesting of maps and arrays within one value: the limit of libmaxminddb and MaxMind's Go reader. */
const MAX_DEPTH = 512;
/**
 * Values (map keys among them), and bytes of strings and bytes, one decode may produce: MaxMind's
 * recommended limits (2^16 values, 2 MiB), which stop pointers that fan out to a shared value from
 * multiplying the work and memory of a small file.
 */
const MAX_VALUES = 65_536;
const MAX_PAYLOAD_BYTES = 2 * 1024 * 1024;
/** By type number, the largest payload of a fixed-width type (a double's and a float's exact one); 0 where free. */
const FIXED_PAYLOAD = [0, 0, 0, 8, 0, 2, 4, 0, 4, 8, 16, 0, 0, 0, 1, 4];
const TYPE_NAMES =
  'extended pointer string double bytes uint16 uint32 map int32 uint64 uint128 array container end-marker boolean float'.split(' ');

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

export class MmdbFormatError extends Error {
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
  /** The section decodeAt reads and pointers are relative to: the metadata, then the data section. */
  private readonly dataStart: number;
  private readonly dataEnd: number;
  private readonly textDecoder = new TextDecoder('utf-8', { fatal: true });
  /** What the decode in progress may still produce (MAX_VALUES, MAX_PAYLOAD_BYTES). */
  private valuesLeft = 0;
  private payloadLeft = 0;

  constructor(
    bytes: Uint8Array,
    private readonly name: string,
  ) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const markerAt = findLast(bytes, METADATA_MARKER, Math.max(0, bytes.length - METADATA_MAX_SIZE));
    if (markerAt < 0) throw new MmdbFormatError(name, 'metadata marker not found');
    this.dataStart = markerAt + METADATA_MARKER.length;
    this.dataEnd = bytes.length;
    this.metadata = this.checkMetadata(this.decodeSection(0));
    this.nodeByteSize = this.metadata.recordSize / 4;
    this.searchTreeSize = this.metadata.nodeCount * this.nodeByteSize;
    this.dataStart = this.searchTreeSize + DATA_SECTION_SEPARATOR;
    this.dataEnd = markerAt;
    if (this.dataStart > markerAt) {
      throw new MmdbFormatError(
        name,
        `search tree of ${this.metadata.nodeCount} nodes and its separator (${this.dataStart} bytes) run past the metadata marker at byte ${markerAt}`,
      );
    }
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
    if (!Number.isInteger(dataOffset) || dataOffset < 0 || this.dataStart + dataOffset >= this.dataEnd) {
      throw new MmdbFormatError(this.name, `record offset ${dataOffset} outside the data section`);
    }
    return this.decodeSection(dataOffset);
  }

  /** One value at an offset of the current section, within the limits of one decode. */
  private decodeSection(offset: number): MmdbValue {
    this.valuesLeft = MAX_VALUES;
    this.payloadLeft = MAX_PAYLOAD_BYTES;
    return this.decodeAt(this.dataStart + offset, 0).value;
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
    const dataSize = this.dataEnd - this.dataStart;
    // A tree reaches each node once (the skipped IPv4 aliases aside): more visits than nodes means
    // shared or cyclic subtrees, whose walk would multiply without end.
    let visitsLeft = nodeCount;
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
        const dataOffset = node - nodeCount - DATA_SECTION_SEPARATOR;
        if (dataOffset < 0 || dataOffset >= dataSize) {
          throw new MmdbFormatError(
            this.name,
            `search tree record ${node} at depth ${depth} points ${dataOffset < 0 ? 'into the data section separator' : 'past the data section'}`,
          );
        }
        for (let i = 0; i < 4; i++) start[i] = stackWords[w + i];
        if (bits === 32) {
          start[0] = start[3];
          start[1] = start[2] = start[3] = 0;
        }
        visit(start, depth, dataOffset);
        continue;
      }
      if (depth >= bits) throw new MmdbFormatError(this.name, `search tree deeper than ${bits} bits at node ${node}`);
      if (node === skipNode && depth > 0) continue;
      if (--visitsLeft < 0) {
        throw new MmdbFormatError(
          this.name,
          `search tree walk passes more than its ${nodeCount} nodes (shared or cyclic subtrees) at node ${node}`,
        );
      }
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
      if (v === undefined) throw new MmdbFormatError(this.name, `metadata field ${key} missing`);
      const n = typeof v === 'bigint' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
        throw new MmdbFormatError(this.name, `metadata field ${key} is not an unsigned integer (${describe(v)})`);
      }
      return n;
    };
    const major = num('binary_format_major_version');
    if (major !== 2) throw new MmdbFormatError(this.name, `binary format version ${major} is not 2`);
    const recordSize = num('record_size');
    if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) throw new MmdbFormatError(this.name, `record size ${recordSize}`);
    const ipVersion = num('ip_version');
    if (ipVersion !== 4 && ipVersion !== 6) throw new MmdbFormatError(this.name, `ip version ${ipVersion}`);
    const nodeCount = num('node_count');
    // A record must be able to name every node and the data after them.
    if (nodeCount === 0 || nodeCount >= 2 ** recordSize || nodeCount * (recordSize / 4) > this.bytes.length) {
      throw new MmdbFormatError(this.name, `node count ${nodeCount} does not fit the file`);
    }
    const databaseType = raw.database_type;
    if (typeof databaseType !== 'string') {
      throw new MmdbFormatError(this.name, `metadata field database_type is not a string (${describe(databaseType)})`);
    }
    // languages and description are optional; present, they have the spec's types.
    const languages = raw.languages ?? [];
    if (!Array.isArray(languages) || !languages.every((l) => typeof l === 'string')) {
      throw new MmdbFormatError(this.name, 'metadata field languages is not an array of strings');
    }
    const description = raw.description ?? {};
    if (!isMap(description) || !Object.values(description).every((d) => typeof d === 'string')) {
      throw new MmdbFormatError(this.name, 'metadata field description is not a map of strings');
    }
    return {
      binaryFormatMajorVersion: major,
      binaryFormatMinorVersion: num('binary_format_minor_version'),
      buildEpoch: num('build_epoch'),
      databaseType,
      ipVersion,
      nodeCount,
      recordSize,
      languages: languages as string[],
      description: description as Record<string, string>,
    };
  }

  private formatError(at: number, problem: string): MmdbFormatError {
    return new MmdbFormatError(this.name, `at byte ${at}: ${problem}`);
  }

  /**
   * Decodes the field at `at`, a file offset inside [dataStart, dataEnd). Every read is checked
   * against dataEnd, containers against MAX_DEPTH and the bytes left, and the whole decode against
   * MAX_VALUES and MAX_PAYLOAD_BYTES.
   */
  private decodeAt(at: number, depth: number): { value: MmdbValue; next: number } {
    const b = this.bytes;
    const end = this.dataEnd;
    const field = at;
    if (at >= end) throw this.formatError(at, `field past the end of the section (byte ${end})`);
    if (depth > MAX_DEPTH) throw this.formatError(at, `maps and arrays nested deeper than ${MAX_DEPTH}`);
    const ctrl = b[at++];
    let type = ctrl >>> 5;
    if (type === 1) return this.followPointer(field, ctrl, depth);
    if (type === 0) {
      if (at >= end) throw this.formatError(field, 'extended type byte past the end of the section');
      type = 7 + b[at++];
      // 12 (data cache container) and 13 (end marker) mark regions of the section, never a value.
      if (type < 8 || type > 15 || type === 12 || type === 13) throw this.formatError(field, `unknown data type ${type}`);
    }
    let size = ctrl & 0x1f;
    if (size >= 29) {
      const sizeBytes = size - 28;
      if (at + sizeBytes > end) throw this.formatError(field, 'size bytes past the end of the section');
      if (size === 29) size = 29 + b[at];
      else if (size === 30) size = 285 + ((b[at] << 8) | b[at + 1]);
      else size = 65821 + ((b[at] << 16) | (b[at + 1] << 8) | b[at + 2]);
      at += sizeBytes;
    }
    if (--this.valuesLeft < 0) throw this.formatError(field, `more than ${MAX_VALUES} values in one record`);
    if (type === 7 || type === 11) {
      // Each entry takes at least one byte, each map pair two: a size beyond that is a lie.
      const least = type === 7 ? size * 2 : size;
      if (least > end - at) throw this.formatError(field, `${TYPE_NAMES[type]} of ${size} entries in the ${end - at} bytes left`);
      return type === 7 ? this.decodeMap(at, size, depth) : this.decodeArray(at, size, depth);
    }
    // A boolean's size is its value; it has no payload.
    if (type !== 14 && at + size > end) {
      throw this.formatError(field, `${TYPE_NAMES[type]} of ${size} bytes runs past the end of the section (byte ${end})`);
    }
    const fixed = FIXED_PAYLOAD[type];
    if (fixed !== 0 && (type === 3 || type === 15 ? size !== fixed : size > fixed)) {
      throw this.formatError(field, `${TYPE_NAMES[type]} of ${size} bytes`);
    }
    switch (type) {
      case 2:
        return { value: this.decodeString(field, at, size), next: at + size };
      case 3:
        return { value: this.view.getFloat64(at), next: at + 8 };
      case 4:
        this.spendPayload(field, size);
        return { value: b.slice(at, at + size), next: at + size };
      case 5:
      case 6:
      case 9:
      case 10:
        return { value: readUnsigned(b, at, size), next: at + size };
      case 8: {
        let v = 0;
        for (let i = 0; i < size; i++) v = (v << 8) | b[at + i];
        return { value: v | 0, next: at + size };
      }
      case 14:
        return { value: size !== 0, next: at };
      case 15:
        return { value: this.view.getFloat32(at), next: at + 4 };
      default:
        throw this.formatError(field, `unknown data type ${type}`);
    }
  }

  /** The spec forbids a pointer to a pointer, so a chain is one step; cycles run into MAX_DEPTH. */
  private followPointer(field: number, ctrl: number, depth: number): { value: MmdbValue; next: number } {
    const b = this.bytes;
    const at = field + 1;
    const ss = (ctrl >>> 3) & 3;
    if (at + ss + 1 > this.dataEnd) throw this.formatError(field, 'pointer past the end of the section');
    const vvv = ctrl & 7;
    let target: number;
    if (ss === 0) target = (vvv << 8) | b[at];
    else if (ss === 1) target = ((vvv << 16) | (b[at] << 8) | b[at + 1]) + 2048;
    else if (ss === 2) target = ((vvv << 24) | (b[at] << 16) | (b[at + 1] << 8) | b[at + 2]) + 526336;
    else target = this.view.getUint32(at);
    const to = this.dataStart + target;
    if (to >= this.dataEnd) throw this.formatError(field, `pointer to ${target} past the end of the section`);
    if (b[to] >>> 5 === 1) throw this.formatError(field, `pointer to ${target}, which is another pointer`);
    return { value: this.decodeAt(to, depth).value, next: at + ss + 1 };
  }

  private decodeMap(at: number, size: number, depth: number): { value: MmdbValue; next: number } {
    const map: Record<string, MmdbValue> = {};
    let p = at;
    for (let i = 0; i < size; i++) {
      const key = this.decodeAt(p, depth + 1);
      if (typeof key.value !== 'string') throw this.formatError(p, 'map key is not a string');
      const value = this.decodeAt(key.next, depth + 1);
      map[key.value] = value.value;
      p = value.next;
    }
    return { value: map, next: p };
  }

  private decodeArray(at: number, size: number, depth: number): { value: MmdbValue; next: number } {
    const list: MmdbValue[] = [];
    let p = at;
    for (let i = 0; i < size; i++) {
      const item = this.decodeAt(p, depth + 1);
      list.push(item.value);
      p = item.next;
    }
    return { value: list, next: p };
  }

  private decodeString(field: number, at: number, size: number): string {
    this.spendPayload(field, size);
    try {
      return this.textDecoder.decode(this.bytes.subarray(at, at + size));
    } catch {
      throw this.formatError(field, `string of ${size} bytes is not UTF-8`);
    }
  }

  private spendPayload(field: number, size: number): void {
    this.payloadLeft -= size;
    if (this.payloadLeft < 0) throw this.formatError(field, `more than ${MAX_PAYLOAD_BYTES} bytes of strings and bytes in one record`);
  }
}

function describe(v: MmdbValue | undefined): string {
  if (v === undefined) return 'missing';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.slice(0, 40))}`;
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Uint8Array) return 'bytes';
  return typeof v === 'object' ? 'a map' : `${typeof v} ${String(v)}`;
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
