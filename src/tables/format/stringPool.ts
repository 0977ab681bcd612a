/**
 * Strings of a table: UTF-8 bytes in one pool (section STRS) and u32 offsets (section STRO,
 * count + 1 entries). String id k is bytes [STRO[k], STRO[k + 1]); id 0 is the empty string and
 * stands for "no value" (null).
 */
import { sectionBytes, TableFormatError, u32Section, type SectionSpec, type TableHeader } from './container.js';
import { SHARED_SECTION } from './containerLayout.js';

export class StringPoolBuilder {
  private readonly ids = new Map<string, number>();
  private readonly parts: Uint8Array[] = [];
  private readonly offsets: number[] = [0, 0];
  private length = 0;
  private readonly encoder = new TextEncoder();

  constructor() {
    this.ids.set('', 0);
  }

  /** The id of a string, adding it if new; null, undefined and '' are id 0. */
  intern(value: string | null | undefined): number {
    if (!value) return 0;
    const known = this.ids.get(value);
    if (known !== undefined) return known;
    const bytes = this.encoder.encode(value);
    const id = this.offsets.length - 1;
    this.parts.push(bytes);
    this.length += bytes.byteLength;
    this.offsets.push(this.length);
    this.ids.set(value, id);
    return id;
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  sections(): { offsets: Uint32Array; bytes: Uint8Array } {
    const bytes = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      bytes.set(part, at);
      at += part.byteLength;
    }
    return { offsets: Uint32Array.from(this.offsets), bytes };
  }
}

export class StringPool {
  private readonly cache: (string | null | undefined)[];
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(
    private readonly offsets: Uint32Array,
    private readonly bytes: Uint8Array,
    file: string,
  ) {
    if (offsets.length < 1 || offsets[0] !== 0) throw new TableFormatError(file, 'string offsets must start at 0');
    for (let i = 1; i < offsets.length; i++) {
      if (offsets[i] < offsets[i - 1]) throw new TableFormatError(file, `string offsets decrease at ${i}`);
    }
    if (offsets[offsets.length - 1] !== bytes.byteLength) throw new TableFormatError(file, 'string offsets do not end at the pool end');
    this.cache = new Array(offsets.length - 1);
    this.cache[0] = null;
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  has(id: number): boolean {
    return id >= 0 && id < this.offsets.length - 1;
  }

  get(id: number): string | null {
    const cached = this.cache[id];
    if (cached !== undefined) return cached;
    const value = this.decoder.decode(this.bytes.subarray(this.offsets[id], this.offsets[id + 1]));
    this.cache[id] = value;
    return value;
  }
}

/** STRO and STRS, the last sections of every kind. */
export function stringPoolSections(strings: { offsets: Uint32Array; bytes: Uint8Array }): SectionSpec[] {
  const { offsets } = strings;
  return [
    {
      id: SHARED_SECTION.stringOffsets,
      count: offsets.length,
      bytes: new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength),
    },
    { id: SHARED_SECTION.strings, count: strings.bytes.byteLength, bytes: strings.bytes },
  ];
}

/** The string pool of a validated header's STRO and STRS. */
export function stringPoolOf(bytes: Uint8Array, header: TableHeader, file: string): StringPool {
  const s = (id: string) => header.sections.get(id)!;
  return new StringPool(u32Section(bytes, s(SHARED_SECTION.stringOffsets)), sectionBytes(bytes, s(SHARED_SECTION.strings)), file);
}
