/**
 * The shared store's in-process set of the addresses that have reports, so that a paid IP lookup
 * of an address nobody reported (nearly all of them) needs no Redis read for its threat facts.
 * Only membership is kept here; the facts of a member are read from Redis and aggregated at read
 * time as before, so they are never stale.
 *
 * Kept current by the change feed (src/store/redis/redisChangeFeed.ts): every report announces its
 * address as a `listed` change after it is written, and answers only once every instance has added
 * it. The set is loaded from the blacklist's address index when first asked (so the admin
 * commands, which never ask, never load it) and again after every reconnection of the feed, and
 * rebuilt every REBUILD_INTERVAL_MS so that addresses deleted or purged since (members that only
 * cost a Redis read) do not accumulate. It answers only while the feed is confirmed and a load has
 * finished since; otherwise every address may be listed.
 */
import { parseBlacklistAddress, type BlacklistAddress } from '../../blacklist/address.js';
import { AddressIds } from '../addressIds.js';
import type { ChangeFeed, ChangeListener } from './redisChangeFeed.js';

export const REBUILD_INTERVAL_MS = 60 * 60_000;
const RETRY_MS = 1000;

export class ListedAddresses implements ChangeListener {
  private members = new AddressIds();
  /** the set a load is filling; announced members go to it too */
  private loading: AddressIds | null = null;
  private wanted = false;
  private feedConfirmed = false;
  private ready = false;
  /** grows with every load begun or abandoned: an older load's result is dropped */
  private loads = 0;
  private readonly rebuild: NodeJS.Timeout;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    feed: Pick<ChangeFeed, 'listen'>,
    /** every address of the index, in chunks */
    private readonly indexed: () => AsyncIterable<readonly BlacklistAddress[]>,
  ) {
    feed.listen('listed', this);
    this.rebuild = setInterval(() => {
      if (this.ready) void this.load();
    }, REBUILD_INTERVAL_MS);
    this.rebuild.unref();
  }

  /** False only when the address is known to have no reports; true when it has, or when unknown. */
  mayBeListed(address: BlacklistAddress): boolean {
    if (this.ready) return this.members.find(address.v4, address.words) >= 0;
    if (!this.wanted) {
      this.wanted = true;
      if (this.feedConfirmed) void this.load();
    }
    return true;
  }

  /** Members the set holds (stale ones included until the next rebuild). */
  get size(): number {
    return this.members.size;
  }

  changed(payload: string): void {
    for (const text of payload.split(' ')) {
      const address = parseBlacklistAddress(text);
      if (address === null) continue;
      add(this.members, address);
      if (this.loading !== null) add(this.loading, address);
    }
  }

  lost(): void {
    this.feedConfirmed = false;
    this.ready = false;
    this.loads++;
    this.loading = null;
  }

  subscribed(): void {
    this.feedConfirmed = true;
    if (this.wanted) void this.load();
  }

  close(): void {
    clearInterval(this.rebuild);
    if (this.retry !== null) clearTimeout(this.retry);
    this.lost();
  }

  /** Reads the index into a new set; it replaces the members once complete, if nothing was missed meanwhile. */
  private async load(): Promise<void> {
    const load = ++this.loads;
    const loading = new AddressIds();
    this.loading = loading;
    try {
      for await (const chunk of this.indexed()) {
        if (load !== this.loads) return;
        for (const address of chunk) add(loading, address);
      }
    } catch {
      if (load !== this.loads) return;
      this.loading = null;
      this.retry = setTimeout(() => {
        this.retry = null;
        if (load === this.loads && this.feedConfirmed) void this.load();
      }, RETRY_MS);
      this.retry.unref();
      return;
    }
    if (load !== this.loads) return;
    this.members = loading;
    this.loading = null;
    this.ready = true;
  }
}

function add(set: AddressIds, address: BlacklistAddress): void {
  if (set.find(address.v4, address.words) < 0) set.insert(address.v4, address.words, 0);
}
