/**
 * The builder's documented location rules: the district split of DB-IP place names, the accuracy
 * radius estimate and the anycast prefix reader.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countryRadiusKm, estimateRadiusKm, radiusClass, type RadiusContext } from '../../src/tables/build/accuracyRadius.js';
import { PlaceNames, trailingGroup } from '../../src/tables/build/placeNames.js';
import { cidrBounds, loadAnycastPrefixes } from '../../src/tables/sources/anycastPrefixes.js';
import { countryAreaKm2 } from '../../src/tables/sources/countries.js';

describe('district split of place names', () => {
  it('finds the balanced group that ends a name', () => {
    expect(trailingGroup('Frankfurt am Main (Innenstadt I)')).toEqual(['Frankfurt am Main', 'Innenstadt I']);
    expect(trailingGroup('Zurich (Zurich (Kreis 11) / Oerlikon)')).toEqual(['Zurich', 'Zurich (Kreis 11) / Oerlikon']);
    expect(trailingGroup('Seoul (Euljiro 2(i)-ga)')).toEqual(['Seoul', 'Euljiro 2(i)-ga']);
    expect(trailingGroup('Santa Rosa (Real Tulipanes) [Fraccionamiento]')).toBeNull();
    expect(trailingGroup('Berlin')).toBeNull();
    expect(trailingGroup('(Mitte)')).toBeNull();
    expect(trailingGroup('Broken (name))')).toBeNull();
  });

  const names = new PlaceNames();
  for (const [region, city] of [
    ['Hesse', 'Frankfurt am Main'],
    ['Hesse', 'Frankfurt am Main (Innenstadt I)'],
    ['Brandenburg', 'Frankfurt (Oder)'],
    ['Hesse', 'Biebergemund (Rossbach)'],
    ['Hesse', 'Biebergemund (Wirtheim)'],
    ['Bavaria', 'Moosinning (Eichenried)'],
  ] as const) {
    names.observe('DE', region, city);
  }

  it('splits where the source shows the base as a city, or with several parts', () => {
    expect(names.split('DE', 'Hesse', 'Frankfurt am Main (Innenstadt I)')).toEqual({ city: 'Frankfurt am Main', district: 'Innenstadt I' });
    expect(names.split('DE', 'Hesse', 'Biebergemund (Rossbach)')).toEqual({ city: 'Biebergemund', district: 'Rossbach' });
  });

  it('keeps official names with a parenthesis, and single unconfirmed parts, whole', () => {
    expect(names.split('DE', 'Brandenburg', 'Frankfurt (Oder)')).toEqual({ city: 'Frankfurt (Oder)', district: null });
    expect(names.split('DE', 'Bavaria', 'Moosinning (Eichenried)')).toEqual({ city: 'Moosinning (Eichenried)', district: null });
    expect(names.split('DE', 'Hesse', 'Frankfurt am Main')).toEqual({ city: 'Frankfurt am Main', district: null });
  });

  it('looks within the same country and region only', () => {
    expect(names.split('DE', 'Bavaria', 'Frankfurt am Main (Innenstadt I)')).toEqual({
      city: 'Frankfurt am Main (Innenstadt I)',
      district: null,
    });
    expect(names.split('AT', 'Hesse', 'Biebergemund (Rossbach)')).toEqual({ city: 'Biebergemund (Rossbach)', district: null });
  });
});

describe('accuracy radius estimate', () => {
  const context = (over: Partial<RadiusContext> = {}): RadiusContext => ({
    family: 4,
    rowSize: 256,
    anycast: false,
    countryAreaKm2,
    ...over,
  });
  const place = { city: 'Berlin', region: 'Berlin', country_code: 'DE', latitude: 52.5, accuracy_radius_km: null };

  it('follows what the row knows', () => {
    expect(estimateRadiusKm(place, context())).toBe(50);
    expect(estimateRadiusKm(place, context({ family: 6 }))).toBe(100);
    expect(estimateRadiusKm({ ...place, country_code: 'US' }, context({ rowSize: 2 ** 24 }))).toBe(450);
    expect(estimateRadiusKm(place, context({ rowSize: 2 ** 24 }))).toBe(countryRadiusKm('DE', countryAreaKm2));
    expect(estimateRadiusKm(place, context({ family: 6, rowSize: 2 ** 40 }))).toBe(countryRadiusKm('DE', countryAreaKm2));
    expect(estimateRadiusKm(place, context({ family: 6, rowSize: 2 ** 40 - 1 }))).toBe(100);
    expect(estimateRadiusKm(place, context({ rowSize: 2 ** 24 - 1 }))).toBe(50);
    expect(estimateRadiusKm({ ...place, city: null }, context())).toBe(200);
    expect(estimateRadiusKm({ ...place, city: null, region: null }, context())).toBe(countryRadiusKm('DE', countryAreaKm2));
    expect(estimateRadiusKm({ ...place, city: null, region: null, country_code: null }, context())).toBeNull();
    expect(estimateRadiusKm({ ...place, latitude: null }, context())).toBeNull();
  });

  it('gives anycast blocks no radius, even where the source states one', () => {
    expect(estimateRadiusKm(place, context({ anycast: true }))).toBeNull();
    expect(estimateRadiusKm({ ...place, accuracy_radius_km: 20 }, context({ anycast: true }))).toBeNull();
    expect(radiusClass(place, context({ anycast: true }))).toBe('anycast');
  });

  it('keeps a radius the source states', () => {
    expect(estimateRadiusKm({ ...place, accuracy_radius_km: 20 }, context())).toBe(20);
  });

  it('never answers a city or region farther off than the country allows', () => {
    const nl = countryRadiusKm('NL', countryAreaKm2)!;
    expect(nl).toBeGreaterThan(50);
    expect(nl).toBeLessThan(200);
    expect(estimateRadiusKm({ ...place, country_code: 'NL' }, context({ rowSize: 2 ** 30 }))).toBe(nl);
    expect(estimateRadiusKm({ ...place, city: null, country_code: 'NL' }, context())).toBe(nl);
    expect(countryRadiusKm('MC', countryAreaKm2)).toBe(50);
    expect(countryRadiusKm('RU', countryAreaKm2)).toBe(2333);
  });
});

describe('anycast prefixes file', () => {
  const write = (text: string): string => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-anycast-')), 'anycast.csv');
    fs.writeFileSync(file, text);
    return file;
  };

  it('reads the curated file: both families, sorted, every row sourced', () => {
    const prefixes = loadAnycastPrefixes(path.join('data', 'curated', 'anycast-prefixes.csv'));
    expect(prefixes[4].length).toBeGreaterThan(10);
    expect(prefixes[6].length).toBeGreaterThan(5);
    expect(prefixes[4].find((p) => p.start === 0x08080800n)).toMatchObject({ end: 0x080808ffn, operator: 'Google Public DNS' });
  });

  it('refuses malformed, misaligned and overlapping blocks', () => {
    expect(() => cidrBounds('8.8.8.0/33', 'x')).toThrow(/not a CIDR block/);
    expect(() => cidrBounds('8.8.8.0', 'x')).toThrow(/not a CIDR block/);
    expect(() => cidrBounds('8.8.8.1/24', 'x')).toThrow(/host bits/);
    expect(() => cidrBounds('2001:db8::/3x', 'x')).toThrow(/not a CIDR block/);
    expect(cidrBounds('2001:db8::/32', 'x')).toEqual({
      family: 6,
      start: 0x20010db8n << 96n,
      end: (0x20010db8n << 96n) + (1n << 96n) - 1n,
    });
    expect(() => loadAnycastPrefixes(write('prefix,operator,source\n8.8.8.0/24,A,s\n8.8.0.0/16,B,s\n'))).toThrow(/overlap/);
    expect(() => loadAnycastPrefixes(write('prefix,operator,source\n8.8.8.0/24,A,\n'))).toThrow(/row 2 names no source/);
  });
});
