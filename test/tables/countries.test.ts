import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/tables/sources/csv.js';
import {
  countryAreaKm2,
  countryCodeOfName,
  loadCountryFacts,
  type CountryFacts,
} from '../../src/tables/sources/countries.js';

const require = createRequire(import.meta.url);
const ouiData = require('oui-data') as Record<string, string>;

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

  it('marks exactly the 27 EU members of eu-countries.csv as is_eu', () => {
    const csv = parseCsv(readFileSync(new URL('../../data/curated/eu-countries.csv', import.meta.url), 'utf8'));
    const listed = csv.map((r) => r.country_code).sort();
    const eu = [...facts.values()].filter((c) => c.is_eu).map((c) => c.code).sort();
    expect(eu).toHaveLength(27);
    expect(eu).toEqual(listed);
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
    expect(facts.get('XK')!.calling_code).toBe('+383'); // the one world-countries also gives
    expect(facts.get('DO')!.calling_code).toBe('+1809'); // several codes: the first listed
    expect(facts.get('XK')!.tld).toBeNull(); // .xk is not delegated
    expect(facts.get('CH')!.currency).toEqual({ code: 'CHF', symbol: 'CHF' });
    expect(facts.get('CH')!.languages).toEqual(['German', 'French', 'Italian']);
  });

  it('gives the area of a country for radius estimates', () => {
    expect(countryAreaKm2('DE')).toBeGreaterThan(300_000);
    expect(countryAreaKm2('de')).toBe(countryAreaKm2('DE'));
    expect(countryAreaKm2('ZZ')).toBeNull();
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
