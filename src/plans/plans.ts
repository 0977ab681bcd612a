/**
 * Plans (SPEC 8.1) are configuration: the spec's table is the default, and an operator may
 * replace the numbers with a JSON file named by NETLOOKUP_PLANS (same four codes).
 */
import fs from 'node:fs';

export const planCodes = ['free', 'starter', 'pro', 'business'] as const;
export type PlanCode = (typeof planCodes)[number];
export const apis = ['ip', 'blacklist', 'mac'] as const;
export type Api = (typeof apis)[number];

type PlanQuota =
  /** free: each API its own allowance per UTC day */
  | { period: 'day'; per_api: Record<Api, number> }
  /** paid: one pool for all APIs per UTC month */
  | { period: 'month'; pooled: number };

export interface Plan {
  code: PlanCode;
  name: string;
  price_eur_month: number;
  quota: PlanQuota;
  rate_limit_per_second: number;
  /** 0: no batch endpoints on this plan */
  max_batch: number;
  max_keys: number;
  field_level: 'basic' | 'full';
}

export type PlanTable = Record<PlanCode, Plan>;

export const defaultPlans: PlanTable = {
  free: {
    code: 'free',
    name: 'Free (non-commercial)',
    price_eur_month: 0,
    quota: { period: 'day', per_api: { ip: 1000, blacklist: 1000, mac: 1000 } },
    rate_limit_per_second: 2,
    max_batch: 0,
    max_keys: 1,
    field_level: 'basic',
  },
  starter: {
    code: 'starter',
    name: 'Starter',
    price_eur_month: 9,
    quota: { period: 'month', pooled: 250_000 },
    rate_limit_per_second: 5,
    max_batch: 100,
    max_keys: 3,
    field_level: 'full',
  },
  pro: {
    code: 'pro',
    name: 'Pro',
    price_eur_month: 29,
    quota: { period: 'month', pooled: 1_500_000 },
    rate_limit_per_second: 15,
    max_batch: 100,
    max_keys: 5,
    field_level: 'full',
  },
  business: {
    code: 'business',
    name: 'Business',
    price_eur_month: 79,
    quota: { period: 'month', pooled: 6_000_000 },
    rate_limit_per_second: 30,
    max_batch: 1000,
    max_keys: 10,
    field_level: 'full',
  },
};

export class PlanFileError extends Error {
  constructor(file: string, problem: string) {
    super(`${file}: not a usable plan table: ${problem}`);
    this.name = 'PlanFileError';
  }
}

const positiveInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Validates a plan table read from JSON: the four codes, each complete and well-typed. */
function parsePlans(raw: unknown, file: string): PlanTable {
  const fail = (problem: string): never => {
    throw new PlanFileError(file, problem);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('expected an object keyed by plan code');
  const table = raw as Record<string, unknown>;
  for (const key of Object.keys(table)) if (!planCodes.includes(key as PlanCode)) fail(`unknown plan code ${key}`);
  const out = {} as PlanTable;
  for (const code of planCodes) {
    const p = table[code] as Partial<Plan> | undefined;
    if (!p || typeof p !== 'object') fail(`plan ${code} is missing`);
    const plan = p as Plan;
    if (typeof plan.name !== 'string' || plan.name.length === 0) fail(`plan ${code}: name must be a non-empty string`);
    for (const field of ['price_eur_month', 'rate_limit_per_second', 'max_batch', 'max_keys'] as const) {
      if (!positiveInteger(plan[field]) && !(field === 'price_eur_month' && typeof plan[field] === 'number' && plan[field] >= 0)) {
        fail(`plan ${code}: ${field} must be a non-negative number`);
      }
    }
    if (plan.rate_limit_per_second < 1) fail(`plan ${code}: rate_limit_per_second must be at least 1`);
    if (plan.max_keys < 1) fail(`plan ${code}: max_keys must be at least 1`);
    if (plan.field_level !== 'basic' && plan.field_level !== 'full') fail(`plan ${code}: field_level must be basic or full`);
    const q = plan.quota as PlanQuota | undefined;
    if (q?.period === 'day') {
      for (const api of apis)
        if (!positiveInteger(q.per_api?.[api])) fail(`plan ${code}: quota.per_api.${api} must be a non-negative integer`);
    } else if (q?.period === 'month') {
      if (!positiveInteger(q.pooled)) fail(`plan ${code}: quota.pooled must be a non-negative integer`);
    } else {
      fail(`plan ${code}: quota.period must be day or month`);
    }
    out[code] = { ...plan, code };
  }
  return out;
}

/** The plan table in force: NETLOOKUP_PLANS's file when set, else the spec's table. */
export function loadPlans(file: string | undefined = process.env.NETLOOKUP_PLANS): PlanTable {
  if (!file) return defaultPlans;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new PlanFileError(file, (e as Error).message);
  }
  return parsePlans(raw, file);
}

/** SPEC 3: an expired paid plan acts as free (keys keep working). */
export function effectivePlanCode(plan: PlanCode, expiresAt: Date | null, now: Date): PlanCode {
  if (plan === 'free') return 'free';
  return expiresAt !== null && expiresAt.getTime() <= now.getTime() ? 'free' : plan;
}
