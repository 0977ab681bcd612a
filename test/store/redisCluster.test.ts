/**
 * The shared store on a real Redis Cluster (three masters, a replica each; redisTopologies.ts): the
 * four conformance suites, a turn's admissions across masters in one write per master, the change
 * feed between two instances, and a master killed: its replica, which never loaded the store's
 * scripts, takes over and the store goes on (EVALSHA falls back to EVAL), losing no acknowledged
 * report.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RedisTarget } from '../../src/config/redisSettings.js';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { RedisStore, type RedisStoreOptions } from '../../src/store/redis/redisStore.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { client, RedisClusterSetup } from './redisTopologies.js';
import { storeConformance } from './storeConformance.js';
import { admitRequest, confirmationCost, reportInput, reportUntilStopped } from './storeTraffic.js';
import { until } from '../until.js';

let cluster: RedisClusterSetup;

beforeAll(async () => {
  cluster = await RedisClusterSetup.start();
});

afterAll(async () => {
  await cluster?.stop();
});

const target = (): RedisTarget => ({ kind: 'cluster', nodes: cluster.seeds, auth: { tls: false } });
/** The conformance suites test what the store does, not how fast: room for replicas slow to confirm on a loaded machine. */
const SLOW_MACHINE = { timeoutMs: 4000 };
const open = (prefix: string, options: RedisStoreOptions = {}) => RedisStore.open(target(), { prefix, waitReplicas: 1, ...options });

storeConformance('redis cluster', (part) =>
  open(`${part}:`, part === 'sessions' ? SLOW_MACHINE : { rateClock: 'request', ...SLOW_MACHINE }),
);

const request = (accountId: string) => admitRequest(accountId);

/** A key read by `b` (so that b holds it in its cache), rolled through `a`: `b` refuses the old secret at once. */
async function expectRollSeen(a: RedisStore, b: RedisStore): Promise<void> {
  const { key } = await a.accounts.createAccount({ plan: 'free' });
  expect(await b.accounts.authenticate(key.secret)).not.toBeNull();
  const rolled = await a.accounts.rollKey(key.id);
  expect(await b.accounts.authenticate(key.secret)).toBeNull();
  expect(await b.accounts.authenticate(rolled!.secret)).not.toBeNull();
}

/** An account whose slot `master` serves. */
async function accountOn(store: RedisStore, prefix: string, master: number): Promise<string> {
  for (;;) {
    const { account } = await store.accounts.createAccount({ plan: 'free' });
    if ((await cluster.masterOf(`${prefix}{acct:${account.id}}:rate`)) === master) return account.id;
  }
}

