/**
 * Reader of DB-IP's "IP to City Lite" monthly CSV (`dbip-city-lite-YYYY-MM.csv.gz` under
 * https://download.db-ip.com/free/, CC BY 4.0: "IP Geolocation by DB-IP", linked to
 * https://db-ip.com, on every page that shows its results).
 *
 * The format (db-ip.com/db/format pages; real excerpts): RFC 4180, UTF-8, no header, one range a
 * line: `ip_start,ip_end,continent,country,stateprov,city,latitude,longitude`, e.g.
 * `1.0.0.0,1.0.0.255,OC,AU,Queensland,"South Brisbane",-27.4767,153.017`. Fields holding a space,
 * comma or quote are quoted, quotes doubled. IPv4 and IPv6 rows are in one file, all IPv4 rows
 * first, each family ascending. Reserved space is a row of its own with `ZZ` for continent and
 * country, empty names and `0,0` for coordinates.
 *
 * Rules: every row has the eight fields; addresses are strict text forms of one family, start ≤ end;
 * rows ascend without overlap within a family and no IPv4 row follows an IPv6 row; the continent is
 * one of DB-IP's seven codes and the country `[A-Z]{2}` (`ZZ` is read as unknown: null, and then a
 * `0,0` position is no position either); coordinates are both empty or both decimal numbers in range.
 * Anything else throws SourceFormatError naming the file and line.
 */
import { parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import { csvLineFields } from './csv.js';
import { SourceFormatError, type NumberedLine } from './textLines.js';

/** Where DB-IP publishes the free monthly files. */
export const DBIP_FREE_URL = 'https://download.db-ip.com/free/';

export interface DbipCityRow {
  family: 4 | 6;
  start: bigint;
  end: bigint;
  continent: string | null;
  country_code: string | null;
  region: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface DbipCityCounts {
  ipv4Rows: number;
  ipv6Rows: number;
}

/** DB-IP's continent codes (db-ip.com/db/format/ip-to-country/csv.html). */
const CONTINENTS = new Set(['AF', 'AS', 'EU', 'NA', 'OC', 'SA', 'AN']);
/** How DB-IP spells "no country" (and "no continent") on reserved ranges. */
const UNKNOWN = 'ZZ';
const COUNTRY = /^[A-Z]{2}$/;
const DECIMAL = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const FIELDS = 8;

/** The monthly file names to try, newest first, for a date: this month's (UTC) then last month's. */
export function dbipCityFileNames(now: Date): string[] {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth(); // 0-based
  const name = (y: number, m: number) => `dbip-city-lite-${y}-${String(m + 1).padStart(2, '0')}.csv.gz`;
  return [name(year, month), month === 0 ? name(year - 1, 11) : name(year, month - 1)];
}

const words = new Uint32Array(4);

/** The address as a number of its family, or null when the text is not a strict address. */
function addressOf(text: string, family: 4 | 6): bigint | null {
  if (family === 4) {
    const n = parseIPv4(text);
    return n < 0 ? null : BigInt(n);
  }
  if (!parseIPv6(text, words)) return null;
  return ipv6Value(words);
}

/** The coordinate, or a sentence saying why the text is not one. */
function coordinateOf(text: string, limit: number, what: string): number | string {
  if (!DECIMAL.test(text)) return `${what} "${text}" is not a decimal number`;
  const value = Number(text);
  if (!(value >= -limit && value <= limit)) return `${what} ${text} is outside [-${limit}, ${limit}]`;
  return value;
}

/** Rows in file order; throws SourceFormatError on any bad row; `counts` filled as rows are read. */
export async function* readDbipCityCsv(
  lines: AsyncIterable<NumberedLine>,
  file: string,
  counts?: DbipCityCounts,
): AsyncGenerator<DbipCityRow> {
  const tally: DbipCityCounts = counts ?? { ipv4Rows: 0, ipv6Rows: 0 };
  tally.ipv4Rows = 0;
  tally.ipv6Rows = 0;
  let lastEnd: bigint | null = null;
  let lastFamily: 4 | 6 = 4;
  for await (const { text: raw, line } of lines) {
    const bad = (problem: string) => new SourceFormatError(file, line, problem);
    const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (text.length === 0) throw bad('blank line');
    const fields = csvLineFields(text);
    if (typeof fields === 'string') throw bad(fields);
    if (fields.length !== FIELDS) throw bad(`${fields.length} fields, a row has ${FIELDS}`);
    const [startText, endText, continentText, country, region, city, latitudeText, longitudeText] = fields;

    const family: 4 | 6 = startText.includes(':') ? 6 : 4;
    if ((endText.includes(':') ? 6 : 4) !== family) throw bad(`${startText} and ${endText} are not of one family`);
    const start = addressOf(startText, family);
    if (start === null) throw bad(`not an IPv${family} address: "${startText}"`);
    const end = addressOf(endText, family);
    if (end === null) throw bad(`not an IPv${family} address: "${endText}"`);
    if (end < start) throw bad(`the range ends (${endText}) before it starts (${startText})`);
    if (family === 4 && lastFamily === 6) throw bad('an IPv4 row after the IPv6 rows');
    if (family !== lastFamily) lastEnd = null;
    if (lastEnd !== null && start <= lastEnd) {
      throw bad(`the range starting ${startText} is not after the previous row's (rows must ascend without overlap)`);
    }

    if (continentText !== UNKNOWN && !CONTINENTS.has(continentText)) throw bad(`"${continentText}" is not a continent code`);
    if (!COUNTRY.test(country)) throw bad(`"${country}" is not a country code`);
    const known = country !== UNKNOWN;

    let latitude: number | null = null;
    let longitude: number | null = null;
    if (latitudeText !== '' || longitudeText !== '') {
      if (latitudeText === '' || longitudeText === '') throw bad('one coordinate without the other');
      const lat = coordinateOf(latitudeText, 90, 'latitude');
      if (typeof lat === 'string') throw bad(lat);
      const lon = coordinateOf(longitudeText, 180, 'longitude');
      if (typeof lon === 'string') throw bad(lon);
      latitude = lat;
      longitude = lon;
      // DB-IP writes 0,0 on its ZZ rows: no position, not a point in the Gulf of Guinea.
      if (!known && latitude === 0 && longitude === 0) latitude = longitude = null;
    }

    lastFamily = family;
    lastEnd = end;
    if (family === 4) tally.ipv4Rows++;
    else tally.ipv6Rows++;
    yield {
      family,
      start,
      end,
      continent: continentText === UNKNOWN ? null : continentText,
      country_code: known ? country : null,
      region: region === '' ? null : region,
      city: city === '' ? null : city,
      latitude,
      longitude,
    };
  }
  if (tally.ipv4Rows + tally.ipv6Rows === 0) throw new SourceFormatError(file, 0, 'no rows');
}
