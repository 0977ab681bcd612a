/**
 * Route origin validation (RFC 6811 section 2) against validated ROA payloads, and the RPKI state of
 * every IPv4 address: the state of the route that carries it.
 *
 * RFC 6811: a VRP Covers a route when the VRP's prefix is the route's prefix or a less specific one;
 * it Matches the route when it Covers it, the route's prefix length is at most the VRP's maxLength,
 * and the route's origin AS is the VRP's AS. NotFound: no VRP Covers the route; Valid: at least one
 * VRP Matches it; Invalid: VRPs Cover it but none Matches. An origin of "NONE" (the route's path ends
 * in an AS_SET) Matches nothing; neither does AS 0, which no route may carry (RFC 7607): a VRP for AS 0
 * therefore only ever makes the routes it Covers Invalid (RFC 6483 section 4).
 *
 * The route carrying an address is the one routingTable.ts decides for it (routesInForce): its most
 * specific announced prefix seen by at least MIN_SEEN_BY_PEERS RIS peers, with that prefix's chosen
 * origin. An address no such route covers is `unrouted`.
 *
 * The VRPs are indexed once per Vrps: the distinct VRP prefixes sorted by (start, length), each with
 * its nearest enclosing VRP prefix. The VRP prefixes covering a route are all enclosing (or equal to)
 * the last distinct prefix at or before the route's (start, length): one binary search, then a walk up
 * at most 33 (IPv4) or 129 (IPv6) enclosing prefixes, usually one or two.
 */
import { forEachMostSpecific, routesInForce, type Announcement } from '../tables/sources/routingTable.js';
import type { Ipv4Vrps, Ipv6Vrp, Vrps } from './sources/rpkiVrps.js';

export { RPKI_STATES, type RpkiState } from './format/feedTable.js';

export const VALID = 0;
export const INVALID = 1;
export const NOT_FOUND = 2;
export const UNROUTED = 3;
/** The outcome of validating one route: NOT_FOUND, VALID or INVALID. */
export type RouteValidity = typeof NOT_FOUND | typeof VALID | typeof INVALID;
type RpkiStateCode = typeof UNROUTED | RouteValidity;

/** A route's prefix: its first address (host bits zero) and length. An Announcement is one. */
export interface RoutePrefix {
  family: 4 | 6;
  start: bigint;
  prefixLength: number;
}

/** Sorted disjoint IPv4 ranges covering the whole IPv4 space, each with its RpkiStateCode. */
export interface RpkiRanges {
  count: number;
  /** first and last address of each range, inclusive */
  start: Uint32Array;
  end: Uint32Array;
  /** an index into RPKI_STATES */
  state: Uint8Array;
}

/** An AS number no VRP holds: the origin "NONE", and AS 0, which cannot originate a route. */
const NO_ORIGIN = -1;

/**
 * The RFC 6811 state of a route (`prefix`, origin AS; `null` for an AS_SET origin) against `vrps`.
 * The index it needs is built on the first call for a Vrps and kept with it.
 */
export function validateRoute(vrps: Vrps, prefix: RoutePrefix, origin: number | null): RouteValidity {
  const index = indexOf(vrps);
  const originKey = origin === null || origin === 0 ? NO_ORIGIN : origin;
  return prefix.family === 4
    ? index.ipv4.validate(Number(prefix.start), prefix.prefixLength, originKey)
    : index.ipv6.validate(prefix.start, prefix.prefixLength, originKey);
}

/**
 * The RPKI state of every IPv4 address: the state of the route in force that carries it (the most
 * specific announced prefix, routingTable.ts's choice of origin), `unrouted` where no route covers
 * it. Adjacent ranges of one state are joined. IPv6 announcements are ignored.
 */
export function rpkiStates(vrps: Vrps, announcements: Announcement[]): RpkiRanges {
  const index = indexOf(vrps).ipv4;
  const routes = routesInForce(
    announcements.filter((a) => a.family === 4),
    4,
  );
  const out = new RangeBuilder();
  let next = 0;
  forEachMostSpecific(routes, (route, from, to) => {
    const start = Number(from);
    if (start > next) out.add(next, start - 1, UNROUTED);
    const origin = route.announcement.origin;
    const state = index.validate(Number(route.start), route.prefixLength, origin === null || origin === 0 ? NO_ORIGIN : origin);
    out.add(start, Number(to), state);
    next = Number(to) + 1;
  });
  if (next <= 0xffffffff) out.add(next, 0xffffffff, UNROUTED);
  return out.build();
}

