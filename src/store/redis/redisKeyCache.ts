/**
 * The shared store's cache of authentications (verified secret → key and account), kept coherent across
 * instances by the change feed (src/store/redis/redisChangeFeed.ts): every account or key change, through
 * any instance or the CLI, is announced as a `keys` change after it is written; every instance drops
 * its whole cache on it before the change answers its caller. So the next request anywhere after a
 * roll, deletion or suspension is checked against Redis afresh.
 *
 * The cache is used only while the feed's subscription is confirmed: when it drops (changes could
 * be missed) the cache empties and stays off until it is confirmed again. A read that started before
 * a change is not cached when it ends (the epoch check), and entries also age out after
 * CACHE_TTL_MS as a last resort.
 *
 * Entries are found by the secret itself, so that a cached request costs no SHA-256: a secret is
 * cached only after its hash matched a stored key, and the entry found is compared with the
 * presented secret in constant time before it answers.
 */
import { sameSecret, secretCodes } from '../apiKeySecret.js';
import type { ChangeFeed, ChangeListener } from './redisChangeFeed.js';
import type { Account, ApiKey } from '../store.js';

const CACHE_TTL_MS = 10_000;
const CACHE_LIMIT = 100_000;

type Found = { key: ApiKey; account: Account };

export class KeyCache implements ChangeListener {
  private readonly entries = new Map<string, { secret: Uint8Array; found: Found; at: number }>();
  private live = false;
  /** grows with every invalidation: a read begun in an older epoch is not cached */
  private epoch = 0;

  constructor(feed: ChangeFeed) {
    feed.listen('keys', this);
  }

  changed(): void {
    this.invalidate();
  }

  lost(): void {
    this.live = false;
    this.invalidate();
  }

  subscribed(): void {
    this.live = true;
  }

  get(secret: string): Found | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(secret);
    if (entry === undefined || !sameSecret(entry.secret, secret)) return undefined;
    if (performance.now() - entry.at > CACHE_TTL_MS) {
      this.entries.delete(secret);
      return undefined;
    }
    return entry.found;
  }

  /** The epoch to hand back to `set` with what a read found. */
  begin(): number {
    return this.epoch;
  }

  /** `secret`: one whose hash matched the stored key of `found`. */
  set(secret: string, found: Found, epoch: number): void {
    if (!this.live || epoch !== this.epoch) return;
    if (this.entries.size >= CACHE_LIMIT) this.entries.clear();
    this.entries.set(secret, { secret: secretCodes(secret), found, at: performance.now() });
  }

  invalidate(): void {
    this.epoch++;
    this.entries.clear();
  }
}
