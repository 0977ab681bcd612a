/**
 * The documented estimate of `location.accuracy_radius_km` for sources that give none (DB-IP
 * Lite), from what each source row knows. The radius is meant to hold about two thirds of the
 * addresses of a row: the constants are the 67th percentile of the distance between DB-IP's
 * position and an independent reference's city-level position (MaxMind GeoLite2 City) over random
 * addresses of each class, which `npm run bench:data` measures again and prints beside them.
 *
 *   - anycast (a prefix of data/curated/anycast-prefixes.csv): null. The block is announced from
 *     many places; no one position has a radius.
 *   - no coordinates: null.
 *   - a city is known:
 *       the row holds fewer addresses than a network's registered seat would (IPv4: fewer than
 *       2^24 addresses at this one row; IPv6: fewer than 2^40 /64 networks): 50 km for IPv4
 *       (measured 49–67 km), 100 km for IPv6 (measured 7–109 km, fewer reference points);
 *       a seat, where the source places that much address space at one point (the registered
 *       seat of a network, not where its addresses are used): IPv4 450 km (measured 313–543 km over samples);
 *       IPv6 the country-level radius (measured beyond 3,000 km: only the country is known);
 *     never more than the country-level radius below (a city answer in a small country cannot be
 *     farther off than the country).
 *   - only a region is known: 200 km, bounded by the country-level radius in the same way.
 *   - only a country is known: the radius of a disc with the country's area, at least 50 km and at
 *     most 3,000 km.
 *   - nothing is known: null.
 * Sources that state a radius (MaxMind City) keep theirs, except for anycast blocks.
 */
import type { Family } from '../format/ipTable.js';

export const CITY_RADIUS_KM: Readonly<Record<Family, number>> = { 4: 50, 6: 100 };
/** rows that place at least this much address space at one point (IPv4 addresses, IPv6 /64s) */
const SEAT_ROW_SIZE: Readonly<Record<Family, number>> = { 4: 2 ** 24, 6: 2 ** 40 };
/** IPv4 seats; an IPv6 seat gets the country-level radius */
export const SEAT_RADIUS_KM = 450;
const REGION_RADIUS_KM = 200;
const COUNTRY_RADIUS_MIN_KM = 50;
const COUNTRY_RADIUS_MAX_KM = 3000;

export interface RadiusInput {
  city: string | null;
  region: string | null;
  country_code: string | null;
  latitude: number | null;
  /** the radius the source states, if any */
  accuracy_radius_km: number | null;
}

export interface RadiusContext {
  family: Family;
  /** addresses (IPv4) or /64 networks (IPv6) the source places at this row, over all its blocks */
  rowSize: number;
  anycast: boolean;
  countryAreaKm2: (code: string) => number | null;
}

/** The class of a row by what it knows; the data report groups its measurements by it. */
export type RadiusClass = 'anycast' | 'source' | 'city' | 'seat' | 'region' | 'country' | 'none';

export function radiusClass(place: RadiusInput, context: RadiusContext): RadiusClass {
  if (context.anycast) return 'anycast';
  if (place.accuracy_radius_km !== null) return 'source';
  if (place.latitude === null) return 'none';
  if (place.city) return context.rowSize >= SEAT_ROW_SIZE[context.family] ? 'seat' : 'city';
  if (place.region) return 'region';
  return place.country_code ? 'country' : 'none';
}

export function estimateRadiusKm(place: RadiusInput, context: RadiusContext): number | null {
  const country = place.country_code ? countryRadiusKm(place.country_code, context.countryAreaKm2) : null;
  const bounded = (km: number): number => (country === null ? km : Math.min(km, country));
  switch (radiusClass(place, context)) {
    case 'anycast':
    case 'none':
      return null;
    case 'source':
      return place.accuracy_radius_km;
    case 'city':
      return bounded(CITY_RADIUS_KM[context.family]);
    case 'seat':
      return context.family === 4 ? bounded(SEAT_RADIUS_KM) : country;
    case 'region':
      return bounded(REGION_RADIUS_KM);
    case 'country':
      return country;
  }
}

/** The radius of a disc with the country's area, within [50, 3000] km; null when the area is unknown. */
export function countryRadiusKm(code: string, countryAreaKm2: (code: string) => number | null): number | null {
  const area = countryAreaKm2(code);
  if (area === null || area <= 0) return null;
  const radius = Math.round(Math.sqrt(area / Math.PI));
  return Math.min(COUNTRY_RADIUS_MAX_KM, Math.max(COUNTRY_RADIUS_MIN_KM, radius));
}
