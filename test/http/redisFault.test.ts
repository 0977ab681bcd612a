/**
 * Faults of the shared store: a private redis-server (AOF, fsync at every write, as
 * docs/shared-deployments.md advises) is stopped and started again during a bounded load on a `netlookup serve`
 * process. Lookups keep being answered (never a 500; paid IP records with the threat fields
 * unknown, null, while Redis is away), /health says degraded meanwhile, reports are
 * refused with a retryable error and none accepted is lost, and after recovery the usage in Redis
 * equals the lookups answered. Then it hangs (SIGSTOP: its connections stay open, the kernel still
 * accepts new ones, nothing is answered) and resumes (SIGCONT): no request waits on Redis past
 * NETLOOKUP_REDIS_TIMEOUT_MS, and the same holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/config/config.js';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { PrivateRedis } from '../store/redisTestServer.js';
import { elapse, until } from '../until.js';
import { ADMIN_TOKEN, request, TEST_PLANS, tempDir, type Reply } from './harness.js';
import { killChildren, serve, type Child } from './serveProcess.js';

const TIMEOUT_MS = 750;
/** what a request may take beyond the deadline: its own handling, timers, a shared machine */
const MARGIN_MS = 300;

const PLANS = {
  ...TEST_PLANS,
  free: {
    ...TEST_PLANS.free,
    quota: { period: 'day', per_api: { ip: 1_000_000, blacklist: 1000, mac: 1000 } },
    rate_limit_per_second: 100_000,
  },
  business: { ...TEST_PLANS.business, rate_limit_per_second: 100_000 },
};
const dir = tempDir('netlookup-fault-');
let redis: PrivateRedis;
let service: Child;

beforeAll(async () => {
  fs.mkdirSync(path.join(dir, 'redis'));
  redis = await PrivateRedis.start({ aofDir: path.join(dir, 'redis') });
  const plansFile = path.join(dir, 'plans.json');
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  service = await serve(path.join(dir, 'data'), plansFile, {
    REDIS_URL: redis.url,
    NETLOOKUP_REDIS_TIMEOUT_MS: String(TIMEOUT_MS),
    LOG_LEVEL: 'warn',
    NETLOOKUP_REPORTS_PER_MINUTE: '100000',
  });
});

