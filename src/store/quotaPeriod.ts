/**
 * Quota periods over UTC (SPEC 3, 8.2): free quotas reset at 00:00 UTC every day, monthly quotas
 * at 00:00 UTC on the first of the month. Pure functions of an instant.
 */
import type { QuotaPeriod } from '../plans/quota.js';
import { USAGE_HISTORY_DAYS } from './store.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function checked(now: Date): Date {
  if (Number.isNaN(now.getTime())) throw new RangeError('quota period of an invalid date');
  return now;
}

const DAY_MS = 86_400_000;

/**
 * The keys and resets of the UTC day last asked about: every request asks, and formatting them
 * anew each time costs more than the rest of metering.
 */
let day = { number: NaN, dayKey: '', monthKey: '', nextDay: 0, nextMonth: 0 };

function dayOf(now: Date) {
  const number = Math.floor(checked(now).getTime() / DAY_MS);
  if (number !== day.number) {
    const y = now.getUTCFullYear();
    const m = now.getUTCMonth();
    day = {
      number,
      dayKey: `${pad(y, 4)}-${pad(m + 1)}-${pad(now.getUTCDate())}`,
      monthKey: `${pad(y, 4)}-${pad(m + 1)}`,
      nextDay: (number + 1) * DAY_MS,
      nextMonth: Date.UTC(y, m + 1, 1),
    };
  }
  return day;
}

/** YYYY-MM-DD of the UTC day holding `now`. */
export function dayKey(now: Date): string {
  return dayOf(now).dayKey;
}

/** YYYY-MM of the UTC month holding `now`. */
export function monthKey(now: Date): string {
  return dayOf(now).monthKey;
}

/** 00:00 UTC of the day after `now` (an instant exactly at midnight belongs to the new day). */
export function nextDayReset(now: Date): Date {
  return new Date(dayOf(now).nextDay);
}

/** 00:00 UTC on the first of the month after `now`'s month. */
export function nextMonthReset(now: Date): Date {
  return new Date(dayOf(now).nextMonth);
}

export function nextReset(period: QuotaPeriod, now: Date): Date {
  return period === 'day' ? nextDayReset(now) : nextMonthReset(now);
}

/** The first and last day keys of a month key, for range queries over day keys. */
export function monthDayRange(month: string): { first: string; last: string } {
  return { first: `${month}-01`, last: `${month}-31` };
}

/**
 * The day keys of the `days` UTC days that end with `now`'s day, oldest first (the usage history);
 * `days` is a whole number from 1 to USAGE_HISTORY_DAYS, else RangeError.
 */
export function historyDayKeys(days: number, now: Date): string[] {
  if (!Number.isInteger(days) || days < 1 || days > USAGE_HISTORY_DAYS)
    throw new RangeError(`days must be a whole number from 1 to ${USAGE_HISTORY_DAYS}`);
  const today = checked(now).getTime();
  return Array.from({ length: days }, (_, i) => dayKey(new Date(today - (days - 1 - i) * DAY_MS)));
}
