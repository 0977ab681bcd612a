/**
 * Abuse contacts at query time from the registries' RDAP services, for the paid record's
 * `abuse.email` where no fresh registry dump answers (ARIN and LACNIC publish none with contacts,
 * APNIC's masks them; docs/feeds.md). Which service to ask comes from IANA's bootstrap in the feed
 * set (FeedSet.rdapServiceOf); the caller decides whether to ask (src/http/v1/ipRecordFeeds.ts).
 *
 * Rules:
 * - Deadline: the caller has an answer by its `deadlineAt`, never later; the query runs on (up to
 *   RDAP_QUERY_TIMEOUT_MS) and its answer goes into the cache for the next request.
 * - Cache: src/enrichment/rdapCache.ts, persistent, per block. A contact is kept a week; "no
 *   contact" and "no such network" (404) a day. Timeouts, failures, refusals and malformed answers
 *   are not cached: the next request asks again, within the rate limit.
 * - Rate limit: each service (its origin) gets `perMinute` queries a minute, or the registry's
 *   published limit where lower (PUBLISHED_LIMITS), in bursts of up to ten; a lookup that finds none
 *   left is answered "unknown" at once, never queued behind others. A caller may spend a quarter of
 *   a service's budget (CALLER_SHARE): a hostile one leaves the rest to the others.
 *   A 429 answer pauses the service for its Retry-After (1 s to 1 h; 60 s when absent).
 * - One query per block in flight: lookups of addresses of one block share it; at most
 *   MAX_QUERIES queries run at once over all services.
 * - Redirects (a registry pointing at another for transferred space) are followed up to
 *   MAX_REDIRECTS times, only to HTTPS URLs on hosts `isRdapHost` accepts (the bootstrap's
 *   services), so an answer can never send the service to fetch from elsewhere.
 * - Under a mirror (NETLOOKUP_UPDATE_MIRROR) every URL is fetched from `<mirror>/<host>/<path>`,
 *   as `netlookup update` fetches publishers' files.
 * - Reserved addresses (private, CGNAT, documentation…) are never asked.
 */
import { reservedIPv4, reservedIPv6 } from '../address/reservedRange.js';
import type { ParsedIp } from '../address/ipAddress.js';
import { mirroredUrl } from '../config/mirror.js';
import { RDAP_QUERY_TIMEOUT_MS, type RdapSettings } from '../config/rdapSettings.js';
import { byDeadline, performanceClock, type MonotonicClock } from './deadline.js';
import { blockKeyOf, CONTACT_TTL_MS, NO_CONTACT_TTL_MS, openRdapCache, type RdapCache } from './rdapCache.js';
import { RDAP_ANSWER_MAX_BYTES, RdapAnswerError, readRdapNetwork } from './rdapNetwork.js';

const MAX_QUERIES = 32;
/**
 * Published limits below the setting, per service host, queries a minute. LACNIC: "10 per minute
 * and 1000 per hour, whichever is violated first", per client address without an API key
 * (LACNIC's RDAP service, GTER 41, May 2016). The other registries publish none for RDAP.
 */
const PUBLISHED_LIMITS: Readonly<Record<string, number>> = { 'rdap.lacnic.net': 10 };
/** A caller may spend a quarter of a service's budget. */
const CALLER_SHARE = 4;
const MAX_CALLERS = 10_000;
const MAX_REDIRECTS = 3;
const MAX_BURST = 10;
const DEFAULT_RETRY_AFTER_MS = 60_000;
const MAX_RETRY_AFTER_MS = 3_600_000;

export type RdapAbuseAnswer =
  | { readonly outcome: 'contact'; readonly email: string }
  /** no-contact: the registry names none for the network; not-found: it has no such network (404); reserved: never asked */
  | { readonly outcome: 'none'; readonly reason: 'no-contact' | 'not-found' | 'reserved' }
  /** not cached: no answer by the deadline, a failed or malformed answer, no query allowed now */
  | {
      readonly outcome: 'unknown';
      readonly reason: 'timeout' | 'failure' | 'malformed' | 'rate-limited' | 'busy';
      readonly status?: number;
    }
  /** NETLOOKUP_RDAP=off, or the service closed */
  | { readonly outcome: 'off' };

/** The record's `abuse.email`: the mailbox, else null. */
export function abuseEmailOf(answer: RdapAbuseAnswer): string | null {
  return answer.outcome === 'contact' ? answer.email : null;
}

