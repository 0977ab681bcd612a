import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultPlans } from '../../src/plans/plans.js';
import type { QuotaState, UsageCounts } from '../../src/plans/quota.js';
import { isoUtc, metaJson, metaRecord, quotaHeaders } from '../../src/records/metaRecord.js';
import { usageRecord } from '../../src/records/usageRecord.js';
import { shapeErrors } from './schema.js';

const counts: UsageCounts = { today: { ip: 12, blacklist: 3, mac: 7, rejected: 2 }, month_used: 1234 };

describe('usage record (SPEC 2.7)', () => {
  const base = {
    success: 'true',
    plan: { code: 'string', name: 'string', expires_at: 'string|null' },
    rate_limit_per_second: 'integer',
    today: { ip: 'integer', blacklist: 'integer', mac: 'integer', rejected: 'integer' },
  };

  it('free: daily_quota with the per-API allowances, no monthly_quota, expires_at null', () => {
    const record = usageRecord(defaultPlans.free, '2030-01-01T00:00:00.000Z', counts);
    expect(shapeErrors(record, { ...base, daily_quota: { ip: 'integer', blacklist: 'integer', mac: 'integer' } })).toEqual([]);
    expect(record).toEqual({
      success: true,
      plan: { code: 'free', name: defaultPlans.free.name, expires_at: null },
      rate_limit_per_second: 2,
      today: { ip: 12, blacklist: 3, mac: 7, rejected: 2 },
      daily_quota: { ip: 1000, blacklist: 1000, mac: 1000 },
    });
  });

  it('paid: monthly_quota instead of daily_quota, expiry with UTC offset', () => {
    const record = usageRecord(defaultPlans.pro, '2027-01-31T23:59:59.000Z', counts);
    expect(shapeErrors(record, { ...base, monthly_quota: { limit: 'integer', used: 'integer', remaining: 'integer' } })).toEqual([]);
    expect(record).toMatchObject({
      plan: { code: 'pro', name: 'Pro', expires_at: '2027-01-31T23:59:59+00:00' },
      rate_limit_per_second: 15,
      monthly_quota: { limit: 1_500_000, used: 1234, remaining: 1_500_000 - 1234 },
    });
    expect(usageRecord(defaultPlans.starter, null, counts).plan.expires_at).toBeNull();
    expect(usageRecord(defaultPlans.starter, new Date(Date.UTC(2027, 0, 1)), counts).plan.expires_at).toBe('2027-01-01T00:00:00+00:00');
  });

  it('remaining never goes below zero', () => {
    const record = usageRecord(defaultPlans.starter, null, { ...counts, month_used: 300_000 });
    expect(record).toMatchObject({ monthly_quota: { limit: 250_000, used: 300_000, remaining: 0 } });
  });
});

describe('meta record and quota headers (SPEC 2.1, 8.3)', () => {
  const quota: QuotaState = { limit: 1000, used: 10, remaining: 990, period: 'day', resets_at: new Date('2026-11-23T00:00:00Z') };

  it('meta carries plan, field level and the quota with resets_at in ISO 8601 with offset', () => {
    const meta = metaRecord('free', 'basic', quota);
    expect(meta).toEqual({
      plan: 'free',
      fields: 'basic',
      quota: { limit: 1000, used: 10, remaining: 990, period: 'day', resets_at: '2026-11-23T00:00:00+00:00' },
    });
    expect(
      shapeErrors(meta, {
        plan: 'string',
        fields: 'string',
        quota: { limit: 'integer', used: 'integer', remaining: 'integer', period: 'string', resets_at: 'string' },
      }),
    ).toEqual([]);
    expect(Date.parse(meta.quota.resets_at)).toBe(quota.resets_at.getTime());
  });

  it('headers equal meta.quota', () => {
    const monthly: QuotaState = {
      limit: 250_000,
      used: 5,
      remaining: 249_995,
      period: 'month',
      resets_at: new Date('2026-12-01T00:00:00Z'),
    };
    for (const [plan, level, q, rate] of [
      ['free', 'basic', quota, 2],
      ['starter', 'full', monthly, 5],
    ] as const) {
      const meta = metaRecord(plan, level, q);
      const headers = quotaHeaders(plan, rate, q);
      expect(headers).toEqual({
        'X-Plan': plan,
        'X-RateLimit-Limit': String(rate),
        'X-Quota-Limit': String(meta.quota.limit),
        'X-Quota-Remaining': String(meta.quota.remaining),
        'X-Quota-Reset': String(Date.parse(meta.quota.resets_at) / 1000),
      });
    }
    expect(quotaHeaders('free', 2, quota)['X-Quota-Reset']).toBe('1795392000');
  });

  it('metaJson is the JSON of metaRecord, for any counts and resets', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('free', 'starter', 'pro', 'business'),
        fc.constantFrom('basic', 'full'),
        fc.constantFrom('day', 'month'),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }),
        (plan, level, period, limit, used, ms) => {
          const q: QuotaState = { limit, used, remaining: Math.max(0, limit - used), period, resets_at: new Date(ms) };
          expect(metaJson(plan, level, q)).toBe(JSON.stringify(metaRecord(plan, level, q)));
        },
      ),
    );
  });

  it('isoUtc drops milliseconds and writes +00:00', () => {
    expect(isoUtc(new Date('2026-11-22T13:05:09.999Z'))).toBe('2026-11-22T13:05:09+00:00');
  });
});
