/**
 * Maps the data record of a city `.mmdb` onto our location fields. Two schemas are known:
 * DB-IP Lite as packaged by ip-location-db (flat keys) and MaxMind GeoLite2/GeoIP2 City (nested,
 * names by language). An unknown schema is refused rather than guessed.
 */
import type { LocationRow } from '../format/ipTable.js';
import { isMap, type MmdbMetadata, type MmdbValue } from './mmdb.js';

export type LocationSchema = 'dbip-flat' | 'maxmind-city';

/** The same fields as a table's location row; the accuracy radius is null where the source has none (the builder then estimates). */
export type LocationFields = LocationRow;

export function detectSchema(meta: MmdbMetadata, file: string): LocationSchema {
  const type = meta.databaseType;
  if (/^(GeoLite2|GeoIP2)-City/.test(type)) return 'maxmind-city';
  if (/^city ipv[46]$/.test(type)) return 'dbip-flat';
  throw new Error(`${file}: database type "${type}" is not a city database this builder knows (DB-IP Lite city or MaxMind City)`);
}

const text = (v: MmdbValue | undefined): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const num = (v: MmdbValue | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const child = (v: MmdbValue | undefined, key: string): MmdbValue | undefined => (isMap(v) ? v[key] : undefined);
const englishName = (v: MmdbValue | undefined): string | null => text(child(child(v, 'names'), 'en'));

export function locationFields(record: MmdbValue, schema: LocationSchema): LocationFields {
  if (schema === 'dbip-flat') {
    return {
      country_code: text(child(record, 'country_code')),
      region: text(child(record, 'state1')),
      city: text(child(record, 'city')),
      district: null,
      postal_code: text(child(record, 'postcode')),
      latitude: num(child(record, 'latitude')),
      longitude: num(child(record, 'longitude')),
      accuracy_radius_km: null,
      timezone: text(child(record, 'timezone')),
    };
  }
  const location = child(record, 'location');
  const subdivisions = child(record, 'subdivisions');
  return {
    country_code: text(child(child(record, 'country'), 'iso_code')),
    region: Array.isArray(subdivisions) ? englishName(subdivisions[0]) : null,
    city: englishName(child(record, 'city')),
    district: null,
    postal_code: text(child(child(record, 'postal'), 'code')),
    latitude: num(child(location, 'latitude')),
    longitude: num(child(location, 'longitude')),
    accuracy_radius_km: num(child(location, 'accuracy_radius')),
    timezone: text(child(location, 'time_zone')),
  };
}
