/**
 * Building feed tables (src/feeds/format/feedTable.ts) from what the feeds' readers return.
 *
 * Security: the listings of every Tor, VPN, proxy and relay feed are laid over each other. Each
 * range of the table points at the set of feeds that list it (by their index in the table's feed
 * list), so that a server answers only from the feeds still fresh at the time of the question, and
 * at the provider a provider's own list names (the first such list in feed order). Addresses no
 * one may route (the special-purpose registries, IPv6 outside 2000::/3) are taken out of every
 * listing, addresses of CDN anycast blocks (data/curated/anycast-prefixes.csv) out of the proxy
 * lists (a CDN's shared front is not an open proxy, whatever a scanner found there), and the
 * relays' egress ranges out of the aggregate VPN lists that name no provider (X4BNet merges
 * iCloud Private Relay's ranges into its VPN list; a relay is reported as a relay).
 *
 * RPKI and abuse: their derivations already give disjoint ranges; the table tiles the rest with
 * "no value".
 */
import { SPECIAL_PURPOSE_REGISTRY } from '../../address/reservedRange.js';
import { cidrBounds } from '../../tables/sources/anycastPrefixes.js';
import type { FeedListing, ListedRange } from '../sources/feedListing.js';
import { NO_VALUE, type FeedTableParts, type SecurityValue } from '../format/feedTable.js';

const LAST = { 4: 0xffffffffn, 6: (1n << 128n) - 1n } as const;
const MASK64 = (1n << 64n) - 1n;

export interface SecurityFeedInput {
  /** what the feed says of a listed address */
  says: 'tor' | 'vpn' | 'proxy' | 'relay';
  listing: FeedListing;
}

export interface Excluded {
  family: 4 | 6;
  start: bigint;
  end: bigint;
}

/** Space no one may route: the special-purpose blocks that are not globally reachable, and IPv6 outside 2000::/3. */
export function unroutableSpace(): Excluded[] {
  const blocks: Excluded[] = SPECIAL_PURPOSE_REGISTRY.filter((row) => row.type !== 'global').map((row) => cidrBounds(row.cidr, 'special-purpose registry'));
  blocks.push({ family: 6, start: 0n, end: (0x2000n << 112n) - 1n }, { family: 6, start: 0x4000n << 112n, end: LAST[6] });
  return blocks;
}

interface Edge {
  at: bigint;
  /** index of the range; negative (−index − 1) for its end */
  range: number;
}

/**
 * Tiles one family: at every address the value `combine` makes of the ranges holding it (null:
 * none), neighbours of equal value merged. Ranges may overlap; the sweep visits each start and end.
 */
function tileFamily<R extends { start: bigint; end: bigint }, V>(
  ranges: readonly R[],
  last: bigint,
  combine: (held: readonly number[]) => V | null,
  keyOf: (value: V) => string,
  values: { list: V[]; index: Map<string, number> },
): { keys: bigint[]; valueIndexes: number[] } {
  const edges: Edge[] = [];
  ranges.forEach((r, i) => {
    edges.push({ at: r.start, range: i });
    if (r.end < last) edges.push({ at: r.end + 1n, range: -i - 1 });
  });
  edges.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const held = new Set<number>();
  const keys: bigint[] = [0n];
  const valueIndexes: number[] = [NO_VALUE];
  for (let e = 0; e < edges.length; ) {
    const at = edges[e].at;
    for (; e < edges.length && edges[e].at === at; e++) {
      const { range } = edges[e];
      if (range >= 0) held.add(range);
      else held.delete(-range - 1);
    }
    const value = held.size === 0 ? null : combine([...held].sort((a, b) => a - b));
    let index = NO_VALUE;
    if (value !== null) {
      const key = keyOf(value);
      index = values.index.get(key) ?? -1;
      if (index === -1) {
        index = values.list.length;
        values.list.push(value);
        values.index.set(key, index);
      }
    }
    if (index === valueIndexes[valueIndexes.length - 1]) continue;
    if (at === keys[keys.length - 1]) valueIndexes[valueIndexes.length - 1] = index;
    else {
      keys.push(at);
      valueIndexes.push(index);
    }
  }
  return { keys, valueIndexes };
}

/** Ranges minus the excluded blocks (neither needs to be sorted; the result is sorted by family and start). */
function without<R extends { family: 4 | 6; start: bigint; end: bigint }>(ranges: readonly R[], excluded: readonly Excluded[]): R[] {
  const byStart = (a: { start: bigint }, b: { start: bigint }) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0);
  const out: R[] = [];
  for (const family of [4, 6] as const) {
    // the excluded blocks of the family as disjoint sorted runs
    const runs: Excluded[] = [];
    for (const block of excluded.filter((b) => b.family === family).sort(byStart)) {
      const last = runs[runs.length - 1];
      if (last && block.start <= last.end + 1n) {
        if (block.end > last.end) last.end = block.end;
      } else runs.push({ ...block });
    }
    for (const range of ranges.filter((r) => r.family === family).sort(byStart)) {
      // the first run that ends at or after the range's start
      let low = 0;
      let high = runs.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (runs[middle].end < range.start) low = middle + 1;
        else high = middle;
      }
      let start = range.start;
      for (let i = low; i < runs.length && runs[i].start <= range.end && start <= range.end; i++) {
        if (runs[i].start > start) out.push({ ...range, start, end: runs[i].start - 1n });
        start = runs[i].end + 1n;
      }
      if (start <= range.end) out.push({ ...range, start });
    }
  }
  return out;
}

