/**
 * Country facts for SPEC 2.2 (location.continent*, location.country*, location.is_eu and the paid
 * country_info object) and the country-name lookup the MAC table needs for oui-data's last lines.
 *
 * Runs only at table build time. Sources, all installed from npm:
 * - countries-list (annexare/Countries, MIT): English name, continent, currencies (ISO 4217 codes
 *   and CLDR symbols), languages (ISO 639-1 with English names).
 * - libphonenumber-js (Google libphonenumber's metadata, MIT/Apache-2.0): country calling codes.
 * - world-countries (mledoze/countries, ODbL): ccTLDs, IDD prefixes, common and official names and
 *   alternative spellings (for countryCodeOfName), area (for radius estimates).
 * - data/curated/eu-countries.csv (ours: the EU's member states and the territories with codes of their own in it): is_eu.
 * - data/curated/continents.csv (ours, MaxMind's convention): the continent of the countries that
 *   lie on two continents or whose continent is a matter of convention.
 *
 * Rules where the sources offer several values or disagree (documented in data/curated/README.md):
 * - name: countries-list.
 * - continent, continent_code: continents.csv where it has the country, else countries-list (its
 *   continent table: AF, AN, AS, EU, NA, OC, SA). MaxMind GeoIP2/GeoLite2 is the convention clients
 *   compare with: Russia in Europe (countries-list: Asia), Cyprus in Europe, Turkey, Georgia,
 *   Armenia, Azerbaijan and Kazakhstan in Asia, Egypt in Africa, Christmas Island in Oceania.
 * - calling_code: the country calling code from libphonenumber-js ("+1" for every NANP territory,
 *   "+39" for the Vatican, whose numbers are in Italy's plan, "+47" for Svalbard, "+599" for Curaçao
 *   and Bonaire). For the few territories libphonenumber has no entry for (uninhabited or without a
 *   numbering plan of their own), world-countries' IDD (root and its one suffix) when countries-list
 *   gives the same code (Bouvet Island +47, Pitcairn +64), else null (Antarctica, Heard Island,
 *   U.S. Minor Outlying Islands).
 * - tld: the first ccTLD world-countries lists (".de"); null when it lists none, and null for Kosovo,
 *   whose ".xk" in world-countries is not delegated in the IANA root zone.
 * - currency: the first currency countries-list lists, with countries-list's symbol for it (CLDR narrow
 *   symbol; the ISO code itself where CLDR has no distinct one, e.g. "CHF"). countries-list, not
 *   world-countries, because world-countries still lists withdrawn currencies (Bulgaria BGN after the
 *   euro changeover, Sierra Leone SLL, Curaçao ANG) and lists several currencies alphabetically
 *   (Zimbabwe: BWP first).
 * - languages: countries-list's languages in its order (the main language first; world-countries
 *   orders them by code and names Austria's "Austro-Bavarian German"), as English names, with the
 *   corrections of LANGUAGE_CODE_FIXES and LANGUAGE_NAME_FIXES below.
 * - is_eu: the country code is in eu-countries.csv.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { continents, countries as clCountries, languages as clLanguages } from 'countries-list';
import type { ICountry, TContinentCode, TCountryCode, TCurrencyCode, TLanguageCode } from 'countries-list';
import { currencies as clCurrencies } from 'countries-list/currencies';
import { getCountryCallingCode, isSupportedCountry } from 'libphonenumber-js';
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
const EU_COUNTRIES_CSV = fileURLToPath(new URL('../../../data/curated/eu-countries.csv', import.meta.url));

/** Reads data/curated/eu-countries.csv (country_code,name,source) into a set of alpha-2 codes. */
function loadEuMembers(csvPath: string = EU_COUNTRIES_CSV): Set<string> {
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
  if (isSupportedCountry(code)) return `+${getCountryCallingCode(code)}`;
  const idd = worldByCode.get(code)?.idd;
  if (!idd?.root || idd.suffixes.length !== 1) return null;
  const full = idd.root + idd.suffixes[0];
  return country.phone.some((p) => `+${p}` === full) ? full : null;
}

/** Default location of the continent conventions, relative to this file (src/ or dist/ alike). */
const CONTINENTS_CSV = fileURLToPath(new URL('../../../data/curated/continents.csv', import.meta.url));

