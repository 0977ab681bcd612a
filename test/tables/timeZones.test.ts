import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { zoneTime } from '../../src/records/zoneClock.js';
import { singleClockZone, timeZoneFinder, tzdbVersion, zoneCountry } from '../../src/tables/sources/timeZones.js';

const zoneAt = timeZoneFinder(new Date('2026-11-22T12:00:00Z'));

describe('timeZoneFinder', () => {
  it('gives each capital its own IANA zone, not the zone geo-tz merged it into since 1970', () => {
    // city centres (OpenStreetMap) and the zone tzdb's zone.tab lists for the country
    const cases: [string, number, number, string, string][] = [
      ['Oslo', 59.9133, 10.739, 'NO', 'Europe/Oslo'],
      ['Nairobi', -1.2864, 36.8172, 'KE', 'Africa/Nairobi'],
      ['Reykjavik', 64.1466, -21.9426, 'IS', 'Atlantic/Reykjavik'],
      ['Dublin', 53.3498, -6.2603, 'IE', 'Europe/Dublin'],
      ['Amsterdam', 52.3676, 4.9041, 'NL', 'Europe/Amsterdam'],
      ['Hanoi', 21.0285, 105.8542, 'VN', 'Asia/Ho_Chi_Minh'],
      ['La Paz', -16.4897, -68.1193, 'BO', 'America/La_Paz'],
      ['Stockholm', 59.3293, 18.0686, 'SE', 'Europe/Stockholm'],
      ['Copenhagen', 55.6761, 12.5683, 'DK', 'Europe/Copenhagen'],
      ['Bratislava', 48.1486, 17.1077, 'SK', 'Europe/Bratislava'],
      ['Kuala Lumpur', 3.139, 101.6869, 'MY', 'Asia/Kuala_Lumpur'],
      ['Luanda', -8.8147, 13.2302, 'AO', 'Africa/Luanda'],
      ['Berlin', 52.52, 13.405, 'DE', 'Europe/Berlin'],
      ['New York', 40.7128, -74.006, 'US', 'America/New_York'],
    ];
    for (const [city, latitude, longitude, country, zone] of cases) {
      expect(zoneAt(latitude, longitude, country), city).toBe(zone);
      expect(zoneCountry(zone), city).toBe(country);
    }
  });

  it('picks the zone of the row’s country where several zones apply at the point', () => {
    // Ürümqi: geo-tz gives Asia/Urumqi and Asia/Shanghai (both CN; the first listed is kept)
    expect(zoneAt(43.8256, 87.6168, 'CN')).toMatch(/^Asia\/(Urumqi|Shanghai)$/);
    // a point in the West Bank where geo-tz gives Asia/Jerusalem (IL) and Asia/Hebron (PS)
    expect(zoneAt(32.0, 35.1, 'IL')).toBe('Asia/Jerusalem');
    expect(zoneAt(32.0, 35.1, 'PS')).toBe('Asia/Hebron');
  });

  it('gives the country’s own zone only where it keeps the clock of the point', () => {
    // a German row whose point lies in Strasbourg: Europe/Paris keeps Germany's clock
    expect(zoneAt(48.5734, 7.7521, 'DE')).toBe('Europe/Berlin');
    // a French row in Martinique keeps the zone of its place: Paris keeps another clock
    expect(zoneAt(14.6161, -61.0588, 'FR')).toBe('America/Martinique');
    // Kosovo has no zone in tzdb: the zone of the place
    expect(zoneAt(42.6629, 21.1655, 'XK')).toBe('Europe/Belgrade');
    // Simferopol: tzdb files Europe/Simferopol under UA; a row that says RU gets Russia's zone of
    // that clock, Europe/Moscow
    expect(zoneAt(44.9521, 34.1024, 'UA')).toBe('Europe/Simferopol');
    expect(zoneAt(44.9521, 34.1024, 'RU')).toBe('Europe/Moscow');
    // at sea off Funafuti: Etc/GMT-12 becomes Tuvalu's zone of the same clock
    expect(zoneAt(-8.3, 179.5, 'TV')).toBe('Pacific/Funafuti');
    expect(zoneAt(-8.3, 179.5, null)).toBe('Etc/GMT-12');
  });

  it('answers the same for the same point and country (cache) and refuses impossible coordinates', () => {
    expect(zoneAt(59.9133, 10.739, 'NO')).toBe(zoneAt(59.9133, 10.739, 'NO'));
    expect(() => zoneAt(123, 10, 'NO')).toThrow(/123,10/);
  });

  it('names zones the runtime can compute offsets for: every zone geo-tz/all can answer', () => {
    const index = JSON.parse(
      fs.readFileSync(new URL('../../node_modules/geo-tz/data/timezones.geojson.index.json', import.meta.url), 'utf8'),
    ) as {
      timezones: string[];
    };
    // geo-tz answers points at sea with the nautical zones Etc/GMT-12 … Etc/GMT+12
    const seaZones = Array.from({ length: 25 }, (_, i) => i - 12).map((h) =>
      h === 0 ? 'Etc/GMT' : `Etc/GMT${h > 0 ? '+' : '-'}${Math.abs(h)}`,
    );
    const zones = [...index.timezones, ...seaZones];
    expect(zones.length).toBeGreaterThan(400);
    const at = Date.parse('2026-07-01T12:00:00Z');
    for (const zone of zones) expect(zoneTime(zone, at), zone).not.toBeNull();
    // each zone of the data set has its country in tzdb, but UTC
    expect(index.timezones.filter((z) => zoneCountry(z) === null)).toEqual(['Etc/UTC']);
    expect(tzdbVersion).toMatch(/^\d{4}[a-z]$/);
  });
});

describe('singleClockZone', () => {
  it("gives a one-clock country's zone and nothing for a country of several clocks", () => {
    expect(singleClockZone('RE')).toBe('Indian/Reunion');
    expect(singleClockZone('FR')).toBe('Europe/Paris');
    expect(singleClockZone('JP')).toBe('Asia/Tokyo');
    expect(singleClockZone('AU')).toBeNull();
    expect(singleClockZone('US')).toBeNull();
    expect(singleClockZone('ZZ')).toBeNull();
    expect(singleClockZone(null)).toBeNull();
  });
});
