/**
 * The shared store's change feed: how every instance learns at once of writes that its in-process
 * copies depend on (the authentication cache, src/store/redis/redisKeyCache.ts; the listed-address set,
 * src/store/redis/redisListedAddresses.ts).
 *
 * A writer publishes a change on `<prefix>changes` after writing it, as `<topic> <id> <payload>`;
 * every subscribed instance hands it to its listener of that topic, then acknowledges it (RPUSH to
 * `<prefix>acks:<id>`), and the writer answers its caller only once every receiver has
 * acknowledged (or after ACK_WAIT_MS, when one is unreachable). So the next request anywhere after
 * the change sees it.
 *
 * Listeners are told when the subscription is lost (messages could be missed from then on) and when
 * it is confirmed again after a reconnection: a copy is used only in between. A subscription that
 * hangs (Redis stopped, a network dropping everything) is lost the same way: the watchdog's PING
 * goes unanswered for the deadline and the connection is ended (redisConnection.ts).
 */
import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { watchConnection } from './redisConnection.js';

/** How long a change waits for the instances' acknowledgements before answering anyway. */
const ACK_WAIT_MS = 2000;
const ACK_KEY_TTL_MS = 60_000;

export type ChangeTopic = 'keys' | 'listed';

export interface ChangeListener {
  /** A change of the listener's topic was written (the payload as its writer announced it). */
  changed(payload: string): void;
  /** The subscription is down: changes may be missed until `subscribed`. */
  lost(): void;
  /** The subscription is confirmed: every change from now on arrives. */
  subscribed(): void;
}

export class ChangeFeed {
  private readonly listeners = new Map<string, ChangeListener>();
  private live = false;
  private readonly watchdog: NodeJS.Timeout;
  readonly channel: string;

  private constructor(
    private readonly subscriber: Redis,
    private readonly connection: Redis,
    private readonly prefix: string,
    timeoutMs: number,
  ) {
    this.channel = `${prefix}changes`;
    this.watchdog = watchConnection(subscriber, timeoutMs);
    subscriber.on('message', (_channel: string, message: string) => this.receive(message));
    subscriber.on('close', () => {
      if (!this.live) return;
      this.live = false;
      for (const listener of this.listeners.values()) listener.lost();
    });
    // After every (re)connection: subscribe again; the copies serve once Redis confirms it.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => this.confirmed(),
        () => undefined,
      );
    });
  }

  /**
   * Subscribes on a connection of its own (a subscribed connection can do nothing else), with the
   * options of `connection`; `timeoutMs`: the store's deadline, which its watchdog holds it to.
   */
  static async open(connection: Redis, prefix: string, timeoutMs: number): Promise<ChangeFeed> {
    // Not auto-pipelined: the watchdog's PING goes out alone, as a subscribed connection allows.
    const subscriber = connection.duplicate({ autoResubscribe: false, lazyConnect: true, enableAutoPipelining: false });
    subscriber.on('error', () => {});
    const feed = new ChangeFeed(subscriber, connection, prefix, timeoutMs);
    try {
      await subscriber.connect();
      await subscriber.subscribe(feed.channel);
    } catch (e) {
      await feed.close();
      throw e;
    }
    feed.confirmed();
    return feed;
  }

  /** Hands `topic`'s changes to `listener`; told at once when the subscription is already confirmed. */
  listen(topic: ChangeTopic, listener: ChangeListener): void {
    this.listeners.set(topic, listener);
    if (this.live) listener.subscribed();
  }

  /**
   * Tells every instance that a change was written, and waits until each receiver has taken it.
   * Works on any connection, subscribed or not (the admin commands too).
   */
  static async announce(connection: Redis, prefix: string, topic: ChangeTopic, payload = ''): Promise<void> {
    const id = crypto.randomUUID();
    const receivers = await connection.publish(`${prefix}changes`, `${topic} ${id} ${payload}`);
    const acks = `${prefix}acks:${id}`;
    const until = performance.now() + ACK_WAIT_MS;
    while ((await connection.llen(acks)) < receivers && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
    await connection.del(acks);
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    this.live = false;
    this.listeners.clear();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  private confirmed(): void {
    if (this.live) return;
    this.live = true;
    for (const listener of this.listeners.values()) listener.subscribed();
  }

  private receive(message: string): void {
    const topicEnd = message.indexOf(' ');
    const idEnd = message.indexOf(' ', topicEnd + 1);
    if (topicEnd < 0 || idEnd < 0) return;
    const id = message.slice(topicEnd + 1, idEnd);
    this.listeners.get(message.slice(0, topicEnd))?.changed(message.slice(idEnd + 1));
    const acks = `${this.prefix}acks:${id}`;
    this.connection
      .multi()
      .rpush(acks, '1')
      .pexpire(acks, ACK_KEY_TTL_MS)
      .exec()
      .catch(() => undefined);
  }
}
