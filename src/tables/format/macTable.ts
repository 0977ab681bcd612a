/**
 * The MAC vendor table (kind mac). Layout in src/tables/FORMAT.md.
 *
 * Blocks of the IEEE registries (MA-L 24 bits, MA-M 28, MA-S 36, IAB 36) sit in one
 * open-addressing hash table keyed by prefix length and prefix, probed by the WASM engine
 * (assembly/ouiBlock.ts) most specific first.
 */
import {
  jsonBytes,
  jsonSection,
  readContainer,
  requireSections,
  sectionBytes,
  TableFormatError,
  u32Section,
  writeContainer,
  type TableHeader,
} from './container.js';
import { StringPool } from './stringPool.js';
import { jsTableChecks, type TableChecks } from './tableChecks.js';
import type { CountryFacts, TableMeta } from './tableMeta.js';

export const BLOCK_ROW_BYTES = 16;
export const COMPANY_ROW_BYTES = 24;
export const SLOT_BYTES = 16;
export const NO_ROW = 0x7ffffffe;
export const HAS_LONGER = 0x80000000;
/** Company row flags (u16 at byte 10). */
export const COMPANY_PRIVATE = 1;
const HASH_MULTIPLIER = 0x9e3779b97f4a7c15n;
const U64 = (1n << 64n) - 1n;

export const blockTypes = ['MA-L', 'MA-M', 'MA-S', 'IAB'] as const;
export type BlockType = (typeof blockTypes)[number];
export const blockBits: Record<BlockType, number> = { 'MA-L': 24, 'MA-M': 28, 'MA-S': 36, IAB: 36 };

export const vmPlatforms = ['VMware', 'VirtualBox', 'Hyper-V', 'QEMU/KVM', 'Parallels', 'Xen', 'Docker'] as const;
export type VmPlatform = (typeof vmPlatforms)[number];

/** A prefix of a virtualisation platform: `prefix` is 4 to 9 upper-case hex digits. */
export interface VmPrefix {
  prefix: string;
  platform: VmPlatform;
  source: string;
}

export interface MacBlockInput {
  /** first 24 bits of the block's first address */
  hi24: number;
  /** remaining 24 bits of the block's first address (zero beyond the prefix) */
  lo24: number;
  type: BlockType;
  company: number;
}

export interface CompanyInput {
  name: number;
  address: number;
  country_code: string | null;
  /** blocks of the company across the spellings of its name; 0 for a private registration */
  total_ouis: number;
  short_name: number;
  website: number;
  /** the registry lists the block without its assignee: no name, short name, website or count */
  is_private: boolean;
}

export interface MacTableParts {
  builtAt: Date;
  sourceDate: Date | null;
  meta: TableMeta;
  countries: CountryFacts[];
  blocks: MacBlockInput[];
  companies: CompanyInput[];
  vmPrefixes: VmPrefix[];
  strings: { offsets: Uint32Array; bytes: Uint8Array };
}

export interface MacBlockRow {
  hi24: number;
  lo24: number;
  bits: number;
  type: BlockType;
  company: number;
}

export interface CompanyRow {
  name: string | null;
  address: string | null;
  country_code: string | null;
  total_ouis: number;
  short_name: string | null;
  website: string | null;
  is_private: boolean;
}

const layout = {
  META: { elementBytes: 0 },
  CTRY: { elementBytes: 0 },
  VMPF: { elementBytes: 0 },
  HASH: { elementBytes: SLOT_BYTES },
  BROW: { elementBytes: BLOCK_ROW_BYTES },
  CROW: { elementBytes: COMPANY_ROW_BYTES },
  STRO: { elementBytes: 4 },
  STRS: { elementBytes: 1 },
};

/** The hash key of a block: prefix length in the top byte, the masked 48-bit prefix below. */
export function blockKey(hi24: number, lo24: number, bits: number): bigint {
  const mac = (BigInt(hi24) << 24n) | BigInt(lo24);
  const mask = ~((1n << BigInt(48 - bits)) - 1n) & ((1n << 48n) - 1n);
  return (BigInt(bits) << 56n) | (mac & mask);
}

export function slotOf(key: bigint, slotBits: number): number {
  return Number(((key * HASH_MULTIPLIER) & U64) >> BigInt(64 - slotBits));
}

function packCountry(code: string | null): number {
  return code ? code.charCodeAt(0) | (code.charCodeAt(1) << 8) : 0;
}

function unpackCountry(packed: number): string | null {
  return packed === 0 ? null : String.fromCharCode(packed & 0xff, packed >>> 8);
}

/** `macc`: the compact set, the same layout without company addresses (every address id is 0). */
export type MacKind = 'mac' | 'macc';