interface VrpIndex {
  ipv4: Ipv4VrpIndex;
  ipv6: Ipv6VrpIndex;
}

const indexes = new WeakMap<Vrps, VrpIndex>();

function indexOf(vrps: Vrps): VrpIndex {
  let index = indexes.get(vrps);
  if (index === undefined) {
    index = { ipv4: new Ipv4VrpIndex(vrps.ipv4), ipv6: new Ipv6VrpIndex(vrps.ipv6) };
    indexes.set(vrps, index);
  }
  return index;
}

/**
 * The (AS, maxLength) pairs of each distinct VRP prefix, grouped: prefix `p`'s pairs are at
 * first[p] .. first[p + 1] - 1.
 */
interface Groups {
  first: Int32Array;
  asn: Uint32Array;
  maxLength: Uint8Array;
}

/** Groups VRP `i`'s (asn, maxLength) under its distinct prefix `prefixOf[i]`. */
function groupVrps(prefixOf: Int32Array, prefixes: number, asnOf: (i: number) => number, maxLengthOf: (i: number) => number): Groups {
  const first = new Int32Array(prefixes + 1);
  for (let i = 0; i < prefixOf.length; i++) first[prefixOf[i] + 1]++;
  for (let p = 0; p < prefixes; p++) first[p + 1] += first[p];
  const fill = first.slice(0, prefixes);
  const asn = new Uint32Array(prefixOf.length);
  const maxLength = new Uint8Array(prefixOf.length);
  for (let i = 0; i < prefixOf.length; i++) {
    const at = fill[prefixOf[i]]++;
    asn[at] = asnOf(i);
    maxLength[at] = maxLengthOf(i);
  }
  return { first, asn, maxLength };
}

/**
 * Walks prefix `q` and the prefixes enclosing it: those that cover the route are candidates (the
 * first covering one found, all beyond it cover too); returns VALID on the first match.
 */
function stateOfChain(
  q: number,
  covers: (q: number) => boolean,
  parent: Int32Array,
  groups: Groups,
  length: number,
  origin: number,
): RouteValidity {
  let covered = false;
  for (; q >= 0; q = parent[q]) {
    if (!covered && !covers(q)) continue;
    covered = true;
    for (let j = groups.first[q], end = groups.first[q + 1]; j < end; j++) {
      if (groups.asn[j] === origin && length <= groups.maxLength[j]) return VALID;
    }
  }
  return covered ? INVALID : NOT_FOUND;
}

/** The IPv4 VRPs by prefix: keys start·64 + length (exact in a double), sorted. */
class Ipv4VrpIndex {
  private readonly keys: Float64Array;
  private readonly ends: Float64Array;
  private readonly parent: Int32Array;
  private readonly groups: Groups;

  constructor(vrps: Ipv4Vrps) {
    const all = new Float64Array(vrps.count);
    for (let i = 0; i < vrps.count; i++) all[i] = vrps.start[i] * 64 + vrps.prefixLength[i];
    const sorted = all.slice().sort();
    let distinct = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i];
    this.keys = sorted.slice(0, distinct);
    this.ends = new Float64Array(distinct);
    this.parent = new Int32Array(distinct);
    const open: number[] = [];
    for (let p = 0; p < distinct; p++) {
      const start = Math.floor(this.keys[p] / 64);
      const length = this.keys[p] - start * 64;
      this.ends[p] = start + 2 ** (32 - length) - 1;
      while (open.length > 0 && this.ends[open[open.length - 1]] < start) open.pop();
      this.parent[p] = open.length > 0 ? open[open.length - 1] : -1;
      open.push(p);
    }
    const prefixOf = new Int32Array(vrps.count);
    for (let i = 0; i < vrps.count; i++) prefixOf[i] = this.atOrBefore(all[i]);
    this.groups = groupVrps(
      prefixOf,
      distinct,
      (i) => vrps.asn[i],
      (i) => vrps.maxLength[i],
    );
  }

  /** The last distinct prefix whose key is ≤ `key`, or -1. */
  private atOrBefore(key: number): number {
    let low = 0;
    let high = this.keys.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (this.keys[mid] <= key) low = mid + 1;
      else high = mid - 1;
    }
    return high;
  }

  /** stateOfChain, inlined: this runs once per route of the routing table. */
  validate(start: number, length: number, origin: number): RouteValidity {
    const { first, asn, maxLength } = this.groups;
    let covered = false;
    for (let q = this.atOrBefore(start * 64 + length); q >= 0; q = this.parent[q]) {
      // A prefix at or before (start, length) that reaches `start` holds the whole route (aligned blocks nest).
      if (!covered && this.ends[q] < start) continue;
      covered = true;
      for (let j = first[q], end = first[q + 1]; j < end; j++) {
        if (asn[j] === origin && length <= maxLength[j]) return VALID;
      }
    }
    return covered ? INVALID : NOT_FOUND;
  }
}

