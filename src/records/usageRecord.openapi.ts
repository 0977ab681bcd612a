/** OpenAPI schemas of the usage record (SPEC 2.7): daily allowances on the free plan, a monthly pool on paid plans. */
import { apis, planCodes } from '../plans/plans.js';
import type { FreeUsageRecord, PaidUsageRecord } from './usageRecord.js';
import { DATE_TIME, constant, int, record, ref, str, strOrNull, stringEnum, type JsonSchema } from './jsonSchema.js';

export function usageRecordSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const usageBase = {
    success: constant(true),
    plan: record<FreeUsageRecord['plan']>('the plan in force (an expired paid plan acts as free)', {
      code: stringEnum(planCodes, 'plan code'),
      name: str('plan name'),
      expires_at: strOrNull('expiry of a paid plan; null on the free plan and without expiry', DATE_TIME),
    }),
    rate_limit_per_second: int('per-second limit of the plan', { minimum: 1 }),
    today: record<FreeUsageRecord['today']>('requests today (UTC)', {
      ip: int('IP lookups today', { minimum: 0 }),
      blacklist: int('blacklist checks today', { minimum: 0 }),
      mac: int('MAC lookups today', { minimum: 0 }),
      rejected: int('rejected requests today', { minimum: 0 }),
    }),
  };
  schemas.UsageFree = record<FreeUsageRecord>('SPEC 2.7 usage record of a plan with daily per-API allowances (free).', {
    ...usageBase,
    daily_quota: record<FreeUsageRecord['daily_quota']>(`daily allowance per API (${apis.join(', ')})`, {
      ip: int(undefined, { minimum: 0 }),
      blacklist: int(undefined, { minimum: 0 }),
      mac: int(undefined, { minimum: 0 }),
    }),
  });
  schemas.UsagePaid = record<PaidUsageRecord>('SPEC 2.7 usage record of a plan with a monthly pooled quota (paid).', {
    ...usageBase,
    monthly_quota: record<PaidUsageRecord['monthly_quota']>('the monthly pool, all APIs together', {
      limit: int(undefined, { minimum: 0 }),
      used: int(undefined, { minimum: 0 }),
      remaining: int(undefined, { minimum: 0 }),
    }),
  });
  schemas.UsageResponse = {
    description: 'GET /v1/usage: daily_quota on the free plan, monthly_quota on paid plans.',
    oneOf: [ref('UsageFree'), ref('UsagePaid')],
  };
  return schemas;
}
