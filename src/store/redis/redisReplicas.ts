/**
 * Acknowledged writes that survive a failover. Redis replicates asynchronously: a master that
 * falls may take its last writes with it, and the replica promoted in its place never had them.
 * Blacklist reports and account and key changes (the writes the outage fallback refuses rather
 * than drops) are therefore confirmed before they answer: WAIT, on the connection that wrote them
 * (on a Cluster, on each master they went to), until `replicas` replicas have them. A write that is
 * not confirmed within half the deadline is refused as an outage (`unavailable`, Retry-After), as
 * the fallback refuses it, though the master has it: a report's retry merges with it, a change's
 * retry finds it made.
 *
 * WAIT holds its connection (Redis answers nothing else on it meanwhile), so these writes have a
 * connection of their own: lookups never queue behind a replica that is slow to confirm.
 */
import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { closeConnection } from './redisConnection.js';
import { execResult } from './redisFailures.js';
import { defineStoreCommands, type StoreRedis } from './redisScripts.js';

export class ConfirmedWrites {
  private constructor(
    /** the connection the confirmed writes are made on */
    readonly redis: StoreRedis,
    private readonly replicas: number,
    private readonly waitMs: number,
    private readonly own: boolean,
  ) {}

  /**
   * `replicas` 0: the writes are made on `connection` and answer once the master has them (one
   * server without replicas); else on a connection of their own, opened here.
   */
  static async open(connection: StoreRedis, replicas: number, timeoutMs: number): Promise<ConfirmedWrites> {
    const waitMs = Math.max(1, Math.floor(timeoutMs / 2));
    if (replicas === 0) return new ConfirmedWrites(connection, 0, waitMs, false);
    const writer = (connection instanceof Cluster ? connection.duplicate() : connection.duplicate()) as StoreRedis;
    writer.on('error', () => {});
    try {
      // a duplicate keeps lazyConnect; a Cluster's duplicate connects on its own
      if (writer.status === 'wait') await writer.connect();
      else await new Promise((resolve) => writer.once('ready', resolve));
    } catch (e) {
      writer.disconnect();
      throw e;
    }
    defineStoreCommands(writer);
    return new ConfirmedWrites(writer, replicas, waitMs, true);
  }

  /** Resolves once `replicas` replicas have every write this connection made to `keys` (and before). */
  async confirm(keys: readonly string[]): Promise<void> {
    if (this.replicas === 0) return;
    const redis = this.redis;
    let confirmed: number[];
    if (redis instanceof Cluster) {
      // One WAIT per master written to, each on that master's connection: a pipeline goes to its key's node.
      const byNode = new Map<string, string>();
      for (const key of keys) byNode.set(redis.slots[calculateSlot(key)]?.[0] ?? key, key);
      confirmed = await Promise.all(
        [...byNode.values()].map(
          async (key) => execResult(await redis.pipeline().exists(key).wait(this.replicas, this.waitMs).exec())[1] as number,
        ),
      );
    } else {
      confirmed = [await redis.wait(this.replicas, this.waitMs)];
    }
    const fewest = Math.min(...confirmed);
    if (fewest < this.replicas)
      throw new Error(`written, but ${fewest} of the ${this.replicas} replicas asked for confirmed it within ${this.waitMs} ms`);
  }

  async close(): Promise<void> {
    if (this.own) await closeConnection(this.redis, this.waitMs * 2);
  }
}
