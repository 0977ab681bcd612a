/**
 * Reverse DNS at query time: the PTR name of an address, for the paid IP record's
 * `network.hostname`. It asks the configured resolvers (src/config/dnsSettings.ts) with node:dns
 * (c-ares), holds every caller to a deadline and keeps answers in a bounded cache.
 *
 * Rules:
 * - The query is `resolvePtr` on the address's in-addr.arpa / ip6.arpa name, not
 *   `Resolver.reverse`: reverse() is c-ares' gethostbyaddr, which reads /etc/hosts first (it
 *   answers "localhost" for 127.0.0.1 without asking DNS) and returns only one hostent.
 * - Reserved addresses (src/address/reservedRange.ts: private, loopback, link-local, CGNAT,
 *   documentation…) are never asked: the operator's resolver may hold PTR names of its own network
 *   (DHCP host names, split-horizon zones) that must not reach API callers.
 * - Deadline: the caller has an answer by its `deadlineAt` (an instant of the clock), never later,
 *   whatever the server does. c-ares cannot promise that: since c-ares 1.32 one try waits at least
 *   250 ms (its MIN_TIMEOUT_MS) and adapts to the server's past latency, and we measured a
 *   `timeout: 300, tries: 1` query failing only after ~600 ms. So each caller races its own timer,
 *   and each query is cancelled `deadlineMs` after it is sent.
 * - `Resolver.cancel()` cancels every query of that resolver, so each query runs alone on a
 *   resolver taken from a pool of at most `maxQueries` (idle c-ares channels keep no socket open).
 *   Measured against a local server in another process, client CPU per query: about 40 µs on one
 *   shared resolver, 55 µs on the pool (an idle channel closes its socket, so each query opens
 *   one: a fresh source port too), 100 µs with a new resolver per query. A shared resolver would
 *   leave a hung query running until c-ares gives up (up to 5 s), holding its slot. The pool is also
 *   the bound on queries in flight: a lookup that finds no free resolver by its deadline is
 *   answered "unknown" without a query.
 * - A query outlives a caller whose deadline is earlier (a batch's budget ending): its answer, if
 *   it comes within `deadlineMs` of being sent, goes into the cache for the next request.
 * - One query per address in flight: concurrent lookups of an address share it.
 * - Cached: names (1 hour) and "no name" (10 minutes): NXDOMAIN, an empty answer, or an answer
 *   with no usable name. node:dns gives no PTR TTL (resolvePtr returns bare names; resolveAny's
 *   PTR entries carry none and ANY is answered minimally by resolvers, RFC 8482), so these TTLs
 *   are fixed. The cache is an LRU of `cacheSize` addresses.
 * - Not cached: timeouts and failures (SERVFAIL, REFUSED, an unreachable server): the answer is
 *   "unknown" and the next request asks again. There is no back-off: a shared back-off would let
 *   any caller switch reverse DNS off for everyone by asking for addresses in broken zones; the
 *   load on a dead server is already bounded by `maxQueries` per `deadlineMs`, and recursive
 *   resolvers cache their own failures (RFC 9520).
 * - Hostile answers: a name is usable only if it is a host name: ASCII letters, digits and hyphens
 *   (LDH), labels of 1 to 63 characters not starting or ending with a hyphen, 253 characters at
 *   most without the trailing dot, and a last label that is not all digits (a PTR of "10.0.0.1"
 *   would pass for an address). c-ares escapes other bytes (`\001`, `\255`, `\.`), so a name with
 *   control bytes, spaces, non-ASCII or invalid UTF-8 fails the LDH test; names c-ares cannot
 *   decode (longer than 255 octets; escaped past its limit) come as EBADRESP / EFORMERR. Both are
 *   "no name" (reason `unusable`), cached: the zone will answer the same next time. Of several
 *   PTR names the first usable one is taken. IDNA names stay in their ASCII form (`xn--` labels):
 *   no Unicode is shown, so no look-alike characters. Names are lowercased (DNS names compare
 *   without case) and lose their trailing dot.
 *
 * What the record shows: `hostnameOf(answer)`: the name, or null for "no name", "unknown" and "off"
 * alike (the JSON field keeps one shape); the outcome and reason are for logs and metrics.
 */
import { promises as dns } from 'node:dns';
import { parseIp, type ParsedIp } from '../address/ipAddress.js';
import { reservedIPv4, reservedIPv6 } from '../address/reservedRange.js';
import type { DnsSettings } from '../config/dnsSettings.js';
import { byDeadline, performanceClock, type MonotonicClock } from './deadline.js';