export function writeMacTable(parts: MacTableParts, kind: MacKind = 'mac'): Uint8Array {
  const blocks = new Uint8Array(parts.blocks.length * BLOCK_ROW_BYTES);
  const bv = new DataView(blocks.buffer);
  const entries = new Map<bigint, number>();
  parts.blocks.forEach((b, row) => {
    const bits = blockBits[b.type];
    const at = row * BLOCK_ROW_BYTES;
    bv.setUint32(at, b.hi24, true);
    bv.setUint32(at + 4, b.lo24, true);
    bv.setUint8(at + 8, bits);
    bv.setUint8(at + 9, blockTypes.indexOf(b.type));
    bv.setUint32(at + 12, b.company, true);
    const key = blockKey(b.hi24, b.lo24, bits);
    if (entries.has(key) && (entries.get(key)! & ~HAS_LONGER) !== NO_ROW) throw new Error(`two blocks with one prefix at row ${row}`);
    entries.set(key, bits === 24 ? ((entries.get(key) ?? 0) & HAS_LONGER) | row : row);
    if (bits > 24) {
      const ouiKey = blockKey(b.hi24, 0, 24);
      const oui = entries.get(ouiKey);
      entries.set(ouiKey, ((oui ?? NO_ROW) | HAS_LONGER) >>> 0);
    }
  });
  let slotBits = 4;
  while (2 ** slotBits < entries.size * 2) slotBits++;
  const slotCount = 2 ** slotBits;
  const hash = new Uint8Array(slotCount * SLOT_BYTES);
  const hv = new DataView(hash.buffer);
  for (const [key, value] of entries) {
    let slot = slotOf(key, slotBits);
    while (hv.getUint32(slot * SLOT_BYTES + 4, true) !== 0) slot = (slot + 1) & (slotCount - 1);
    hv.setBigUint64(slot * SLOT_BYTES, key, true);
    hv.setUint32(slot * SLOT_BYTES + 8, value >>> 0, true);
  }
  const companies = new Uint8Array(parts.companies.length * COMPANY_ROW_BYTES);
  const cv = new DataView(companies.buffer);
  parts.companies.forEach((c, row) => {
    const at = row * COMPANY_ROW_BYTES;
    cv.setUint32(at, c.name, true);
    cv.setUint32(at + 4, c.address, true);
    cv.setUint16(at + 8, packCountry(c.country_code), true);
    cv.setUint16(at + 10, c.is_private ? COMPANY_PRIVATE : 0, true);
    cv.setUint32(at + 12, c.total_ouis, true);
    cv.setUint32(at + 16, c.short_name, true);
    cv.setUint32(at + 20, c.website, true);
  });
  return writeContainer(kind, parts.builtAt, parts.sourceDate, [
    { id: 'META', count: 0, bytes: jsonBytes(parts.meta) },
    { id: 'CTRY', count: parts.countries.length, bytes: jsonBytes(parts.countries) },
    { id: 'VMPF', count: parts.vmPrefixes.length, bytes: jsonBytes(parts.vmPrefixes) },
    { id: 'HASH', count: slotCount, bytes: hash },
    { id: 'BROW', count: parts.blocks.length, bytes: blocks },
    { id: 'CROW', count: parts.companies.length, bytes: companies },
    { id: 'STRO', count: parts.strings.offsets.length, bytes: new Uint8Array(parts.strings.offsets.buffer, parts.strings.offsets.byteOffset, parts.strings.offsets.byteLength) },
    { id: 'STRS', count: parts.strings.bytes.byteLength, bytes: parts.strings.bytes },
  ]);
}

/** A validated MAC table. */
export class MacTable {
  readonly header: TableHeader;
  readonly meta: TableMeta;
  readonly countries: Map<string, CountryFacts>;
  readonly vmPrefixes: VmPrefix[];
  readonly slotBits: number;
  readonly blockCount: number;
  readonly companyCount: number;
  readonly strings: StringPool;
  private readonly blocks: DataView;
  private readonly companies: DataView;

