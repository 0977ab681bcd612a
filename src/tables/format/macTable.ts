/**
 * The MAC vendor table (kind mac). Layout in macTableLayout.ts, documented in src/tables/FORMAT.md.
 *
 * Blocks of the IEEE registries (MA-L 24 bits, MA-M 28, MA-S 36, IAB 36) sit in one
 * open-addressing hash table keyed by prefix length and prefix, probed by the WASM engine
 * (assembly/ouiBlock.ts) most specific first. Special address ranges (group, broadcast and
 * special-purpose unicast addresses) are rows ordered by first address, apart or nested, searched
 * by the WASM engine (assembly/macSpecial.ts) for the most specific one.
 */
import {
  jsonBytes,
  jsonSection,
  readContainer,
  requireSections,
  sectionView,
  TableFormatError,
  writeContainer,
  type TableHeader,
} from './container.js';
import { packCountryCode, SHARED_SECTION, unpackCountryCode } from './containerLayout.js';
import {
  BLOCK_ROW,
  COMPANY_PRIVATE,
  COMPANY_ROW,
  HAS_LONGER,
  HASH_MULTIPLIER,
  HASH_SLOT,
  KEY_PREFIX_LENGTH_SHIFT,
  MAC_SECTION,
  macSectionLayout,
  MAX_SLOT_BITS,
  MIN_SLOT_BITS,
  NO_ROW,
  OUI_BITS,
  SPECIAL_ROW,
} from './macTableLayout.js';
import { stringPoolOf, stringPoolSections, type StringPool } from './stringPool.js';
import { jsTableChecks, type TableChecks } from './tableChecks.js';
import type { CountryFacts, TableMeta } from './tableMeta.js';

const U64 = (1n << 64n) - 1n;

export const blockTypes = ['MA-L', 'MA-M', 'MA-S', 'IAB'] as const;
export type BlockType = (typeof blockTypes)[number];
export const blockBits: Record<BlockType, number> = { 'MA-L': OUI_BITS, 'MA-M': 28, 'MA-S': 36, IAB: 36 };
const prefixLengths = new Set(Object.values(blockBits));

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

/**
 * A range of special addresses: a group, broadcast or special-purpose unicast range that a registry
 * or standard assigns (data/curated/mac-group-addresses.csv). Strings are string ids.
 */
export interface MacSpecialInput {
  /** first and last address, 48-bit */
  first: number;
  last: number;
  name: number;
  /** 0: the source names no protocol */
  protocol: number;
  assigned_by: number;
  reference: number;
}

export interface MacTableParts {
  builtAt: Date;
  sourceDate: Date | null;
  meta: TableMeta;
  countries: CountryFacts[];
  blocks: MacBlockInput[];
  companies: CompanyInput[];
  vmPrefixes: VmPrefix[];
  /** ordered by first address, a range before the ranges inside it; apart or nested */
  specialRanges: MacSpecialInput[];
  strings: { offsets: Uint32Array; bytes: Uint8Array };
}

export interface MacBlockRow {
  hi24: number;
  lo24: number;
  bits: number;
  type: BlockType;
  company: number;
}