describe('on a Redis Cluster', () => {
  let a: RedisStore;
  let b: RedisStore;

  beforeAll(async () => {
    [a, b] = await Promise.all([open('x:'), open('x:')]);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("a turn's admissions, on accounts of every master, leave in one write per master", async () => {
    const { masters } = await cluster.roles();
    const accounts = await Promise.all(masters.map((master) => accountOn(a, 'x:', master)));
    await Promise.all(accounts.map((id) => a.meter.admit(request(id))));
    const streams = (a.redis as Cluster).nodes('master').map(
      (node) =>
        node.stream as unknown as {
          _writev: (chunks: unknown[], callback: () => void) => void;
          _write: (chunk: unknown, encoding: string, callback: () => void) => void;
        },
    );
    const spies = streams.map((stream) => ({ writev: vi.spyOn(stream, '_writev'), write: vi.spyOn(stream, '_write') }));
    try {
      const decisions = await Promise.all(accounts.flatMap((id) => [a.meter.admit(request(id)), a.meter.admit(request(id))]));
      expect(decisions.map((d) => [d.outcome, d.quota.used])).toEqual(
        accounts.flatMap(() => [
          ['admitted', 2],
          ['admitted', 3],
        ]),
      );
      // each master got its account's batch in one write: one _writev (the cork), no lone _write
      expect(spies.map(({ writev, write }) => writev.mock.calls.length + write.mock.calls.length).sort()).toEqual([1, 1, 1]);
    } finally {
      for (const { writev, write } of spies) {
        writev.mockRestore();
        write.mockRestore();
      }
    }
  });

  it('what confirming by a replica (WAIT) costs a report and an account change', async () => {
    await confirmationCost('Cluster', (waitReplicas) => open('w:', { waitReplicas, localCopies: false }));
  });

  it('a key rolled through one instance is refused by the other at once: the change feed reaches every instance', async () => {
    await expectRollSeen(a, b);
  });

  it("the node of an instance's subscription killed: the feed subscribes on another node, and changes reach the instance again", async () => {
    const feed = (b as unknown as { feed: { live: boolean; subscriber: { options: { port: number } } } }).feed;
    const node = feed.subscriber.options.port;
    await cluster.crash(node);
    await until('the feed to be lost', () => !feed.live, 10_000);
    await until('the feed to subscribe on another node', () => feed.live && feed.subscriber.options.port !== node, 30_000, 20);
    // the node back as a replica (a killed master's slots came back with its replica's promotion)
    await cluster.restart(node);
    await cluster.untilHealthy();
    // written through a store that waits as long as the conformance suites do: the restarted replica may be slow to confirm on a loaded machine
    const writer = await open('x:', SLOW_MACHINE);
    try {
      await expectRollSeen(writer, b);
    } finally {
      await writer.close();
    }
  });

  it("a master killed: its replica, which never loaded the store's scripts, takes over; the store goes on and keeps every acknowledged report", async () => {
    const master = (await cluster.roles()).masters[0];
    const id = await accountOn(a, 'x:', master);
    expect((await a.meter.admit(request(id))).outcome).toBe('admitted');
    const sha = (a.redis as unknown as { scriptsSet: Record<string, { sha: string }> }).scriptsSet.netlookupAdmit.sha;
    const onMaster = client(master);
    expect(await onMaster.call('SCRIPT', 'EXISTS', sha)).toEqual([1]);
    onMaster.disconnect();
    const replica = await replicaOf(master);
    const onReplica = client(replica);
    expect(await onReplica.call('SCRIPT', 'EXISTS', sha)).toEqual([0]);
    onReplica.disconnect();

    // reports on addresses of every master, one after another, until a while after the failover
    const reports = reportUntilStopped(a, id, '198.51.100');
    const { acknowledged, refused } = reports;
    await until('a few reports', () => acknowledged.length > 20, 10_000);
    const killedAt = performance.now();
    await cluster.crash(master);
    await until('the replica to take over', async () => (await cluster.roles()).masters.includes(replica), 30_000, 50);
    // the store answers from Redis again on the killed master's slots: admissions there decided by Redis
    await until(
      'admissions on the failed-over slots',
      async () => {
        const before = a.meter.owesCounts;
        return (await a.meter.admit(request(id))).outcome === 'admitted' && !before && !a.meter.owesCounts;
      },
      30_000,
      50,
    );
    const backAt = performance.now();
    // the killed node back, as the promoted replica's replica: reports confirmed on every master again
    await cluster.restart(master);
    await cluster.untilHealthy();
    const healthyAt = performance.now();
    const count = acknowledged.length;
    await until('reports on every master', () => acknowledged.length > count + 20 && refused.every((t) => t < healthyAt), 10_000);
    await reports.stop();
    console.log(
      `cluster failover: ${Math.round(backAt - killedAt)} ms from kill -9 to the slots answering; ${refused.length} reports refused (unavailable), ` +
        `the last ${refused.length ? Math.round(refused[refused.length - 1] - killedAt) : 0} ms after the kill`,
    );
    // the script ran on the promoted replica: ioredis sent it after NOSCRIPT
    const promoted = client(replica);
    expect(await promoted.call('SCRIPT', 'EXISTS', sha)).toEqual([1]);
    promoted.disconnect();
    // every acknowledged report is there, read by the other instance
    for (const ip of new Set(acknowledged)) expect(await b.blacklist.listing(parseBlacklistAddress(ip)!, new Date(), 1), ip).not.toBeNull();
  });

  it('a Cluster that is down answers as an unreachable Redis: lookups from the fallback, writes refused, counts written back once it is up', async () => {
    const id = (await a.accounts.createAccount({ plan: 'free' })).account.id;
    const ports = [...cluster.nodes.keys()];
    await Promise.all(ports.map((port) => cluster.crash(port)));
    const started = performance.now();
    const decision = await a.meter.admit(request(id));
    const waited = performance.now() - started;
    expect(decision.outcome).toBe('admitted');
    expect(waited).toBeLessThan(3000);
    await until('the store to say degraded', async () => a.degraded() && !(await a.healthy()), 10_000);
    await expect(a.blacklist.report(reportInput('192.0.2.9', id), new Date())).rejects.toThrow(StoreUnavailableError);
    // the nodes come back empty (no persistence): what Redis holds of today is what was counted meanwhile
    await Promise.all(ports.map((port) => cluster.restart(port)));
    await cluster.untilHealthy();
    await until('the store to be healthy again, its counts written back', () => a.healthy(), 30_000, 50);
    expect((await a.meter.usage(id, new Date())).today.ip).toBe(1);
    console.log(`a Cluster down: the first admission answered from the fallback after ${Math.round(waited)} ms`);
  });
});

async function replicaOf(master: number): Promise<number> {
  const redis = client(master);
  try {
    const replication = await redis.info('replication');
    return Number(/slave0:ip=[^,]+,port=(\d+)/.exec(replication)![1]);
  } finally {
    redis.disconnect();
  }
}