/** How long a name is kept. */
export const NAME_TTL_MS = 3_600_000;
/** How long "no name" is kept (RFC 2308 suggests 1 to 3 hours; shorter, so a new PTR shows soon). */
export const NO_NAME_TTL_MS = 600_000;

export type ReverseDnsAnswer =
  | { readonly outcome: 'name'; readonly hostname: string }
  /** nxdomain: NXDOMAIN; no-ptr: the name exists without PTR; unusable: no PTR name passed the checks; reserved: never asked */
  | { readonly outcome: 'no-name'; readonly reason: 'nxdomain' | 'no-ptr' | 'unusable' | 'reserved' }
  /** timeout: no answer by the deadline (or no free query slot); failure: the server failed (`code`: node's error code) */
  | { readonly outcome: 'unknown'; readonly reason: 'timeout' | 'failure'; readonly code?: string }
  /** NETLOOKUP_DNS_SERVERS=off, or the service closed */
  | { readonly outcome: 'off' };

type CachedAnswer = Extract<ReverseDnsAnswer, { outcome: 'name' | 'no-name' }>;

/** The record's `network.hostname`: the name, else null. */
export function hostnameOf(answer: ReverseDnsAnswer): string | null {
  return answer.outcome === 'name' ? answer.hostname : null;
}

/** Milliseconds of a monotonic clock (default `performance.now`): TTLs and deadlines are read on it. */
export type ReverseDnsClock = MonotonicClock;

interface ReverseDnsStats {
  /** lookups answered from the cache */
  hits: number;
  /** lookups not in the cache (reserved and `off` lookups are neither) */
  misses: number;
  /** misses that joined a query already in flight for the address */
  coalesced: number;
  /** queries sent */
  queries: number;
  /** queries answered with a name / with no name */
  names: number;
  noNames: number;
  /** queries with no answer within `deadlineMs` (cancelled) */
  timeouts: number;
  /** queries the server failed (SERVFAIL, REFUSED, unreachable…) */
  failures: number;
  /** lookups that found no free query slot by their deadline (no query sent) */
  unsent: number;
  /** callers answered "unknown" because their deadline came first */
  expired: number;
  /** addresses in the cache, queries in flight */
  cached: number;
  inFlight: number;
}

export interface ReverseDns {
  /** The answer for `ip` (IPv4 or IPv6 text) by `deadlineAt` (default: `deadline()`); throws on text that is not an address. */
  lookup(ip: string, deadlineAt?: number): Promise<ReverseDnsAnswer>;
  /** The answers for `ips`, in order, all by the one `deadlineAt`; at most half the query slots are used by one batch. */
  lookupMany(ips: readonly string[], deadlineAt?: number): Promise<ReverseDnsAnswer[]>;
  /** The instant `budgetMs` (default: the setting `deadlineMs`) from now, on this service's clock. */
  deadline(budgetMs?: number): number;
  stats(): ReverseDnsStats;
  /** Cancels the queries in flight (their callers get "unknown"), empties the cache; lookups answer "off" afterwards. */
  close(): void;
}

const OFF: ReverseDnsAnswer = Object.freeze({ outcome: 'off' });
const TIMEOUT: ReverseDnsAnswer = Object.freeze({ outcome: 'unknown', reason: 'timeout' });
const NXDOMAIN: CachedAnswer = Object.freeze({ outcome: 'no-name', reason: 'nxdomain' });
const NO_PTR: CachedAnswer = Object.freeze({ outcome: 'no-name', reason: 'no-ptr' });
const UNUSABLE: CachedAnswer = Object.freeze({ outcome: 'no-name', reason: 'unusable' });
const RESERVED: ReverseDnsAnswer = Object.freeze({ outcome: 'no-name', reason: 'reserved' });

/** A label of a host name (RFC 1123 2.1), either case. */
const LDH_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const MAX_NAME_LENGTH = 253;

/**
 * `text` (a PTR name as node:dns gives it) as a host name to show, or null when it is not one
 * (the module comment's rules). ASCII is checked before lowercasing: toLowerCase maps some
 * non-ASCII letters to ASCII ones (the Kelvin sign U+212A becomes "k").
 */
export function usableHostname(text: string): string | null {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return null;
  const labels = name.split('.');
  for (const label of labels) if (!LDH_LABEL.test(label)) return null;
  if (/^\d+$/.test(labels[labels.length - 1])) return null;
  return name.toLowerCase();
}

