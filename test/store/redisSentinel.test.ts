/**
 * The shared store on the master of a real Redis Sentinel set-up (a master, two replicas, three
 * sentinels; redisTopologies.ts): the four conformance suites, and the master killed: the
 * sentinels promote a replica, the store finds it and goes on, losing no acknowledged report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import type { RedisTarget } from '../../src/config/redisSettings.js';
import { RedisStore, type RedisStoreOptions } from '../../src/store/redis/redisStore.js';
import { RedisSentinelSetup, SENTINEL_NAME } from './redisTopologies.js';
import { storeConformance } from './storeConformance.js';
import { confirmationCost, reportInput, reportUntilStopped } from './storeTraffic.js';
import { until } from '../until.js';

let sentinel: RedisSentinelSetup;

beforeAll(async () => {
  sentinel = await RedisSentinelSetup.start();
});

afterAll(async () => {
  await sentinel?.stop();
});

const target = (): RedisTarget => ({ kind: 'sentinel', sentinels: sentinel.sentinelNodes, name: SENTINEL_NAME, auth: { tls: false } });
/** The conformance suites test what the store does, not how fast: room for replicas slow to confirm on a loaded machine. */
const SLOW_MACHINE = { timeoutMs: 4000 };
const open = (prefix: string, options: RedisStoreOptions = {}) => RedisStore.open(target(), { prefix, waitReplicas: 1, ...options });

storeConformance('redis sentinel', (part) =>
  open(`${part}:`, part === 'sessions' ? SLOW_MACHINE : { rateClock: 'request', ...SLOW_MACHINE }),
);

describe('on a Redis Sentinel set-up', () => {
  it('what confirming by a replica (WAIT) costs a report and an account change, and a write the replicas do not confirm is refused', async () => {
    const master = await sentinel.master();
    await confirmationCost('Sentinel', (waitReplicas) => open('w:', { waitReplicas, localCopies: false }));
    const input = (reporter: string) => reportInput('192.0.2.77', reporter);
    // three replicas asked of a master with two: refused as unavailable, though the master has it; the retry asking two merges with it
    const three = await open('w:', { waitReplicas: 3 });
    try {
      await expect(three.blacklist.report(input('three'), new Date())).rejects.toThrow(/2 of the 3 replicas asked for confirmed it/);
    } finally {
      await three.close();
    }
    const both = await open('w:', { waitReplicas: 2 });
    expect((await both.blacklist.report(input('three'), new Date())).merged).toBe(true);
    // one of the two replicas hung: refused likewise; the retry, once it is back, merges with it
    const [, replica] = [...sentinel.servers.keys()].filter((port) => port !== master);
    try {
      sentinel.pause(replica);
      await expect(both.blacklist.report(input('both'), new Date())).rejects.toThrow(/1 of the 2 replicas asked for confirmed it/);
      sentinel.resume(replica);
      expect((await both.blacklist.report(input('both'), new Date())).merged).toBe(true);
    } finally {
      sentinel.resume(replica);
      await both.close();
    }
  });

  it('the master killed: the store follows the promoted replica and keeps every acknowledged report and change', async () => {
    const [a, b] = await Promise.all([open('x:'), open('x:')]);
    try {
      const { account, key } = await a.accounts.createAccount({ plan: 'free' });
      const master = await sentinel.master();
      const reports = reportUntilStopped(a, account.id, '203.0.113');
      const { acknowledged, refused } = reports;
      await until('a few reports', () => acknowledged.length > 20, 10_000);
      const killedAt = performance.now();
      await sentinel.crash(master);
      await until('the sentinels to promote a replica', async () => (await sentinel.master()) !== master, 30_000, 50);
      const promotedAt = performance.now();
      // reports are acknowledged again: the store's connections went to the new master
      const count = acknowledged.length;
      await until('reports on the new master', () => acknowledged.length > count + 5, 30_000);
      const backAt = performance.now();
      await reports.stop();
      console.log(
        `sentinel failover: ${Math.round(promotedAt - killedAt)} ms from kill -9 to the promotion, ${Math.round(backAt - killedAt)} ms to reports acknowledged again; ` +
          `${refused.length} reports refused (unavailable)`,
      );
      for (const ip of new Set(acknowledged))
        expect(await b.blacklist.listing(parseBlacklistAddress(ip)!, new Date(), 1), ip).not.toBeNull();
      // a change after the failover reaches the other instance at once (its change feed followed the master too)
      await until('b to read the key', async () => (await b.accounts.authenticate(key.secret).catch(() => null)) !== null, 10_000);
      const rolled = await a.accounts.rollKey(key.id);
      expect(await b.accounts.authenticate(key.secret)).toBeNull();
      expect(await b.accounts.authenticate(rolled!.secret)).not.toBeNull();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
