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
import { Cluster, Redis } from 'ioredis';
import { closeConnection, watchConnection } from './redisConnection.js';

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

/**
 * On a Cluster the feed subscribes on one node (classic PUBLISH reaches every node of a Cluster,
 * replicas too) on a connection of its own, and when that node is gone for good (a Cluster node's
 * connection does not reconnect) on another: lost until then, like a dropped connection.
 */
export class ChangeFeed {
  private readonly listeners = new Map<string, ChangeListener>();
  private live = false;
  private closed = false;
  private subscriber: Redis;
  private watchdog: NodeJS.Timeout;
  readonly channel: string;

  private constructor(
    private readonly connection: Redis | Cluster,
    private readonly prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.channel = `${prefix}changes`;
    this.subscriber = this.newSubscriber();
    this.watchdog = watchConnection(this.subscriber, timeoutMs);
  }

  /**
   * A subscribing connection (a subscribed connection can do nothing else) with the options of
   * `connection`: a duplicate of it, or one to a node of its Cluster. Not auto-pipelined: the
   * watchdog's PING goes out alone, as a subscribed connection allows.
   */
  private newSubscriber(): Redis {
    const options = { autoResubscribe: false, lazyConnect: true, enableAutoPipelining: false };
    let subscriber: Redis;
    if (this.connection instanceof Cluster) {
      const nodes = this.connection.nodes('all');
      // none known (every node gone, the slots not read again yet): the last node tried, again
      const node = nodes[Math.floor(Math.random() * nodes.length)]?.options ?? this.subscriber.options;
      subscriber = new Redis({ ...node, ...options, readOnly: false, enableOfflineQueue: true });
    } else {
      subscriber = this.connection.duplicate(options);
    }
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, message: string) => this.receive(message));
    subscriber.on('close', () => {
      if (!this.live) return;
      this.live = false;
      for (const listener of this.listeners.values()) listener.lost();
    });
    // After every (re)connection: subscribe again; the copies serve once Redis confirms it.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => this.confirmed(subscriber),
        () => undefined,
      );
    });
    // A Cluster node's connection gives up when its node is gone: subscribe on another node.
    subscriber.on('end', () => {
      if (this.closed || subscriber !== this.subscriber) return;
      const retry = setTimeout(() => this.replaceSubscriber(), this.timeoutMs / 4);
      retry.unref();
    });
    return subscriber;
  }

  private replaceSubscriber(): void {
    if (this.closed) return;
    clearInterval(this.watchdog);
    this.subscriber = this.newSubscriber();
    this.watchdog = watchConnection(this.subscriber, this.timeoutMs);
    this.subscriber.connect().catch(() => undefined);
  }

  /**
   * Subscribes on a connection of its own with the options of `connection`; `timeoutMs`: the
   * store's deadline, which its watchdog holds it to.
   */
  static async open(connection: Redis | Cluster, prefix: string, timeoutMs: number): Promise<ChangeFeed> {
    const feed = new ChangeFeed(connection, prefix, timeoutMs);
    const subscriber = feed.subscriber;
    try {
      await subscriber.connect();
      await subscriber.subscribe(feed.channel);
    } catch (e) {
      await feed.close();
      throw e;
    }
    feed.confirmed(subscriber);
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
  static async announce(connection: Redis | Cluster, prefix: string, topic: ChangeTopic, payload = ''): Promise<void> {
    const id = crypto.randomUUID();
    const channel = `${prefix}changes`;
    const published = await connection.publish(channel, `${topic} ${id} ${payload}`);
    const receivers = connection instanceof Cluster ? await clusterSubscribers(connection, channel) : published;
    const acks = `${prefix}acks:${id}`;
    const until = performance.now() + ACK_WAIT_MS;
    while ((await connection.llen(acks)) < receivers && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
    await connection.del(acks);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    this.live = false;
    this.listeners.clear();
    await closeConnection(this.subscriber, this.timeoutMs);
  }

  private confirmed(subscriber: Redis): void {
    if (this.live || subscriber !== this.subscriber) return;
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

/**
 * The subscribers of `channel` on every node of a Cluster: PUBLISH answers only those of the node
 * it ran on, though the message reaches every node. A node that does not answer has none that
 * would acknowledge.
 */
async function clusterSubscribers(cluster: Cluster, channel: string): Promise<number> {
  const counts = await Promise.all(
    cluster.nodes('all').map((node) =>
      node.pubsub('NUMSUB', channel).then(
        (reply) => Number((reply as [string, number])[1]),
        () => 0,
      ),
    ),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}
