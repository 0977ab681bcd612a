/**
 * A Redis that hangs (a private redis-server stopped with SIGSTOP: its connections stay open, the
 * kernel still accepts new ones, nothing is answered) is an outage within the store's deadline: no
 * call waits on Redis longer, the change feed is taken for lost (no in-process copy is used), and
 * once the server runs again (SIGCONT) the store is healthy and what it counted meanwhile is in
 * Redis.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { StoreUnavailableError, type AdmitRequest } from '../../src/store/store.js';
import { PrivateRedis } from './redisTestServer.js';
import { elapse } from '../until.js';

const TIMEOUT_MS = 300;
/** what a call may take beyond the deadline: timers, the event loop, a shared machine */
const MARGIN_MS = 200;

const request = (accountId: string): AdmitRequest => ({
  account_id: accountId,
  api: 'ip',
  cost: 1,
  rate_limit_per_second: 1000,
  quota: { period: 'day', limit: 100_000, pooled: false },
  consume: true,
  now: new Date(),
});

/** `work`'s answer, or its failure, with how long it took. */
async function timed<T>(work: () => T | Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await work();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe('redis store: Redis hangs (SIGSTOP)', () => {
  let redis: PrivateRedis;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    store = await RedisStore.open(redis.url, { timeoutMs: TIMEOUT_MS });
  });

  afterAll(async () => {
    // stop() resumes a paused server first, whatever the test left it in
    await redis?.stop('SIGKILL');
    await store?.close();
  });

  it('answers within the deadline, drops its copies, refuses reports at once, and writes back once Redis runs again', async () => {
    const { account, key } = await store.accounts.createAccount({ plan: 'free' });
    expect(await store.accounts.authenticate(key.secret)).not.toBeNull();
    expect(store.accounts.cachedAuthentication(key.secret)).toBeDefined();
    expect((await store.meter.admit(request(account.id))).outcome).toBe('admitted');
    const unlisted = parseBlacklistAddress('192.0.2.1')!;
    // the listed-address set is loaded: an unlisted address is answered without Redis
    await vi.waitFor(() => expect(store.blacklist.threatFacts(unlisted, new Date())).not.toBeInstanceOf(Promise));

    redis.pause();
    const pausedAt = performance.now();
    // Admissions one after another while the hang is found: each waits at most the deadline.
    let admitted = 1;
    let longest = 0;
    while (performance.now() - pausedAt < 3 * TIMEOUT_MS) {
      const admission = await timed(() => store.meter.admit(request(account.id)));
      longest = Math.max(longest, admission.ms);
      expect(admission.value?.outcome).toBe('admitted');
      admitted++;
      // a pace: admissions one after another through the hang, not a wait for an event
      await elapse(5);
    }
    expect(longest).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    // found within 1.25 deadlines (the watchdog's PING every quarter of it), the feed too
    await vi.waitFor(
      () => {
        expect(store.degraded()).toBe(true);
        expect(store.accounts.cachedAuthentication(key.secret)).toBeUndefined();
      },
      { timeout: 2 * TIMEOUT_MS, interval: 10 },
    );
    expect(await store.healthy()).toBe(false);

    // Once found, nothing waits: the fallback answers, reads and writes of Redis fail at once.
    const calls = await Promise.all([
      timed(() => store.meter.admit(request(account.id))),
      timed(() => store.accounts.authenticate(key.secret)),
      timed(() => store.blacklist.threatFacts(unlisted, new Date())),
      timed(() =>
        store.blacklist.report(
          {
            ip: '198.51.100.1',
            reporter: account.id,
            threat_type: 'scanner',
            message: null,
            source: 'api',
            at: new Date(),
            country_code: null,
            isp: null,
          },
          new Date(),
        ),
      ),
      timed(() => store.healthy()),
    ]);
    const [admission, authentication, facts, report, health] = calls;
    expect(admission.value?.outcome).toBe('admitted');
    admitted++;
    // the last answer Redis gave for the key
    expect(authentication.value).toMatchObject({ key: { id: key.id } });
    // the listed-address set is not trusted while the feed is lost: the address is read from Redis, which fails
    expect(facts.error).toBeInstanceOf(StoreUnavailableError);
    expect(report.error).toBeInstanceOf(StoreUnavailableError);
    expect(health.value).toBe(false);
    for (const call of calls) expect(call.ms).toBeLessThan(100);

    redis.resume();
    await vi.waitFor(async () => expect(await store.healthy()).toBe(true), { timeout: 5000, interval: 20 });
    expect((await store.meter.usage(account.id, new Date())).today.ip).toBe(admitted);
    // the feed is subscribed again: authentications are cached again
    await vi.waitFor(async () => {
      await store.accounts.authenticate(key.secret);
      expect(store.accounts.cachedAuthentication(key.secret)).toBeDefined();
    });
  });
});
