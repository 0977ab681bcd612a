/**
 * Time in an IANA zone, per request, cheaply: the UTC offset, DST flag and local time of the IP
 * record's timezone object (SPEC 2.2), from the runtime's ICU.
 *
 * One Intl.DateTimeFormat per zone (constructing one costs ~50 µs; formatToParts ~4 µs). The
 * zone's offset is cached per zone per UTC minute: every transition of the present-day tz
 * database falls on a whole minute, so within one UTC minute the offset cannot change. With the
 * minute's offset we also cache the text of current_time up to the minute and the offset text, so
 * a hit costs a map lookup and one string concatenation. The standard offset of a zone (for
 * is_dst) is the smaller of its offsets on 1 January and 1 July of the (UTC) year, cached per
 * year. That handles both hemispheres and Europe/Dublin's "negative DST" (IST in summer counts as
 * DST, as people understand it); a zone that changes its standard offset within a year may be
 * misjudged on the days around the change.
 *
 * Offsets are rounded to whole minutes: the ISO 8601 "+HH:MM" form cannot carry the seconds of
 * historical local mean times, and current_time must agree with utc_offset.
 */

export interface ZoneTime {
  /** +HH:MM / -HH:MM */
  utc_offset: string;
  is_dst: boolean;
  /** ISO 8601 local time with offset, seconds precision */
  current_time: string;
  /** the offset in minutes east of UTC */
  offset_minutes: number;
}

export interface ZoneClock {
  format: Intl.DateTimeFormat;
  /** the UTC minute (ms / 60000) the cached values are for; NaN: none yet */
  minute: number;
  offsetMinutes: number;
  offsetText: string;
  isDst: boolean;
  /** current_time up to and including "HH:MM:" */
  prefix: string;
  /** UTC year of the cached standard offset; NaN: none yet */
  year: number;
  standardMinutes: number;
}

/** null: the runtime's ICU does not know the zone */
const clocks = new Map<string, ZoneClock | null>();

export const TWO_DIGITS: readonly string[] = Array.from({ length: 60 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));

function clockOf(zone: string): ZoneClock | null {
  let clock = clocks.get(zone);
  if (clock !== undefined) return clock;
  try {
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    clock = { format, minute: NaN, offsetMinutes: 0, offsetText: '', isDst: false, prefix: '', year: NaN, standardMinutes: 0 };
  } catch {
    clock = null;
  }
  clocks.set(zone, clock);
  return clock;
}

/** The zone's offset from UTC at instant `ms`, in whole minutes. */
function offsetMinutesAt(format: Intl.DateTimeFormat, ms: number): number {
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of format.formatToParts(ms)) {
    switch (part.type) {
      case 'year':
        year = Number(part.value);
        break;
      case 'month':
        month = Number(part.value);
        break;
      case 'day':
        day = Number(part.value);
        break;
      case 'hour':
        hour = Number(part.value);
        break;
      case 'minute':
        minute = Number(part.value);
        break;
      case 'second':
        second = Number(part.value);
        break;
      default:
        break;
    }
  }
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  return Math.round((local - Math.floor(ms / 1000) * 1000) / 60000);
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const hours = Math.floor(abs / 60);
  return `${sign}${hours < 10 ? '0' : ''}${hours}:${TWO_DIGITS[abs % 60]}`;
}

function pad4(n: number): string {
  return n >= 0 && n < 10000 ? String(n).padStart(4, '0') : String(n);
}

/** Refreshes the clock's per-minute cache for the UTC minute of `ms`. */
function refresh(clock: ZoneClock, minute: number, ms: number): void {
  const offset = offsetMinutesAt(clock.format, ms);
  const year = new Date(ms).getUTCFullYear();
  if (year !== clock.year) {
    const january = offsetMinutesAt(clock.format, Date.UTC(year, 0, 1));
    const july = offsetMinutesAt(clock.format, Date.UTC(year, 6, 1));
    clock.standardMinutes = Math.min(january, july);
    clock.year = year;
  }
  const local = new Date(minute * 60000 + offset * 60000);
  clock.minute = minute;
  clock.offsetMinutes = offset;
  clock.offsetText = offsetText(offset);
  clock.isDst = offset > clock.standardMinutes;
  clock.prefix =
    `${pad4(local.getUTCFullYear())}-${TWO_DIGITS[local.getUTCMonth() + 1]}-${TWO_DIGITS[local.getUTCDate()]}` +
    `T${TWO_DIGITS[local.getUTCHours()]}:${TWO_DIGITS[local.getUTCMinutes()]}:`;
}

/** The zone's clock with its cache brought to the UTC minute of `ms`; null for an unknown zone. */
export function tickedClock(zone: string, ms: number): Readonly<ZoneClock> | null {
  const clock = clockOf(zone);
  if (clock === null || !Number.isFinite(ms)) return null;
  const minute = Math.floor(ms / 60000);
  if (minute !== clock.minute) refresh(clock, minute, ms);
  return clock;
}

/**
 * Offset, DST flag and local time of an IANA zone at instant `ms` (Unix milliseconds), or null
 * when the runtime does not know the zone. Cached per zone per UTC minute.
 */
export function zoneTime(zone: string, ms: number): ZoneTime | null {
  const clock = tickedClock(zone, ms);
  if (clock === null) return null;
  return {
    utc_offset: clock.offsetText,
    is_dst: clock.isDst,
    current_time: localTime(clock, ms),
    offset_minutes: clock.offsetMinutes,
  };
}

/** current_time at instant `ms` of a clock ticked to its minute: the minute's text, the seconds, the offset. */
export function localTime(clock: Readonly<ZoneClock>, ms: number): string {
  return clock.prefix + TWO_DIGITS[Math.floor((ms - clock.minute * 60000) / 1000)] + clock.offsetText;
}
