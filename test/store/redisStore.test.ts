import { Redis } from 'ioredis';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { DAY_MS } from '../../src/blacklist/scoring.js';
import { newId } from '../../src/store/apiKeySecret.js';
import { dayKey, nextDayReset, nextMonthReset } from '../../src/store/quotaPeriod.js';
import { DAY_COUNTER_GRACE_MS } from '../../src/store/redis/redisMeter.js';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { StoreUnavailableError, USAGE_HISTORY_DAYS } from '../../src/store/store.js';
import { perPart, storeConformance } from './storeConformance.js';
import { PrivateRedis, redisTestPrefix, REDIS_TEST_URL, removeKeys } from './redisTestServer.js';
import { admitRequest } from './storeTraffic.js';
import { elapse } from '../until.js';
import { startMonitor } from './redisMonitor.js';

const conformancePrefixes = perPart(redisTestPrefix);
storeConformance(
  'redis',
  (part) =>
    RedisStore.open(REDIS_TEST_URL, { prefix: conformancePrefixes[part], ...(part === 'sessions' ? {} : { rateClock: 'request' }) }),
  (part) => removeKeys(conformancePrefixes[part]),
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

  it('two instances together admit exactly the quota', async () => {
    const { account } = await a.accounts.createAccount({ plan: 'free' });
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).meter.admit(admitRequest(account.id))));
    const outcomes = decisions.map((d) => d.outcome);
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(100);
    expect(outcomes.filter((o) => o === 'quota_exceeded')).toHaveLength(200);
    expect((await b.meter.usage(account.id, new Date())).today).toEqual({ ip: 100, blacklist: 0, mac: 0, rejected: 200 });
  });

  it('two instances together never pass more than the rate limit in a second, on the server clock', async () => {
    const { account } = await a.accounts.createAccount({ plan: 'free' });
    // A skewed request clock on one instance changes nothing: the window runs on Redis TIME.
    const skewed = () => new Date(Date.now() - 5000);
    const started = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 2
          ? a.meter.admit(admitRequest(account.id, { rate_limit_per_second: 5 }))
          : b.meter.admit(admitRequest(account.id, { rate_limit_per_second: 5, now: skewed() })),
      ),
    );
    const elapsed = Date.now() - started;
    const admitted = decisions.filter((d) => d.outcome === 'admitted').length;
    expect(elapsed).toBeLessThan(1000);
    expect(admitted).toBe(5);
  });

  it("one account's admissions in one turn go to Redis in batches, decided one by one in order", async () => {
    const { account } = await a.accounts.createAccount({ plan: 'free' });
    const other = (await a.accounts.createAccount({ plan: 'free' })).account;
    // What Redis runs, as MONITOR shows it: the admit script's runs on these accounts' keys (the
    // first on a connection by EVAL, the next by EVALSHA).
    const runs: number[] = [];
    const monitor = await startMonitor(REDIS_TEST_URL, ({ args }) => {
      if (/^eval(sha)?$/i.test(args[0]) && (args[3].includes(account.id) || args[3].includes(other.id))) runs.push((args.length - 17) / 3);
    });
    try {
      const rule = { rate_limit_per_second: 6, quota: { period: 'day' as const, limit: 3, pooled: false } };
      const mine = Array.from({ length: 10 }, (_, i) =>
        a.meter.admit(admitRequest(account.id, { ...rule, consume: i !== 1, api: i === 4 ? 'mac' : 'ip' })),
      );
      const theirs = a.meter.admit(admitRequest(other.id, rule));
      const outcomes = (await Promise.all(mine)).map((d) => `${d.outcome} ${d.quota.used}`);
      // rate: 6 take a place in the window (the refused one too); quota: 3 ip, and mac counts apart
      expect(outcomes).toEqual([
        'admitted 1',
        'refused 1',
        'admitted 2',
        'admitted 3',
        'admitted 1',
        'quota_exceeded 3',
        'rate_limited 3',
        'rate_limited 3',
        'rate_limited 3',
        'rate_limited 3',
      ]);
      expect((await theirs).outcome).toBe('admitted');
      expect((await b.meter.usage(account.id, new Date())).today).toEqual({ ip: 3, blacklist: 0, mac: 1, rejected: 6 });
      // MONITOR's stream may trail the replies
      // the first 8 go as soon as they wait (ADMISSION_CHUNK), the other 2 and the other account's at the end of the turn
      await vi.waitFor(() => expect(runs.sort((x, y) => x - y)).toEqual([1, 2, 8]));
    } finally {
      monitor.stop();
    }
  });

  it('the batches of one turn leave in one write to the connection, in their order', async () => {
    const accounts = await Promise.all([0, 1, 2].map(() => a.accounts.createAccount({ plan: 'free' })));
    // The socket's internal writers: a corked turn leaves through _writev, a single chunk through _write.
    const connection = (a.redis as Redis).stream as unknown as {
      _writev: (chunks: { chunk: unknown }[], callback: () => void) => void;
      _write: (chunk: unknown, encoding: string, callback: () => void) => void;
    };
    const writev = vi.spyOn(connection, '_writev');
    const write = vi.spyOn(connection, '_write');
    try {
      const decisions = await Promise.all(accounts.map(({ account }) => a.meter.admit(admitRequest(account.id))));
      expect(decisions.map((d) => d.outcome)).toEqual(['admitted', 'admitted', 'admitted']);
      expect(write.mock.calls.length + writev.mock.calls.length).toBe(1);
      const written =
        write.mock.calls.length === 1 ? String(write.mock.calls[0][0]) : writev.mock.calls[0][0].map(({ chunk }) => String(chunk)).join('');
      const places = accounts.map(({ account }) => written.indexOf(`{acct:${account.id}}`));
      expect(places.every((place) => place >= 0)).toBe(true);
      expect([...places].sort((x, y) => x - y)).toEqual(places);
    } finally {
      writev.mockRestore();
      write.mockRestore();
    }
  });

  it('a key rolled, changed or deleted through one instance is seen by the other at once', async () => {
    const { key } = await a.accounts.createAccount({ plan: 'free' });
    expect((await b.accounts.authenticate(key.secret))?.key.id).toBe(key.id);
    const rolled = await a.accounts.rollKey(key.id);
    expect(await b.accounts.authenticate(key.secret)).toBeNull();
    expect((await b.accounts.authenticate(rolled!.secret))?.key.id).toBe(key.id);
    // b caches what it authenticated; a change through a reaches b's cache before a answers
    expect((await b.accounts.authenticate(rolled!.secret))?.account.suspended).toBe(false);
    await a.accounts.updateAccount(key.account_id, { suspended: true });
    expect((await b.accounts.authenticate(rolled!.secret))?.account.suspended).toBe(true);
    await a.accounts.updateKey(key.id, { websites: ['example.com'] });
    expect((await b.accounts.authenticate(rolled!.secret))?.key.websites).toEqual(['example.com']);
    await a.accounts.deleteKey(key.id);
    expect(await b.accounts.authenticate(rolled!.secret)).toBeNull();
  });

  it('a cached authentication is answered at once, and forgotten everywhere when its key or account changes', async () => {
    const { key } = await a.accounts.createAccount({ plan: 'free' });
    expect(b.accounts.cachedAuthentication(key.secret)).toBeUndefined();
    const found = await b.accounts.authenticate(key.secret);
    expect(b.accounts.cachedAuthentication(key.secret)).toEqual(found);
    const flipped = key.secret.slice(0, -1) + (key.secret.endsWith('0') ? '1' : '0');
    expect(b.accounts.cachedAuthentication(flipped)).toBeUndefined();
    await a.accounts.updateAccount(key.account_id, { suspended: true });
    expect(b.accounts.cachedAuthentication(key.secret)).toBeUndefined();
    expect((await b.accounts.authenticate(key.secret))?.account.suspended).toBe(true);
    expect(b.accounts.cachedAuthentication(key.secret)?.account.suspended).toBe(true);
    await a.accounts.rollKey(key.id);
    expect(b.accounts.cachedAuthentication(key.secret)).toBeUndefined();
    expect(await b.accounts.authenticate(key.secret)).toBeNull();
  });

  it('without the cache, authentication reads Redis every time and agrees', async () => {
    const uncached = await RedisStore.open(REDIS_TEST_URL, { prefix, localCopies: false });
    try {
      const { key } = await a.accounts.createAccount({ plan: 'free' });
      expect((await uncached.accounts.authenticate(key.secret))?.key.id).toBe(key.id);
      const rolled = await a.accounts.rollKey(key.id);
      expect(await uncached.accounts.authenticate(key.secret)).toBeNull();
      expect((await uncached.accounts.authenticate(rolled!.secret))?.key.id).toBe(key.id);
    } finally {
      await uncached.close();
    }
  });

  it('day and month counters carry TTLs past their period; nothing is kept without one', async () => {
    const { account } = await a.accounts.createAccount({ plan: 'free' });
    const now = new Date();
    await a.meter.admit(admitRequest(account.id, { now }));
    await a.meter.countRejected(account.id, now);
    const counters = await a.redis.keys(`${prefix}{acct:${account.id}}:*`);
    const ttls = new Map<string, number>();
    for (const key of counters) ttls.set(key.slice(key.indexOf('}:') + 2).replace(/:.*/, ''), await a.redis.pttl(key));
    const dayLeft = nextDayReset(now).getTime() - now.getTime();
    expect(ttls.get('day')).toBeGreaterThan(dayLeft + DAY_COUNTER_GRACE_MS - 60_000);
    expect(ttls.get('day')).toBeLessThanOrEqual(dayLeft + DAY_COUNTER_GRACE_MS);
    // a day stays in the usage history of the USAGE_HISTORY_DAYS - 1 days after it, with a day to spare
    expect(ttls.get('day')).toBeGreaterThan(dayLeft + USAGE_HISTORY_DAYS * DAY_MS - 60_000);
    const monthLeft = nextMonthReset(now).getTime() - now.getTime();
    expect(ttls.get('month')).toBeGreaterThan(monthLeft);
    expect(ttls.get('month')).toBeLessThanOrEqual(monthLeft + 7 * DAY_MS);
    expect(ttls.get('rate')).toBeGreaterThan(0);
    expect(ttls.get('rate')).toBeLessThanOrEqual(11_000);
    // accounts and keys live until deleted
    expect(ttls.get('account')).toBe(-1);
  });
});

