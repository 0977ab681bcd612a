/**
 * What the tables believe once the registrations (the RIRs' delegated statistics) and the routes
 * (RIS) are known, so that an answer says only what the data knows:
 *
 * - space no registry has allocated or assigned: no place, no network (the answer is `found: false`);
 * - registered space no route announces: the registry's country only (no city, no network),
 *   with the country's radius;
 * - registered and announced space: the location source's place and the route's network.
 *
 * A route is believed only inside registered space: an announcement of space its registry has not
 * given out is a leak or a hijack, not a network to name.
 *
 * One place the registration overrules in announced space: a place in another country whose city
 * or region bears the registration country's own name. That is a geocoder's name collision (DB-IP
 * places Réunion's mobile operator at "La Reunion", a village in Lot-et-Garonne, France, on
 * Europe/Paris); the registry's country is given instead. The rule is narrow on purpose: blocks
 * registered in one country and used in another are common (clouds, multinationals) and stand.
 */
import { NONE } from '../format/ipTableLayout.js';
import type { AsnRange } from '../sources/asnCsv.js';
import type { LocationFields } from '../sources/locationRecord.js';
import type { LocationSource } from './ipTableBuilder.js';
import type { RegisteredBlock } from './publisherFiles.js';
import { tileEnd, tileRanges, type ValuedRanges } from './rangeMerge.js';

/** Record ids of the registry-country places, above any record id of a source (MMDB data offsets are far below). */
const COUNTRY_RECORDS = 2 ** 40;

const lastOf = (family: 4 | 6) => (family === 4 ? 0xffffffffn : (1n << 128n) - 1n);

function valued<T extends { start: bigint; end: bigint }>(list: readonly T[], value: (item: T, index: number) => number): ValuedRanges {
  return { start: list.map((r) => r.start), end: list.map((r) => r.end), value: list.map(value) };
}

/** Routes clipped to registered space. */
export function believedNetworks(routes: readonly AsnRange[], registered: readonly RegisteredBlock[], family: 4 | 6): AsnRange[] {
  const last = lastOf(family);
  const tiled = tileRanges(valued(routes, (_, i) => i), valued(registered, () => 0), last);
  const out: AsnRange[] = [];
  tiled.keys.forEach((key, i) => {
    if (tiled.first[i] === NONE || tiled.second[i] === NONE) return;
    const end = tileEnd(tiled, i, last);
    const route = routes[tiled.first[i]];
    const previous = out[out.length - 1];
    // the clipped route keeps everything the source says of its AS (AS name, organisation id, holding)
    if (previous && previous.end + 1n === key && sameNetwork(previous, route)) previous.end = end;
    else out.push({ ...route, start: key, end });
  });
  return out;
}

function sameNetwork(a: AsnRange, b: AsnRange): boolean {
  return a.asn === b.asn && a.organization === b.organization && a.asName === b.asName && a.holding === b.holding;
}

export interface BelievedPlacesCounts {
  /** addresses (IPv4) or /64s (IPv6) whose source place was dropped outside registered space */
  unregistered: number;
  /** … replaced by the registry's country in registered space no route announces */
  unannounced: number;
  /** … replaced by the registry's country where the place's name is that country's (the name collision) */
  namedAfterRegistration: number;
}

/** "La Reunion" → "Reunion": a leading article is not part of a country's name. */
const withoutArticle = (name: string) => name.replace(/^(la|le|les|l'|el|the|al)\s*/i, '');

/** Whether a place in another country bears the registration country's name (see the module comment). */
function namedAfter(place: LocationFields, registered: string | null, countryOfName: (name: string) => string | null): boolean {
  if (registered === null || place.country_code === null || place.country_code === registered) return false;
  return [place.city, place.region].some((name) => name !== null && (countryOfName(name) === registered || countryOfName(withoutArticle(name)) === registered));
}

/** The location source seen through the registrations and routes (see the module comment). */
export function believedLocations(
  source: LocationSource,
  registered: Record<4 | 6, readonly RegisteredBlock[]>,
  routes: Record<4 | 6, readonly AsnRange[]>,
  counts: Record<4 | 6, BelievedPlacesCounts>,
  countryOfName: (name: string) => string | null,
): LocationSource {
  const countries: string[] = [];
  const countryRecord = (code: string | null): number | null => {
    if (code === null) return null;
    let index = countries.indexOf(code);
    if (index === -1) index = countries.push(code) - 1;
    return COUNTRY_RECORDS + index;
  };
  return {
    splitsCityNames: source.splitsCityNames,
    record: (family, id): LocationFields =>
      id >= COUNTRY_RECORDS
        ? { country_code: countries[id - COUNTRY_RECORDS], region: null, city: null, district: null, postal_code: null, latitude: null, longitude: null, accuracy_radius_km: null, timezone: null }
        : source.record(family, id),
    walk: (family, visit) => {
      const last = lastOf(family);
      const unit = family === 4 ? 1 : 2 ** 64;
      const places: ValuedRanges = { start: [], end: [], value: [] };
      source.walk(family, (start, end, record) => {
        places.start.push(start);
        places.end.push(end);
        places.value.push(record);
      });
      // state of each stretch of registered space: its block, doubled, plus 1 where a route announces it
      const blocks = registered[family];
      const state = tileRanges(valued(blocks, (_, i) => i), valued(routes[family], () => 0), last);
      const states: ValuedRanges = { start: [], end: [], value: [] };
      state.keys.forEach((key, i) => {
        if (state.first[i] === NONE) return;
        states.start.push(key);
        states.end.push(tileEnd(state, i, last));
        states.value.push(state.first[i] * 2 + (state.second[i] === NONE ? 0 : 1));
      });
      const tiled = tileRanges(places, states, last);
      const collisions = new Map<string, boolean>();
      tiled.keys.forEach((start, i) => {
        const end = tileEnd(tiled, i, last);
        const place = tiled.first[i];
        const stretch = tiled.second[i];
        if (stretch === NONE) {
          if (place !== NONE) counts[family].unregistered += Number(end - start + 1n) / unit;
          return;
        }
        const block = blocks[stretch >> 1];
        if (stretch % 2 === 1) {
          if (place === NONE) return;
          // one decision per place and registration country: a source record may be costly to decode
          const key = `${place} ${block.country_code}`;
          let collides = collisions.get(key);
          if (collides === undefined) {
            collides = namedAfter(source.record(family, place), block.country_code, countryOfName);
            collisions.set(key, collides);
          }
          if (!collides) {
            visit(start, end, place);
            return;
          }
          counts[family].namedAfterRegistration += Number(end - start + 1n) / unit;
          visit(start, end, countryRecord(block.country_code)!);
          return;
        }
        const country = countryRecord(block.country_code);
        if (place !== NONE) counts[family].unannounced += Number(end - start + 1n) / unit;
        if (country !== null) visit(start, end, country);
      });
    },
  };
}
