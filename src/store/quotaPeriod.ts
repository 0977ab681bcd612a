/**
 * Quota periods over UTC (SPEC 3, 8.2): free quotas reset at 00:00 UTC every day, monthly quotas
 * at 00:00 UTC on the first of the month. Pure functions of an instant.
 */
import type { QuotaPeriod } from './store.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function checked(now: Date): Date {
  if (Number.isNaN(now.getTime())) throw new RangeError('quota period of an invalid date');
  return now;
}

/** YYYY-MM-DD of the UTC day holding `now`. */
export function dayKey(now: Date): string {
  checked(now);
  return `${pad(now.getUTCFullYear(), 4)}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())}`;
}

/** YYYY-MM of the UTC month holding `now`. */
export function monthKey(now: Date): string {
  checked(now);
  return `${pad(now.getUTCFullYear(), 4)}-${pad(now.getUTCMonth() + 1)}`;
}

/** 00:00 UTC of the day after `now` (an instant exactly at midnight belongs to the new day). */
export function nextDayReset(now: Date): Date {
  checked(now);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** 00:00 UTC on the first of the month after `now`'s month. */
export function nextMonthReset(now: Date): Date {
  checked(now);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export function nextReset(period: QuotaPeriod, now: Date): Date {
  return period === 'day' ? nextDayReset(now) : nextMonthReset(now);
}

/** The first and last day keys of a month key, for range queries over day keys. */
export function monthDayRange(month: string): { first: string; last: string } {
  return { first: `${month}-01`, last: `${month}-31` };
}
