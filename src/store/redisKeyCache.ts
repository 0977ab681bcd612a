/**
 * The shared store's cache of authentications (secret hash → key and account), kept coherent across
 * instances by Redis pub/sub: every account or key change, through any instance or the CLI, is
 * published on `<prefix>changes` after it is written; every subscribed instance drops its whole
 * cache on the message and acknowledges it (RPUSH to `<prefix>acks:<change>`), and the change
 * answers its caller only once every receiver has acknowledged (or after ACK_WAIT_MS, when one is
 * unreachable). So the next request anywhere after a roll, deletion or suspension is checked
 * against Redis afresh.
 *
 * The cache is used only while this instance's subscription is confirmed: a subscriber connection
 * that drops (messages could be missed) empties and disables it until it has subscribed again. A
 * read that started before a change is not cached when it ends (the epoch check), and entries also
 * age out after CACHE_TTL_MS as a last resort.
 */
import type { Redis } from 'ioredis';
import type { Account, ApiKey } from './store.js';

export const CACHE_TTL_MS = 10_000;
const CACHE_LIMIT = 100_000;
/** How long a change waits for the instances' acknowledgements before answering anyway. */
export const ACK_WAIT_MS = 2000;
const ACK_KEY_TTL_MS = 60_000;

type Found = { key: ApiKey; account: Account };

export class KeyCache {
  private readonly entries = new Map<string, { found: Found; at: number }>();
  private live = false;
  /** grows with every invalidation: a read begun in an older epoch is not cached */
  private epoch = 0;
  readonly channel: string;

  private constructor(
    private readonly subscriber: Redis,
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {
    this.channel = `${prefix}changes`;
    subscriber.on('message', (_channel: string, change: string) => {
      this.invalidate();
      const acks = this.acksKey(change);
      this.connection.multi().rpush(acks, '1').pexpire(acks, ACK_KEY_TTL_MS).exec().catch(() => undefined);
    });
    subscriber.on('close', () => {
      this.live = false;
      this.invalidate();
    });
    // After every (re)connection: subscribe again; the cache serves once Redis confirms it.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => {
          this.live = true;
        },
        () => undefined,
      );
    });
  }

  /** Subscribes on a connection of its own (a subscribed connection can do nothing else). */
  static async open(connection: Redis, prefix: string): Promise<KeyCache> {
    const subscriber = connection.duplicate({ autoResubscribe: false, lazyConnect: true });
    subscriber.on('error', () => {});
    const cache = new KeyCache(subscriber, connection, prefix);
    await subscriber.connect();
    await subscriber.subscribe(cache.channel);
    cache.live = true;
    return cache;
  }

  get(hashHex: string): Found | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(hashHex);
    if (entry === undefined) return undefined;
    if (performance.now() - entry.at > CACHE_TTL_MS) {
      this.entries.delete(hashHex);
      return undefined;
    }
    return entry.found;
  }

  /** The epoch to hand back to `set` with what a read found. */
  begin(): number {
    return this.epoch;
  }

  set(hashHex: string, found: Found, epoch: number): void {
    if (!this.live || epoch !== this.epoch) return;
    if (this.entries.size >= CACHE_LIMIT) this.entries.clear();
    this.entries.set(hashHex, { found, at: performance.now() });
  }

  /**
   * Tells every instance that `change` was written, and waits until each receiver has dropped its
   * cache. Works on any connection, subscribed or not (the admin commands too).
   */
  static async announce(connection: Redis, prefix: string, change: string): Promise<void> {
    const receivers = await connection.publish(`${prefix}changes`, change);
    const acks = `${prefix}acks:${change}`;
    const until = performance.now() + ACK_WAIT_MS;
    while ((await connection.llen(acks)) < receivers && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
    await connection.del(acks);
  }

  private acksKey(change: string): string {
    return `${this.prefix}acks:${change}`;
  }

  invalidate(): void {
    this.epoch++;
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.live = false;
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