/** The IPv6 VRPs by prefix, as Ipv4VrpIndex with bigint addresses (far fewer of them). */
class Ipv6VrpIndex {
  private readonly starts: bigint[] = [];
  private readonly lengths: number[] = [];
  private readonly ends: bigint[] = [];
  private readonly parent: Int32Array;
  private readonly groups: Groups;
  private routeStart = 0n;
  private readonly covers = (q: number): boolean => this.ends[q] >= this.routeStart;

  constructor(vrps: Ipv6Vrp[]) {
    const order = vrps.map((_, i) => i).sort((a, b) => compare(vrps[a].start, vrps[a].prefixLength, vrps[b].start, vrps[b].prefixLength));
    const prefixOf = new Int32Array(vrps.length);
    for (const i of order) {
      const p = this.starts.length - 1;
      if (p < 0 || this.starts[p] !== vrps[i].start || this.lengths[p] !== vrps[i].prefixLength) {
        this.starts.push(vrps[i].start);
        this.lengths.push(vrps[i].prefixLength);
        this.ends.push(vrps[i].start + (1n << BigInt(128 - vrps[i].prefixLength)) - 1n);
      }
      prefixOf[i] = this.starts.length - 1;
    }
    const distinct = this.starts.length;
    this.parent = new Int32Array(distinct);
    const open: number[] = [];
    for (let p = 0; p < distinct; p++) {
      while (open.length > 0 && this.ends[open[open.length - 1]] < this.starts[p]) open.pop();
      this.parent[p] = open.length > 0 ? open[open.length - 1] : -1;
      open.push(p);
    }
    this.groups = groupVrps(
      prefixOf,
      distinct,
      (i) => vrps[i].asn,
      (i) => vrps[i].maxLength,
    );
  }

  validate(start: bigint, length: number, origin: number): RouteValidity {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (compare(this.starts[mid], this.lengths[mid], start, length) <= 0) low = mid + 1;
      else high = mid - 1;
    }
    this.routeStart = start;
    return stateOfChain(high, this.covers, this.parent, this.groups, length, origin);
  }
}

function compare(aStart: bigint, aLength: number, bStart: bigint, bLength: number): number {
  if (aStart !== bStart) return aStart < bStart ? -1 : 1;
  return aLength - bLength;
}

/** Growing range arrays; a range continuing the last one with the same state extends it. */
class RangeBuilder {
  private count = 0;
  private start = new Uint32Array(4096);
  private end = new Uint32Array(4096);
  private state = new Uint8Array(4096);

  add(start: number, end: number, state: RpkiStateCode): void {
    const last = this.count - 1;
    if (last >= 0 && this.state[last] === state && this.end[last] + 1 === start) {
      this.end[last] = end;
      return;
    }
    if (this.count === this.start.length) {
      const grow = <T extends Uint32Array | Uint8Array>(old: T, next: T): T => {
        next.set(old);
        return next;
      };
      this.start = grow(this.start, new Uint32Array(this.count * 2));
      this.end = grow(this.end, new Uint32Array(this.count * 2));
      this.state = grow(this.state, new Uint8Array(this.count * 2));
    }
    this.start[this.count] = start;
    this.end[this.count] = end;
    this.state[this.count] = state;
    this.count++;
  }

  build(): RpkiRanges {
    const n = this.count;
    return { count: n, start: this.start.slice(0, n), end: this.end.slice(0, n), state: this.state.slice(0, n) };
  }
}