describe('redis meter: usage history', () => {
  const prefix = redisTestPrefix('history');
  let store: RedisStore;
  beforeAll(async () => {
    store = await RedisStore.open(REDIS_TEST_URL, { prefix, rateClock: 'request' });
  });
  afterAll(async () => {
    await store?.close();
    await removeKeys(prefix);
  });

  it(`a day counted ${USAGE_HISTORY_DAYS - 1} days ago still has a day and more to live`, async () => {
    const account = { id: newId('acc') };
    const now = new Date();
    const old = new Date(now.getTime() - (USAGE_HISTORY_DAYS - 1) * DAY_MS);
    await store.meter.admit(admitRequest(account.id, { now: old, cost: 2 }));
    await store.meter.countRejected(account.id, old);
    // The TTL follows the request's clock: counted at `old`, the key lives to its day's end + 90 days.
    const ttl = await store.redis.pttl(`${prefix}{acct:${account.id}}:day:${dayKey(old)}`);
    expect(ttl).toBeGreaterThan(USAGE_HISTORY_DAYS * DAY_MS - 60_000);
    expect((await store.meter.usageHistory(account.id, USAGE_HISTORY_DAYS, now))[0]).toEqual({
      date: dayKey(old),
      ip: 2,
      blacklist: 0,
      mac: 0,
      rejected: 1,
    });
  });

  it("counts made while Redis was away are in the history before they are written back, today's as in usage()", async () => {
    const account = { id: newId('acc') };
    const now = new Date('2031-05-20T10:00:00.000Z');
    const yesterday = new Date(now.getTime() - DAY_MS);
    await store.meter.admit(admitRequest(account.id, { now: yesterday, api: 'mac' }));
    await store.meter.admit(admitRequest(account.id, { now, cost: 2 }));
    // The counts of the outage stay owed until the test lets them be written back.
    const writeBack = vi.spyOn(store.meter, 'writeBack').mockResolvedValue();
    try {
      // The connection drops and comes back by itself (ioredis reconnects 50 ms later): meanwhile
      // commands are refused before they are sent, and the fallback counts.
      store.redis.disconnect(true);
      await new Promise((resolve) => store.redis.once('reconnecting', resolve));
      await Promise.all([
        store.meter.admit(admitRequest(account.id, { now: yesterday, api: 'mac', cost: 3 })),
        store.meter.admit(admitRequest(account.id, { now, api: 'blacklist' })),
        store.meter.countRejected(account.id, now),
      ]);
      expect(store.meter.owesCounts).toBe(true);
      await vi.waitFor(() => expect(store.redis.status).toBe('ready'));
      const expected = [
        { date: '2031-05-19', ip: 0, blacklist: 0, mac: 4, rejected: 0 },
        { date: '2031-05-20', ip: 2, blacklist: 1, mac: 0, rejected: 1 },
      ];
      const history = await store.meter.usageHistory(account.id, 2, now);
      expect(history).toEqual(expected);
      const { date: _date, ...today } = history[1];
      expect((await store.meter.usage(account.id, now)).today).toEqual(today);
      writeBack.mockRestore();
      await store.meter.writeBack();
      expect(store.meter.owesCounts).toBe(false);
      expect(await store.meter.usageHistory(account.id, 2, now)).toEqual(expected);
    } finally {
      writeBack.mockRestore();
    }
  });
});

