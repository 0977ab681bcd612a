/**
 * The keyless legacy endpoints across UTC midnight through a real server, on the embedded store
 * and on Redis: thousands of clients (each its own forwarded address behind a trusted proxy) ask
 * before midnight and come back after it. Every request is answered, each returning client starts
 * the new day with a fresh allowance, `/health` keeps answering, and the first request of the day
 * costs what any other does: the waves after midnight run at a rate comparable to the wave before
 * (the ratio is measured inside one run, with a wide margin; the old cost was O(clients) per
 * request and fell to a twenty-fifth).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import type { Store } from '../../src/store/store.js';
import { REDIS_TEST_URL, redisTestPrefix, removeKeys } from '../store/redisTestServer.js';
import { Harness, request } from './harness.js';

const CLIENTS = 6_000;
const IN_FLIGHT = 32;
const LIMIT = 3;

interface Wave {
  statuses: Map<number, number>;
  remaining: Map<string, number>;
  perSecond: number;
  healthMs: number[];
}

/** One more of `key` in the tally. */
function tally<K>(counts: Map<K, number>, key: K): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const clientOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** Every client once, IN_FLIGHT at a time, with /health asked every 500 requests. */
async function wave(h: Harness): Promise<Wave> {
  const statuses = new Map<number, number>();
  const remaining = new Map<string, number>();
  const healthMs: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < CLIENTS) {
      const i = next++;
      if (i % 500 === 0) {
        const at = performance.now();
        const health = await request(h.url, '/health');
        healthMs.push(performance.now() - at);
        // /health statuses are tallied negated, apart from the checks'.
        tally(statuses, -health.status);
      }
      const reply = await request(h.url, '/api/check?ip=8.8.8.8', { headers: { 'x-forwarded-for': clientOf(i) } });
      tally(statuses, reply.status);
      tally(remaining, reply.headers.get('x-quota-remaining') ?? 'none');
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { statuses, remaining, perSecond: CLIENTS / ((performance.now() - started) / 1000), healthMs };
}

async function crossMidnight(store?: Store): Promise<{ before: Wave; after: Wave; later: Wave }> {
  const h = await Harness.start({
    trustProxy: '127.0.0.1',
    clockStart: '2026-12-31T23:50:00.000Z',
    tickMs: 0,
    blacklist: { legacyCheckDaily: LIMIT },
    ...(store ? { store } : {}),
  });
  try {
    const before = await wave(h);
    h.clock.set('2027-01-01T00:00:05.000Z');
    const after = await wave(h);
    const later = await wave(h);
    return { before, after, later };
  } finally {
    await h.stop();
  }
}

const figures: string[] = [];
afterAll(() => {
  // The figures a reader of the run wants beside the verdict (`npx vitest run test/http/midnight.test.ts`).
  for (const line of figures) console.log(line);
});

function expectCleanCrossing(store: string, { before, after, later }: { before: Wave; after: Wave; later: Wave }): void {
  figures.push(
    `${store}: ${CLIENTS} clients; before midnight ${before.perSecond.toFixed(0)} req/s, first after ${after.perSecond.toFixed(0)} req/s, ` +
      `second after ${later.perSecond.toFixed(0)} req/s; /health max ${Math.max(...after.healthMs).toFixed(1)} ms after midnight`,
  );
  for (const w of [before, after, later]) {
    expect(w.statuses.get(200)).toBe(CLIENTS);
    expect(w.statuses.get(-200)).toBe(CLIENTS / 500);
    expect([...w.statuses.keys()].sort()).toEqual([-200, 200]);
  }
  // Each returning client's first request of the new day is its first of that day.
  expect(Object.fromEntries(before.remaining)).toEqual({ [String(LIMIT - 1)]: CLIENTS });
  expect(Object.fromEntries(after.remaining)).toEqual({ [String(LIMIT - 1)]: CLIENTS });
  expect(Object.fromEntries(later.remaining)).toEqual({ [String(LIMIT - 2)]: CLIENTS });
  expect(after.perSecond).toBeGreaterThan(before.perSecond / 4);
}

describe('keyless legacy checks across UTC midnight', () => {
  it('embedded store: every client served on both days, a fresh allowance after midnight, no slowdown', async () => {
    expectCleanCrossing('SQLite', await crossMidnight());
  }, 120_000);

  it('Redis: the same', async () => {
    const prefix = redisTestPrefix('midnight');
    try {
      expectCleanCrossing('Redis', await crossMidnight(await RedisStore.open(REDIS_TEST_URL, { prefix })));
    } finally {
      await removeKeys(prefix);
    }
  }, 120_000);
});
