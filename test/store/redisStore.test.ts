import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextDayReset } from '../../src/store/quotaPeriod.js';
import { DAY_COUNTER_GRACE_MS, RedisStore } from '../../src/store/redisStore.js';
import type { AdmitRequest } from '../../src/store/store.js';
import { storeConformance } from './conformance.js';
import { blacklistConformance } from './blacklistConformance.js';
import { redisTestPrefix, REDIS_TEST_URL, removeKeys } from './redisTestServer.js';

const conformancePrefix = redisTestPrefix('conformance');
storeConformance(
  'redis',
  async () => RedisStore.open(REDIS_TEST_URL, { prefix: conformancePrefix, rateClock: 'request' }),
  () => removeKeys(conformancePrefix),
);

const blacklistPrefix = redisTestPrefix('blacklist');
blacklistConformance(
  'redis',
  async () => RedisStore.open(REDIS_TEST_URL, { prefix: blacklistPrefix, rateClock: 'request' }),
  () => removeKeys(blacklistPrefix),
);


describe('redis store: shared between instances', () => {
  const prefix = redisTestPrefix('shared');
  let a: RedisStore;
  let b: RedisStore;

  beforeAll(async () => {
    // Two stores on two connections, on the Redis server's clock: two instances of the service.
    a = await RedisStore.open(REDIS_TEST_URL, { prefix });
    b = await RedisStore.open(REDIS_TEST_URL, { prefix });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await removeKeys(prefix);
  });

  const request = (accountId: string, over: Partial<AdmitRequest> = {}): AdmitRequest => ({
    account_id: accountId,
    api: 'ip',
    cost: 1,
    rate_limit_per_second: 1000,
    quota: { period: 'day', limit: 100, pooled: false },
    consume: true,
    now: new Date(),
    ...over,
  });

  it('two instances together admit exactly the quota', async () => {
    const { account } = await a.createAccount({ plan: 'free' });
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).admit(request(account.id))));
    const outcomes = decisions.map((d) => d.outcome);
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(100);
    expect(outcomes.filter((o) => o === 'quota_exceeded')).toHaveLength(200);
    expect((await b.usage(account.id, new Date())).today).toEqual({ ip: 100, blacklist: 0, mac: 0, rejected: 200 });
  });

  it('two instances together never pass more than the rate limit in a second, on the server clock', async () => {
    const { account } = await a.createAccount({ plan: 'free' });
    // A skewed request clock on one instance changes nothing: the window runs on Redis TIME.
    const skewed = () => new Date(Date.now() - 5000);
    const started = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? a.admit(request(account.id, { rate_limit_per_second: 5 })) : b.admit(request(account.id, { rate_limit_per_second: 5, now: skewed() })))),
    );
    const elapsed = Date.now() - started;
    const admitted = decisions.filter((d) => d.outcome === 'admitted').length;
    expect(elapsed).toBeLessThan(1000);
    expect(admitted).toBe(5);
  });

  it('a key rolled through one instance is refused by the other at once', async () => {
    const { key } = await a.createAccount({ plan: 'free' });
    expect((await b.authenticate(key.secret))?.key.id).toBe(key.id);
    const rolled = await a.rollKey(key.id);
    expect(await b.authenticate(key.secret)).toBeNull();
    expect((await b.authenticate(rolled!.secret))?.key.id).toBe(key.id);
    await a.deleteKey(key.id);
    expect(await b.authenticate(rolled!.secret)).toBeNull();
  });

  it('day and month counters carry TTLs past their period; nothing is kept without one', async () => {
    const { account } = await a.createAccount({ plan: 'free' });
    const now = new Date();
    await a.admit(request(account.id, { now }));
    await a.countRejected(account.id, now);
    const counters = await a.redis.keys(`${prefix}{acct:${account.id}}:*`);
    const ttls = new Map<string, number>();
    for (const key of counters) ttls.set(key.slice(key.indexOf('}:') + 2).replace(/:.*/, ''), await a.redis.pttl(key));
    const dayLeft = nextDayReset(now).getTime() - now.getTime();
    expect(ttls.get('day')).toBeGreaterThan(dayLeft + DAY_COUNTER_GRACE_MS - 60_000);
    expect(ttls.get('day')).toBeLessThanOrEqual(dayLeft + DAY_COUNTER_GRACE_MS);
    expect(ttls.get('month')).toBeGreaterThan(ttls.get('day')! - 1);
    expect(ttls.get('rate')).toBeGreaterThan(0);
    expect(ttls.get('rate')).toBeLessThanOrEqual(11_000);
    // accounts and keys live until deleted
    expect(ttls.get('account')).toBe(-1);
  });
});
