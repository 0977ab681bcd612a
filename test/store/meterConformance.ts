/**
 * The conformance suite of every Meter (src/store/store.ts): the per-second rate window, quotas
 * and usage counters, through the interface and injected `now` values only, nothing of one
 * implementation. The meter counts for any account id it is given; each test takes fresh ones, so
 * the tests share one opened store.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../src/plans/plans.js';
import { newId } from '../../src/store/apiKeySecret.js';
import {
  USAGE_HISTORY_DAYS,
  type AdmitDecision,
  type AdmitRequest,
  type Meter,
  type QuotaRule,
  type Store,
} from '../../src/store/store.js';

const dayQuota = (limit: number): QuotaRule => ({ period: 'day', limit, pooled: false });
const monthQuota = (limit: number): QuotaRule => ({ period: 'month', limit, pooled: true });
const at = (iso: string) => new Date(iso);
const plus = (date: Date, ms: number) => new Date(date.getTime() + ms);
const DAY_MS = 86_400_000;
const zeroDay = (date: string) => ({ date, ip: 0, blacklist: 0, mac: 0, rejected: 0 });

export function meterConformance(name: string, open: () => Promise<Store>, cleanup?: () => Promise<void>): void {
  describe(`Meter conformance: ${name}`, () => {
    let store: Store;
    let meter: Meter;

    beforeAll(async () => {
      store = await open();
      meter = store.meter;
    });

    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    /** A request with a high rate limit and quota unless the test says otherwise. */
    const admit = (accountId: string, now: Date, over: Partial<AdmitRequest> = {}): Promise<AdmitDecision> =>
      meter.admit({
        account_id: accountId,
        api: 'ip',
        cost: 1,
        rate_limit_per_second: 1000,
        quota: dayQuota(1_000_000),
        consume: true,
        now,
        ...over,
      });

    describe('quotas', () => {
      it('day quotas are per API: an exhausted ip quota leaves mac alone', async () => {
        const id = newId('acc');
        const now = at('2031-03-10T10:00:00.000Z');
        const quota = dayQuota(3);
        for (let i = 1; i <= 3; i++) {
          const d = await admit(id, plus(now, i * 10), { quota });
          expect(d).toEqual({
            outcome: 'admitted',
            quota: { limit: 3, used: i, remaining: 3 - i, period: 'day', resets_at: at('2031-03-11T00:00:00.000Z') },
            rate: expect.any(Object),
          });
        }
        const over = await admit(id, plus(now, 50), { quota });
        expect(over).toMatchObject({ outcome: 'quota_exceeded', quota: { limit: 3, used: 3, remaining: 0 } });
        const mac = await admit(id, plus(now, 60), { quota, api: 'mac' });
        expect(mac).toMatchObject({ outcome: 'admitted', quota: { limit: 3, used: 1, remaining: 2 } });
        expect(await admit(id, plus(now, 70), { quota, api: 'blacklist' })).toMatchObject({ outcome: 'admitted', quota: { used: 1 } });
        expect(await admit(id, plus(now, 80), { quota })).toMatchObject({ outcome: 'quota_exceeded' });
      });

      it('month quotas are pooled across the APIs', async () => {
        const id = newId('acc');
        const now = at('2031-04-15T08:00:00.000Z');
        const quota = monthQuota(5);
        const apisInOrder: Api[] = ['ip', 'ip', 'blacklist', 'blacklist', 'mac'];
        for (const [i, api] of apisInOrder.entries()) {
          expect(await admit(id, plus(now, i), { quota, api })).toEqual({
            outcome: 'admitted',
            quota: { limit: 5, used: i + 1, remaining: 4 - i, period: 'month', resets_at: at('2031-05-01T00:00:00.000Z') },
            rate: expect.any(Object),
          });
        }
        for (const api of ['ip', 'blacklist', 'mac'] as const) {
          expect(await admit(id, plus(now, 10), { quota, api })).toMatchObject({
            outcome: 'quota_exceeded',
            quota: { used: 5, remaining: 0 },
          });
        }
        expect((await meter.usage(id, now)).month_used).toBe(5);
      });

      it('a batch of N needs N remaining: refused whole when only N-1 are left', async () => {
        const id = newId('acc');
        const now = at('2031-04-20T08:00:00.000Z');
        const quota = monthQuota(10);
        expect(await admit(id, now, { quota, cost: 7 })).toMatchObject({ outcome: 'admitted', quota: { used: 7, remaining: 3 } });
        expect(await admit(id, plus(now, 1), { quota, cost: 4, api: 'blacklist' })).toMatchObject({
          outcome: 'quota_exceeded',
          quota: { used: 7, remaining: 3 },
        });
        expect(await meter.usage(id, now)).toEqual({ today: { ip: 7, blacklist: 0, mac: 0, rejected: 1 }, month_used: 7 });
        expect(await admit(id, plus(now, 2), { quota, cost: 3, api: 'blacklist' })).toMatchObject({
          outcome: 'admitted',
          quota: { used: 10, remaining: 0 },
        });
        expect(await admit(id, plus(now, 3), { quota, cost: 1 })).toMatchObject({ outcome: 'quota_exceeded' });
      });

      it('a day quota resets at 00:00 UTC', async () => {
        const id = newId('acc');
        const quota = dayQuota(2);
        const lastDay = at('2031-03-14T23:59:58.000Z');
        await admit(id, lastDay, { quota });
        await admit(id, plus(lastDay, 1000), { quota });
        const before = await admit(id, at('2031-03-14T23:59:59.999Z'), { quota });
        expect(before).toEqual({
          outcome: 'quota_exceeded',
          quota: { limit: 2, used: 2, remaining: 0, period: 'day', resets_at: at('2031-03-15T00:00:00.000Z') },
          rate: expect.any(Object),
        });
        const after = await admit(id, at('2031-03-15T00:00:00.000Z'), { quota });
        expect(after).toEqual({
          outcome: 'admitted',
          quota: { limit: 2, used: 1, remaining: 1, period: 'day', resets_at: at('2031-03-16T00:00:00.000Z') },
          rate: expect.any(Object),
        });
        expect((await meter.usage(id, at('2031-03-15T12:00:00.000Z'))).today).toEqual({ ip: 1, blacklist: 0, mac: 0, rejected: 0 });
        expect((await meter.usage(id, at('2031-03-14T12:00:00.000Z'))).today).toEqual({ ip: 2, blacklist: 0, mac: 0, rejected: 1 });
      });

      it('a month quota resets at 00:00 UTC on the 1st, not at a day boundary', async () => {
        const id = newId('acc');
        const quota = monthQuota(3);
        await admit(id, at('2031-01-30T10:00:00.000Z'), { quota, cost: 2 });
        expect(await admit(id, at('2031-01-31T10:00:00.000Z'), { quota, api: 'mac' })).toMatchObject({
          outcome: 'admitted',
          quota: { used: 3, remaining: 0 },
        });
        expect(await admit(id, at('2031-01-31T23:59:59.999Z'), { quota })).toEqual({
          outcome: 'quota_exceeded',
          quota: { limit: 3, used: 3, remaining: 0, period: 'month', resets_at: at('2031-02-01T00:00:00.000Z') },
          rate: expect.any(Object),
        });
        expect(await admit(id, at('2031-02-01T00:00:00.000Z'), { quota })).toEqual({
          outcome: 'admitted',
          quota: { limit: 3, used: 1, remaining: 2, period: 'month', resets_at: at('2031-03-01T00:00:00.000Z') },
          rate: expect.any(Object),
        });
        expect((await meter.usage(id, at('2031-01-31T12:00:00.000Z'))).month_used).toBe(3);
        expect((await meter.usage(id, at('2031-02-01T12:00:00.000Z'))).month_used).toBe(1);
      });

      it('resets_at: next midnight UTC, first of next month, across the year end', async () => {
        const id = newId('acc');
        const cases: [string, QuotaRule, string][] = [
          ['2031-12-31T23:59:59.999Z', dayQuota(100), '2032-01-01T00:00:00.000Z'],
          ['2031-12-31T23:59:59.999Z', monthQuota(100), '2032-01-01T00:00:00.000Z'],
          ['2032-01-01T00:00:00.000Z', dayQuota(100), '2032-01-02T00:00:00.000Z'],
          ['2032-01-01T00:00:00.000Z', monthQuota(100), '2032-02-01T00:00:00.000Z'],
          ['2032-02-28T13:00:00.000Z', dayQuota(100), '2032-02-29T00:00:00.000Z'],
          ['2032-02-29T13:00:00.000Z', monthQuota(100), '2032-03-01T00:00:00.000Z'],
        ];
        for (const [now, quota, reset] of cases) {
          expect((await admit(id, at(now), { quota })).quota.resets_at, `${now} ${quota.period}`).toEqual(at(reset));
        }
      });

      it('refused, rate-limited and quota-exceeded requests count as rejected, never against the quota', async () => {
        const id = newId('acc');
        const now = at('2031-05-05T05:05:05.000Z');
        const quota = dayQuota(2);
        expect(await admit(id, now, { quota, consume: false, cost: 1 })).toEqual({
          outcome: 'refused',
          quota: { limit: 2, used: 0, remaining: 2, period: 'day', resets_at: at('2031-05-06T00:00:00.000Z') },
          rate: expect.any(Object),
        });
        expect(await admit(id, plus(now, 1), { quota, rate_limit_per_second: 2 })).toMatchObject({
          outcome: 'admitted',
          quota: { used: 1 },
        });
        expect(await admit(id, plus(now, 2), { quota, rate_limit_per_second: 2 })).toMatchObject({
          outcome: 'rate_limited',
          quota: { used: 1, remaining: 1 },
        });
        expect(await admit(id, plus(now, 2000), { quota })).toMatchObject({ outcome: 'admitted', quota: { used: 2 } });
        expect(await admit(id, plus(now, 2001), { quota })).toMatchObject({ outcome: 'quota_exceeded', quota: { used: 2 } });
        expect(await admit(id, plus(now, 2002), { quota, consume: false })).toMatchObject({ outcome: 'refused', quota: { used: 2 } });
        expect(await meter.usage(id, now)).toEqual({ today: { ip: 2, blacklist: 0, mac: 0, rejected: 4 }, month_used: 2 });
      });
    });

    describe('rate window', () => {
      it('admits `limit` requests within one second, refuses the next, admits again 1 s after the oldest', async () => {
        const id = newId('acc');
        const t0 = at('2031-06-01T12:00:00.500Z');
        const r = (ms: number) => admit(id, plus(t0, ms), { rate_limit_per_second: 3 }).then((d) => d.outcome);
        expect(await r(0)).toBe('admitted');
        expect(await r(100)).toBe('admitted');
        expect(await r(200)).toBe('admitted');
        expect(await r(300)).toBe('rate_limited');
        expect(await r(999)).toBe('rate_limited');
        // the second boundary (t0 + 500 ms) does not reset anything
        expect(await r(1000)).toBe('admitted');
        expect(await r(1050)).toBe('rate_limited');
        expect(await r(1100)).toBe('admitted');
        expect(await r(1200)).toBe('admitted');
        expect(await r(1201)).toBe('rate_limited');
        expect((await meter.usage(id, t0)).today).toEqual({ ip: 6, blacklist: 0, mac: 0, rejected: 4 });
      });

      it('rate-limited requests take no place in the window; requests refused after the rate check do', async () => {
        const id = newId('acc');
        const t0 = at('2031-06-02T12:00:00.000Z');
        const r = (ms: number, consume = true) => admit(id, plus(t0, ms), { rate_limit_per_second: 2, consume }).then((d) => d.outcome);
        expect(await r(0)).toBe('admitted');
        expect(await r(10, false)).toBe('refused');
        for (let ms = 20; ms < 1000; ms += 50) expect(await r(ms)).toBe('rate_limited');
        expect(await r(1000)).toBe('admitted');
        expect(await r(1009)).toBe('rate_limited');
        expect(await r(1010)).toBe('admitted');
      });

      it('reports the places left after each request and when the window is empty again', async () => {
        const id = newId('acc');
        const t0 = at('2031-06-04T12:00:00.000Z');
        const r = (ms: number, consume = true) =>
          admit(id, plus(t0, ms), { rate_limit_per_second: 3, consume }).then((d) => ({ outcome: d.outcome, rate: d.rate }));
        const rate = (remaining: number, emptyAtMs: number) => ({ remaining, resets_at: plus(t0, emptyAtMs) });
        expect(await r(0)).toEqual({ outcome: 'admitted', rate: rate(2, 1000) });
        expect(await r(100, false)).toEqual({ outcome: 'refused', rate: rate(1, 1100) });
        expect(await r(200)).toEqual({ outcome: 'admitted', rate: rate(0, 1200) });
        expect(await r(300)).toEqual({ outcome: 'rate_limited', rate: rate(0, 1200) });
        // the first instant has left the window: one place
        expect(await r(1000)).toEqual({ outcome: 'admitted', rate: rate(0, 2000) });
        expect(await r(1150)).toEqual({ outcome: 'admitted', rate: rate(0, 2150) });
        expect((await admit(id, plus(t0, 5000), { rate_limit_per_second: 3 })).rate).toEqual(rate(2, 6000));
      });

      it('a probe is decided as the request would be and takes its place in the window, but counts nothing', async () => {
        const id = newId('acc');
        const now = at('2031-06-05T12:00:00.000Z');
        const quota = dayQuota(2);
        const probe = (ms: number, over: Partial<AdmitRequest> = {}) => admit(id, plus(now, ms), { quota, probe: true, ...over });
        expect(await probe(0)).toMatchObject({ outcome: 'admitted', quota: { used: 0, remaining: 2 }, rate: { remaining: 999 } });
        expect(await probe(1, { consume: false })).toMatchObject({ outcome: 'refused', quota: { used: 0 }, rate: { remaining: 998 } });
        expect(await probe(2, { cost: 3 })).toMatchObject({ outcome: 'quota_exceeded', quota: { used: 0, remaining: 2 } });
        expect(await admit(id, plus(now, 3), { quota, cost: 2 })).toMatchObject({ outcome: 'admitted', quota: { used: 2 } });
        expect(await probe(4)).toMatchObject({ outcome: 'quota_exceeded', quota: { used: 2, remaining: 0 } });
        expect(await probe(2000, { rate_limit_per_second: 1 })).toMatchObject({ outcome: 'quota_exceeded', rate: { remaining: 0 } });
        expect(await probe(2001, { rate_limit_per_second: 1 })).toMatchObject({ outcome: 'rate_limited' });
        expect(await meter.usage(id, now)).toEqual({ today: { ip: 2, blacklist: 0, mac: 0, rejected: 0 }, month_used: 2 });
      });

      it('is kept per account', async () => {
        const a = newId('acc');
        const b = newId('acc');
        const now = at('2031-06-03T12:00:00.000Z');
        expect((await admit(a, now, { rate_limit_per_second: 1 })).outcome).toBe('admitted');
        expect((await admit(a, plus(now, 1), { rate_limit_per_second: 1 })).outcome).toBe('rate_limited');
        expect((await admit(b, plus(now, 1), { rate_limit_per_second: 1 })).outcome).toBe('admitted');
      });

      it('never more than `limit` in any sliding second, and refuses only when `limit` are in it', async () => {
        const id = newId('acc');
        // Each run starts far after the previous one, so runs never share a window.
        let base = at('2031-07-01T00:00:00.000Z').getTime();
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 1, max: 6 }),
            fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), consume: fc.boolean() }), { minLength: 1, maxLength: 40 }),
            async (limit, arrivals) => {
              base += 1_000_000;
              let t = base;
              const placed: number[] = [];
              for (const { gap, consume } of arrivals) {
                t += gap;
                const { outcome } = await admit(id, new Date(t), { rate_limit_per_second: limit, consume });
                const inWindow = placed.filter((p) => p > t - 1000).length;
                if (outcome === 'rate_limited') {
                  expect(inWindow).toBe(limit);
                } else {
                  expect(inWindow).toBeLessThan(limit);
                  placed.push(t);
                }
              }
              for (const p of placed) expect(placed.filter((q) => q > p - 1000 && q <= p).length).toBeLessThanOrEqual(limit);
            },
          ),
          { numRuns: 150 },
        );
      });
    });

    describe('usage', () => {
      it('counts lookups by API and cost, rejected requests, and the pooled month', async () => {
        const id = newId('acc');
        const yesterday = at('2031-08-14T09:00:00.000Z');
        const today = at('2031-08-15T09:00:00.000Z');
        const quota = monthQuota(1000);
        await admit(id, yesterday, { quota, api: 'mac', cost: 4 });
        await admit(id, today, { quota, api: 'ip', cost: 5 });
        await admit(id, plus(today, 1), { quota, api: 'blacklist' });
        await admit(id, plus(today, 2), { quota, api: 'mac', cost: 2 });
        await admit(id, plus(today, 3), { quota, api: 'ip', consume: false });
        await meter.countRejected(id, plus(today, 4));
        expect(await meter.usage(id, plus(today, 5))).toEqual({ today: { ip: 5, blacklist: 1, mac: 2, rejected: 2 }, month_used: 12 });
        expect(await meter.usage(id, yesterday)).toEqual({ today: { ip: 0, blacklist: 0, mac: 4, rejected: 0 }, month_used: 12 });
        expect(await meter.usage(id, at('2031-09-01T00:00:00.000Z'))).toEqual({
          today: { ip: 0, blacklist: 0, mac: 0, rejected: 0 },
          month_used: 0,
        });
      });

      it('countRejected counts in today.rejected only, on the day of `now`', async () => {
        const id = newId('acc');
        const now = at('2031-09-09T23:59:59.999Z');
        await meter.countRejected(id, now);
        await meter.countRejected(id, now);
        await meter.countRejected(id, plus(now, 1));
        expect(await meter.usage(id, now)).toEqual({ today: { ip: 0, blacklist: 0, mac: 0, rejected: 2 }, month_used: 0 });
        expect(await meter.usage(id, plus(now, 1))).toEqual({ today: { ip: 0, blacklist: 0, mac: 0, rejected: 1 }, month_used: 0 });
        expect(await admit(id, now, { quota: dayQuota(1) })).toMatchObject({ outcome: 'admitted', quota: { used: 1, remaining: 0 } });
      });

      it('refund gives back what an admission used, day and month, and counts the request as rejected', async () => {
        const id = newId('acc');
        const now = at('2031-09-10T10:00:00.000Z');
        const request: AdmitRequest = {
          account_id: id,
          api: 'blacklist',
          cost: 3,
          rate_limit_per_second: 1000,
          quota: monthQuota(4),
          consume: true,
          now,
        };
        expect((await meter.admit(request)).outcome).toBe('admitted');
        await meter.refund(request);
        expect(await meter.usage(id, now)).toEqual({ today: { ip: 0, blacklist: 0, mac: 0, rejected: 1 }, month_used: 0 });
        // The quota given back is usable again.
        expect(await admit(id, plus(now, 1), { api: 'blacklist', cost: 4, quota: monthQuota(4) })).toMatchObject({
          outcome: 'admitted',
          quota: { used: 4, remaining: 0 },
        });
      });

      it('an account without traffic has zero usage', async () => {
        const id = newId('acc');
        expect(await meter.usage(id, at('2031-10-10T10:00:00.000Z'))).toEqual({
          today: { ip: 0, blacklist: 0, mac: 0, rejected: 0 },
          month_used: 0,
        });
      });
    });

    describe('usage history', () => {
      it('one entry per UTC day ending with today, oldest first, zeros without requests, across a year end', async () => {
        const id = newId('acc');
        expect(await meter.usageHistory(id, 4, at('2032-01-02T23:59:59.999Z'))).toEqual(
          ['2031-12-30', '2031-12-31', '2032-01-01', '2032-01-02'].map(zeroDay),
        );
        expect(await meter.usageHistory(id, 1, at('2032-03-01T00:00:00.000Z'))).toEqual([zeroDay('2032-03-01')]);
        const leap = await meter.usageHistory(id, 3, at('2032-03-01T12:00:00.000Z'));
        expect(leap.map((d) => d.date)).toEqual(['2032-02-28', '2032-02-29', '2032-03-01']);
      });

      it('counts each API and the rejected requests on the UTC day they were made', async () => {
        const id = newId('acc');
        const quota = monthQuota(1000);
        await admit(id, at('2031-11-08T23:59:59.999Z'), { quota, api: 'ip', cost: 3 });
        await admit(id, at('2031-11-09T00:00:00.000Z'), { quota, api: 'mac' });
        await admit(id, at('2031-11-09T12:00:00.000Z'), { quota, api: 'blacklist', cost: 2 });
        await admit(id, at('2031-11-09T12:00:01.000Z'), { quota, api: 'ip', consume: false });
        await meter.countRejected(id, at('2031-11-09T23:00:00.000Z'));
        await admit(id, at('2031-11-11T08:00:00.000Z'), { quota, api: 'ip', cost: 5 });
        await admit(id, at('2031-11-11T08:00:01.000Z'), { quota: monthQuota(5), api: 'mac' });
        const refunded: AdmitRequest = {
          account_id: id,
          api: 'mac',
          cost: 2,
          rate_limit_per_second: 1000,
          quota,
          consume: true,
          now: at('2031-11-11T09:00:00.000Z'),
        };
        await meter.admit(refunded);
        await meter.refund(refunded);
        expect(await meter.usageHistory(id, 5, at('2031-11-11T10:00:00.000Z'))).toEqual([
          zeroDay('2031-11-07'),
          { date: '2031-11-08', ip: 3, blacklist: 0, mac: 0, rejected: 0 },
          { date: '2031-11-09', ip: 0, blacklist: 2, mac: 1, rejected: 2 },
          zeroDay('2031-11-10'),
          { date: '2031-11-11', ip: 5, blacklist: 0, mac: 0, rejected: 2 },
        ]);
        // Asked on a day past, the history ends with that day.
        expect(await meter.usageHistory(id, 2, at('2031-11-09T01:00:00.000Z'))).toEqual([
          { date: '2031-11-08', ip: 3, blacklist: 0, mac: 0, rejected: 0 },
          { date: '2031-11-09', ip: 0, blacklist: 2, mac: 1, rejected: 2 },
        ]);
      });

      it("today's entry equals usage().today at the same moment, counts just made included", async () => {
        const id = newId('acc');
        const now = at('2031-12-05T15:00:00.000Z');
        await admit(id, plus(now, -DAY_MS), { api: 'mac', cost: 7 });
        const todayOf = async (t: Date) => {
          const days = await meter.usageHistory(id, 2, t);
          const { date, ...counts } = days[1];
          expect(date).toBe('2031-12-05');
          expect(counts).toEqual((await meter.usage(id, t)).today);
          return counts;
        };
        expect(await todayOf(now)).toEqual({ ip: 0, blacklist: 0, mac: 0, rejected: 0 });
        for (let i = 0; i < 5; i++) {
          await admit(id, plus(now, 10 * i), { api: i % 2 ? 'ip' : 'blacklist', cost: i + 1 });
          await meter.countRejected(id, plus(now, 10 * i + 1));
          await todayOf(plus(now, 10 * i + 2));
        }
        expect(await todayOf(plus(now, 100))).toEqual({ ip: 6, blacklist: 9, mac: 0, rejected: 5 });
        expect((await meter.usageHistory(id, 2, now))[0]).toEqual({ date: '2031-12-04', ip: 0, blacklist: 0, mac: 7, rejected: 0 });
      });

      it(`keeps ${USAGE_HISTORY_DAYS} days: the oldest day of the longest history still has its counts`, async () => {
        const id = newId('acc');
        const now = at('2032-06-30T23:00:00.000Z');
        const oldest = plus(now, -(USAGE_HISTORY_DAYS - 1) * DAY_MS);
        await admit(id, at('2032-04-01T23:59:59.999Z'), { api: 'ip', cost: 4 });
        await meter.countRejected(id, oldest);
        await admit(id, now, { api: 'blacklist' });
        const days = await meter.usageHistory(id, USAGE_HISTORY_DAYS, now);
        expect(days).toHaveLength(USAGE_HISTORY_DAYS);
        expect(days[0]).toEqual({ date: '2032-04-02', ip: 0, blacklist: 0, mac: 0, rejected: 1 });
        expect(days[USAGE_HISTORY_DAYS - 1]).toEqual({ date: '2032-06-30', ip: 0, blacklist: 1, mac: 0, rejected: 0 });
        expect(days.slice(1, -1).every((d) => d.ip + d.blacklist + d.mac + d.rejected === 0)).toBe(true);
        // every date once, one day apart
        expect(days.map((d) => Date.parse(d.date) / DAY_MS)).toEqual(days.map((_, i) => Date.parse('2032-04-02') / DAY_MS + i));
        // the day before the oldest is out of the history, not lost: a history ending a day earlier shows it
        expect((await meter.usageHistory(id, USAGE_HISTORY_DAYS, plus(now, -DAY_MS)))[0]).toEqual({
          date: '2032-04-01',
          ip: 4,
          blacklist: 0,
          mac: 0,
          rejected: 0,
        });
      });

      it(`days: a whole number from 1 to ${USAGE_HISTORY_DAYS}, else RangeError`, async () => {
        const id = newId('acc');
        const now = at('2032-07-01T00:00:00.000Z');
        for (const days of [0, -1, USAGE_HISTORY_DAYS + 1, 1.5, Number.NaN, Infinity]) {
          await expect(meter.usageHistory(id, days, now), String(days)).rejects.toBeInstanceOf(RangeError);
        }
        expect(await meter.usageHistory(id, 1, now)).toEqual([zeroDay('2032-07-01')]);
      });
    });
  });
}