describe('redis blacklist: exports in chunks', () => {
  const prefix = redisTestPrefix('export');
  let store: RedisStore;
  beforeAll(async () => {
    store = await RedisStore.open(REDIS_TEST_URL, { prefix });
  });
  afterAll(async () => {
    await store?.close();
    await removeKeys(prefix);
  });

  it('streams more than one chunk in address order, IPv4 before IPv6, each address once', async () => {
    const now = new Date();
    const v4 = Array.from({ length: 2600 }, (_, i) => `45.${(i >> 8) & 255}.${i & 255}.${7 + (i % 3)}`);
    const v6 = Array.from({ length: 30 }, (_, i) => `2a01:4f8::${(i + 1).toString(16)}:1`);
    const inputs = [...v6, ...v4].map((ip) => ({
      ip,
      reporter: 'acc_x',
      threat_type: 'scanner' as const,
      message: null,
      source: 'import',
      at: now,
      country_code: null,
      isp: null,
    }));
    await store.blacklist.reportMany(inputs, now);
    const chunks: number[] = [];
    const rows: string[] = [];
    for await (const chunk of store.blacklist.exportRows({ min_confidence: 0, version: null, max_age_ms: null }, now)) {
      chunks.push(chunk.length);
      rows.push(...chunk.map((r) => r.ip));
    }
    expect(chunks.length).toBeGreaterThan(2);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(1024);
    const key = (ip: string) => parseBlacklistAddress(ip)!;
    const expected = [...new Set(v4)].sort((a, b) => key(a).v4 - key(b).v4).concat(v6);
    expect(rows).toEqual(expected);
    const only6: string[] = [];
    for await (const chunk of store.blacklist.exportRows({ min_confidence: 0, version: 6, max_age_ms: null }, now))
      only6.push(...chunk.map((r) => r.ip));
    expect(only6).toEqual(v6);
  });
});

