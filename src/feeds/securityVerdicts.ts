/**
 * The SPEC 2.2 security flags a security feed table gives an address at a time: the one rule the
 * server (FeedSet) and the browser and edge engine (CompactEngine) answer by. Browser-safe: the
 * table and the freshness of its feeds come in; nothing here reads files.
 *
 * Honest answers: a verdict comes only from feeds that are fresh at `nowMs` (their stale_after, or
 * the later one the server's freshness file gives). While at least one fresh feed says a kind of
 * thing (Tor, VPN, proxy), the flag of that kind is a boolean: true when a fresh feed lists the
 * address, false when none does. With no fresh feed of the kind it is null: nobody was asked.
 */
import { FeedFreshness } from './feedFreshness.js';
import type { FeedState, FeedTable, SecurityValue } from './format/feedTable.js';

/** The SPEC 2.2 security flags the feeds answer, and the names of the fresh feeds that list the address. */
export interface FeedSecurity {
  is_vpn: boolean | null;
  vpn_provider: string | null;
  is_proxy: boolean | null;
  is_tor: boolean | null;
  /** ours: the feeds that list the address (empty: consulted, not listed; null: no fresh feed) */
  listed_by: string[] | null;
}

export const NO_FEED_SECURITY: Readonly<FeedSecurity> = Object.freeze({
  is_vpn: null,
  vpn_provider: null,
  is_proxy: null,
  is_tor: null,
  listed_by: null,
});

export class SecurityVerdicts {
  private readonly freshness: FeedFreshness;
  /** the freshness the verdicts below were made for */
  private fresh: readonly boolean[] | null = null;
  /** the verdicts are few (one per distinct listing): made once per freshness and shared */
  private unlisted: FeedSecurity = NO_FEED_SECURITY;
  private byValue = new Map<SecurityValue, FeedSecurity>();

  constructor(
    readonly table: FeedTable<SecurityValue>,
    /** when a feed stops answering, ms */
    staleAfterOf: (feed: FeedState) => number = (feed) => Date.parse(feed.stale_after),
  ) {
    this.freshness = new FeedFreshness(table.meta.feeds, staleAfterOf);
  }

  /** The flags of the address (`v4` ≥ 0: IPv4; else the IPv6 address in `words`) at `nowMs`. */
  of(v4: number, words: Uint32Array, nowMs: number): FeedSecurity {
    const fresh = this.freshness.at(nowMs);
    if (fresh !== this.fresh) {
      this.fresh = fresh;
      this.byValue = new Map();
      this.unlisted = this.verdictOf(null);
    }
    if (this.unlisted === NO_FEED_SECURITY) return NO_FEED_SECURITY;
    const value = this.table.lookup(v4, words);
    if (value === null) return this.unlisted;
    let verdict = this.byValue.get(value);
    if (verdict === undefined) this.byValue.set(value, (verdict = this.verdictOf(value)));
    return verdict;
  }

  private verdictOf(value: SecurityValue | null): FeedSecurity {
    const feeds = this.table.meta.feeds;
    const fresh = this.fresh!;
    const consulted = (kinds: readonly string[]) => feeds.some((feed, i) => fresh[i] && kinds.includes(feed.says));
    const asked = { tor: consulted(['tor']), vpn: consulted(['vpn']), proxy: consulted(['proxy', 'relay']) };
    if (!asked.tor && !asked.vpn && !asked.proxy) return NO_FEED_SECURITY;
    const listing = (value?.by ?? []).filter((i) => fresh[i]).map((i) => feeds[i]);
    const says = (kinds: readonly string[]) => listing.some((feed) => kinds.includes(feed.says));
    const isVpn = asked.vpn ? says(['vpn']) : null;
    const provider = isVpn && value?.vpn_provider_by != null && fresh[value.vpn_provider_by] ? value.vpn_provider : null;
    return Object.freeze({
      is_vpn: isVpn,
      vpn_provider: provider,
      is_proxy: asked.proxy ? says(['proxy', 'relay']) : null,
      is_tor: asked.tor ? says(['tor']) : null,
      listed_by: Object.freeze(listing.map((feed) => feed.name)) as string[],
    });
  }
}
