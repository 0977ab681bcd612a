/**
 * Faults of the shared store: a private redis-server (AOF, fsync at every write, as
 * docs/shared-deployments.md advises) is stopped and started again during a bounded load on a `netlookup serve`
 * process. Lookups keep being answered (never a 500; paid IP records with the threat fields
 * unknown, null, while Redis is away), /health says degraded meanwhile, reports are
 * refused with a retryable error and none accepted is lost, and after recovery the usage in Redis
 * equals the lookups answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redisStore.js';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { PrivateRedis } from '../store/redisTestServer.js';
import { ADMIN_TOKEN, request, TEST_PLANS, tempDir, type Reply } from './harness.js';
import { killChildren, serve, type Child } from './serveProcess.js';

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
    LOG_LEVEL: 'warn',
    NETLOOKUP_REPORTS_PER_MINUTE: '100000',
  });
});

afterAll(async () => {
  killChildren();
  await redis?.stop('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis stopped and restarted under load', () => {
  it.each([
    ['shut down (SIGTERM)', 'SIGTERM', 77],
    ['crashed (SIGKILL)', 'SIGKILL', 78],
  ] as const)('%s: answers every lookup, loses no report and no usage', async (_, signal, octet) => {
    const created = await request(service.url, '/admin/accounts', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      json: { plan: 'free' },
    });
    expect(created.status).toBe(201);
    const secret: string = created.body.key.secret;
    // the key is known to the instance before the outage (its last answer stands in meanwhile)
    expect((await request(service.url, '/v1/ip/8.8.8.8', { key: secret })).status).toBe(200);
    // a paid key and a listed address: its threat fields are true, or unknown (null) while Redis is away, never false
    const business = await request(service.url, '/admin/accounts', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      json: { plan: 'business' },
    });
    const paidSecret: string = business.body.key.secret;
    const listed = `45.${octet}.255.1`;
    expect(
      (
        await request(service.url, '/v1/blacklist/report', {
          key: secret,
          json: { ip: listed, threat_type: 'scanner', source: 'fault-test' },
        })
      ).status,
    ).toBe(201);
    expect((await request(service.url, `/v1/ip/${listed}`, { key: paidSecret })).body.security).toMatchObject({
      is_threat: true,
      threat_reports: 1,
    });
    const unknownThreat = { is_threat: null, threat_type: null, threat_confidence: null, threat_reports: null, threat_last_seen: null };
    let paidUnknown = 0;
    let answered = 1;
    const statuses = new Map<number, number>();
    const seen = (reply: Reply) => statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    const healthSeen = new Set<string>();
    const accepted: string[] = [];
    let refusedReports = 0;
    let running = true;

    const lookups = async () => {
      while (running) {
        const reply = await request(service.url, '/v1/ip/1.1.1.1', { key: secret });
        seen(reply);
        if (reply.status === 200) answered++;
        else throw new Error(`lookup answered ${reply.status}: ${reply.text}`);
      }
    };
    const paidLookups = async () => {
      while (running) {
        const reply = await request(service.url, `/v1/ip/${listed}`, { key: paidSecret });
        seen(reply);
        if (reply.status !== 200) throw new Error(`paid lookup answered ${reply.status}: ${reply.text}`);
        if (reply.body.security.is_threat === null) {
          expect(reply.body.security).toMatchObject(unknownThreat);
          paidUnknown++;
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
        // A refused report is sent again until it is accepted: the client's side of "retryable". A
        // refusal whose report Redis had saved before the connection fell merges with its retry.
        for (let attempt = 0; ; attempt++) {
          const reply = await request(service.url, '/v1/blacklist/report', {
            key: secret,
            json: { ip, threat_type: 'scanner', source: 'fault-test' },
          });
          seen(reply);
          if (reply.status === 201 || (attempt > 0 && reply.status === 200 && reply.body.merged === true)) {
            accepted.push(ip);
            break;
          }
          expect(reply.body?.error?.code, `${reply.status} ${reply.text}`).toBe('unavailable');
          expect(reply.headers.get('retry-after')).toBe('1');
          refusedReports++;
          await sleep(50);
        }
      }
    };
    const health = async () => {
      while (running) {
        const reply = await request(service.url, '/health');
        seen(reply);
        healthSeen.add(`${reply.status} ${reply.body.status}`);
        await sleep(100);
      }
    };
    const load = Promise.all([lookups(), lookups(), paidLookups(), reports(), health()]);
    await sleep(800);
    await redis.stop(signal);
    await sleep(1500);
    await redis.start();
    await sleep(1500);
    running = false;
    await load;

    expect(statuses.get(500)).toBeUndefined();
    expect(healthSeen).toContain('200 degraded');
    expect(refusedReports).toBeGreaterThan(0);
    expect(paidUnknown).toBeGreaterThan(0);
    // recovery: the counts made meanwhile are written back within a second or two
    for (let i = 0; i < 50 && (await request(service.url, '/health')).body.status !== 'ok'; i++) await sleep(100);
    expect((await request(service.url, '/health')).body).toMatchObject({ status: 'ok', store: { kind: 'redis', healthy: true } });

    const usage = await request(service.url, '/v1/usage', { key: secret });
    expect(usage.status).toBe(200);
    expect(usage.body.today.ip).toBe(answered);

    const store = await RedisStore.open(redis.url);
    try {
      const now = new Date();
      for (const ip of accepted) expect((await store.blacklist.listing(parseBlacklistAddress(ip)!, now, 1))?.total_reports, ip).toBe(1);
    } finally {
      await store.close();
    }
    expect(accepted.length).toBeGreaterThan(10);
  });
});