describe('redis blacklist: the listed-address set', () => {
  const prefix = redisTestPrefix('listed');
  let a: RedisStore;
  let b: RedisStore;
  const now = new Date();
  const report = (ip: string) => ({
    ip,
    reporter: 'acc_x',
    threat_type: 'scanner' as const,
    message: null,
    source: 'api',
    at: now,
    country_code: null,
    isp: null,
  });
  const address = (ip: string) => parseBlacklistAddress(ip)!;
  /** b answers from its set (synchronously) once it has loaded it */
  const answersFromSet = async (store: RedisStore) =>
    vi.waitFor(() => expect(store.blacklist.threatFacts(address('192.0.2.200'), now)).not.toBeInstanceOf(Promise));

  beforeAll(async () => {
    a = await RedisStore.open(REDIS_TEST_URL, { prefix });
    await a.blacklist.report(report('198.51.100.7'), now);
    b = await RedisStore.open(REDIS_TEST_URL, { prefix });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await removeKeys(prefix);
  });

  it('is loaded from the index when first asked: addresses reported before are listed, others answered without Redis', async () => {
    await answersFromSet(b);
    expect(b.blacklist.listed!.size).toBe(1);
    expect(await b.blacklist.threatFacts(address('198.51.100.7'), now)).toMatchObject({ is_threat: true, threat_reports: 1 });
    expect(b.blacklist.threatFacts(address('2001:db8::1'), now)).toMatchObject({ is_threat: false });
  });

  it("a report through one instance is in the other's set before it answers, IPv4 and IPv6, one by one and imported", async () => {
    await answersFromSet(b);
    await a.blacklist.report(report('203.0.113.9'), now);
    expect(await b.blacklist.threatFacts(address('203.0.113.9'), now)).toMatchObject({ is_threat: true });
    await a.blacklist.reportMany([report('2001:db8::abcd'), report('203.0.113.10'), report('203.0.113.10')], now);
    expect(await b.blacklist.threatFacts(address('2001:db8::abcd'), now)).toMatchObject({ is_threat: true });
    expect(await b.blacklist.threatFacts(address('203.0.113.10'), now)).toMatchObject({ is_threat: true });
    // a writer without a set of its own (as the admin commands run) announces all the same
    const writer = await RedisStore.open(REDIS_TEST_URL, { prefix, localCopies: false });
    try {
      await writer.blacklist.report(report('203.0.113.11'), now);
    } finally {
      await writer.close();
    }
    expect(await b.blacklist.threatFacts(address('203.0.113.11'), now)).toMatchObject({ is_threat: true });
  });

  it('a deleted address stays a member (a Redis read) and reads not listed', async () => {
    await a.blacklist.report(report('203.0.113.12'), now);
    await answersFromSet(b);
    expect(await a.blacklist.deleteAddress(address('203.0.113.12'), now)).toBe(1);
    const facts = b.blacklist.threatFacts(address('203.0.113.12'), now);
    expect(facts).toBeInstanceOf(Promise);
    expect(await facts).toMatchObject({ is_threat: false });
  });

  it('reports missed while its subscription was down are found by the reload that follows', async () => {
    await answersFromSet(b);
    const admin = new Redis(REDIS_TEST_URL);
    try {
      // Every subscriber connection is cut: b's feed is down until ioredis reconnects it.
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      await a.blacklist.report(report('203.0.113.13'), now);
      expect(await b.blacklist.threatFacts(address('203.0.113.13'), now)).toMatchObject({ is_threat: true });
      await answersFromSet(b);
      expect(b.blacklist.threatFacts(address('203.0.113.13'), now)).toBeInstanceOf(Promise);
      expect(await b.blacklist.threatFacts(address('203.0.113.13'), now)).toMatchObject({ is_threat: true });
      expect(b.blacklist.threatFacts(address('203.0.113.14'), now)).toMatchObject({ is_threat: false });
    } finally {
      admin.disconnect();
    }
  });
});