export interface MacSpecialRow {
  first: number;
  last: number;
  name: string;
  protocol: string | null;
  assigned_by: string;
  reference: string;
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

/** The hash key of a block: prefix length in the top byte, the masked 48-bit prefix below. */
function blockKey(hi24: number, lo24: number, bits: number): bigint {
  const mac = (BigInt(hi24) << 24n) | BigInt(lo24);
  const mask = ~((1n << BigInt(48 - bits)) - 1n) & ((1n << 48n) - 1n);
  return (BigInt(bits) << BigInt(KEY_PREFIX_LENGTH_SHIFT)) | (mac & mask);
}

function slotOf(key: bigint, slotBits: number): number {
  return Number(((key * HASH_MULTIPLIER) & U64) >> BigInt(64 - slotBits));
}

/** `macc`: the compact set, the same layout without company addresses (every address id is 0). */
export type MacKind = 'mac' | 'macc';

export function writeMacTable(parts: MacTableParts, kind: MacKind = 'mac'): Uint8Array {
  const blocks = new Uint8Array(parts.blocks.length * BLOCK_ROW.bytes);
  const bv = new DataView(blocks.buffer);
  const entries = new Map<bigint, number>();
  parts.blocks.forEach((b, row) => {
    const bits = blockBits[b.type];
    const at = row * BLOCK_ROW.bytes;
    bv.setUint32(at + BLOCK_ROW.hi24, b.hi24, true);
    bv.setUint32(at + BLOCK_ROW.lo24, b.lo24, true);
    bv.setUint8(at + BLOCK_ROW.prefixLength, bits);
    bv.setUint8(at + BLOCK_ROW.type, blockTypes.indexOf(b.type));
    bv.setUint32(at + BLOCK_ROW.company, b.company, true);
    const key = blockKey(b.hi24, b.lo24, bits);
    if (entries.has(key) && (entries.get(key)! & ~HAS_LONGER) !== NO_ROW) throw new Error(`two blocks with one prefix at row ${row}`);
    entries.set(key, bits === OUI_BITS ? ((entries.get(key) ?? 0) & HAS_LONGER) | row : row);
    if (bits > OUI_BITS) {
      const ouiKey = blockKey(b.hi24, 0, OUI_BITS);
      const oui = entries.get(ouiKey);
      entries.set(ouiKey, ((oui ?? NO_ROW) | HAS_LONGER) >>> 0);
    }
  });
  // The hash is kept at most half full, so that probes stay short.
  let slotBits = MIN_SLOT_BITS;
  while (2 ** slotBits < entries.size * 2) slotBits++;
  const slotCount = 2 ** slotBits;
  const hash = new Uint8Array(slotCount * HASH_SLOT.bytes);
  const hv = new DataView(hash.buffer);
  for (const [key, value] of entries) {
    let slot = slotOf(key, slotBits);
    while (hv.getUint32(slot * HASH_SLOT.bytes + HASH_SLOT.keyHigh, true) !== 0) slot = (slot + 1) & (slotCount - 1);
    hv.setBigUint64(slot * HASH_SLOT.bytes + HASH_SLOT.key, key, true);
    hv.setUint32(slot * HASH_SLOT.bytes + HASH_SLOT.value, value >>> 0, true);
  }
  const companies = new Uint8Array(parts.companies.length * COMPANY_ROW.bytes);
  const cv = new DataView(companies.buffer);
  parts.companies.forEach((c, row) => {
    const at = row * COMPANY_ROW.bytes;
    cv.setUint32(at + COMPANY_ROW.name, c.name, true);
    cv.setUint32(at + COMPANY_ROW.address, c.address, true);
    cv.setUint16(at + COMPANY_ROW.countryCode, packCountryCode(c.country_code), true);
    cv.setUint16(at + COMPANY_ROW.flags, c.is_private ? COMPANY_PRIVATE : 0, true);
    cv.setUint32(at + COMPANY_ROW.totalOuis, c.total_ouis, true);
    cv.setUint32(at + COMPANY_ROW.shortName, c.short_name, true);
    cv.setUint32(at + COMPANY_ROW.website, c.website, true);
  });
  const special = new Uint8Array(parts.specialRanges.length * SPECIAL_ROW.bytes);
  const sv = new DataView(special.buffer);
  parts.specialRanges.forEach((r, row) => {
    const at = row * SPECIAL_ROW.bytes;
    setU48(sv, at + SPECIAL_ROW.first, r.first);
    setU48(sv, at + SPECIAL_ROW.last, r.last);
    sv.setUint32(at + SPECIAL_ROW.name, r.name, true);
    sv.setUint32(at + SPECIAL_ROW.protocol, r.protocol, true);
    sv.setUint32(at + SPECIAL_ROW.assignedBy, r.assigned_by, true);
    sv.setUint32(at + SPECIAL_ROW.reference, r.reference, true);
  });
  return writeContainer(kind, parts.builtAt, parts.sourceDate, [
    { id: SHARED_SECTION.meta, count: 0, bytes: jsonBytes(parts.meta) },
    { id: SHARED_SECTION.countries, count: parts.countries.length, bytes: jsonBytes(parts.countries) },
    { id: MAC_SECTION.vmPrefixes, count: parts.vmPrefixes.length, bytes: jsonBytes(parts.vmPrefixes) },
    { id: MAC_SECTION.hash, count: slotCount, bytes: hash },
    { id: MAC_SECTION.blockRows, count: parts.blocks.length, bytes: blocks },
    { id: MAC_SECTION.companyRows, count: parts.companies.length, bytes: companies },
    { id: MAC_SECTION.specialRows, count: parts.specialRanges.length, bytes: special },
    ...stringPoolSections(parts.strings),
  ]);
}

/** A 48-bit value as a u64 (little-endian: low u32, then high u32). */
function setU48(view: DataView, at: number, value: number): void {
  view.setUint32(at, value % 2 ** 32, true);
  view.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
}

/** The u64 at `at`, or -1 when it does not fit in 48 bits. */
function u48(view: DataView, at: number): number {
  const high = view.getUint32(at + 4, true);
  return high > 0xffff ? -1 : high * 2 ** 32 + view.getUint32(at, true);
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
  readonly specialCount: number;
  readonly strings: StringPool;
  private readonly blocks: DataView;
  private readonly companies: DataView;
  private readonly specials: DataView;

  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
    checks: TableChecks = jsTableChecks,
    readonly kind: MacKind = 'mac',
  ) {
    const header = readContainer(bytes, file, kind, checks.checksum);
    requireSections(header, file, macSectionLayout);
    this.header = header;
    const s = (id: string) => header.sections.get(id)!;
    const view = (id: string) => sectionView(bytes, s(id));
    this.meta = jsonSection<TableMeta>(bytes, s(SHARED_SECTION.meta), file);
    const countryList = jsonSection<CountryFacts[]>(bytes, s(SHARED_SECTION.countries), file);
    this.vmPrefixes = jsonSection<VmPrefix[]>(bytes, s(MAC_SECTION.vmPrefixes), file);
    if (!Array.isArray(countryList) || !Array.isArray(this.vmPrefixes)) {
      throw new TableFormatError(file, `${SHARED_SECTION.countries} or ${MAC_SECTION.vmPrefixes} is not a list`);
    }
    for (const vm of this.vmPrefixes) {
      if (!/^[0-9A-F]{4,9}$/.test(vm.prefix) || !vmPlatforms.includes(vm.platform))
        throw new TableFormatError(file, `bad VM prefix ${JSON.stringify(vm)}`);
    }
    this.countries = new Map(countryList.map((c) => [c.code, c]));
    this.slotBits = Math.log2(s(MAC_SECTION.hash).count);
    if (!Number.isInteger(this.slotBits) || this.slotBits < MIN_SLOT_BITS || this.slotBits > MAX_SLOT_BITS) {
      throw new TableFormatError(file, 'hash slot count is not a power of two');
    }
    this.blockCount = s(MAC_SECTION.blockRows).count;
    this.companyCount = s(MAC_SECTION.companyRows).count;
    this.specialCount = s(MAC_SECTION.specialRows).count;
    this.blocks = view(MAC_SECTION.blockRows);
    this.companies = view(MAC_SECTION.companyRows);
    this.specials = view(MAC_SECTION.specialRows);
    this.strings = stringPoolOf(bytes, header, file);
    this.validate(view(MAC_SECTION.hash));
    this.validateSpecial();
  }