/** The name a PTR query asks: `4.3.2.1.in-addr.arpa`, or 32 reversed nibbles and `ip6.arpa` (RFC 3596 2.5). */
export function reverseNameOf(ip: ParsedIp): string {
  if (ip.v4 >= 0) {
    const n = ip.v4;
    return `${n & 255}.${(n >>> 8) & 255}.${(n >>> 16) & 255}.${n >>> 24}.in-addr.arpa`;
  }
  let name = '';
  for (let w = 3; w >= 0; w--) {
    for (let shift = 0; shift < 32; shift += 4) name += `${((ip.words[w] >>> shift) & 15).toString(16)}.`;
  }
  return `${name}ip6.arpa`;
}

function answerOfNames(names: string[]): CachedAnswer {
  if (names.length === 0) return NO_PTR;
  for (const text of names) {
    const hostname = usableHostname(text);
    if (hostname !== null) return { outcome: 'name', hostname };
  }
  return UNUSABLE;
}

/** node:dns error codes (c-ares status names) as answers. */
function answerOfError(error: unknown): ReverseDnsAnswer {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOTFOUND':
      return NXDOMAIN;
    case 'ENODATA':
      return NO_PTR;
    // a reply c-ares could not read: a name past 255 octets, or one past its escaping limit
    case 'EBADRESP':
    case 'EFORMERR':
      return UNUSABLE;
    case 'ETIMEOUT':
    case 'ECANCELLED':
      return TIMEOUT;
    default:
      // ESERVFAIL, EREFUSED, ECONNREFUSED, ENOTIMP…: only short upper-case codes are kept (they reach logs)
      return { outcome: 'unknown', reason: 'failure', code: typeof code === 'string' && /^E[A-Z]{1,20}$/.test(code) ? code : 'EOTHER' };
  }
}

/** An LRU of answers with their expiry: a Map's order is its recency (a hit moves the entry last). */
class AnswerCache {
  private readonly entries = new Map<string, { answer: CachedAnswer; expiresAt: number }>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    return entry.answer;
  }

  set(key: string, answer: CachedAnswer, expiresAt: number): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { answer, expiresAt });
  }

  clear(): void {
    this.entries.clear();
  }
}

interface Waiter {
  grant: (resolver: dns.Resolver | null) => void;
  timer: NodeJS.Timeout;
}

/** At most `max` resolvers, each running one query at a time, so that cancel() ends only that query. */
class ResolverPool {
  private readonly idle: dns.Resolver[] = [];
  private readonly busy = new Set<dns.Resolver>();
  private readonly waiting: Waiter[] = [];
  private closed = false;

  constructor(
    private readonly make: () => dns.Resolver,
    private readonly max: number,
  ) {
    // made now so that a server list c-ares refuses stops the start, not the first request
    this.idle.push(make());
  }

