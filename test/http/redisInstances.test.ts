/**
 * Shared deployments (docs/shared-deployments.md): two `netlookup serve` processes on one Redis (a key prefix of its
 * own on the shared server). Concurrent requests through both never pass more than the quota or the
 * per-second limit together, a key rolled through one is refused by the other on the next request,
 * and an address reported through one is listed by the other on the next request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { redisTestPrefix, REDIS_TEST_URL, removeKeys } from '../store/redisTestServer.js';
import { ADMIN_TOKEN, expectError, request, TEST_PLANS, tempDir } from './harness.js';
import { expectPerSecondLimitHeld } from './perSecondLimit.js';
import { killChildren, serve, type Child } from './serveProcess.js';

const PLANS = {
  ...TEST_PLANS,
  free: { ...TEST_PLANS.free, quota: { period: 'day', per_api: { ip: 100, blacklist: 100, mac: 100 } }, rate_limit_per_second: 1000 },
  starter: { ...TEST_PLANS.starter, quota: { period: 'month', pooled: 1_000_000 }, rate_limit_per_second: 5 },
};

const prefix = redisTestPrefix('instances');
const dir = tempDir('netlookup-instances-');
let a: Child;
let b: Child;

const admin = (url: string, method: string, p: string, json?: unknown) =>
  request(url, p, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json === undefined ? {} : { json }) });

async function newAccount(plan: 'free' | 'starter' | 'pro'): Promise<{ account: { id: string }; key: { id: string; secret: string } }> {
  const reply = await admin(a.url, 'POST', '/admin/accounts', { plan });
  expect(reply.status).toBe(201);
  return reply.body;
}

beforeAll(async () => {
  const plansFile = path.join(dir, 'plans.json');
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  // An account exists before the instances start: neither creates a first-start account.
  const store = await RedisStore.open(REDIS_TEST_URL, { prefix });
  await store.accounts.createAccount({ plan: 'free' });
  await store.close();
  const env = { REDIS_URL: REDIS_TEST_URL, NETLOOKUP_REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' };
  [a, b] = await Promise.all([serve(path.join(dir, 'a'), plansFile, env), serve(path.join(dir, 'b'), plansFile, env)]);
});

afterAll(async () => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
  await removeKeys(prefix);
});

describe('two instances on one Redis', () => {
  it('serve from the Redis store and share one account table', async () => {
    const health = await request(b.url, '/health');
    expect(health.body.store).toEqual({ kind: 'redis', healthy: true });
    const { key } = await newAccount('free');
    expect((await request(b.url, '/v1/ip/8.8.8.8', { key: key.secret })).status).toBe(200);
    // neither instance wrote an embedded store
    expect(fs.existsSync(path.join(dir, 'a'))).toBe(false);
  });

  it('hundreds of concurrent requests against a quota of 100: exactly 100 succeed, the rest quota_exceeded', async () => {
    const { key } = await newAccount('free');
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, i) => request(i % 2 ? a.url : b.url, '/v1/ip/8.8.8.8', { key: key.secret })),
    );
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).toHaveLength(100);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 'quota_exceeded');
    const usage = await request(a.url, '/v1/usage', { key: key.secret });
    expect(usage.body.today).toMatchObject({ ip: 100, rejected: 200 });
  });

  it('a limit of 5/s: never more than 5 admitted in any one-second window across both', async () => {
    const { key } = await newAccount('starter');
    // four clients, two per instance
    await expectPerSecondLimitHeld((client) => request(client % 2 ? a.url : b.url, '/v1/ip/8.8.8.8', { key: key.secret }), 4, 5);
  });

  it('a key rolled through one instance is refused by the other on the next request', async () => {
    const { key } = await newAccount('free');
    expect((await request(b.url, '/v1/ip/8.8.8.8', { key: key.secret })).status).toBe(200);
    const rolled = await admin(a.url, 'POST', `/admin/keys/${key.id}/roll`);
    expect(rolled.status).toBe(200);
    expectError(await request(b.url, '/v1/ip/8.8.8.8', { key: key.secret }), 'invalid_key');
    expect((await request(b.url, '/v1/ip/8.8.8.8', { key: rolled.body.key.secret })).status).toBe(200);
    const suspended = await admin(b.url, 'PATCH', `/admin/accounts/${rolled.body.key.account_id}`, { suspended: true });
    expect(suspended.status).toBe(200);
    expectError(await request(a.url, '/v1/ip/8.8.8.8', { key: rolled.body.key.secret }), 'account_suspended');
  });
});

describe('a report through one instance', () => {
  it("lists the address in the other's paid lookups and blacklist checks on the next request", async () => {
    const { key } = await newAccount('pro');
    const ip = '45.33.32.157';
    // b's first paid lookups load its listed-address set; the address is not in it
    expect((await request(b.url, '/v1/ip/45.33.32.158', { key: key.secret })).body.security).toMatchObject({ is_threat: false });
    expect((await request(b.url, `/v1/ip/${ip}`, { key: key.secret })).body.security).toMatchObject({ is_threat: false });
    const reported = await request(a.url, '/v1/blacklist/report', {
      method: 'POST',
      key: key.secret,
      json: { ip, threat_type: 'scanner' },
    });
    expect(reported.status).toBe(201);
    expect((await request(b.url, `/v1/ip/${ip}`, { key: key.secret })).body.security).toMatchObject({
      is_threat: true,
      threat_type: 'scanner',
      threat_reports: 1,
    });
    expect((await request(b.url, `/v1/blacklist/${ip}`, { key: key.secret })).body).toMatchObject({ listed: true, threat_type: 'scanner' });
  });
});

describe('serve --workers', () => {
  it('two cluster workers on Redis share the port and hold the quota together', async () => {
    const plansFile = path.join(dir, 'plans.json');
    const workers = await serve(
      path.join(dir, 'w'),
      plansFile,
      { REDIS_URL: REDIS_TEST_URL, NETLOOKUP_REDIS_PREFIX: prefix, LOG_LEVEL: 'debug' },
      ['--workers', '2'],
    );
    expect(workers.output()).toContain('2 workers on the shared store (redis)');
    const { key } = await newAccount('free');
    const replies = await Promise.all(Array.from({ length: 250 }, () => request(workers.url, '/v1/ip/8.8.8.8', { key: key.secret })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(100);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 'quota_exceeded');
    // both workers answered: the request log lines name two workers
    const answeredBy = new Set([...workers.output().matchAll(/"worker":(\d+)[^\n]*"url":"\/v1\/ip\/8\.8\.8\.8"/g)].map((m) => m[1]));
    expect(answeredBy).toEqual(new Set(['1', '2']));
    workers.process.kill('SIGTERM');
    expect(await workers.exited).toEqual({ code: 0, signal: null });
  });
});

describe('first start on an empty Redis', () => {
  it('instances starting together create one first account, not one each', async () => {
    const empty = redisTestPrefix('first');
    const plansFile = path.join(dir, 'plans.json');
    const env = { REDIS_URL: REDIS_TEST_URL, NETLOOKUP_REDIS_PREFIX: empty, LOG_LEVEL: 'warn' };
    try {
      const started = await Promise.all([serve(path.join(dir, 'f1'), plansFile, env), serve(path.join(dir, 'f2'), plansFile, env)]);
      const banners = started.filter((c) => /key\s+nlk_[0-9a-f]{40}/.test(c.output()));
      expect(banners).toHaveLength(1);
      const store = await RedisStore.open(REDIS_TEST_URL, { prefix: empty });
      expect(await store.accounts.countAccounts()).toBe(1);
      await store.close();
    } finally {
      await removeKeys(empty);
    }
  });
});