interface RdapAbuseStats {
  hits: number;
  misses: number;
  coalesced: number;
  queries: number;
  contacts: number;
  noContacts: number;
  notFound: number;
  timeouts: number;
  failures: number;
  rateLimited: number;
  busy: number;
  /** callers answered "unknown" because their deadline came first */
  expired: number;
  inFlight: number;
  /** the last error of the cache file (then lookups go on without it), or null */
  cacheError: string | null;
}

export interface RdapAbuse {
  /**
   * The abuse contact of `ip` from the RDAP service at `service` (a bootstrap base URL), by
   * `deadlineAt`; `caller` (an account id) spends its own share of the service's budget.
   */
  lookup(ip: ParsedIp, service: string, deadlineAt?: number, caller?: string): Promise<RdapAbuseAnswer>;
  /** The answer the cache holds for `ip`, without asking; undefined when it holds none. */
  cached(ip: ParsedIp): RdapAbuseAnswer | undefined;
  /** The instant `budgetMs` (default: the setting) from now, on this service's clock. */
  deadline(budgetMs?: number): number;
  stats(): RdapAbuseStats;
  close(): void;
}

export interface RdapAbuseOptions {
  /** NETLOOKUP_UPDATE_MIRROR: fetch `<mirror>/<host>/<path>` instead */
  mirror: string | null;
  /** whether a redirect may go to this host (the hosts of the bootstrap's services) */
  isRdapHost(host: string): boolean;
  clock?: MonotonicClock;
  /** wall-clock milliseconds, for the cache's expiry (kept across restarts) */
  wallClock?: () => number;
  fetch?: typeof fetch;
  /** told the first time the cache file cannot be opened, read or written */
  onCacheError?: (error: Error) => void;
}

const OFF: RdapAbuseAnswer = Object.freeze({ outcome: 'off' });
const TIMEOUT: RdapAbuseAnswer = Object.freeze({ outcome: 'unknown', reason: 'timeout' });
const FAILURE: RdapAbuseAnswer = Object.freeze({ outcome: 'unknown', reason: 'failure' });
const MALFORMED: RdapAbuseAnswer = Object.freeze({ outcome: 'unknown', reason: 'malformed' });
const RATE_LIMITED: RdapAbuseAnswer = Object.freeze({ outcome: 'unknown', reason: 'rate-limited' });
const BUSY: RdapAbuseAnswer = Object.freeze({ outcome: 'unknown', reason: 'busy' });
const NO_CONTACT: RdapAbuseAnswer = Object.freeze({ outcome: 'none', reason: 'no-contact' });
const NOT_FOUND: RdapAbuseAnswer = Object.freeze({ outcome: 'none', reason: 'not-found' });
const RESERVED: RdapAbuseAnswer = Object.freeze({ outcome: 'none', reason: 'reserved' });

/** A token bucket per service, and the pause a 429 asked for. */
class ServiceLimit {
  private tokens: number;
  private updatedAt: number;
  private pausedUntil = -Infinity;

  constructor(
    private readonly perMs: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.updatedAt = now;
  }

  /** Whether a query may go now (the bucket refilled to `now`); `take` spends it. */
  ready(now: number): boolean {
    if (now < this.pausedUntil) return false;
    this.tokens = Math.min(this.burst, this.tokens + (now - this.updatedAt) * this.perMs);
    this.updatedAt = now;
    return this.tokens >= 1;
  }

  take(now: number): boolean {
    if (!this.ready(now)) return false;
    this.tokens -= 1;
    return true;
  }

  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }
}

/** Retry-After (RFC 9110 10.2.3: seconds or an HTTP date) in ms, within bounds. */
function retryAfterMs(header: string | null, wallNow: number): number {
  let ms = DEFAULT_RETRY_AFTER_MS;
  if (header !== null && /^\d{1,9}$/.test(header.trim())) ms = Number(header.trim()) * 1000;
  else if (header !== null && Number.isFinite(Date.parse(header))) ms = Date.parse(header) - wallNow;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(1000, ms));
}

