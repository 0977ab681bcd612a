/**
 * The single lookups answer the same whether the store answers at once (the embedded store's
 * `immediate`) or later (a store without it, awaited, as a shared store over the network is): two
 * services on one clock, one of each, get the same requests in the same order and must give the
 * same statuses, quota headers and bodies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { awaitedStore } from './awaitedStoreProxy.js';
import { Harness, tempDir, type CallOptions, type Reply } from './harness.js';

let now: Harness;
let later: Harness;
let dir: string;

beforeAll(async () => {
  dir = tempDir('netlookup-awaited-');
  now = await Harness.start();
  later = await Harness.start({ store: awaitedStore(SqliteStore.open(path.join(dir, 'data'))) });
});

afterAll(async () => {
  await now?.stop();
  await later?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const comparable = (reply: Reply) => ({
  status: reply.status,
  body: reply.body,
  headers: Object.fromEntries(
    ['x-plan', 'x-ratelimit-limit', 'x-quota-limit', 'x-quota-remaining', 'x-quota-reset', 'retry-after', 'content-type'].map((h) => [
      h,
      reply.headers.get(h),
    ]),
  ),
});

describe('single lookups on a store answered at once and on one awaited', () => {
  it('give the same answers and refusals, request by request', async () => {
    const keys = {
      now: { free: await now.newKey('free'), starter: await now.newKey('starter') },
      later: { free: await later.newKey('free'), starter: await later.newKey('starter') },
    };
    const requests: [string, 'free' | 'starter' | null, CallOptions][] = [
      ['/v1/ip/8.8.8.8', 'starter', {}],
      ['/v1/ip/2001:4860:4860::8888', 'starter', {}],
      ['/v1/ip/10.1.2.3', 'starter', {}],
      ['/v1/ip/not-an-ip', 'starter', {}],
      ['/v1/ip/8.8.8.8?fields=location.city', 'starter', {}],
      ['/v1/mac/00:50:56:12:34:56', 'starter', {}],
      ['/v1/mac/zz', 'starter', {}],
      ['/v1/blacklist/1.2.3.4', 'starter', {}],
      ['/v1/ip/8.8.8.8', 'free', {}],
      ['/v1/ip/8.8.8.8', null, {}],
      ['/v1/ip/8.8.8.8', null, { key: `nlk_${'0'.repeat(40)}` }],
      // the free plan's 2 per second: the third within the same instant is refused
      ['/v1/mac/00:50:56', 'free', {}],
      ['/v1/mac/00:50:56', 'free', { tick: 0 }],
      ['/v1/mac/00:50:56', 'free', { tick: 0 }],
      // and its quota of 3 MAC lookups a day: the fourth is refused
      ['/v1/mac/00:50:56', 'free', {}],
      ['/v1/mac/00:50:56', 'free', {}],
    ];
    const codes: string[] = [];
    for (const [p, plan, options] of requests) {
      const a = await now.call(p, { ...(plan ? { key: keys.now[plan] } : {}), ...options });
      const b = await later.call(p, { ...(plan ? { key: keys.later[plan] } : {}), ...options });
      const [ca, cb] = [comparable(a), comparable(b)];
      // Both services' clocks start together and move by the same ticks, so even current_time agrees.
      expect(cb, `${p} (${plan})`).toEqual(ca);
      codes.push(b.body?.error?.code ?? String(b.status));
    }
    expect(codes).toEqual([
      '200',
      '200',
      '200',
      'invalid_ip',
      '200',
      '200',
      'invalid_mac',
      '200',
      '200',
      'missing_key',
      'invalid_key',
      '200',
      '200',
      'rate_limited',
      '200',
      'quota_exceeded',
    ]);
  });
});
