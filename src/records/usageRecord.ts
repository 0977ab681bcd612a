/**
 * SPEC 2.7 usage record from the plan in force, the account's expiry and the store's counters.
 *
 * - The plan passed in is the one in force (an expired paid plan acts as free, SPEC 3: the
 *   caller resolves it with effectivePlanCode). expires_at is null on the free plan, else the
 *   account's expiry as ISO 8601 with UTC offset (null: no expiry).
 * - A plan with a daily per-API quota (free) gets daily_quota {ip, blacklist, mac}: the daily
 *   allowances; today's use is in `today`. A plan with a monthly pooled quota (paid) gets
 *   monthly_quota {limit, used, remaining} instead. Exactly one of the two keys is present.
 * - remaining never goes below 0.
 */
import type { Plan, PlanCode } from '../plans/plans.js';
import type { UsageCounts } from '../plans/quota.js';
import { isoUtc } from './metaRecord.js';

interface UsageBase {
  success: true;
  plan: { code: PlanCode; name: string; expires_at: string | null };
  rate_limit_per_second: number;
  today: { ip: number; blacklist: number; mac: number; rejected: number };
}

export interface FreeUsageRecord extends UsageBase {
  daily_quota: { ip: number; blacklist: number; mac: number };
}

export interface PaidUsageRecord extends UsageBase {
  monthly_quota: { limit: number; used: number; remaining: number };
}

export type UsageRecord = FreeUsageRecord | PaidUsageRecord;

function expiry(plan: Plan, expiresAt: string | Date | null): string | null {
  if (plan.code === 'free' || expiresAt === null) return null;
  const date = expiresAt instanceof Date ? expiresAt : new Date(expiresAt);
  return Number.isNaN(date.getTime()) ? null : isoUtc(date);
}

export function usageRecord(plan: Plan, expiresAt: string | Date | null, counts: UsageCounts): UsageRecord {
  const base: UsageBase = {
    success: true,
    plan: { code: plan.code, name: plan.name, expires_at: expiry(plan, expiresAt) },
    rate_limit_per_second: plan.rate_limit_per_second,
    today: { ip: counts.today.ip, blacklist: counts.today.blacklist, mac: counts.today.mac, rejected: counts.today.rejected },
  };
  const quota = plan.quota;
  if (quota.period === 'day') {
    return { ...base, daily_quota: { ip: quota.per_api.ip, blacklist: quota.per_api.blacklist, mac: quota.per_api.mac } };
  }
  const used = counts.month_used;
  return { ...base, monthly_quota: { limit: quota.pooled, used, remaining: Math.max(0, quota.pooled - used) } };
}
