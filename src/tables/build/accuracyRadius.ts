/**
 * The documented estimate of `location.accuracy_radius_km` for sources that give none (DB-IP
 * Lite). It follows the granularity of the match, never a precision the source does not have:
 *   - a city is known: 50 km (a metropolitan area and its surroundings);
 *   - only a region is known: 200 km;
 *   - only a country is known: the radius of a disc with the country's area, at least 50 km and
 *     at most 3,000 km;
 *   - nothing is known, or no coordinates: null.
 * Sources that state a radius (MaxMind City) keep theirs.
 */
export const CITY_RADIUS_KM = 50;
export const REGION_RADIUS_KM = 200;
export const COUNTRY_RADIUS_MIN_KM = 50;
export const COUNTRY_RADIUS_MAX_KM = 3000;

export interface RadiusInput {
  city: string | null;
  region: string | null;
  country_code: string | null;
  latitude: number | null;
}

export function estimateRadiusKm(place: RadiusInput, countryAreaKm2: (code: string) => number | null): number | null {
  if (place.latitude === null) return null;
  if (place.city) return CITY_RADIUS_KM;
  if (place.region) return REGION_RADIUS_KM;
  if (!place.country_code) return null;
  const area = countryAreaKm2(place.country_code);
  if (area === null || area <= 0) return null;
  const radius = Math.round(Math.sqrt(area / Math.PI));
  return Math.min(COUNTRY_RADIUS_MAX_KM, Math.max(COUNTRY_RADIUS_MIN_KM, radius));
}
