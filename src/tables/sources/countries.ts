/**
 * Country facts for SPEC 2.2 (location.continent*, location.country*, location.is_eu and the paid
 * country_info object) and the country-name lookup the MAC table needs for oui-data's last lines.
 *
 * Runs only at table build time. Sources, all installed from npm:
 * - countries-list (annexare/Countries, MIT): English name, continent, calling codes, currencies
 *   (ISO 4217 codes and CLDR symbols), languages (ISO 639-1 with English names).
 * - world-countries (mledoze/countries, ODbL): ccTLDs, calling codes (IDD root + suffixes), common
 *   and official names and alternative spellings (for countryCodeOfName), area (for radius estimates).
 * - data/curated/eu-countries.csv (ours, from the EU's own list of member states): is_eu.
 *
 * Rules where the sources offer several values or disagree (documented in data/curated/README.md):
 * - name, continent, continent_code: countries-list (its continent table: AF, AN, AS, EU, NA, OC, SA).
 * - calling_code: "+" and countries-list's calling code. When countries-list lists several codes for
 *   a country, the one world-countries gives as its single IDD code is taken if it is among them
 *   (Kosovo: +383), else the first listed (Dominican Republic: +1809).
 * - tld: the first ccTLD world-countries lists (".de"); null when it lists none, and null for Kosovo,
 *   whose ".xk" in world-countries is not delegated in the IANA root zone.
 * - currency: the first currency countries-list lists, with countries-list's symbol for it (CLDR narrow
 *   symbol; the ISO code itself where CLDR has no distinct one, e.g. "CHF"). countries-list, not
 *   world-countries, because world-countries still lists withdrawn currencies (Bulgaria BGN after the
 *   euro changeover, Sierra Leone SLL, Curaçao ANG) and lists several currencies alphabetically
 *   (Zimbabwe: BWP first).
 * - languages: countries-list's languages in its order, as English names ("German").
 * - is_eu: the country code is in eu-countries.csv.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { continents, countries as clCountries, languages as clLanguages } from 'countries-list';
import type { ICountry, TContinentCode, TCountryCode, TCurrencyCode, TLanguageCode } from 'countries-list';
import { currencies as clCurrencies } from 'countries-list/currencies';
import { parseCsv } from './csv.js';
import type { CountryFacts } from '../format/tableMeta.js';

export type { CountryFacts };

/** The fields of a world-countries record this module reads. */
interface WorldCountry {
  cca2: string;
  cca3: string;
  name: { common: string; official: string };
  altSpellings: string[];
  tld: string[];
  idd: { root: string; suffixes: string[] };
  area: number;
}

const require = createRequire(import.meta.url);
// world-countries' ESM entry re-exports a JSON file, which Node 20 cannot import without an import
// attribute; its JSON data file is read directly instead.
const worldCountries = require('world-countries/countries.json') as WorldCountry[];
const worldByCode = new Map<string, WorldCountry>(worldCountries.map((c) => [c.cca2, c]));

/** Default location of the EU member list, relative to this file (src/ or dist/ alike). */
export const EU_COUNTRIES_CSV = fileURLToPath(new URL('../../../data/curated/eu-countries.csv', import.meta.url));

/** Reads data/curated/eu-countries.csv (country_code,name,source) into a set of alpha-2 codes. */
export function loadEuMembers(csvPath: string = EU_COUNTRIES_CSV): Set<string> {
  const rows = parseCsv(readFileSync(csvPath, 'utf8'));
  const codes = new Set<string>();
  for (const row of rows) {
    const code = row.country_code;
    if (!/^[A-Z]{2}$/.test(code ?? '')) throw new Error(`${csvPath}: bad country_code "${code}"`);
    codes.add(code);
  }
  return codes;
}

/** ccTLDs world-countries lists that are not delegated in the root zone (https://www.iana.org/domains/root/db). */
const UNDELEGATED_TLDS: ReadonlySet<string> = new Set(['.xk']);

function tldOf(world: WorldCountry | undefined): string | null {
  const tld = world?.tld.find((t) => !UNDELEGATED_TLDS.has(t));
  return tld ?? null;
}

function callingCode(code: string, country: ICountry): string | null {
  const phones = country.phone.map((p) => `+${p}`);
  if (phones.length === 0) return null;
  if (phones.length === 1) return phones[0];
  const idd = worldByCode.get(code)?.idd;
  if (idd && idd.root && idd.suffixes.length === 1) {
    const single = idd.root + idd.suffixes[0];
    if (phones.includes(single)) return single;
  }
  return phones[0];
}

function currencyOf(country: ICountry): { code: string | null; symbol: string | null } {
  const code = country.currency[0];
  if (!code) return { code: null, symbol: null };
  const symbol = clCurrencies[code as TCurrencyCode]?.symbol ?? null;
  return { code, symbol };
}

