/**
 * The feed set in force, as servers answer from it: the security, RPKI and abuse tables of
 * `<tables>/feeds/sets/<name>/` (and IANA's RDAP bootstrap, for query-time RDAP), named by the pointer `<tables>/feeds/current` that
 * `netlookup update` replaces (src/update/runFeeds.ts).
 *
 * Honest answers: a verdict comes only from feeds that are loaded and fresh. A feed is fresh until
 * its `stale_after`: three of its cadences after its publisher last gave or confirmed the file
 * (src/update/feedCatalog.ts; the freshness file of the set, rewritten by updates that find
 * nothing new, overrides the tables' META). The security flags follow securityVerdicts.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ParsedIp } from '../address/ipAddress.js';
import { CURRENT_POINTER, INSTALLED_SET, readPointer, setFolder } from '../tables/tableSets.js';
import { RDAP_HOSTS, registryOfAbuseFeed, type AbuseRegistry } from './abuseMailbox.js';
import { FeedFreshness } from './feedFreshness.js';
import { NO_FEED_SECURITY, SecurityVerdicts, type FeedSecurity } from './securityVerdicts.js';
import { FeedTable, RPKI_STATES, type FeedKind, type FeedState, type RpkiState, type SecurityValue } from './format/feedTable.js';

export const FEEDS_FOLDER = 'feeds';
/**
 * `{feed id: stale_after}` beside a set's tables: rewritten (and the pointer with it) when the
 * publishers confirm their files without a rebuild; it overrides the tables' META.
 */
export const FRESHNESS_FILE = 'freshness.json';
export const FEED_FILES: Record<FeedKind, string> = { security: 'security.nlt', rpki: 'rpki.nlt', abuse: 'abuse.nlt', rdap: 'rdap.nlt' };

/** One feed as `/health` and `/v1` show it. */
export interface FeedStatus {
  id: string;
  name: string;
  says: string;
  date: string | null;
  fetched_at: string;
  rows: number;
  /** when it stops answering unless its publisher gives or confirms it again */
  stale_after: string;
  fresh: boolean;
}

export class FeedSet {
  /** per table, which of its feeds answer now */
  private readonly freshnessOf = new Map<FeedKind, FeedFreshness>();

  constructor(
    /** the set's folder name; null when no feed set has been built */
    readonly name: string | null,
    readonly security: FeedTable<SecurityValue> | null,
    readonly rpki: FeedTable<RpkiState> | null,
    readonly abuse: FeedTable<string> | null,
    /** IANA's RDAP bootstrap: the base URL of the RDAP service of each registry's blocks */
    readonly rdap: FeedTable<string> | null,
    /** per feed id, when it stops answering (the freshness file, else each table's META) */
    private readonly staleAfter: ReadonlyMap<string, number> = new Map(),
  ) {
    this.verdicts = security === null ? null : new SecurityVerdicts(security, (feed) => this.staleAfterOf(feed));
  }

  private readonly verdicts: SecurityVerdicts | null;

  static readonly EMPTY = new FeedSet(null, null, null, null, null);

  private staleAfterOf(feed: FeedState): number {
    return this.staleAfter.get(feed.id) ?? Date.parse(feed.stale_after);
  }

  /** The set `feeds/current` names under `tablesDir`; the empty set when there is none. Throws when a table is corrupt. */
  static load(tablesDir: string): FeedSet {
    // the feed sets keep the layout and pointers of the table sets (src/tables/tableSets.ts) in their own folder
    const root = path.join(tablesDir, FEEDS_FOLDER);
    const name = readPointer(root, CURRENT_POINTER)!;
    return name === INSTALLED_SET ? FeedSet.EMPTY : FeedSet.loadFolder(setFolder(root, name), name);
  }