afterAll(async () => {
  killChildren();
  // stop() resumes the server first when a test left it stopped
  await redis?.stop('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

async function newKey(plan: 'free' | 'business'): Promise<string> {
  const created = await request(service.url, '/admin/accounts', {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    json: { plan },
  });
  expect(created.status).toBe(201);
  return created.body.key.secret as string;
}

/** A free and a paid key known to the instance (their last answer stands in while Redis is away), and an address listed by a report. */
async function keysAndListed(octet: number): Promise<{ secret: string; paidSecret: string; listed: string }> {
  const secret = await newKey('free');
  expect((await request(service.url, '/v1/ip/8.8.8.8', { key: secret })).status).toBe(200);
  const paidSecret = await newKey('business');
  const listed = `45.${octet}.255.1`;
  const report = await request(service.url, '/v1/blacklist/report', {
    key: secret,
    json: { ip: listed, threat_type: 'scanner', source: 'fault-test' },
  });
  expect(report.status).toBe(201);
  expect((await request(service.url, `/v1/ip/${listed}`, { key: paidSecret })).body.security).toMatchObject({
    is_threat: true,
    threat_reports: 1,
  });
  return { secret, paidSecret, listed };
}

/**
 * Two loops of free lookups, one of paid lookups of the listed address (its threat fields true, or
 * unknown, null, while Redis is away: never false), one of reports of new addresses under
 * 45.<octet>.0.0/16 (a refused one sent again until accepted: the client's side of "retryable"; a
 * refusal whose report Redis had saved before the connection fell merges with its retry) and one
 * of /health, until `stop()`, which waits for the pending retries. Each kind's longest answer is kept.
 */
function startLoad({ secret, paidSecret, listed }: { secret: string; paidSecret: string; listed: string }, octet: number) {
  const unknownThreat = { is_threat: null, threat_type: null, threat_confidence: null, threat_reports: null, threat_last_seen: null };
  const load = {
    answered: 0,
    paidUnknown: 0,
    refusedReports: 0,
    accepted: [] as string[],
    statuses: new Map<number, number>(),
    healthSeen: new Set<string>(),
    longest: new Map<string, number>(),
  };
  let running = true;
  const timed = async (kind: string, send: () => Promise<Reply>): Promise<Reply> => {
    const started = performance.now();
    const reply = await send();
    load.longest.set(kind, Math.max(load.longest.get(kind) ?? 0, performance.now() - started));
    load.statuses.set(reply.status, (load.statuses.get(reply.status) ?? 0) + 1);
    return reply;
  };
  const lookups = async () => {
    while (running) {
      const reply = await timed('free lookup', () => request(service.url, '/v1/ip/1.1.1.1', { key: secret }));
      if (reply.status !== 200) throw new Error(`lookup answered ${reply.status}: ${reply.text}`);
      load.answered++;
    }
  };
  const paidLookups = async () => {
    while (running) {
      const reply = await timed('paid lookup', () => request(service.url, `/v1/ip/${listed}`, { key: paidSecret }));
      if (reply.status !== 200) throw new Error(`paid lookup answered ${reply.status}: ${reply.text}`);
      if (reply.body.security.is_threat === null) {
        expect(reply.body.security).toMatchObject(unknownThreat);
        load.paidUnknown++;
      } else {
        expect(reply.body.security).toMatchObject({ is_threat: true, threat_reports: 1 });
      }
    }
  };
  let next = 0;
  const reports = async () => {
    while (running) {
      const ip = `45.${octet}.${Math.floor(next / 250)}.${(next % 250) + 1}`;
      next++;
      for (let attempt = 0; ; attempt++) {
        const reply = await timed('report', () =>
          request(service.url, '/v1/blacklist/report', { key: secret, json: { ip, threat_type: 'scanner', source: 'fault-test' } }),
        );
        if (reply.status === 201 || (attempt > 0 && reply.status === 200 && reply.body.merged === true)) {
          load.accepted.push(ip);
          break;
        }
        expect(reply.body?.error?.code, `${reply.status} ${reply.text}`).toBe('unavailable');
        expect(reply.headers.get('retry-after')).toBe('1');
        load.refusedReports++;
        // a pace: the client retries after a moment, as Retry-After asks
        await elapse(50);
      }
    }
  };
  const health = async () => {
    while (running) {
      const reply = await timed('health', () => request(service.url, '/health'));
      load.healthSeen.add(`${reply.status} ${reply.body.status}`);
      // a pace: a monitor's polling
      await elapse(50);
    }
  };
  const loops = Promise.all([lookups(), lookups(), paidLookups(), reports(), health()]);
  return Object.assign(load, {
    stop: async () => {
      running = false;
      await loops;
    },
  });
}

/**
 * What an outage under `load` must have looked like, and left: no 500, /health degraded, reports
 * refused as retryable, paid records with the threat fields unknown; then recovery (/health ok
 * once the counts made meanwhile are written back), the usage in Redis equal to the lookups
 * answered (and the one before the load), every report accepted in Redis once.
 */
async function outageHandled(load: ReturnType<typeof startLoad>, secret: string): Promise<void> {
  expect(load.statuses.get(500)).toBeUndefined();
  expect(load.healthSeen).toContain('200 degraded');
  expect(load.refusedReports).toBeGreaterThan(0);
  expect(load.paidUnknown).toBeGreaterThan(0);
  await until('/health ok', async () => (await request(service.url, '/health')).body.status === 'ok', 5000, 50);
  expect((await request(service.url, '/health')).body).toMatchObject({ status: 'ok', store: { kind: 'redis', healthy: true } });
  const usage = await request(service.url, '/v1/usage', { key: secret });
  expect(usage.status).toBe(200);
  expect(usage.body.today.ip).toBe(load.answered + 1);
  const store = await RedisStore.open(redis.url);
  try {
    const now = new Date();
    for (const ip of load.accepted) expect((await store.blacklist.listing(parseBlacklistAddress(ip)!, now, 1))?.total_reports, ip).toBe(1);
  } finally {
    await store.close();
  }
}

describe('Redis stopped and restarted under load', () => {
  it.each([
    ['shut down (SIGTERM)', 'SIGTERM', 77],
    ['crashed (SIGKILL)', 'SIGKILL', 78],
  ] as const)('%s: answers every lookup, loses no report and no usage', async (_, signal, octet) => {
    const keys = await keysAndListed(octet);
    const load = startLoad(keys, octet);
    await until('the load served with Redis up', () => load.answered > 20 && load.accepted.length > 5, 10_000);
    await redis.stop(signal);
    await until('the outage seen', () => load.healthSeen.has('200 degraded') && load.refusedReports > 0 && load.paidUnknown > 0, 10_000);
    await redis.start();
    const acceptedDuring = load.accepted.length;
    await until('reports accepted again', () => load.accepted.length > acceptedDuring + 5, 10_000);
    await load.stop();

    await outageHandled(load, keys.secret);
    expect(load.accepted.length).toBeGreaterThan(10);
  });
});

describe('NETLOOKUP_REDIS_TIMEOUT_MS', () => {
  it('takes whole milliseconds from 50 to 60000; unset, the store uses its default', () => {
    expect(configFromEnv({ NETLOOKUP_REDIS_TIMEOUT_MS: '750' }).redisTimeoutMs).toBe(750);
    expect(configFromEnv({ NETLOOKUP_REDIS_TIMEOUT_MS: '60000' }).redisTimeoutMs).toBe(60_000);
    expect(configFromEnv({ NETLOOKUP_REDIS_TIMEOUT_MS: '' }).redisTimeoutMs).toBeUndefined();
    for (const refused of ['49', '60001', '0', '1.5', '1e3', ' 500', '0500', 'fast'])
      expect(() => configFromEnv({ NETLOOKUP_REDIS_TIMEOUT_MS: refused }), refused).toThrow(/NETLOOKUP_REDIS_TIMEOUT_MS/);
  });
});

describe('Redis hangs (SIGSTOP) under load', () => {
  it('answers every request within the deadline, refuses reports as retryable, and recovers with every count', async () => {
    const keys = await keysAndListed(79);
    redis.pause();
    const load = startLoad(keys, 79);
    // the hang is found within 1.25 deadlines, and many answers follow (not a few per deadline)
    await until(
      'the hang found and 100 answers',
      () => load.healthSeen.has('200 degraded') && load.refusedReports > 0 && load.answered > 100,
      4 * TIMEOUT_MS,
    );
    const answeredDuring = load.answered;
    redis.resume();
    // the reports refused meanwhile are accepted once Redis answers
    await load.stop();

    for (const kind of ['free lookup', 'paid lookup', 'report', 'health'])
      expect(load.longest.get(kind), kind).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    // many answers, not a few per deadline
    expect(answeredDuring).toBeGreaterThan(100);
    await outageHandled(load, keys.secret);
    expect((await request(service.url, `/v1/ip/${keys.listed}`, { key: keys.paidSecret })).body.security).toMatchObject({
      is_threat: true,
    });
  });
});