function familyParts<V>(
  tiled: Record<4 | 6, { keys: bigint[]; valueIndexes: number[] }>,
): Pick<FeedTableParts<V>, 'keys4' | 'values4' | 'keys6' | 'values6'> {
  return {
    keys4: Uint32Array.from(tiled[4].keys, (k) => Number(k)),
    values4: Uint32Array.from(tiled[4].valueIndexes),
    keys6: { hi: BigUint64Array.from(tiled[6].keys, (k) => k >> 64n), lo: BigUint64Array.from(tiled[6].keys, (k) => k & MASK64) },
    values6: Uint32Array.from(tiled[6].valueIndexes),
  };
}

/** The security table's ranges and values from the feeds' listings, in feed order. */
export function securityTableRanges(
  feeds: readonly SecurityFeedInput[],
  excluded: { everywhere: readonly Excluded[]; proxies: readonly Excluded[] },
): Pick<FeedTableParts<SecurityValue>, 'keys4' | 'values4' | 'keys6' | 'values6' | 'valueList'> & { rows: number[] } {
  const tagged: (ListedRange & { feed: number })[] = [];
  // A relay's egress (iCloud Private Relay) is not a VPN, whatever an aggregate VPN list that merged it says.
  const relays = feeds.filter((feed) => feed.says === 'relay').flatMap((feed) => feed.listing.ranges);
  const rows = feeds.map((feed, index) => {
    const taken =
      feed.says === 'proxy'
        ? [...excluded.everywhere, ...excluded.proxies]
        : feed.says === 'vpn' && feed.listing.ranges.every((r) => r.provider === null)
          ? [...excluded.everywhere, ...relays]
          : excluded.everywhere;
    const kept = without(feed.listing.ranges, taken);
    for (const range of kept) tagged.push({ ...range, feed: index });
    return kept.length;
  });
  const values = { list: [] as SecurityValue[], index: new Map<string, number>() };
  const tile = (family: 4 | 6) => {
    const ranges = tagged.filter((r) => r.family === family);
    return tileFamily(
      ranges,
      LAST[family],
      (held): SecurityValue => {
        const by = [...new Set(held.map((i) => ranges[i].feed))].sort((a, b) => a - b);
        // the provider of the first VPN list (in feed order) that names one
        const named = held
          .map((i) => ranges[i])
          .filter((r) => r.provider !== null && feeds[r.feed].says === 'vpn')
          .sort((a, b) => a.feed - b.feed)[0];
        return { by, vpn_provider: named?.provider ?? null, vpn_provider_by: named?.feed ?? null };
      },
      (value) => `${value.by.join(',')}|${value.vpn_provider_by ?? ''}|${value.vpn_provider ?? ''}`,
      values,
    );
  };
  return { ...familyParts<SecurityValue>({ 4: tile(4), 6: tile(6) }), valueList: values.list, rows };
}

export interface ValuedRange<V> {
  family: 4 | 6;
  start: bigint;
  end: bigint;
  value: V;
}

/** A table of disjoint valued ranges (an RPKI state, an abuse mailbox); overlapping input is refused. */
export function disjointTableRanges<V extends string>(
  ranges: readonly ValuedRange<V>[],
): Pick<FeedTableParts<V>, 'keys4' | 'values4' | 'keys6' | 'values6' | 'valueList'> {
  const values = { list: [] as V[], index: new Map<string, number>() };
  const tile = (family: 4 | 6) => {
    const list = ranges.filter((r) => r.family === family).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    for (let i = 1; i < list.length; i++) {
      if (list[i].start <= list[i - 1].end) throw new Error(`ranges overlap at ${list[i].start} (IPv${family})`);
    }
    return tileFamily(
      list,
      LAST[family],
      (held) => list[held[0]].value,
      (value) => value,
      values,
    );
  };
  return { ...familyParts<V>({ 4: tile(4), 6: tile(6) }), valueList: values.list };
}

/**
 * A table of valued ranges that may nest or cross (abuse mailboxes of several registries' dumps):
 * at each address the smallest range holding it decides, the first given on a tie.
 */
export function smallestRangesTable<V extends string>(
  ranges: readonly ValuedRange<V>[],
): Pick<FeedTableParts<V>, 'keys4' | 'values4' | 'keys6' | 'values6' | 'valueList'> {
  const values = { list: [] as V[], index: new Map<string, number>() };
  const tile = (family: 4 | 6) => {
    const list = ranges.filter((r) => r.family === family);
    return tileFamily(
      list,
      LAST[family],
      (held) => {
        let best = held[0];
        for (const i of held) if (list[i].end - list[i].start < list[best].end - list[best].start) best = i;
        return list[best].value;
      },
      (value) => value,
      values,
    );
  };
  return { ...familyParts<V>({ 4: tile(4), 6: tile(6) }), valueList: values.list };
}