  /** The feed set in `folder` (named `name`); throws when a table is corrupt. */
  static loadFolder(folder: string, name: string): FeedSet {
    const table = <V>(kind: FeedKind): FeedTable<V> | null => {
      const file = path.join(folder, FEED_FILES[kind]);
      if (!fs.existsSync(file)) return null;
      // copied into a fresh buffer: 16-byte alignment for the container's views
      const bytes = new Uint8Array(fs.readFileSync(file));
      const table = new FeedTable<V>(bytes, file);
      if (table.meta.feed_kind !== kind) throw new Error(`${file} holds a ${table.meta.feed_kind} table`);
      return table;
    };
    const staleAfter = new Map<string, number>();
    const freshnessFile = path.join(folder, FRESHNESS_FILE);
    if (fs.existsSync(freshnessFile)) {
      let freshness: unknown;
      try {
        freshness = JSON.parse(fs.readFileSync(freshnessFile, 'utf8'));
      } catch {
        throw new Error(`${freshnessFile} is not JSON`);
      }
      if (typeof freshness !== 'object' || freshness === null) throw new Error(`${freshnessFile} is not an object`);
      for (const [id, until] of Object.entries(freshness)) {
        if (typeof until !== 'string' || !Number.isFinite(Date.parse(until))) throw new Error(`${freshnessFile}: ${id} has no time`);
        staleAfter.set(id, Date.parse(until));
      }
    }
    const set = new FeedSet(
      name,
      table<SecurityValue>('security'),
      table<RpkiState>('rpki'),
      table<string>('abuse'),
      table<string>('rdap'),
      staleAfter,
    );
    for (const state of set.rpki?.valueList ?? []) {
      if (!(RPKI_STATES as readonly string[]).includes(state)) throw new Error(`${folder}: unknown RPKI state ${JSON.stringify(state)}`);
    }
    // query-time RDAP fetches from these: only absolute HTTPS base URLs (the bootstrap reader's rule)
    for (const base of set.rdap?.valueList ?? []) {
      if (typeof base !== 'string' || !/^https:\/\/[^/?#\s]+\/[^?#\s]*$/.test(base) || !base.endsWith('/')) {
        throw new Error(`${folder}: ${JSON.stringify(base)} is not an RDAP base URL`);
      }
    }
    return set;
  }

  private freshness(kind: FeedKind, table: FeedTable<unknown>, nowMs: number): readonly boolean[] {
    let freshness = this.freshnessOf.get(kind);
    if (freshness === undefined)
      this.freshnessOf.set(kind, (freshness = new FeedFreshness(table.meta.feeds, (feed) => this.staleAfterOf(feed))));
    return freshness.at(nowMs);
  }

  /** The security flags of `ip` from the fresh feeds. */
  securityOf(ip: ParsedIp, nowMs: number): FeedSecurity {
    return this.verdicts === null ? NO_FEED_SECURITY : this.verdicts.of(ip.v4, ip.words, nowMs);
  }

  /** RFC 6811 state of the IPv4 route carrying `ip`; null for IPv6, without a fresh ROA feed, or where not computed. */
  rpkiOf(ip: ParsedIp, nowMs: number): RpkiState | null {
    const table = this.rpki;
    if (table === null || ip.v4 < 0 || !this.freshness('rpki', table, nowMs).every(Boolean)) return null;
    return table.lookup4(ip.v4);
  }

  /** The abuse mailbox the registry names for the most specific block holding `ip`, from a fresh dump; else null. */
  abuseOf(ip: ParsedIp, nowMs: number): string | null {
    return this.freshValueOf('abuse', this.abuse, ip, nowMs);
  }

  /** The HTTPS base URL of the RDAP service of the registry managing `ip` (IANA's bootstrap); null without a fresh bootstrap. */
  rdapServiceOf(ip: ParsedIp, nowMs: number): string | null {
    return this.freshValueOf('rdap', this.rdap, ip, nowMs);
  }

  /** The value of `ip` in a table whose feeds answer alike (any fresh one), or null. */
  private freshValueOf(kind: FeedKind, table: FeedTable<string> | null, ip: ParsedIp, nowMs: number): string | null {
    if (table === null) return null;
    const value = table.lookup(ip.v4, ip.words);
    if (value === null) return null;
    return this.freshness(kind, table, nowMs).some(Boolean) ? value : null;
  }

  /**
   * Whether fresh dumps of the registry whose RDAP service is `service` are loaded: then the abuse
   * table's silence for its blocks is the registry's own answer, and RDAP is not asked again.
   */
  abuseDumpAnswers(service: string, nowMs: number): boolean {
    const table = this.abuse;
    if (table === null) return false;
    let own = this.dumpFeedsOfService.get(service);
    if (own === undefined) {
      const host = new URL(service).host;
      const registry = (Object.keys(RDAP_HOSTS) as AbuseRegistry[]).find((r) => RDAP_HOSTS[r] === host);
      own = table.meta.feeds.flatMap((feed, i) => (registry !== undefined && registryOfAbuseFeed(feed.id) === registry ? [i] : []));
      this.dumpFeedsOfService.set(service, own);
    }
    if (own.length === 0) return false;
    const fresh = this.freshness('abuse', table, nowMs);
    return own.every((i) => fresh[i]);
  }

  /** per RDAP service, the indexes of its registry's dump feeds in the abuse table */
  private readonly dumpFeedsOfService = new Map<string, number[]>();

  /** Every feed of the set with its date, size and freshness. */
  status(nowMs: number): FeedStatus[] {
    const out: FeedStatus[] = [];
    for (const table of [this.security, this.rpki, this.abuse, this.rdap]) {
      for (const feed of table?.meta.feeds ?? ([] as FeedState[])) {
        out.push({
          id: feed.id,
          name: feed.name,
          says: feed.says,
          date: feed.date,
          fetched_at: feed.fetched_at,
          rows: feed.rows,
          stale_after: new Date(this.staleAfterOf(feed)).toISOString(),
          fresh: this.staleAfterOf(feed) > nowMs,
        });
      }
    }
    return out;
  }
}
