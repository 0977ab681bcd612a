/**
 * The feed table (kind `feed`): what one kind of feed says of every address, as ranges that tile
 * both families' address spaces, each pointing at one value of a list (or at none). Security
 * verdicts (Tor, VPN, proxy, relay), RPKI states, abuse mailboxes and RDAP services are each one such table,
 * rebuilt from their feeds within seconds, apart from the IP tables. Layout in src/tables/FORMAT.md
 * ("feed"), in the container every table shares (checksum, section directory, refusals).
 *
 * The reader validates everything a lookup relies on (keys strictly ascending from 0, value
 * indexes inside the value list, the value list a JSON array) before it answers.
 */
import {
  jsonBytes,
  jsonSection,
  readContainer,
  requireSections,
  TableFormatError,
  u32Section,
  writeContainer,
  type SectionSpec,
  type TableHeader,
} from '../../tables/format/container.js';
import { SHARED_SECTION, U32_BYTES, U64_BYTES, type SectionLayout } from '../../tables/format/containerLayout.js';
import { u8 } from '../../tables/format/ipTable.js';
import type { SourceCredit } from '../../tables/format/tableMeta.js';

export type FeedKind = 'security' | 'rpki' | 'abuse' | 'rdap';

/** The values of an RPKI table: the states of `network.rpki`, indexed by their code (src/feeds/rpkiValidation.ts). */
export const RPKI_STATES = ['valid', 'invalid', 'not_found', 'unrouted'] as const;
export type RpkiState = (typeof RPKI_STATES)[number];

/** A range's value index where no feed lists the range. */
export const NO_VALUE = 0xffffffff;

const FEED_SECTION = {
  /** u32 × n4: IPv4 range starts, strictly ascending, first 0 */
  keys4: 'KEY4',
  /** u32 × n4: value index of each IPv4 range (NO_VALUE: none) */
  values4: 'VAL4',
  /** u64 × n6 each: high and low halves of the IPv6 range starts, strictly ascending, first :: */
  keys6High: 'K6HI',
  keys6Low: 'K6LO',
  /** u32 × n6 */
  values6: 'VAL6',
  /** JSON array: the values the ranges point at */
  valueList: 'VLST',
} as const;

const LAYOUT: SectionLayout = {
  [SHARED_SECTION.meta]: { elementBytes: 0 },
  [FEED_SECTION.keys4]: { elementBytes: U32_BYTES },
  [FEED_SECTION.values4]: { elementBytes: U32_BYTES },
  [FEED_SECTION.keys6High]: { elementBytes: U64_BYTES },
  [FEED_SECTION.keys6Low]: { elementBytes: U64_BYTES },
  [FEED_SECTION.values6]: { elementBytes: U32_BYTES },
  [FEED_SECTION.valueList]: { elementBytes: 0 },
};

/** What a security table's range points at: the feeds listing it, and the provider a VPN provider's own list names. */
export interface SecurityValue {
  /** indexes into the table's META feeds, ascending */
  by: number[];
  vpn_provider: string | null;
  /** the feed that names the provider */
  vpn_provider_by: number | null;
}

/** A feed's state when the table was built: what the answers rest on, and how old it may grow. */
export interface FeedState extends SourceCredit {
  /** the source id (src/update/sourceCatalog.ts) */
  id: string;
  /** what the feed says: `tor`, `vpn`, `proxy`, `relay`, `rpki`, `abuse`, `rdap` */
  says: string;
  /** ranges the feed listed */
  rows: number;
  /** when the feed's file was fetched */
  fetched_at: string;
  /** past this time the feed is too old to answer from (a documented multiple of its cadence) */
  stale_after: string;
}

export interface FeedTableMeta {
  kind: 'feed';
  feed_kind: FeedKind;
  built_at: string;
  feeds: FeedState[];
  counts: { ranges4: number; ranges6: number; values: number };
}

export interface FeedTableParts<Value> {
  meta: Omit<FeedTableMeta, 'kind' | 'counts'>;
  builtAt: Date;
  /** IPv4 range starts (first 0) and their value indexes */
  keys4: Uint32Array;
  values4: Uint32Array;
  /** IPv6 range starts as high and low halves (first 0) and their value indexes */
  keys6: { hi: BigUint64Array; lo: BigUint64Array };
  values6: Uint32Array;
  valueList: Value[];
}

export function writeFeedTable<Value>(parts: FeedTableParts<Value>): Uint8Array {
  const meta: FeedTableMeta = {
    kind: 'feed',
    ...parts.meta,
    counts: { ranges4: parts.keys4.length, ranges6: parts.keys6.hi.length, values: parts.valueList.length },
  };
  const newest = parts.meta.feeds
    .map((f) => f.date ?? f.fetched_at)
    .sort()
    .pop();
  const sections: SectionSpec[] = [
    { id: SHARED_SECTION.meta, count: 0, bytes: jsonBytes(meta) },
    { id: FEED_SECTION.keys4, count: parts.keys4.length, bytes: u8(parts.keys4) },
    { id: FEED_SECTION.values4, count: parts.values4.length, bytes: u8(parts.values4) },
    { id: FEED_SECTION.keys6High, count: parts.keys6.hi.length, bytes: u8(parts.keys6.hi) },
    { id: FEED_SECTION.keys6Low, count: parts.keys6.lo.length, bytes: u8(parts.keys6.lo) },
    { id: FEED_SECTION.values6, count: parts.values6.length, bytes: u8(parts.values6) },
    { id: FEED_SECTION.valueList, count: parts.valueList.length, bytes: jsonBytes(parts.valueList) },
  ];
  return writeContainer('feed', parts.builtAt, newest ? new Date(newest) : null, sections);
}

