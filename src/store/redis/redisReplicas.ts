/**
 * Acknowledged writes that survive a failover. Redis replicates asynchronously: a master that
 * falls may take its last writes with it, and the replica promoted in its place never had them.
 * Blacklist reports and account and key changes (the writes the outage fallback refuses rather
 * than drops) are therefore confirmed before they answer: WAIT, on the connection that wrote them
 * (on a Cluster, on each master they went to), until `replicas` replicas have them — or all the
 * master has, when it has fewer (a promoted replica has none until the failed node rejoins: its
 * writes are then on the master alone, as on one server). A write that is not confirmed within half
 * the deadline is refused as an outage (`unavailable`, Retry-After), as the fallback refuses it,
 * though the master has it: a report's retry merges with it, a change's retry finds it made.
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

  /** masters (by node, '' for the one master) seen with fewer replicas connected than asked for */
  private readonly short = new Set<string>();

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

  /**
   * Resolves once `replicas` replicas have every write this connection made to `keys` (and before),
   * or, on a master with fewer replicas connected (after a failover, until the failed node rejoins
   * as a replica), once every replica it has does.
   */
  async confirm(keys: readonly string[]): Promise<void> {
    if (this.replicas === 0) return;
    const redis = this.redis;
    if (!(redis instanceof Cluster)) {
      await this.confirmOn('', { wait: (n) => redis.wait(n, this.waitMs), role: () => redis.role() });
      return;
    }
    // One WAIT per master written to, each on that master's connection: a pipeline goes to its key's node.
    const byNode = new Map<string, string>();
    for (const key of keys) byNode.set(redis.slots[calculateSlot(key)]?.[0] ?? key, key);
    await Promise.all(
      [...byNode].map(([node, key]) =>
        this.confirmOn(node, {
          wait: async (n) => execResult(await redis.pipeline().exists(key).wait(n, this.waitMs).exec())[1] as number,
          role: async () => execResult(await redis.pipeline().exists(key).role().exec())[1] as unknown[],
        }),
      ),
    );
  }

  /**
   * WAIT on one master. A master found short of replicas is asked for its replicas (ROLE) first,
   * so that its writes do not each wait the whole timeout for a replica it does not have.
   */
  private async confirmOn(node: string, on: { wait(n: number): Promise<number>; role(): Promise<unknown[]> }): Promise<void> {
    const connected = async () => {
      const role = await on.role();
      return role[0] === 'master' ? (role[2] as unknown[]).length : 0;
    };
    const asked = this.short.has(node) ? Math.min(this.replicas, await connected()) : this.replicas;
    if (asked === 0) return;
    const confirmed = await on.wait(asked);
    if (confirmed >= asked) {
      if (asked === this.replicas) this.short.delete(node);
      return;
    }
    const now = await connected();
    if (now < this.replicas) this.short.add(node);
    if (now < asked && confirmed >= now) return;
    throw new Error(`written, but ${confirmed} of the ${asked} replicas asked for confirmed it within ${this.waitMs} ms`);
  }

  async close(): Promise<void> {
    if (this.own) await closeConnection(this.redis, this.waitMs * 2);
  }
}
