/**
 * SPEC 2.1 `meta` and the SPEC 8.3 quota headers, both from one QuotaState (the store's decision
 * for this request), so that the headers and meta.quota always carry the same numbers.
 */
import type { PlanCode } from '../plans/plans.js';
import type { QuotaPeriod, QuotaState } from '../plans/quota.js';
import type { FieldLevel } from './ipRecord.js';

export interface MetaRecord {
  plan: PlanCode;
  fields: FieldLevel;
  quota: {
    limit: number;
    used: number;
    remaining: number;
    period: QuotaPeriod;
    /** ISO 8601 with UTC offset: 2026-11-23T00:00:00+00:00 */
    resets_at: string;
  };
}

export interface QuotaHeaders {
  'X-Plan': PlanCode;
  'X-RateLimit-Limit': string;
  'X-Quota-Limit': string;
  'X-Quota-Remaining': string;
  /** Unix seconds (UTC) of the next reset */
  'X-Quota-Reset': string;
}

/** ISO 8601 in UTC with an explicit offset and whole seconds: 2026-11-23T00:00:00+00:00. */
export function isoUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

/**
 * The texts of a reset instant (ISO 8601 and Unix seconds), kept for the last instant asked: every
 * request of a period has the same reset, and formatting a date costs about a microsecond.
 */
let lastReset = { ms: NaN, iso: '', unix: '' };

function resetTexts(resetsAt: Date): { iso: string; unix: string } {
  const ms = resetsAt.getTime();
  if (ms !== lastReset.ms) lastReset = { ms, iso: isoUtc(resetsAt), unix: String(Math.floor(ms / 1000)) };
  return lastReset;
}

export function metaRecord(plan: PlanCode, level: FieldLevel, quota: QuotaState): MetaRecord {
  return {
    plan,
    fields: level,
    quota: {
      limit: quota.limit,
      used: quota.used,
      remaining: quota.remaining,
      period: quota.period,
      resets_at: resetTexts(quota.resets_at).iso,
    },
  };
}

/**
 * `JSON.stringify(metaRecord(plan, level, quota))` without the object: the single lookups' hot
 * path appends it to a record's JSON text. Plan, level and period are fixed identifiers and the
 * counts are numbers, so none needs escaping, and the text is ASCII (as a record's ending must be).
 */
export function metaJson(plan: PlanCode, level: FieldLevel, quota: QuotaState): string {
  return (
    `{"plan":"${plan}","fields":"${level}","quota":{"limit":${quota.limit},"used":${quota.used},` +
    `"remaining":${quota.remaining},"period":"${quota.period}","resets_at":"${resetTexts(quota.resets_at).iso}"}}`
  );
}

/** The SPEC 8.3 headers of a metered response; the same numbers as metaRecord's quota. */
export function quotaHeaders(plan: PlanCode, rateLimitPerSecond: number, quota: QuotaState): QuotaHeaders {
  return {
    'X-Plan': plan,
    'X-RateLimit-Limit': String(rateLimitPerSecond),
    'X-Quota-Limit': String(quota.limit),
    'X-Quota-Remaining': String(quota.remaining),
    'X-Quota-Reset': resetTexts(quota.resets_at).unix,
  };
}