function languageNames(country: ICountry): string[] {
  const names: string[] = [];
  for (const lang of country.languages) {
    const name = clLanguages[lang as TLanguageCode]?.name;
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Facts of every country countries-list knows (ISO 3166-1 alpha-2 codes plus the user-assigned XK
 * and the exceptionally reserved AC/TA it carries), keyed by alpha-2 code.
 */
export function loadCountryFacts(euCsvPath: string = EU_COUNTRIES_CSV): Map<string, CountryFacts> {
  const eu = loadEuMembers(euCsvPath);
  const facts = new Map<string, CountryFacts>();
  for (const code of Object.keys(clCountries).sort()) {
    const country = clCountries[code as TCountryCode];
    const world = worldByCode.get(code);
    const continentCode = country.continent as TContinentCode;
    facts.set(code, {
      code,
      name: country.name,
      continent: continents[continentCode],
      continent_code: continentCode,
      is_eu: eu.has(code),
      calling_code: callingCode(code, country),
      tld: tldOf(world),
      currency: currencyOf(country),
      languages: languageNames(country),
    });
  }
  for (const code of eu) {
    if (!facts.has(code)) throw new Error(`eu-countries.csv names ${code}, which countries-list does not know`);
  }
  return facts;
}

/** Land area in km² from world-countries, or null when unknown. */
export function countryAreaKm2(code: string): number | null {
  const area = worldByCode.get(code.toUpperCase())?.area;
  return typeof area === 'number' && area > 0 ? area : null;
}

/**
 * Spellings of country names used by the IEEE registry (oui-data takes them from Unicode CLDR's
 * English short names) that world-countries' names and alternative spellings do not contain.
 * Each was checked against the CLDR English name of the territory.
 */
const CLDR_ALIASES: Readonly<Record<string, string>> = {
  'Hong Kong SAR China': 'HK',
  'Macao SAR China': 'MO',
  'Myanmar (Burma)': 'MM',
  'Bosnia & Herzegovina': 'BA',
  'U.S. Virgin Islands': 'VI',
  'Türkiye': 'TR',
  'Czechia': 'CZ',
  'Congo - Kinshasa': 'CD',
  'Congo - Brazzaville': 'CG',
  'Côte d’Ivoire': 'CI',
  'St. Kitts & Nevis': 'KN',
  'St. Lucia': 'LC',
  'St. Vincent & Grenadines': 'VC',
  'Antigua & Barbuda': 'AG',
  'Trinidad & Tobago': 'TT',
  'São Tomé & Príncipe': 'ST',
  'Turks & Caicos Islands': 'TC',
  'Heard & McDonald Islands': 'HM',
  'St. Pierre & Miquelon': 'PM',
  'Wallis & Futuna': 'WF',
  'Svalbard & Jan Mayen': 'SJ',
  'St. Helena': 'SH',
  'St. Barthélemy': 'BL',
  'St. Martin': 'MF',
  'Palestinian Territories': 'PS',
  'U.S. Outlying Islands': 'UM',
  'South Georgia & South Sandwich Islands': 'GS',
};

function normalizeName(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en');
}

function buildNameIndex(): Map<string, string> {
  const index = new Map<string, string>();
  const ambiguous = new Set<string>();
  const add = (name: string, code: string): void => {
    const key = normalizeName(name);
    if (key === '' || ambiguous.has(key)) return;
    const known = index.get(key);
    if (known && known !== code) {
      // two countries claim this spelling: never guess, drop it
      index.delete(key);
      ambiguous.add(key);
      return;
    }
    index.set(key, code);
  };
  for (const c of worldCountries) {
    add(c.name.common, c.cca2);
    add(c.name.official, c.cca2);
    for (const alt of c.altSpellings) {
      // altSpellings also carry bare codes ("DE", "UK"); a short all-capital token is a code, not a
      // name, and such a token in free text (a US state, a province) must not turn into a country
      if (/^[A-Z]{2,3}$/.test(alt)) continue;
      add(alt, c.cca2);
    }
  }
  for (const [name, code] of Object.entries(CLDR_ALIASES)) {
    const key = normalizeName(name);
    const known = index.get(key);
    if (known && known !== code) throw new Error(`alias "${name}" → ${code} contradicts world-countries (${known})`);
    ambiguous.delete(key);
    index.set(key, code);
  }
  return index;
}

let nameIndex: Map<string, string> | null = null;

/**
 * ISO 3166-1 alpha-2 code of a country name as it appears on the last line of an oui-data value
 * ("United States", "Türkiye", "Hong Kong SAR China", "JAPAN"), case-insensitively; null for a line
 * that is not exactly a country name (an address line such as "RICHARDSON TX 75081", "Private").
 */
export function countryCodeOfName(name: string): string | null {
  nameIndex ??= buildNameIndex();
  return nameIndex.get(normalizeName(name)) ?? null;
}