  /** A resolver for one query, or null when none is free within `waitMs` (FIFO among waiters). */
  acquire(waitMs: number): Promise<dns.Resolver | null> {
    if (this.closed) return Promise.resolve(null);
    const resolver = this.idle.pop() ?? (this.busy.size < this.max ? this.make() : undefined);
    if (resolver !== undefined) {
      this.busy.add(resolver);
      return Promise.resolve(resolver);
    }
    if (waitMs <= 0) return Promise.resolve(null);
    return new Promise((grant) => {
      const waiter: Waiter = {
        grant,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          grant(null);
        }, waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  release(resolver: dns.Resolver): void {
    this.busy.delete(resolver);
    if (this.closed) return;
    const waiter = this.waiting.shift();
    if (waiter === undefined) {
      this.idle.push(resolver);
      return;
    }
    clearTimeout(waiter.timer);
    this.busy.add(resolver);
    waiter.grant(resolver);
  }

  close(): void {
    this.closed = true;
    for (const resolver of this.busy) resolver.cancel();
    this.idle.length = 0;
    for (const waiter of this.waiting.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.grant(null);
    }
  }
}

/**
 * The reverse DNS service of `settings`. `clock` reads TTLs and deadlines (tests move it);
 * timers still run in real time, for `deadlineAt - clock.now()`.
 */
export function createReverseDns(settings: DnsSettings, clock: ReverseDnsClock = performanceClock): ReverseDns {
  const counts = { hits: 0, misses: 0, coalesced: 0, queries: 0, names: 0, noNames: 0, timeouts: 0, failures: 0, unsent: 0, expired: 0 };
  const deadline = (budgetMs = settings.deadlineMs) => clock.now() + budgetMs;
  const servers = settings.servers;
  if (servers === 'off') {
    return {
      lookup: async (ip) => {
        parseAddress(ip);
        return OFF;
      },
      lookupMany: async (ips) => ips.map(parseAddress).map(() => OFF),
      deadline,
      stats: () => ({ ...counts, cached: 0, inFlight: 0 }),
      close: () => undefined,
    };
  }

  const cache = new AnswerCache(settings.cacheSize);
  const inFlight = new Map<string, Promise<ReverseDnsAnswer>>();
  // tries: 1: c-ares would not try again within a budget under its 250 ms minimum anyway
  const pool = new ResolverPool(() => {
    const resolver = new dns.Resolver({ timeout: settings.deadlineMs, tries: 1 });
    if (servers !== 'system') resolver.setServers(servers);
    return resolver;
  }, settings.maxQueries);
  const batchWorkers = Math.max(1, Math.floor(settings.maxQueries / 2));
  let closed = false;

  async function ask(key: string, ip: ParsedIp, waitMs: number): Promise<ReverseDnsAnswer> {
    const resolver = await pool.acquire(waitMs);
    if (resolver === null) {
      counts.unsent++;
      return TIMEOUT;
    }
    counts.queries++;
    const timer = setTimeout(() => resolver.cancel(), settings.deadlineMs);
    let answer: ReverseDnsAnswer;
    try {
      answer = answerOfNames(await resolver.resolvePtr(reverseNameOf(ip)));
    } catch (error) {
      answer = answerOfError(error);
    } finally {
      clearTimeout(timer);
      pool.release(resolver);
    }
    if (answer.outcome === 'name' || answer.outcome === 'no-name') {
      if (answer.outcome === 'name') counts.names++;
      else counts.noNames++;
      if (!closed) cache.set(key, answer, clock.now() + (answer.outcome === 'name' ? NAME_TTL_MS : NO_NAME_TTL_MS));
    } else if (answer.outcome === 'unknown') {
      if (answer.reason === 'timeout') counts.timeouts++;
      else counts.failures++;
    }
    return answer;
  }

  function answerOf(ip: ParsedIp, deadlineAt: number): Promise<ReverseDnsAnswer> {
    if (closed) return Promise.resolve(OFF);
    if ((ip.v4 >= 0 ? reservedIPv4(ip.v4) : reservedIPv6(ip.words)) !== null) return Promise.resolve(RESERVED);
    const key = ip.text;
    const cached = cache.get(key, clock.now());
    if (cached !== undefined) {
      counts.hits++;
      return Promise.resolve(cached);
    }
    counts.misses++;
    let flight = inFlight.get(key);
    if (flight !== undefined) {
      counts.coalesced++;
    } else {
      const waitMs = deadlineAt - clock.now();
      if (waitMs <= 0) {
        counts.expired++;
        return Promise.resolve(TIMEOUT);
      }
      flight = ask(key, ip, waitMs).finally(() => inFlight.delete(key));
      inFlight.set(key, flight);
    }
    return byDeadline(
      flight,
      deadlineAt,
      clock,
      () => {
        counts.expired++;
        return TIMEOUT;
      },
      answerOfError,
    );
  }

  return {
    lookup: async (text, deadlineAt = deadline()) => answerOf(parseAddress(text), deadlineAt),
    lookupMany: async (texts, deadlineAt = deadline()) => {
      const ips = texts.map(parseAddress);
      const answers: ReverseDnsAnswer[] = new Array<ReverseDnsAnswer>(ips.length);
      let next = 0;
      const work = async () => {
        for (let i = next++; i < ips.length; i = next++) answers[i] = await answerOf(ips[i], deadlineAt);
      };
      await Promise.all(Array.from({ length: Math.min(ips.length, batchWorkers) }, work));
      return answers;
    },
    deadline,
    stats: () => ({ ...counts, cached: cache.size, inFlight: inFlight.size }),
    close: () => {
      closed = true;
      pool.close();
      cache.clear();
    },
  };
}

function parseAddress(text: string): ParsedIp {
  const ip = parseIp(text);
  if (ip === null) throw new TypeError(`reverse DNS of ${JSON.stringify(text.slice(0, 64))}: not an IP address`);
  return ip;
}