describe("redis store: keys' last use and dashboard sessions", () => {
  const prefix = redisTestPrefix('lastuse');
  let a: RedisStore;
  let b: RedisStore;

  beforeAll(async () => {
    a = await RedisStore.open(REDIS_TEST_URL, { prefix, keyUseIntervalMs: 40 });
    b = await RedisStore.open(REDIS_TEST_URL, { prefix, keyUseIntervalMs: 40 });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await removeKeys(prefix);
  });

  it('each instance writes the uses it noted every interval; the latest minute wins whichever writes last', async () => {
    const { key } = await a.accounts.createAccount({ plan: 'free' });
    a.accounts.noteKeyUse(key.id, new Date('2031-08-08T10:07:30.000Z'));
    await vi.waitFor(async () => expect((await b.accounts.getKey(key.id))?.last_used_at).toBe('2031-08-08T10:07:00.000Z'));
    b.accounts.noteKeyUse(key.id, new Date('2031-08-08T10:05:00.000Z'));
    // the older use must NOT replace the later one: nothing to wait for, so five intervals pass
    await elapse(200);
    expect(await a.redis.hget(`${prefix}key-last-used`, key.id)).toBe('2031-08-08T10:07:00.000Z');
    b.accounts.noteKeyUse(key.id, new Date('2031-08-08T10:08:00.000Z'));
    await vi.waitFor(async () => expect((await a.accounts.getKey(key.id))?.last_used_at).toBe('2031-08-08T10:08:00.000Z'));
    // a deleted key takes its last use with it
    await a.accounts.deleteKey(key.id);
    expect(await a.redis.hexists(`${prefix}key-last-used`, key.id)).toBe(0);
  });

  it('a session is one key for all instances, expiring with the session', async () => {
    const hash = crypto.createHash('sha256').update(crypto.randomBytes(32)).digest('hex');
    const createdAt = new Date();
    const session = {
      kind: 'operator' as const,
      account_id: null,
      key_id: null,
      credential_stamp: null,
      created_at: createdAt.toISOString(),
      expires_at: new Date(createdAt.getTime() + 8 * 3_600_000).toISOString(),
    };
    await a.sessions.create(hash, session, 20);
    expect(await b.sessions.get(hash, new Date())).toEqual(session);
    const ttl = await a.redis.pttl(`${prefix}session:${hash}`);
    expect(ttl).toBeGreaterThan(8 * 3_600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(8 * 3_600_000);
    await b.sessions.delete(hash);
    expect(await a.sessions.get(hash, new Date())).toBeNull();
  });
});

describe('redis store: sessions and last use while Redis is away', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-redis-away-'));
  let redis: PrivateRedis;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await PrivateRedis.start({ aofDir: dir });
    store = await RedisStore.open(redis.url, { keyUseIntervalMs: 50 });
  });

  afterAll(async () => {
    await store?.close();
    await redis?.stop('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses sessions and the account list with StoreUnavailableError, and writes the uses noted meanwhile once back', async () => {
    const { key } = await store.accounts.createAccount({ plan: 'free' });
    const hash = crypto.createHash('sha256').update('away').digest('hex');
    const createdAt = new Date();
    const session = {
      kind: 'account' as const,
      account_id: key.account_id,
      key_id: key.id,
      credential_stamp: null,
      created_at: createdAt.toISOString(),
      expires_at: new Date(createdAt.getTime() + 3_600_000).toISOString(),
    };
    await store.sessions.create(hash, session, 20);

    await redis.stop('SIGKILL');
    await vi.waitFor(() => expect(store.redis.status).not.toBe('ready'));
    await expect(store.sessions.create(crypto.createHash('sha256').update('new').digest('hex'), session, 20)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await expect(store.sessions.get(hash, new Date())).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.sessions.delete(hash)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.accounts.listAccounts({ offset: 0, limit: 10 })).rejects.toBeInstanceOf(StoreUnavailableError);
    store.accounts.noteKeyUse(key.id, new Date('2031-09-09T09:09:09.000Z'));
    // time to pass: a few intervals while Redis is away, and the use stays noted
    await elapse(200);

    await redis.start();
    await vi.waitFor(async () => expect((await store.accounts.getKey(key.id))?.last_used_at).toBe('2031-09-09T09:09:00.000Z'), {
      timeout: 5000,
      interval: 100,
    });
    expect(await store.sessions.get(hash, new Date())).toEqual(session);
  });
});
