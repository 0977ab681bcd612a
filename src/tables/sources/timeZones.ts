/**
 * The time zone of a location row (SPEC 2.2 `timezone.id`) when the city source gives none (DB-IP
 * Lite has no time zone; MaxMind files give their own, which the builder keeps).
 *
 * Runs only at table build time. Sources, both installed from npm:
 * - geo-tz/all: the time zone polygons of timezone-boundary-builder's comprehensive product, which
 *   keeps every IANA zone (at least one per country). Not geo-tz's default product: that one merges
 *   the zones that kept the same clock since 1970 and names them after one of them, so Oslo came
 *   out as Europe/Berlin and Nairobi as Asia/Riyadh.
 * - @vvo/tzdb: the country of each zone as the tz database's zone.tab gives it (one country per
 *   zone: Europe/Oslo NO, Europe/Zurich CH, Europe/Busingen DE), and the zones of each country
 *   grouped by clock, each group named after its most populous zone. Chosen over
 *   countries-and-timezones because it is rebuilt from each tz database release automatically
 *   (it states the release, `tzdbVersion`) and maps every zone to exactly one country, where
 *   countries-and-timezones mixes zone1970.tab's lists in (Europe/Berlin: DE, DK, NO, SE, SJ).
 *
 * The rule, for a row with coordinates and a country code:
 * 1. The zones at the point (usually one; more where a border is disputed or the point lies on it):
 *    the first one whose zone.tab country is the row's country.
 * 2. Else, when the row's country has exactly one clock group that keeps the same time as the
 *    first zone at the point (same UTC offset at noon UTC on every day from a year before the build
 *    to two years after it), that group's zone. This gives the country's own zone where the point
 *    lies in a zone that tzdb files under a neighbour: northern Vietnam is Asia/Bangkok in
 *    timezone-boundary-builder (tzdb lists it there in zone1970.tab) and becomes Asia/Ho_Chi_Minh;
 *    a row whose coordinates fall just across a border or in the sea (Etc/GMT-12 off Tuvalu)
 *    gets its country's zone when the clock is the same. Likewise a row in Simferopol that DB-IP
 *    places in RU gets Europe/Moscow (zone.tab files Europe/Simferopol under UA); one in UA keeps
 *    Europe/Simferopol.
 * 3. Else the first zone at the point: a row of a country tzdb gives no zone (Kosovo: Europe/
 *    Belgrade) or whose point keeps another clock than the country's zones (a French row in
 *    Martinique keeps America/Martinique) keeps the zone of its place.
 */
import { find as zonesAtPoint } from 'geo-tz/all';
import { getCountryCode, rawTimeZones } from '@vvo/tzdb';

/** The tz database release the zone countries and clock groups come from ("2026f"). */
export { tzdbVersion } from '@vvo/tzdb';

const DAY_MS = 86_400_000;

/** The zone.tab country of an IANA zone (current or deprecated name), or null (UTC, Etc/GMT+5). */
export function zoneCountry(zone: string): string | null {
  return getCountryCode(zone) ?? null;
}

/** A zone's UTC offset at noon UTC on every `step`-th day of the window, as one comparable string. */
function clockOf(zone: string, fromMs: number, days: number, step: number): string {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  const offsets: string[] = [];
  for (let day = 0; day < days; day += step) {
    const part = format.formatToParts(fromMs + day * DAY_MS).find((p) => p.type === 'timeZoneName');
    offsets.push(part?.value ?? '');
  }
  return offsets.join(' ');
}

/** The main zone of each clock group of each country (zone.tab countries). */
function groupsByCountry(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const group of rawTimeZones) {
    const list = groups.get(group.countryCode) ?? [];
    list.push(group.name);
    groups.set(group.countryCode, list);
  }
  return groups;
}

let countryGroups: Map<string, string[]> | null = null;

/**
 * The zone of a country whose zones all keep one clock (France, Réunion, Japan), for a place known
 * only by its country; null where the country has several clocks (the zone would be a guess).
 */
export function singleClockZone(countryCode: string | null): string | null {
  if (countryCode === null) return null;
  countryGroups ??= groupsByCountry();
  const groups = countryGroups.get(countryCode) ?? [];
  return groups.length === 1 ? groups[0] : null;
}

export type TimeZoneAt = (latitude: number, longitude: number, countryCode: string | null) => string | null;

/**
 * The zone of a location row by the rule above, cached per point and country (records of both
 * families share coordinates). `around` anchors the window in which clocks are compared (the build time).
 */
export function timeZoneFinder(around: Date): TimeZoneAt {
  const windowStart = Date.UTC(around.getUTCFullYear() - 1, around.getUTCMonth(), around.getUTCDate(), 12);
  const windowDays = Math.round(
    (Date.UTC(around.getUTCFullYear() + 2, around.getUTCMonth(), around.getUTCDate(), 12) - windowStart) / DAY_MS,
  );
  // a sample every 30 days tells most clocks apart; equal samples are confirmed day by day
  const clocks = new Map<string, string>();
  const clock = (zone: string, step: number): string => {
    const key = `${step} ${zone}`;
    let c = clocks.get(key);
    if (c === undefined) {
      c = clockOf(zone, windowStart, windowDays, step);
      clocks.set(key, c);
    }
    return c;
  };
  const sameClock = (a: string, b: string): boolean => clock(a, 30) === clock(b, 30) && clock(a, 1) === clock(b, 1);
  const groups = groupsByCountry();
  const answers = new Map<string, string | null>();

  const sameClockZone = (zone: string, countryCode: string): string | null => {
    const matches = (groups.get(countryCode) ?? []).filter((main) => sameClock(main, zone));
    return matches.length === 1 ? matches[0] : null;
  };

  return (latitude, longitude, countryCode) => {
    const key = `${latitude},${longitude},${countryCode ?? ''}`;
    let answer = answers.get(key);
    if (answer !== undefined) return answer;
    let zones: string[];
    try {
      zones = zonesAtPoint(latitude, longitude);
    } catch (error) {
      throw new Error(`no time zone for the location at ${latitude},${longitude}: ${(error as Error).message}`, { cause: error });
    }
    const first = zones[0] ?? null;
    answer = first;
    if (first !== null && countryCode !== null) {
      answer = zones.find((zone) => zoneCountry(zone) === countryCode) ?? sameClockZone(first, countryCode) ?? first;
    }
    answers.set(key, answer);
    return answer;
  };
}
