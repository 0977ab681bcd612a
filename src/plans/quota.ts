/**
 * The quota of a request and the usage of an account as the store counts them (SPEC 8.2, 8.3):
 * the store decides them, the records and headers show them.
 */
import type { Api } from './plans.js';

export type QuotaPeriod = 'day' | 'month';

export interface QuotaState {
  limit: number;
  used: number;
  remaining: number;
  period: QuotaPeriod;
  /** the next reset: 00:00 UTC of the next day (day) or of the first of next month (month) */
  resets_at: Date;
}

export interface UsageCounts {
  today: Record<Api | 'rejected', number>;
  /** lookups used in the current month, all APIs pooled */
  month_used: number;
}
