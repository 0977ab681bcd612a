/**
 * Only served answers are charged: with a private Redis stopped, blacklist checks, batches and
 * exports that cannot be answered (400 unavailable) and reports that cannot be saved use no quota
 * and show in today.rejected, once Redis is back and the counts of the outage are written; keyless
 * legacy checks that cannot be answered use none of the client's daily allowance.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilValue } from '../until.js';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { PrivateRedis } from '../store/redisTestServer.js';
import { expectError, Harness, tempDir } from './harness.js';

const dir = tempDir('netlookup-metering-fault-');
let redis: PrivateRedis;
let h: Harness;

beforeAll(async () => {
  fs.mkdirSync(path.join(dir, 'redis'));
  redis = await PrivateRedis.start({ aofDir: path.join(dir, 'redis') });
  h = await Harness.start({
    store: await RedisStore.open(redis.url, { rateClock: 'request' }),
    blacklist: { reportsPerMinute: 1000, legacyCheckDaily: 3 },
  });
});

afterAll(async () => {
  await h?.stop();
  await redis?.stop('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a shared store that cannot answer', () => {
  it('charges nothing for checks, batches and exports it could not answer, and counts them and refused reports as rejected', async () => {
    const key = await h.newKey('business');
    const listed = '45.96.0.1';
    expect((await h.call('/v1/blacklist/report', { key, json: { ip: listed, threat_type: 'scanner' } })).status).toBe(201);
    const served = await h.call(`/v1/blacklist/${listed}`, { key });
    expect(served.status).toBe(200);
    const before = await h.usage(key);
    expect(before.today).toMatchObject({ blacklist: 1, rejected: 0 });

    await redis.stop('SIGKILL');
    const failed: number[] = [];
    for (let i = 0; i < 20; i++) {
      const reply = await h.call(`/v1/blacklist/${listed}`, { key });
      expectError(reply, 'unavailable');
      failed.push(reply.status);
    }
    for (let i = 0; i < 3; i++)
      expectError(await h.call('/v1/blacklist/batch', { key, json: { ips: [listed, '45.96.0.2'] } }), 'unavailable');
    for (let i = 0; i < 2; i++) expectError(await h.call('/v1/blacklist/export?format=plain', { key }), 'unavailable');
    for (let i = 0; i < 5; i++)
      expect(
        (await h.call('/v1/blacklist/report', { key, json: { ip: `45.96.1.${i}`, threat_type: 'spam' } })).status,
      ).toBeGreaterThanOrEqual(400);
    expect(failed).toHaveLength(20);

    await redis.start();
    const after = await untilValue(
      'the counts written back',
      () => h.usage(key).catch(() => null),
      (usage) => usage !== null && usage.today.rejected >= 30,
      10_000,
      100,
    );
    // Quota unchanged: the one served check before the outage; every failure is rejected.
    expect(after.today).toMatchObject({ blacklist: before.today.blacklist, rejected: 20 + 3 + 2 + 5 });
    expect(after.monthly_quota.used).toBe(before.monthly_quota.used);
  });

  it('gives back the keyless daily allowance of legacy checks it could not answer', async () => {
    const listed = '45.96.0.9';
    expect((await h.call(`/api/check?ip=${listed}`, { tick: 0 })).status).toBe(200);
    await redis.stop('SIGKILL');
    // While Redis is away the allowance is counted in this process: without the give-back, the
    // fourth failed check would already be refused as over the daily limit of 3.
    for (let i = 0; i < 10; i++) expectError(await h.call(`/api/check?ip=${listed}`, { tick: 0 }), 'unavailable');
    await redis.start();
    const reply = await untilValue(
      'a check answered once Redis is back',
      () => h.call(`/api/check?ip=${listed}`, { tick: 0 }),
      (answer) => answer.body?.error?.code !== 'unavailable',
      10_000,
      100,
    );
    expect(reply.status).toBe(200);
  });
});