  sectionOffset(id: string): number {
    return this.header.sections.get(id)!.offset;
  }

  private validate(hash: DataView): void {
    const fail = (problem: string): never => {
      throw new TableFormatError(this.file, problem);
    };
    let used = 0;
    for (let slot = 0; slot < hash.byteLength / HASH_SLOT.bytes; slot++) {
      const keyHi = hash.getUint32(slot * HASH_SLOT.bytes + HASH_SLOT.keyHigh, true);
      if (keyHi === 0) continue;
      used++;
      const bits = keyHi >>> (KEY_PREFIX_LENGTH_SHIFT - 32);
      if (!prefixLengths.has(bits)) fail(`hash slot ${slot} has prefix length ${bits}`);
      const row = hash.getUint32(slot * HASH_SLOT.bytes + HASH_SLOT.value, true) & ~HAS_LONGER;
      if (row !== NO_ROW && row >= this.blockCount) fail(`hash slot ${slot} points past the block rows`);
    }
    if (used < this.blockCount) fail('the hash holds fewer entries than there are blocks');
    for (let r = 0; r < this.blockCount; r++) {
      const b = this.block(r);
      if (b.hi24 > 0xffffff || b.lo24 > 0xffffff || b.bits !== blockBits[b.type]) fail(`block row ${r} is malformed`);
      if (b.company >= this.companyCount) fail(`block row ${r} points past the company rows`);
    }
    const { name, address, totalOuis, shortName, website } = COMPANY_ROW;
    for (let r = 0; r < this.companyCount; r++) {
      const at = r * COMPANY_ROW.bytes;
      const cv = this.companies;
      for (const field of [name, address, shortName, website]) {
        if (!this.strings.has(cv.getUint32(at + field, true))) fail(`company row ${r} has a bad string id`);
      }
      if (this.kind === 'macc' && cv.getUint32(at + address, true) !== 0) {
        fail(`company row ${r} carries an address, which the compact set leaves out`);
      }
      const flags = cv.getUint16(at + COMPANY_ROW.flags, true);
      if ((flags & ~COMPANY_PRIVATE) !== 0) fail(`company row ${r} has unknown flags`);
      const named = [name, totalOuis, shortName].map((field) => cv.getUint32(at + field, true) !== 0);
      if (flags & COMPANY_PRIVATE ? named.some(Boolean) || cv.getUint32(at + website, true) !== 0 : !named.every(Boolean)) {
        fail(`company row ${r}: a private row has no name, count, short name or website, and any other row has the first three`);
      }
    }
  }

