/** OpenAPI schema of the meta record (SPEC 2.1), and the shape of a metered single-record response. */
import type { QuotaPeriod } from '../plans/quota.js';
import { planCodes } from '../plans/plans.js';
import type { FieldLevel } from './ipRecord.js';
import type { MetaRecord } from './metaRecord.js';
import { DATE_TIME, every, int, record, ref, str, stringEnum, type JsonSchema } from './jsonSchema.js';

const quotaPeriods = every<QuotaPeriod>()(['day', 'month']);
const fieldLevels = every<FieldLevel>()(['basic', 'full']);

export function metaRecordSchemas(): Record<string, JsonSchema> {
  return {
    Meta: record<MetaRecord>('SPEC 2.1: plan, field level and quota of the request; the same numbers as the X-Quota-* headers.', {
      plan: stringEnum(planCodes, 'plan code'),
      fields: stringEnum(fieldLevels, 'field level: basic (free) or full (paid)'),
      quota: record<MetaRecord['quota']>('the quota of the current period', {
        limit: int('quota of the current period', { minimum: 0 }),
        used: int('lookups used in the period', { minimum: 0 }),
        remaining: int('lookups left in the period', { minimum: 0 }),
        period: stringEnum(quotaPeriods, 'day (free plan, per API) or month (paid plans, pooled)'),
        resets_at: str('next reset, ISO 8601 with UTC offset', DATE_TIME),
      }),
    }),
  };
}

/** Adds `meta` (SPEC 2.1) to a record schema: the shape of a metered single-record response. */
export function withMeta(schema: JsonSchema, description: string): JsonSchema {
  return {
    ...schema,
    description,
    properties: { ...(schema.properties as Record<string, JsonSchema>), meta: ref('Meta') },
    required: [...(schema.required as string[]), 'meta'],
  };
}