/** A validated feed table: the value of the range holding an address, by binary search. */
export class FeedTable<Value> {
  readonly meta: FeedTableMeta;
  readonly header: TableHeader;
  readonly valueList: readonly Value[];
  private readonly keys4: Uint32Array;
  private readonly values4: Uint32Array;
  private readonly keys6High: BigUint64Array;
  private readonly keys6Low: BigUint64Array;
  private readonly values6: Uint32Array;

  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
  ) {
    const fail = (problem: string): never => {
      throw new TableFormatError(file, problem);
    };
    this.header = readContainer(bytes, file, 'feed');
    requireSections(this.header, file, LAYOUT);
    const s = (id: string) => this.header.sections.get(id)!;
    this.meta = jsonSection<FeedTableMeta>(bytes, s(SHARED_SECTION.meta), file);
    if (
      this.meta?.kind !== 'feed' ||
      !['security', 'rpki', 'abuse', 'rdap'].includes(this.meta.feed_kind) ||
      !Array.isArray(this.meta.feeds)
    ) {
      fail('META is not a feed table description');
    }
    const values = jsonSection<unknown>(bytes, s(FEED_SECTION.valueList), file);
    if (!Array.isArray(values) || values.length !== s(FEED_SECTION.valueList).count)
      fail('the value list is not a JSON array of its count');
    this.valueList = values as Value[];
    this.keys4 = u32Section(bytes, s(FEED_SECTION.keys4));
    this.values4 = u32Section(bytes, s(FEED_SECTION.values4));
    const u64 = (id: string) => new BigUint64Array(bytes.buffer, bytes.byteOffset + s(id).offset, s(id).count);
    this.keys6High = u64(FEED_SECTION.keys6High);
    this.keys6Low = u64(FEED_SECTION.keys6Low);
    this.values6 = u32Section(bytes, s(FEED_SECTION.values6));
    if (this.keys4.length === 0 || this.keys4.length !== this.values4.length) fail('IPv4 keys and values differ in count');
    if (this.keys6High.length === 0 || this.keys6High.length !== this.keys6Low.length || this.keys6High.length !== this.values6.length) {
      fail('IPv6 keys and values differ in count');
    }
    if (this.keys4[0] !== 0 || this.keys6High[0] !== 0n || this.keys6Low[0] !== 0n)
      fail('the first range does not start at the first address');
    for (let i = 1; i < this.keys4.length; i++) if (this.keys4[i] <= this.keys4[i - 1]) fail(`IPv4 key ${i} is not above the one before`);
    for (let i = 1; i < this.keys6High.length; i++) {
      const hi = this.keys6High[i];
      const before = this.keys6High[i - 1];
      if (hi < before || (hi === before && this.keys6Low[i] <= this.keys6Low[i - 1])) fail(`IPv6 key ${i} is not above the one before`);
    }
    for (const list of [this.values4, this.values6]) {
      for (let i = 0; i < list.length; i++)
        if (list[i] !== NO_VALUE && list[i] >= this.valueList.length) fail(`range ${i} points past the value list`);
    }
  }

  /** The value of the range holding IPv4 address `address` (an unsigned 32-bit number), or null. */
  lookup4(address: number): Value | null {
    const keys = this.keys4;
    let low = 0;
    let high = keys.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (keys[middle] <= address) low = middle;
      else high = middle - 1;
    }
    const value = this.values4[low];
    return value === NO_VALUE ? null : this.valueList[value];
  }

  /** The value of the range holding the IPv6 address of halves `hi`, `lo`, or null. */
  lookup6(hi: bigint, lo: bigint): Value | null {
    const high = this.keys6High;
    const low = this.keys6Low;
    let first = 0;
    let last = high.length - 1;
    while (first < last) {
      const middle = (first + last + 1) >>> 1;
      const h = high[middle];
      if (h < hi || (h === hi && low[middle] <= lo)) first = middle;
      else last = middle - 1;
    }
    const value = this.values6[first];
    return value === NO_VALUE ? null : this.valueList[value];
  }

  /** The value of the range holding an address as parsed (`v4` ≥ 0: IPv4; else the IPv6 address's four `words`), or null. */
  lookup(v4: number, words: Uint32Array): Value | null {
    if (v4 >= 0) return this.lookup4(v4);
    return this.lookup6((BigInt(words[0]) << 32n) | BigInt(words[1]), (BigInt(words[2]) << 32n) | BigInt(words[3]));
  }
}