/** Reads data/curated/continents.csv (country_code,continent_code,name,source). */
export function loadContinentConventions(csvPath: string = CONTINENTS_CSV): Map<string, TContinentCode> {
  const rows = parseCsv(readFileSync(csvPath, 'utf8'));
  const conventions = new Map<string, TContinentCode>();
  rows.forEach((row, i) => {
    const where = `${csvPath}: line ${i + 2}`;
    if (!/^[A-Z]{2}$/.test(row.country_code ?? '')) throw new Error(`${where}: bad country_code "${row.country_code}"`);
    if (!((row.continent_code ?? '') in continents)) throw new Error(`${where}: unknown continent_code "${row.continent_code}"`);
    if (!row.source) throw new Error(`${where}: names no source`);
    if (conventions.has(row.country_code)) throw new Error(`${where}: ${row.country_code} appears twice`);
    conventions.set(row.country_code, row.continent_code as TContinentCode);
  });
  return conventions;
}

/**
 * Language codes countries-list uses for another language: Papiamento has no ISO 639-1 code, and
 * countries-list gives Aruba and Curaçao "pa" (Punjabi) for it. ISO 639-3 "pap" is Papiamento
 * (https://iso639-3.sil.org/code/pap), an official language of both (Aruba's Landsverordening
 * officiële talen of 2003; the Netherlands Antilles' of 2007, in force in Curaçao).
 */
const LANGUAGE_CODE_FIXES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AW: { pa: 'pap' },
  CW: { pa: 'pap' },
};

/**
 * English names where countries-list's is none of the names ISO 639-2 gives the language
 * (https://www.loc.gov/standards/iso639-2/php/code_list.php): a people, a country, a French name, two
 * names joined by a slash; and the names of codes countries-list lacks. The name is CLDR's English
 * name (common/main/en.xml, what Intl.DisplayNames shows). countries-list's names that ISO 639-2
 * gives stay, where CLDR spells them otherwise: "Bengali", "Greenlandic", "Chichewa", "Maori",
 * "Sinhalese", "Haitian".
 */
const LANGUAGE_NAME_FIXES: Readonly<Record<string, string>> = {
  ff: 'Fula', // countries-list: "Peul" (French)
  km: 'Khmer', // "Cambodian"
  lo: 'Lao', // "Laotian"
  na: 'Nauru', // "Nauruan"
  pap: 'Papiamento', // not in countries-list
  rn: 'Rundi', // "Kirundi"
  rw: 'Kinyarwanda', // "Rwandi"
  so: 'Somali', // "Somalia"
  tl: 'Filipino', // "Tagalog / Filipino"; the Philippines' official language
  to: 'Tongan', // "Tonga", which is also another language (ISO 639-2 "tog", Tonga (Nyasa))
};

function currencyOf(country: ICountry): { code: string | null; symbol: string | null } {
  const code = country.currency[0];
  if (!code) return { code: null, symbol: null };
  const symbol = clCurrencies[code as TCurrencyCode]?.symbol ?? null;
  return { code, symbol };
}

/** The languages of a country as ISO 639 codes (ISO 639-1, or 639-3 where it has none) and English names. */
export function languagesOf(code: string): { code: string; name: string }[] {
  const country = clCountries[code as TCountryCode];
  const languages: { code: string; name: string }[] = [];
  for (const listed of country?.languages ?? []) {
    const lang = LANGUAGE_CODE_FIXES[code]?.[listed] ?? listed;
    const name = LANGUAGE_NAME_FIXES[lang] ?? clLanguages[lang as TLanguageCode]?.name;
    if (name && !languages.some((l) => l.name === name)) languages.push({ code: lang, name });
  }
  return languages;
}

/**
 * Facts of every country countries-list knows (ISO 3166-1 alpha-2 codes plus the user-assigned XK
 * and the exceptionally reserved AC/TA it carries), keyed by alpha-2 code.
 */
export function loadCountryFacts(
  euCsvPath: string = EU_COUNTRIES_CSV,
  continentsCsvPath: string = CONTINENTS_CSV,
): Map<string, CountryFacts> {
  const eu = loadEuMembers(euCsvPath);
  const conventions = loadContinentConventions(continentsCsvPath);
  const facts = new Map<string, CountryFacts>();
  for (const code of Object.keys(clCountries).sort()) {
    const country = clCountries[code as TCountryCode];
    const world = worldByCode.get(code);
    const continentCode = conventions.get(code) ?? (country.continent as TContinentCode);
    facts.set(code, {
      code,
      name: country.name,
      continent: continents[continentCode],
      continent_code: continentCode,
      is_eu: eu.has(code),
      calling_code: callingCode(code, country),
      tld: tldOf(world),
      currency: currencyOf(country),
      languages: languagesOf(code).map((l) => l.name),
    });
  }
  for (const code of eu) {
    if (!facts.has(code)) throw new Error(`eu-countries.csv names ${code}, which countries-list does not know`);
  }
  for (const code of conventions.keys()) {
    if (!facts.has(code)) throw new Error(`continents.csv names ${code}, which countries-list does not know`);
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
  Türkiye: 'TR',
  Czechia: 'CZ',
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