/** The body's bytes, refused past `max` without reading further. */
async function boundedBody(response: Response, max: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > max) {
    await response.body?.cancel();
    throw new RdapAnswerError(`${declared} bytes, more than ${max}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new RdapAnswerError(`more than ${max} bytes`);
    }
    chunks.push(value);
  }
}

export function createRdapAbuse(settings: RdapSettings, options: RdapAbuseOptions): RdapAbuse {
  const clock = options.clock ?? performanceClock;
  const wallClock = options.wallClock ?? Date.now;
  const fetchAnswer = options.fetch ?? fetch;
  const counts = {
    hits: 0,
    misses: 0,
    coalesced: 0,
    queries: 0,
    contacts: 0,
    noContacts: 0,
    notFound: 0,
    timeouts: 0,
    failures: 0,
    rateLimited: 0,
    busy: 0,
    expired: 0,
  };
  const deadline = (budgetMs = settings.deadlineMs) => clock.now() + budgetMs;
  if (!settings.enabled) {
    return {
      lookup: async () => OFF,
      cached: () => OFF,
      deadline,
      stats: () => ({ ...counts, inFlight: 0, cacheError: null }),
      close: () => undefined,
    };
  }
  // Opened at the first lookup: a deployment that never asks RDAP (no bootstrap, fields without
  // abuse.email, a shared deployment on Redis) makes no file. A cache that cannot be opened, read
  // or written (a full disk, a file of something else) costs the cache, never the request: the
  // lookup goes on as a miss, within the rate limit, and the error is reported once.
  let opened: RdapCache | null | undefined;
  let cacheError: string | null = null;
  const cacheFailed = (error: unknown) => {
    if (cacheError === null) options.onCacheError?.(error as Error);
    cacheError = (error as Error).message;
  };
  const cache = (): RdapCache | null => {
    if (opened === undefined) {
      try {
        opened = openRdapCache(settings.cacheFile);
      } catch (error) {
        opened = null;
        cacheFailed(error);
      }
    }
    return opened;
  };
  const limits = new Map<string, ServiceLimit>();
  const inFlight = new Map<string, { ip: string; flight: Promise<RdapAbuseAnswer> }>();
  const controllers = new Set<AbortController>();
  let closed = false;

  function limitOf(service: URL): ServiceLimit {
    let limit = limits.get(service.origin);
    if (limit === undefined) {
      const perMinute = Math.min(settings.perMinute, PUBLISHED_LIMITS[service.host] ?? Infinity);
      limits.set(service.origin, (limit = new ServiceLimit(perMinute / 60_000, Math.min(MAX_BURST, perMinute), clock.now())));
    }
    return limit;
  }

  /**
   * Each caller's share of a service's budget: a quarter of it (at least one query a minute), so
   * that one caller asking about block after block cannot spend every other caller's lookups.
   * Callers are kept in an LRU of MAX_CALLERS: one forgotten starts again with a full share.
   */
  const shares = new Map<string, ServiceLimit>();
  function callerShareOf(caller: string, service: URL): ServiceLimit {
    const key = `${service.origin} ${caller}`;
    let share = shares.get(key);
    if (share !== undefined) shares.delete(key);
    else {
      const perMinute = Math.max(1, Math.min(settings.perMinute, PUBLISHED_LIMITS[service.host] ?? Infinity) / CALLER_SHARE);
      share = new ServiceLimit(perMinute / 60_000, Math.max(1, Math.min(MAX_BURST / 2, perMinute)), clock.now());
      if (shares.size >= MAX_CALLERS) shares.delete(shares.keys().next().value as string);
    }
    shares.set(key, share);
    return share;
  }

  /** Keeps and counts a final answer. */
  function kept(
    ip: ParsedIp,
    network: { start: bigint; end: bigint } | null,
    email: string | null,
    answer: RdapAbuseAnswer,
  ): RdapAbuseAnswer {
    const now = wallClock();
    try {
      if (!closed) cache()?.set(ip, network, email, now, now + (email !== null ? CONTACT_TTL_MS : NO_CONTACT_TTL_MS));
    } catch (error) {
      cacheFailed(error);
    }
    if (answer.outcome === 'contact') counts.contacts++;
    else if (answer === NOT_FOUND) counts.notFound++;
    else counts.noContacts++;
    return answer;
  }

  async function ask(ip: ParsedIp, service: URL, limit: ServiceLimit): Promise<RdapAbuseAnswer> {
    counts.queries++;
    const controller = new AbortController();
    controllers.add(controller);
    const timer = setTimeout(() => controller.abort(), RDAP_QUERY_TIMEOUT_MS);
    try {
      let url = new URL(`ip/${ip.text}`, service);
      for (let hop = 0; ; hop++) {
        const response = await fetchAnswer(mirroredUrl(url.href, options.mirror), {
          headers: { accept: 'application/rdap+json, application/json' },
          redirect: 'manual',
          signal: controller.signal,
        });
        if ([301, 302, 303, 307, 308].includes(response.status)) {
          await response.body?.cancel();
          const location = response.headers.get('location');
          const next = location === null ? null : URL.parse(location, url);
          if (hop >= MAX_REDIRECTS || next === null || next.protocol !== 'https:' || !options.isRdapHost(next.host)) {
            counts.failures++;
            return { outcome: 'unknown', reason: 'failure', status: response.status };
          }
          url = next;
          continue;
        }
        if (response.status === 404) {
          await response.body?.cancel();
          return kept(ip, null, null, NOT_FOUND);
        }
        if (response.status === 429) {
          await response.body?.cancel();
          limit.pause(clock.now() + retryAfterMs(response.headers.get('retry-after'), wallClock()));
          counts.rateLimited++;
          return RATE_LIMITED;
        }
        if (response.status !== 200) {
          await response.body?.cancel();
          counts.failures++;
          return { outcome: 'unknown', reason: 'failure', status: response.status };
        }
        const network = readRdapNetwork(await boundedBody(response, RDAP_ANSWER_MAX_BYTES), ip);
        const email = network.abuseEmail;
        return kept(ip, network, email, email === null ? NO_CONTACT : { outcome: 'contact', email });
      }
    } catch (error) {
      if (error instanceof RdapAnswerError) {
        counts.failures++;
        return MALFORMED;
      }
      if (controller.signal.aborted) {
        counts.timeouts++;
        return TIMEOUT;
      }
      counts.failures++;
      return FAILURE;
    } finally {
      clearTimeout(timer);
      controllers.delete(controller);
    }
  }

  /** What is known without asking: off, a reserved address, or the cache's answer (counted as a hit); else undefined. */
  function cachedAnswer(ip: ParsedIp): RdapAbuseAnswer | undefined {
    if (closed) return OFF;
    if ((ip.v4 >= 0 ? reservedIPv4(ip.v4) : reservedIPv6(ip.words)) !== null) return RESERVED;
    let entry: { email: string | null } | undefined;
    try {
      entry = cache()?.get(ip, wallClock());
    } catch (error) {
      cacheFailed(error);
    }
    if (entry === undefined) return undefined;
    counts.hits++;
    return entry.email === null ? NO_CONTACT : { outcome: 'contact', email: entry.email };
  }

  function answerOf(ip: ParsedIp, service: string, deadlineAt: number, caller: string | undefined): Promise<RdapAbuseAnswer> {
    const cached = cachedAnswer(ip);
    if (cached !== undefined) return Promise.resolve(cached);
    counts.misses++;
    // one query per block: the block the cache keeps the answer within
    const key = blockKeyOf(ip);
    let running = inFlight.get(key);
    if (running !== undefined) {
      counts.coalesced++;
    } else {
      const base = URL.parse(service);
      if (base === null || base.protocol !== 'https:') {
        counts.failures++;
        return Promise.resolve(FAILURE);
      }
      if (inFlight.size >= MAX_QUERIES) {
        counts.busy++;
        return Promise.resolve(BUSY);
      }
      const limit = limitOf(base);
      const share = caller === undefined ? null : callerShareOf(caller, base);
      const now = clock.now();
      if (!(share?.ready(now) ?? true) || !limit.take(now)) {
        counts.rateLimited++;
        return Promise.resolve(RATE_LIMITED);
      }
      share?.take(now);
      running = { ip: ip.text, flight: ask(ip, base, limit).finally(() => inFlight.delete(key)) };
      inFlight.set(key, running);
    }
    // another address of the block: its answer is the cache's once the block's query has been answered
    const { flight } = running;
    const mine =
      running.ip === ip.text
        ? flight
        : flight.then((answer) => (answer.outcome === 'unknown' || answer.outcome === 'off' ? answer : (cachedAnswer(ip) ?? FAILURE)));
    return byDeadline(
      mine,
      deadlineAt,
      clock,
      () => {
        counts.expired++;
        return TIMEOUT;
      },
      () => FAILURE,
    );
  }

  return {
    lookup: async (ip, service, deadlineAt = deadline(), caller) => answerOf(ip, service, deadlineAt, caller),
    cached: cachedAnswer,
    deadline,
    stats: () => ({ ...counts, inFlight: inFlight.size, cacheError }),
    close: () => {
      closed = true;
      for (const controller of controllers) controller.abort();
      opened?.close();
      opened = null;
    },
  };
}
