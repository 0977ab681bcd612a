/** What the tables believe with registrations and routes: nothing outside registered space, the registry's country where no route announces. */
import { describe, expect, it } from 'vitest';
import { believedLocations, believedNetworks } from '../../src/tables/build/believedPlaces.js';
import type { LocationSource } from '../../src/tables/build/ipTableBuilder.js';
import type { RegisteredBlock } from '../../src/tables/build/publisherFiles.js';
import type { AsnRange } from '../../src/tables/sources/asnCsv.js';
import type { LocationFields } from '../../src/tables/sources/locationRecord.js';

const ip = (text: string) => BigInt(text.split('.').reduce((n, octet) => n * 256 + Number(octet), 0));
const place = (city: string, country = 'FR'): LocationFields => ({
  country_code: country,
  region: null,
  city,
  district: null,
  postal_code: null,
  latitude: 1,
  longitude: 2,
  accuracy_radius_km: null,
  timezone: null,
});

// the source places 10.0.0.0–10.0.3.255 in Paris and 10.0.4.0–10.0.7.255 in "La Reunion" (a French village)
const records = [place('Paris'), place('La Reunion')];
const source: LocationSource = {
  walk: (family, visit) => {
    if (family !== 4) return;
    visit(ip('10.0.0.0'), ip('10.0.3.255'), 0);
    visit(ip('10.0.4.0'), ip('10.0.7.255'), 1);
  },
  record: (_family, id) => records[id],
  splitsCityNames: false,
};
// 10.0.0.0/23 is registered in FR, 10.0.4.0/22 in RE; 10.0.2.0/23 is registered to nobody
const registered: RegisteredBlock[] = [
  { start: ip('10.0.0.0'), end: ip('10.0.1.255'), country_code: 'FR', registry: 'ripencc' },
  { start: ip('10.0.4.0'), end: ip('10.0.7.255'), country_code: 'RE', registry: 'ripencc' },
];
// routes: 10.0.0.0/24 (inside FR), 10.0.2.0/24 (unregistered: a leak), 10.0.6.0/24 (inside RE)
const routes: AsnRange[] = [
  { start: ip('10.0.0.0'), end: ip('10.0.0.255'), asn: 64500, organization: 'A' },
  { start: ip('10.0.2.0'), end: ip('10.0.2.255'), asn: 64501, organization: 'Leak' },
  { start: ip('10.0.6.0'), end: ip('10.0.6.255'), asn: 64502, organization: 'B' },
];

describe('believedLocations', () => {
  it('keeps announced places, gives unannounced registered space its country, and drops unregistered space', () => {
    const counts = {
      4: { unregistered: 0, unannounced: 0, namedAfterRegistration: 0 },
      6: { unregistered: 0, unannounced: 0, namedAfterRegistration: 0 },
    };
    const believed = believedLocations(source, { 4: registered, 6: [] }, { 4: routes, 6: [] }, counts, (name) =>
      name === 'Reunion' ? 'RE' : null,
    );
    const seen: [string, string, string | null, string | null][] = [];
    believed.walk(4, (start, end, record) => {
      const fields = believed.record(4, record);
      seen.push([start.toString(), end.toString(), fields.country_code, fields.city]);
    });
    expect(seen).toEqual([
      [ip('10.0.0.0').toString(), ip('10.0.0.255').toString(), 'FR', 'Paris'],
      [ip('10.0.1.0').toString(), ip('10.0.1.255').toString(), 'FR', null],
      [ip('10.0.4.0').toString(), ip('10.0.5.255').toString(), 'RE', null],
      // the village of "La Reunion", France, in space registered to and announced in Réunion: the name collision
      [ip('10.0.6.0').toString(), ip('10.0.6.255').toString(), 'RE', null],
      [ip('10.0.7.0').toString(), ip('10.0.7.255').toString(), 'RE', null],
    ]);
    expect(counts[4]).toEqual({ unregistered: 512, unannounced: 256 + 512 + 256, namedAfterRegistration: 256 });
  });

  it('leaves a place registered elsewhere alone when it does not bear the registration country name', () => {
    const counts = {
      4: { unregistered: 0, unannounced: 0, namedAfterRegistration: 0 },
      6: { unregistered: 0, unannounced: 0, namedAfterRegistration: 0 },
    };
    const believed = believedLocations(source, { 4: registered, 6: [] }, { 4: routes, 6: [] }, counts, () => null);
    const cities: (string | null)[] = [];
    believed.walk(4, (_start, _end, record) => cities.push(believed.record(4, record).city));
    expect(cities).toContain('La Reunion');
    expect(counts[4].namedAfterRegistration).toBe(0);
  });
});

describe('believedNetworks', () => {
  it('clips routes to registered space', () => {
    expect(believedNetworks(routes, registered, 4).map((r) => r.asn)).toEqual([64500, 64502]);
  });

  it("keeps what the source says of each route's AS", () => {
    const named = routes.map((r, i) => ({
      ...r,
      asName: `AS-NAME-${i}`,
      organizationId: `ORG-${i}`,
      holding: i === 0 ? 'Holding Ltd' : null,
    }));
    const clipped = believedNetworks(named, registered, 4);
    expect(clipped.map(({ asn, asName, holding }) => ({ asn, asName, holding }))).toEqual(
      clipped.map(({ asn }) => {
        const source = named.find((r) => r.asn === asn)!;
        return { asn, asName: source.asName, holding: source.holding };
      }),
    );
    expect(clipped[0].asName).toMatch(/^AS-NAME-/);
  });
});