  /**
   * Special ranges: 48-bit bounds in order, first before last; ordered by first, a range before the
   * ranges inside it (the search takes the last that holds an address as the most specific); apart
   * or nested; name, assigned by and reference named, every string id in range.
   */
  private validateSpecial(): void {
    const fail = (row: number, problem: string): never => {
      throw new TableFormatError(this.file, `special range row ${row} ${problem}`);
    };
    const open: { row: number; last: number }[] = [];
    let previous = { first: -1, last: -1 };
    for (let r = 0; r < this.specialCount; r++) {
      const at = r * SPECIAL_ROW.bytes;
      const v = this.specials;
      const first = u48(v, at + SPECIAL_ROW.first);
      const last = u48(v, at + SPECIAL_ROW.last);
      if (first < 0 || last < 0 || last < first) fail(r, 'does not hold 48-bit bounds in order');
      for (const field of [SPECIAL_ROW.name, SPECIAL_ROW.protocol, SPECIAL_ROW.assignedBy, SPECIAL_ROW.reference]) {
        const id = v.getUint32(at + field, true);
        if (!this.strings.has(id) || (id === 0 && field !== SPECIAL_ROW.protocol)) fail(r, 'has a bad or missing string id');
      }
      if (first < previous.first || (first === previous.first && last >= previous.last)) {
        fail(r, 'is out of order (by first address, a range before the ranges inside it)');
      }
      while (open.length > 0 && open.at(-1)!.last < first) open.pop();
      const holder = open.at(-1);
      if (holder && last > holder.last) fail(r, `overlaps row ${holder.row} without being inside it`);
      open.push({ row: r, last });
      previous = { first, last };
    }
  }

  /** Special range `row` (0 to specialCount − 1). */
  special(row: number): MacSpecialRow {
    const v = this.specials;
    const at = row * SPECIAL_ROW.bytes;
    return {
      first: u48(v, at + SPECIAL_ROW.first),
      last: u48(v, at + SPECIAL_ROW.last),
      name: this.strings.get(v.getUint32(at + SPECIAL_ROW.name, true))!,
      protocol: this.strings.get(v.getUint32(at + SPECIAL_ROW.protocol, true)),
      assigned_by: this.strings.get(v.getUint32(at + SPECIAL_ROW.assignedBy, true))!,
      reference: this.strings.get(v.getUint32(at + SPECIAL_ROW.reference, true))!,
    };
  }

  block(row: number): MacBlockRow {
    const v = this.blocks;
    const at = row * BLOCK_ROW.bytes;
    const type = blockTypes[v.getUint8(at + BLOCK_ROW.type)];
    if (type === undefined) throw new TableFormatError(this.file, `block row ${row} has an unknown type`);
    return {
      hi24: v.getUint32(at + BLOCK_ROW.hi24, true),
      lo24: v.getUint32(at + BLOCK_ROW.lo24, true),
      bits: v.getUint8(at + BLOCK_ROW.prefixLength),
      type,
      company: v.getUint32(at + BLOCK_ROW.company, true),
    };
  }

  company(row: number): CompanyRow {
    const v = this.companies;
    const at = row * COMPANY_ROW.bytes;
    return {
      name: this.strings.get(v.getUint32(at + COMPANY_ROW.name, true)),
      address: this.strings.get(v.getUint32(at + COMPANY_ROW.address, true)),
      country_code: unpackCountryCode(v.getUint16(at + COMPANY_ROW.countryCode, true)),
      total_ouis: v.getUint32(at + COMPANY_ROW.totalOuis, true),
      short_name: this.strings.get(v.getUint32(at + COMPANY_ROW.shortName, true)),
      website: this.strings.get(v.getUint32(at + COMPANY_ROW.website, true)),
      is_private: (v.getUint16(at + COMPANY_ROW.flags, true) & COMPANY_PRIVATE) !== 0,
    };
  }
}
