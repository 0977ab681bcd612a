/**
 * Reader of the RIPE RIS whois dumps (`https://www.ris.ripe.net/dumps/riswhoisdump.IPv4.gz` and
 * `riswhoisdump.IPv6.gz`): every route the RIS collectors hold, one row
 * `origin<TAB>prefix<TAB>seen-by-peers`, between a `%` comment header (which states when the dump
 * was generated) and a `% End of dump` line, as in the dump of 2024-12-20 (see
 * test/fixtures/publishers/routing-README.md).
 *
 * Rules: a row has exactly three fields; the origin is an AS number 1..4294967295 (AS 0 cannot
 * originate a route, RFC 7607), an AS_SET `{a,b,…}` or `Local` (a route the collector itself
 * holds, with no AS: counted and left out); the prefix is of the file's family with its host bits
 * zero (none set in the 781,000 rows of the three dumps read); seen-by-peers is a count from 1. A
 * dump without its end line is refused as truncated. Private, documentation and reserved AS numbers
 * do appear as origins in real dumps (leaks seen by few peers, a few confederation or stripped-AS
 * cases): they are read as they are and never name a network in `routedRanges` (see isPublicAsn).
 */
import { parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import { SourceFormatError, type NumberedLine } from './textLines.js';

export interface Announcement {
  family: 4 | 6;
  start: bigint;
  prefixLength: number;
  /** null for an AS_SET origin */
  origin: number | null;
  /** the members of an AS_SET origin, in the dump's order; null for a single origin */
  originSet: number[] | null;
  seenByPeers: number;
}

export interface RoutingDump {
  /** the time the header states the dump was generated (ISO 8601, UTC), when it states one */
  dumpedAt: string | null;
  announcements: Announcement[];
  /** rows whose origin is an AS_SET (also in `announcements`) */
  asSetRows: number;
  /** rows whose origin is `Local` (not in `announcements`) */
  localOrigins: number;
}

/**
 * The minimum number of RIS peers that must see a route for it to count as announced. A route
 * seen by a handful of peers is a leak, a hijack, an internal route a peer shares by mistake or a
 * default route (the dumps hold `0.0.0.0/0` and ULA prefixes seen by one peer); the routes the
 * Internet at large uses are seen by hundreds (up to 453 in the 2024-12-20 IPv6 dump). 10 is the
 * threshold RIPEstat applies by default ("Results exclude routes with very low visibility (less
 * than 10 RIS full-feed peers seeing)", announced-prefixes `min_peers_seeing`); NLnet Labs' Krill
 * uses 13 on the same files.
 */
export const MIN_SEEN_BY_PEERS = 10;

export interface RoutedRange {
  start: bigint;
  end: bigint;
  asn: number;
  /** the length of the announced prefix that decides the origin of the range */
  prefixLength: number;
}

const END_OF_DUMP = '% End of dump';
const GENERATED = '% This file was generated';
/** `% This file was generated at Fri Dec 20 10:06:01 UTC 2024.` (C `date`, day padded with a space) */
const GENERATED_AT =
  /^% This file was generated at (Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}(\d{1,2}) (\d\d):(\d\d):(\d\d) UTC (\d{4})\.$/;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const AS_NUMBER = /^[1-9]\d{0,9}$/;
const PEERS = /^[1-9]\d{0,5}$/;
const PREFIX_LENGTH = /^(?:0|[1-9]\d{0,2})$/;
const MAX_ASN = 0xffffffff;

/**
 * Reads one RIS whois dump of `family` from its lines (linesOf/linesOfFile, which inflate the
 * gzip). Throws SourceFormatError naming the line of the first row that is not in the format.
 */
export async function readRisWhoisDump(lines: AsyncIterable<NumberedLine>, family: 4 | 6, file: string): Promise<RoutingDump> {
  const announcements: Announcement[] = [];
  const words = new Uint32Array(4);
  let dumpedAt: string | null = null;
  let asSetRows = 0;
  let localOrigins = 0;
  let ended = false;
  let lineNo = 0;
  const fail = (message: string): never => {
    throw new SourceFormatError(file, lineNo, message);
  };
  try {
    for await (const { text, line } of lines) {
      lineNo = line;
      if (text.length === 0) continue;
      if (ended) fail(`text after "${END_OF_DUMP}"`);
      if (text.charCodeAt(0) === 37 /* % */) {
        if (text === END_OF_DUMP) ended = true;
        else if (text.startsWith(GENERATED)) {
          if (dumpedAt !== null) fail('a second generation time');
          dumpedAt = generationTime(text) ?? fail(`unreadable generation time: ${JSON.stringify(text)}`);
        }
        continue;
      }
      const tab1 = text.indexOf('\t');
      const tab2 = tab1 < 0 ? -1 : text.indexOf('\t', tab1 + 1);
      if (tab2 < 0 || text.indexOf('\t', tab2 + 1) >= 0) fail(`expected origin<TAB>prefix<TAB>seen-by-peers: ${JSON.stringify(text)}`);
      const originText = text.slice(0, tab1);
      const prefixText = text.slice(tab1 + 1, tab2);
      const peersText = text.slice(tab2 + 1);
      if (!PEERS.test(peersText)) fail(`bad seen-by-peers count ${JSON.stringify(peersText)}`);
      const prefix = prefixOf(prefixText, family, words) ?? fail(`not an IPv${family} prefix: ${JSON.stringify(prefixText)}`);
      if (prefix === HOST_BITS) fail(`${prefixText} has host bits set`);
      if (originText === 'Local') {
        localOrigins++;
        continue;
      }
      let origin: number | null = null;
      let originSet: number[] | null = null;
      if (originText.startsWith('{')) {
        originSet = asSetOf(originText) ?? fail(`bad AS_SET origin ${JSON.stringify(originText)}`);
        asSetRows++;
      } else {
        origin = asNumberOf(originText) ?? fail(`bad origin AS number ${JSON.stringify(originText)}`);
      }
      const { start, length } = prefix as Prefix;
      announcements.push({ family, start, prefixLength: length, origin, originSet, seenByPeers: Number(peersText) });
    }
  } catch (error) {
    if (error instanceof SourceFormatError) throw error;
    throw new SourceFormatError(file, lineNo + 1, `unreadable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!ended) throw new SourceFormatError(file, lineNo, `no "${END_OF_DUMP}" line: the dump is truncated`);
  return { dumpedAt, announcements, asSetRows, localOrigins };
}

/** The ISO time of a `% This file was generated at …` line, or null when it is not one. */
function generationTime(text: string): string | null {
  const m = GENERATED_AT.exec(text);
  if (m === null) return null;
  const [, weekday, month, day, hour, minute, second, year] = m;
  const time = new Date(Date.UTC(Number(year), MONTHS.indexOf(month), Number(day), Number(hour), Number(minute), Number(second)));
  // Date.UTC rolls over (Feb 30 → Mar 2, 24:00 → next day): a stamp that does not survive the round trip, or names another weekday, is not a time.
  if (time.getUTCDate() !== Number(day) || time.getUTCHours() !== Number(hour) || time.getUTCMinutes() !== Number(minute)) return null;
  if (time.getUTCSeconds() !== Number(second) || WEEKDAYS[time.getUTCDay()] !== weekday) return null;
  return time.toISOString().replace('.000Z', 'Z');
}

interface Prefix {
  start: bigint;
  length: number;
}

const HOST_BITS = Symbol('host bits');

/** The prefix of `text` in `family`, HOST_BITS when its host bits are not zero, null when it is not a prefix. */
function prefixOf(text: string, family: 4 | 6, words: Uint32Array): Prefix | typeof HOST_BITS | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const lengthText = text.slice(slash + 1);
  if (!PREFIX_LENGTH.test(lengthText)) return null;
  const length = Number(lengthText);
  const address = text.slice(0, slash);
  if (family === 4) {
    const n = parseIPv4(address);
    if (n < 0 || length > 32) return null;
    if (length < 32 && n % 2 ** (32 - length) !== 0) return HOST_BITS;
    return { start: BigInt(n), length };
  }
  if (length > 128 || !address.includes(':') || !parseIPv6(address, words)) return null;
  const start = ipv6Value(words);
  if ((start & ((1n << BigInt(128 - length)) - 1n)) !== 0n) return HOST_BITS;
  return { start, length };
}

function asNumberOf(text: string): number | null {
  if (!AS_NUMBER.test(text)) return null;
  const asn = Number(text);
  return asn <= MAX_ASN ? asn : null;
}

/** The members of `{a,b,…}` (at least one), or null. */
function asSetOf(text: string): number[] | null {
  if (text.length < 3 || !text.endsWith('}')) return null;
  const members: number[] = [];
  for (const part of text.slice(1, -1).split(',')) {
    const asn = asNumberOf(part);
    if (asn === null) return null;
    members.push(asn);
  }
  return members;
}

/**
 * Whether an AS number can name the network that originates a route: not AS 0 (RFC 7607), AS_TRANS
 * 23456 (RFC 6793), the documentation numbers 64496–64511 and 65536–65551 (RFC 5398), the private
 * numbers 64512–65534 and 4200000000–4294967294 (RFC 6996), the reserved 65535, 65552–131071 and
 * 4294967295 (RFC 7300, IANA registry).
 */
export function isPublicAsn(asn: number): boolean {
  if (asn <= 0 || asn === 23456) return false;
  if (asn >= 64496 && asn <= 131071) return false;
  return asn < 4200000000;
}

/** Whether the announcement can decide a prefix's origin; the others still decide that it has none. */
function namesNetwork(a: Announcement): boolean {
  return a.origin !== null && isPublicAsn(a.origin);
}

/** An announced prefix and the announcement that decides its origin. */
export interface RouteInForce {
  start: bigint;
  end: bigint;
  prefixLength: number;
  /**
   * Of the prefix's announcements seen by at least MIN_SEEN_BY_PEERS peers: one naming a network
   * (a public origin) before an AS_SET or a non-public one, then the one seen by most peers (MOAS),
   * then the lower AS number.
   */
  announcement: Announcement;
}

/**
 * The prefixes announced by routes seen by at least MIN_SEEN_BY_PEERS peers, one each with the
 * announcement that decides its origin, ascending by start then prefix length (a prefix before the
 * prefixes inside it).
 */
export function routesInForce(announcements: Announcement[], family: 4 | 6): RouteInForce[] {
  const width = BigInt(family === 4 ? 32 : 128);
  const routes = announcements.filter((a) => {
    if (a.family !== family) throw new Error(`routesInForce(…, ${family}) given an IPv${a.family} announcement`);
    return a.seenByPeers >= MIN_SEEN_BY_PEERS;
  });
  routes.sort((a, b) => {
    if (a.start !== b.start) return a.start < b.start ? -1 : 1;
    if (a.prefixLength !== b.prefixLength) return a.prefixLength - b.prefixLength;
    const named = Number(namesNetwork(b)) - Number(namesNetwork(a));
    if (named !== 0) return named;
    if (a.seenByPeers !== b.seenByPeers) return b.seenByPeers - a.seenByPeers;
    return (a.origin ?? 0) - (b.origin ?? 0);
  });
  const inForce: RouteInForce[] = [];
  for (const a of routes) {
    const last = inForce[inForce.length - 1];
    if (last !== undefined && last.start === a.start && last.prefixLength === a.prefixLength) continue;
    const end = a.start + (1n << (width - BigInt(a.prefixLength))) - 1n;
    inForce.push({ start: a.start, end, prefixLength: a.prefixLength, announcement: a });
  }
  return inForce;
}

/**
 * Calls `visit(route, from, to)` for each run of addresses whose most specific route is `route`, in
 * address order, given the routes ascending by start then prefix length (as routesInForce returns
 * them). Addresses no route covers are not visited. One stack sweep: no work per address.
 */
export function forEachMostSpecific<R extends { start: bigint; end: bigint }>(
  routes: readonly R[],
  visit: (route: R, from: bigint, to: bigint) => void,
): void {
  // The open prefixes, each inside the one below it; `next` is the first address no run has passed.
  const open: R[] = [];
  let next = 0n;
  const emit = (route: R, from: bigint, to: bigint): void => {
    if (from <= to) visit(route, from, to);
  };
  for (const p of routes) {
    for (let top = open[open.length - 1]; top !== undefined && top.end < p.start; top = open[open.length - 1]) {
      emit(top, next, top.end);
      next = top.end + 1n;
      open.pop();
    }
    const around = open[open.length - 1];
    if (around !== undefined) emit(around, next, p.start - 1n);
    next = p.start;
    open.push(p);
  }
  for (let top = open.pop(); top !== undefined; top = open.pop()) {
    emit(top, next, top.end);
    next = top.end + 1n;
  }
}

/**
 * Non-overlapping ascending ranges where the most specific announcement seen by at least
 * MIN_SEEN_BY_PEERS peers decides the origin. Several origins for one prefix (MOAS): the one seen
 * by most peers (ties: the lower AS number). A prefix announced only with an AS_SET or a non-public
 * origin gives no ASN: its addresses are left out, not given to a covering prefix (traffic to them
 * follows the more specific route, whose origin is unknown). Sort and one stack sweep: no work per
 * address.
 */
export function routedRanges(announcements: Announcement[], family: 4 | 6): RoutedRange[] {
  const ranges: RoutedRange[] = [];
  forEachMostSpecific(routesInForce(announcements, family), (route, from, to) => {
    const a = route.announcement;
    if (namesNetwork(a)) ranges.push({ start: from, end: to, asn: a.origin as number, prefixLength: route.prefixLength });
  });
  return ranges;
}
