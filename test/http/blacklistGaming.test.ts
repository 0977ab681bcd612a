/**
 * One account trying to make an address look dangerous, through a running server on each store:
 * claimed timestamps spaced out of the merge window, JSON and form bodies, the IPv4-mapped forms
 * of one address, every key of the account, repeats spread over hours of arrival time. None of it
 * lifts the confidence above SINGLE_REPORTER_CEILING or into the default export; independent
 * accounts do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXPORT_MIN_CONFIDENCE, SINGLE_REPORTER_CEILING } from '../../src/blacklist/scoring.js';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import type { Store } from '../../src/store/store.js';
import { redisTestPrefix, REDIS_TEST_URL, removeKeys } from '../store/redisTestServer.js';
import { Harness, type Reply } from './harness.js';

const MIN = 60_000;
const QUARTER_HOUR = 15 * MIN;

const stores: [string, () => Promise<Store | undefined>, () => Promise<void>][] = [
  ['sqlite', async () => undefined, async () => undefined],
  ['redis', async () => RedisStore.open(REDIS_TEST_URL, { prefix: gamingPrefix, rateClock: 'request' }), () => removeKeys(gamingPrefix)],
];
const gamingPrefix = redisTestPrefix('gaming');

describe.each(stores)('one account cannot list an address alone (%s store)', (_, openStore, cleanup) => {
  let h: Harness;
  let base = 0;
  /** A fresh public address per test. */
  const fresh = () => `45.93.${base}.${++base}`;

  beforeAll(async () => {
    await cleanup();
    const store = await openStore();
    h = await Harness.start({
      clockStart: '2026-07-01T08:00:00.000Z',
      blacklist: { reportsPerMinute: 100_000 },
      ...(store ? { store } : {}),
    });
  });

  afterAll(async () => {
    await h?.stop();
    await cleanup();
  });

  const json = (key: string, body: Record<string, unknown>, tick = 10) => h.call('/v1/blacklist/report', { key, json: body, tick });
  const form = (key: string, body: Record<string, string>, tick = 10) =>
    h.call('/v1/blacklist/report', {
      key,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
      tick,
    });
  /** The addresses of an export evaluated after the current quarter hour (exports use its start). */
  async function exported(key: string, query: string): Promise<string[]> {
    h.clock.set(new Date(Math.ceil((h.clock.ms + 1) / QUARTER_HOUR) * QUARTER_HOUR + 1000).toISOString());
    const r = await h.call(`/v1/blacklist/export?format=json${query}`, { key, tick: 0 });
    expect(r.status).toBe(200);
    return r.body.addresses.map((a: { ip: string }) => a.ip);
  }
  const confidenceOf = async (key: string, ip: string) => (await h.call(`/v1/blacklist/${ip}`, { key, tick: 0 })).body.confidence as number;
  /** Every gaming reply: accepted, and never above the ceiling. */
  function expectCapped(replies: Reply[]): number {
    for (const r of replies) expect([200, 201], r.text).toContain(r.status);
    const highest = Math.max(...replies.map((r) => r.body.confidence as number));
    expect(highest).toBeLessThanOrEqual(SINGLE_REPORTER_CEILING);
    return highest;
  }

  it('claimed timestamps 16 minutes apart, in JSON and form bodies: one report, dated on arrival', async () => {
    const free = await h.newKey('free');
    const ip = fresh();
    const replies: Reply[] = [];
    for (let i = 0; i < 24; i++) {
      const claimed = new Date(h.clock.ms - i * 16 * MIN);
      const fields = {
        ip,
        threat_type: 'brute-force',
        timestamp: i % 2 === 0 ? claimed.toISOString() : String(Math.floor(claimed.getTime() / 1000)),
      };
      replies.push(i % 3 === 0 ? await form(free, fields) : await json(free, fields));
    }
    expect(expectCapped(replies)).toBe(39);
    expect(replies.slice(1).every((r) => r.body.merged === true && r.body.total_reports === 1)).toBe(true);
    expect(await exported(free, '&min_confidence=75')).not.toContain(ip);
    expect(await exported(free, '')).not.toContain(ip);
    expect(await exported(free, '&min_confidence=0')).toContain(ip);
  });

  it('the IPv4-mapped forms of an address are the address itself', async () => {
    const free = await h.newKey('free');
    const ip = fresh();
    const [a, b, c, d] = ip.split('.').map(Number);
    const hex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    const forms = [ip, `::ffff:${ip}`, `::FFFF:${ip}`, hex, ` ${ip} `, `0:0:0:0:0:ffff:${ip}`];
    const replies: Reply[] = [];
    for (const [i, text] of forms.entries()) {
      h.clock.advance(16 * MIN);
      replies.push(i % 2 === 0 ? await json(free, { ip: text, threat_type: 'scanner' }) : await form(free, { ip: text, categories: '14' }));
    }
    expect(replies.map((r) => r.body.ip)).toEqual(forms.map(() => ip));
    expectCapped(replies);
    // The full record (a paid plan) shows the counts.
    const listing = (await h.call(`/v1/blacklist/::ffff:${ip}`, { key: await h.newKey('pro'), tick: 0 })).body;
    expect(listing).toMatchObject({ ip, total_reports: forms.length, distinct_reporters: 1 });
    expect(await exported(free, '')).not.toContain(ip);
  });

  it('every key of one account, repeats spread over 16 hours of arrival time', async () => {
    const { account, key } = await h.createAccount('business');
    const keys = [key.secret];
    for (let i = 1; i < 10; i++) keys.push((await h.createKey(account.id, `k${i}`)).secret);
    const ip = fresh();
    const replies: Reply[] = [];
    for (let round = 0; round < 60; round++) {
      h.clock.advance(16 * MIN);
      for (const [i, secret] of keys.entries()) {
        const fields = {
          ip: i % 2 === 0 ? ip : `::ffff:${ip}`,
          threat_type: 'brute-force',
          timestamp: new Date(h.clock.ms - i * 16 * MIN).toISOString(),
        };
        replies.push(i % 3 === 0 ? await form(secret, fields) : await json(secret, fields));
      }
    }
    expect(expectCapped(replies)).toBe(SINGLE_REPORTER_CEILING);
    expect(await confidenceOf(keys[0], ip)).toBe(SINGLE_REPORTER_CEILING);
    expect((await h.call(`/v1/blacklist/${ip}`, { key: keys[0], tick: 0 })).body).toMatchObject({
      total_reports: 60,
      distinct_reporters: 1,
    });
    expect(await exported(keys[0], '')).not.toContain(ip);
    expect(await exported(keys[0], `&min_confidence=${SINGLE_REPORTER_CEILING + 1}`)).not.toContain(ip);
    expect(await exported(keys[0], '&min_confidence=0')).toContain(ip);
  });

  it('independent accounts raise it: a second account passes the default export threshold, five more', async () => {
    const ip = fresh();
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) seen.push((await json(await h.newKey('free'), { ip, threat_type: 'spam' })).body.confidence);
    expect(seen).toEqual([39, 63, 78, 86, 92]);
    expect(seen[1]).toBeGreaterThanOrEqual(DEFAULT_EXPORT_MIN_CONFIDENCE);
    expect(await exported(await h.newKey('free'), '')).toContain(ip);
  });
});