  constructor(readonly bytes: Uint8Array, readonly file: string, checks: TableChecks = jsTableChecks, readonly kind: MacKind = 'mac') {
    const header = readContainer(bytes, file, kind, checks.checksum);
    requireSections(header, file, layout);
    this.header = header;
    const s = (id: string) => header.sections.get(id)!;
    const view = (id: string) => new DataView(bytes.buffer, bytes.byteOffset + s(id).offset, s(id).byteLength);
    this.meta = jsonSection<TableMeta>(bytes, s('META'), file);
    const countryList = jsonSection<CountryFacts[]>(bytes, s('CTRY'), file);
    this.vmPrefixes = jsonSection<VmPrefix[]>(bytes, s('VMPF'), file);
    if (!Array.isArray(countryList) || !Array.isArray(this.vmPrefixes)) throw new TableFormatError(file, 'CTRY or VMPF is not a list');
    for (const vm of this.vmPrefixes) {
      if (!/^[0-9A-F]{4,9}$/.test(vm.prefix) || !vmPlatforms.includes(vm.platform)) throw new TableFormatError(file, `bad VM prefix ${JSON.stringify(vm)}`);
    }
    this.countries = new Map(countryList.map((c) => [c.code, c]));
    this.slotBits = Math.log2(s('HASH').count);
    if (!Number.isInteger(this.slotBits) || this.slotBits < 4 || this.slotBits > 24) throw new TableFormatError(file, 'hash slot count is not a power of two');
    this.blockCount = s('BROW').count;
    this.companyCount = s('CROW').count;
    this.blocks = view('BROW');
    this.companies = view('CROW');
    this.strings = new StringPool(u32Section(bytes, s('STRO')), sectionBytes(bytes, s('STRS')), file);
    this.validate(view('HASH'));
  }

  sectionOffset(id: string): number {
    return this.header.sections.get(id)!.offset;
  }

  private validate(hash: DataView): void {
    const fail = (problem: string): never => {
      throw new TableFormatError(this.file, problem);
    };
    let used = 0;
    for (let slot = 0; slot < hash.byteLength / SLOT_BYTES; slot++) {
      const keyHi = hash.getUint32(slot * SLOT_BYTES + 4, true);
      if (keyHi === 0) continue;
      used++;
      const bits = keyHi >>> 24;
      if (bits !== 24 && bits !== 28 && bits !== 36) fail(`hash slot ${slot} has prefix length ${bits}`);
      const row = hash.getUint32(slot * SLOT_BYTES + 8, true) & ~HAS_LONGER;
      if (row !== NO_ROW && row >= this.blockCount) fail(`hash slot ${slot} points past the block rows`);
    }
    if (used < this.blockCount) fail('the hash holds fewer entries than there are blocks');
    for (let r = 0; r < this.blockCount; r++) {
      const b = this.block(r);
      if (b.hi24 > 0xffffff || b.lo24 > 0xffffff || b.bits !== blockBits[b.type]) fail(`block row ${r} is malformed`);
      if (b.company >= this.companyCount) fail(`block row ${r} points past the company rows`);
    }
    for (let r = 0; r < this.companyCount; r++) {
      const at = r * COMPANY_ROW_BYTES;
      const cv = this.companies;
      for (const field of [0, 4, 16, 20]) if (!this.strings.has(cv.getUint32(at + field, true))) fail(`company row ${r} has a bad string id`);
      if (this.kind === 'macc' && cv.getUint32(at + 4, true) !== 0) fail(`company row ${r} carries an address, which the compact set leaves out`);
      const flags = cv.getUint16(at + 10, true);
      if ((flags & ~COMPANY_PRIVATE) !== 0) fail(`company row ${r} has unknown flags`);
      const named = [0, 12, 16].map((field) => cv.getUint32(at + field, true) !== 0);
      if (flags & COMPANY_PRIVATE ? named.some(Boolean) || cv.getUint32(at + 20, true) !== 0 : !named.every(Boolean)) {
        fail(`company row ${r}: a private row has no name, count, short name or website, and any other row has the first three`);
      }
    }
  }

  block(row: number): MacBlockRow {
    const v = this.blocks;
    const at = row * BLOCK_ROW_BYTES;
    const type = blockTypes[v.getUint8(at + 9)];
    if (type === undefined) throw new TableFormatError(this.file, `block row ${row} has an unknown type`);
    return { hi24: v.getUint32(at, true), lo24: v.getUint32(at + 4, true), bits: v.getUint8(at + 8), type, company: v.getUint32(at + 12, true) };
  }

  company(row: number): CompanyRow {
    const v = this.companies;
    const at = row * COMPANY_ROW_BYTES;
    return {
      name: this.strings.get(v.getUint32(at, true)),
      address: this.strings.get(v.getUint32(at + 4, true)),
      country_code: unpackCountry(v.getUint16(at + 8, true)),
      total_ouis: v.getUint32(at + 12, true),
      short_name: this.strings.get(v.getUint32(at + 16, true)),
      website: this.strings.get(v.getUint32(at + 20, true)),
      is_private: (v.getUint16(at + 10, true) & COMPANY_PRIVATE) !== 0,
    };
  }
}
