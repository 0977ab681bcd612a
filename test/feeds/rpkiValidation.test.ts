import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseIPv4, parseIPv6 } from '../../src/address/ipAddress.js';
import {
  INVALID,
  NOT_FOUND,
  RPKI_STATES,
  rpkiStates,
  UNROUTED,
  VALID,
  validateRoute,
  type RouteValidity,
  type RpkiRanges,
  type RpkiState,
} from '../../src/feeds/rpkiValidation.js';
import { readVrps, type Ipv6Vrp, type Vrps } from '../../src/feeds/sources/rpkiVrps.js';
import { isPublicAsn, MIN_SEEN_BY_PEERS, readRisWhoisDump, type Announcement } from '../../src/tables/sources/routingTable.js';
import { linesOfFile } from '../../src/tables/sources/textLines.js';

const RPKI_CLIENT = 'test/fixtures/publishers/console.rpki-client.org/vrps.json';
const CLOUDFLARE = 'test/fixtures/publishers/rpki.cloudflare.com/rpki.json';
const RIS_IPV4 = 'test/fixtures/publishers/www.ris.ripe.net/dumps/riswhoisdump.IPv4.gz';

function address(text: string): bigint {
  if (!text.includes(':')) {
    const n = parseIPv4(text);
    if (n < 0) throw new Error(text);
    return BigInt(n);
  }
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words)) throw new Error(text);
  return words.reduce((n, w) => (n << 32n) | BigInt(w), 0n);
}

function prefix(text: string): { family: 4 | 6; start: bigint; prefixLength: number } {
  const [a, length] = text.split('/');
  return { family: a.includes(':') ? 6 : 4, start: address(a), prefixLength: Number(length) };
}

/** VRPs from `[prefix, maxLength, asn]` rows. */
function vrpsOf(rows: [string, number, number][]): Vrps {
  const v4 = rows.filter(([p]) => !p.includes(':'));
  const ipv6: Ipv6Vrp[] = rows
    .filter(([p]) => p.includes(':'))
    .map(([p, maxLength, asn]) => ({ start: prefix(p).start, prefixLength: prefix(p).prefixLength, maxLength, asn }));
  return {
    date: null,
    ipv4: {
      count: v4.length,
      start: Uint32Array.from(v4, ([p]) => Number(prefix(p).start)),
      prefixLength: Uint8Array.from(v4, ([p]) => prefix(p).prefixLength),
      maxLength: Uint8Array.from(v4, ([, m]) => m),
      asn: Uint32Array.from(v4, ([, , a]) => a),
    },
    ipv6,
  };
}

function announcement(text: string, origin: number | null, seenByPeers = 100): Announcement {
  const p = prefix(text);
  return {
    family: p.family,
    start: p.start,
    prefixLength: p.prefixLength,
    origin,
    originSet: origin === null ? [64500, 64501] : null,
    seenByPeers,
  };
}

/** The state of the range holding `text`. */
function stateAt(ranges: RpkiRanges, text: string): RpkiState {
  const a = Number(address(text));
  let low = 0;
  let high = ranges.count - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (ranges.end[mid] < a) low = mid + 1;
    else if (ranges.start[mid] > a) high = mid - 1;
    else return RPKI_STATES[ranges.state[mid]];
  }
  throw new Error(`${text} in no range`);
}

/** The ranges are sorted, disjoint, tile 0.0.0.0–255.255.255.255, and neighbours differ in state. */
function expectTiling(ranges: RpkiRanges): void {
  expect(ranges.start[0]).toBe(0);
  expect(ranges.end[ranges.count - 1]).toBe(0xffffffff);
  for (let i = 0; i < ranges.count; i++) {
    expect(ranges.start[i] <= ranges.end[i]).toBe(true);
    if (i > 0) {
      expect(ranges.start[i]).toBe(ranges.end[i - 1] + 1);
      expect(ranges.state[i]).not.toBe(ranges.state[i - 1]);
    }
  }
}

describe('validateRoute: RFC 6811 by hand, on real VRPs (rpki-client 2021-07-27)', () => {
  let vrps: Vrps;
  beforeAll(async () => {
    vrps = await readVrps(RPKI_CLIENT);
  });
  const cases: [string, string, number | null, RouteValidity][] = [
    ['a covering VRP with the origin and the length: Valid', '1.0.0.0/24', 13335, VALID],
    ['more specific than maxLength (1.0.0.0/24-24): Invalid', '1.0.0.0/25', 13335, INVALID],
    ['another origin: Invalid', '1.0.0.0/24', 15169, INVALID],
    ['two covering VRPs (1.0.4.0/22-22, 1.0.5.0/24-24), one matching: Valid', '1.0.5.0/24', 38803, VALID],
    ['covered by 1.0.4.0/22-22 only, too specific: Invalid', '1.0.6.0/24', 38803, INVALID],
    ['the /22 itself: Valid', '1.0.4.0/22', 38803, VALID],
    ['a less specific than every VRP: NotFound', '1.0.0.0/16', 13335, NOT_FOUND],
    ['no covering VRP: NotFound', '8.8.8.0/24', 15169, NOT_FOUND],
    ['an AS_SET origin ("NONE") under a VRP: Invalid', '1.0.0.0/24', null, INVALID],
    ['an AS_SET origin with no VRP: NotFound', '8.8.8.0/24', null, NOT_FOUND],
    ['IPv6, maxLength 48 above a /32 VRP: Valid', '2001:610:1::/48', 1103, VALID],
    ['IPv6, /49 past maxLength 48: Invalid', '2001:610:1:8000::/49', 1103, INVALID],
    ['IPv6, the more specific VRP of another AS matches (2001:610:240::/42-42 AS3333): Valid', '2001:610:240::/42', 3333, VALID],
    ['IPv6, AS3333 inside 2001:610::/32 but off its own /42: Invalid', '2001:610:280::/42', 3333, INVALID],
    ['IPv6, one prefix under maxLength 32 and 48 (2800:40::/32): the 48 matches', '2800:40:1::/48', 16814, VALID],
    ['IPv6, maxLength 128', '2800:38::1/128', 27808, VALID],
    ['IPv6, no VRP: NotFound', '2001:db8::/32', 64496, NOT_FOUND],
  ];
  for (const [what, route, origin, expected] of cases) {
    it(what, () => {
      expect(validateRoute(vrps, prefix(route), origin)).toBe(expected);
    });
  }
});

describe('validateRoute: real invalids of 2018 (nusenu, RIPE NCC TA) on the Cloudflare fixture', () => {
  let vrps: Vrps;
  beforeAll(async () => {
    vrps = await readVrps(CLOUDFLARE);
  });
  it('5.28.224.0/21 from AS49100 under AS31400 5.28.192.0/18-18: Invalid (another origin)', () => {
    expect(validateRoute(vrps, prefix('5.28.224.0/21'), 49100)).toBe(INVALID);
  });
  it('5.105.0.0/22 from AS43554 under its own 5.105.0.0/16-16: Invalid (too specific)', () => {
    expect(validateRoute(vrps, prefix('5.105.0.0/22'), 43554)).toBe(INVALID);
    expect(validateRoute(vrps, prefix('5.105.0.0/16'), 43554)).toBe(VALID);
  });
  it('the RIS beacon 93.175.147.0/24 from AS196615: Valid; from AS12654: Invalid', () => {
    expect(validateRoute(vrps, prefix('93.175.147.0/24'), 196615)).toBe(VALID);
    expect(validateRoute(vrps, prefix('93.175.147.0/24'), 12654)).toBe(INVALID);
  });
  it('218.103.58.0/24 inside 218.103.58.0/23-24: Valid', () => {
    expect(validateRoute(vrps, prefix('218.103.58.0/24'), 4515)).toBe(VALID);
    expect(validateRoute(vrps, prefix('218.103.59.0/25'), 4515)).toBe(INVALID);
  });
});

describe('validateRoute: AS 0', () => {
  const vrps = vrpsOf([
    ['192.0.2.0/24', 32, 0],
    ['198.51.100.0/24', 24, 0],
    ['198.51.100.0/24', 24, 64496],
  ]);
  it('an AS 0 VRP makes what it covers Invalid, whatever the origin', () => {
    expect(validateRoute(vrps, prefix('192.0.2.0/24'), 64496)).toBe(INVALID);
    expect(validateRoute(vrps, prefix('192.0.2.128/25'), 64496)).toBe(INVALID);
  });
  it('an origin of AS 0 matches nothing, not even an AS 0 VRP', () => {
    expect(validateRoute(vrps, prefix('192.0.2.0/24'), 0)).toBe(INVALID);
    expect(validateRoute(vrps, prefix('203.0.113.0/24'), 0)).toBe(NOT_FOUND);
  });
  it('an AS 0 VRP beside a real one leaves the real one in force', () => {
    expect(validateRoute(vrps, prefix('198.51.100.0/24'), 64496)).toBe(VALID);
    expect(validateRoute(vrps, prefix('198.51.100.0/24'), 64497)).toBe(INVALID);
  });
  it('no VRPs at all: NotFound', () => {
    expect(validateRoute(vrpsOf([]), prefix('192.0.2.0/24'), 64496)).toBe(NOT_FOUND);
  });
  it('a /0 VRP covers every route', () => {
    const all = vrpsOf([['0.0.0.0/0', 8, 64496]]);
    expect(validateRoute(all, prefix('10.0.0.0/8'), 64496)).toBe(VALID);
    expect(validateRoute(all, prefix('10.0.0.0/9'), 64496)).toBe(INVALID);
    expect(validateRoute(all, prefix('0.0.0.0/0'), 64496)).toBe(VALID);
  });
});

/** Seeded xorshift32. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** RFC 6811 section 2 as written: every VRP looked at. */
function bruteForce(
  rows: [bigint, number, number, number][],
  width: number,
  start: bigint,
  length: number,
  origin: number | null,
): RouteValidity {
  let covered = false;
  for (const [vStart, vLength, vMax, vAsn] of rows) {
    if (vLength > length || start >> BigInt(width - vLength) !== vStart >> BigInt(width - vLength)) continue;
    covered = true;
    if (origin !== null && origin !== 0 && vAsn === origin && length <= vMax) return VALID;
  }
  return covered ? INVALID : NOT_FOUND;
}

describe('validateRoute against a brute-force reading of RFC 6811', () => {
  for (const family of [4, 6] as const) {
    it(`agrees on 10,000 random routes over 2,000 random VRPs (IPv${family}, seeded)`, () => {
      const width = family === 4 ? 32 : 128;
      const next = random(family === 4 ? 6811 : 68116);
      // Inside one /12 (IPv4) or /44 (IPv6) so that VRPs nest and collide; lengths around the base.
      const base = family === 4 ? address('10.16.0.0') : address('2001:db8:a0::');
      const baseLength = width - 20;
      const randomPrefix = (): [bigint, number] => {
        const length = baseLength + Math.floor(next() * 13);
        const slot = BigInt(Math.floor(next() * 2 ** (length - baseLength)));
        return [base + (slot << BigInt(width - length)), length];
      };
      const asns = [0, 64496, 64497, 64498, 64499];
      const rows: [bigint, number, number, number][] = [];
      for (let i = 0; i < 2000; i++) {
        const [start, length] = randomPrefix();
        rows.push([start, length, length + Math.floor(next() * 6), asns[Math.floor(next() * asns.length)]]);
      }
      const text = (start: bigint, length: number): string => {
        if (family === 4)
          return `${Number(start >> 24n) & 255}.${Number(start >> 16n) & 255}.${Number(start >> 8n) & 255}.${Number(start) & 255}/${length}`;
        return `${start.toString(16).padStart(32, '0').match(/.{4}/g)!.join(':')}/${length}`;
      };
      const vrps = vrpsOf(rows.map(([s, l, m, a]) => [text(s, l), m, a]));
      const counts = [0, 0, 0];
      for (let i = 0; i < 10_000; i++) {
        const [start, length] = next() < 0.05 ? [base & ~((1n << BigInt(width - baseLength + 3)) - 1n), baseLength - 3] : randomPrefix();
        const origin = [null, 0, 64496, 64497, 64498, 64499, 64500][Math.floor(next() * 7)];
        const expected = bruteForce(rows, width, start, length, origin);
        const got = validateRoute(vrps, { family, start, prefixLength: length }, origin);
        if (got !== expected)
          expect([text(start, length), origin, RPKI_STATES[got]]).toEqual([text(start, length), origin, RPKI_STATES[expected]]);
        counts[got]++;
      }
      // The draw reaches every state often.
      expect(Math.min(...counts)).toBeGreaterThan(500);
    });
  }
});

describe('rpkiStates: the state of the route carrying each IPv4 address', () => {
  it('gives the most specific route its state and the covering route the rest; unrouted elsewhere', () => {
    const vrps = vrpsOf([['10.0.0.0/8', 8, 64500]]);
    const ranges = rpkiStates(vrps, [
      announcement('10.0.0.0/8', 64500),
      announcement('10.1.0.0/16', 64501), // covered by the /8 VRP, too specific and another AS
      announcement('10.2.0.0/16', 64500), // too specific for maxLength 8
      announcement('192.0.2.0/24', 64502), // no VRP
      announcement('198.51.100.0/24', 64503, MIN_SEEN_BY_PEERS - 1), // too few peers: not a route
      announcement('2001:db8::/32', 64504), // IPv6: ignored
    ]);
    expectTiling(ranges);
    expect(stateAt(ranges, '9.255.255.255')).toBe('unrouted');
    expect(stateAt(ranges, '10.0.0.0')).toBe('valid');
    expect(stateAt(ranges, '10.0.255.255')).toBe('valid');
    expect(stateAt(ranges, '10.1.0.0')).toBe('invalid');
    expect(stateAt(ranges, '10.2.255.255')).toBe('invalid');
    expect(stateAt(ranges, '10.3.0.0')).toBe('valid');
    expect(stateAt(ranges, '10.255.255.255')).toBe('valid');
    expect(stateAt(ranges, '11.0.0.0')).toBe('unrouted');
    expect(stateAt(ranges, '192.0.2.77')).toBe('not_found');
    expect(stateAt(ranges, '198.51.100.1')).toBe('unrouted');
    // 10.1/16 and 10.2/16 are both invalid and adjacent: one range.
    expect(Array.from({ length: ranges.count }, (_, i) => [ranges.start[i], ranges.end[i], RPKI_STATES[ranges.state[i]]])).toEqual([
      [0, Number(address('9.255.255.255')), 'unrouted'],
      [Number(address('10.0.0.0')), Number(address('10.0.255.255')), 'valid'],
      [Number(address('10.1.0.0')), Number(address('10.2.255.255')), 'invalid'],
      [Number(address('10.3.0.0')), Number(address('10.255.255.255')), 'valid'],
      [Number(address('11.0.0.0')), Number(address('192.0.1.255')), 'unrouted'],
      [Number(address('192.0.2.0')), Number(address('192.0.2.255')), 'not_found'],
      [Number(address('192.0.3.0')), 0xffffffff, 'unrouted'],
    ]);
  });

  it("takes the origin routingTable.ts chooses: a MOAS prefix's best-seen origin, an AS_SET as NONE, a private origin as itself", () => {
    const vrps = vrpsOf([
      ['192.0.2.0/24', 24, 64496],
      ['198.51.100.0/24', 24, 64512],
    ]);
    const ranges = rpkiStates(vrps, [
      announcement('192.0.2.0/25', 64496, 300),
      announcement('192.0.2.0/25', 64497, 30),
      announcement('192.0.2.128/25', 64497, 300),
      announcement('192.0.2.128/25', 64496, 30),
      announcement('198.51.100.0/24', null),
      announcement('203.0.113.0/24', 64512),
    ]);
    // /25s are past maxLength 24 whoever originates them.
    expect(stateAt(ranges, '192.0.2.1')).toBe('invalid');
    expect(stateAt(ranges, '192.0.2.129')).toBe('invalid');
    expect(stateAt(ranges, '198.51.100.1')).toBe('invalid');
    expect(stateAt(ranges, '203.0.113.1')).toBe('not_found');
    const valid = rpkiStates(vrpsOf([['192.0.2.0/24', 25, 64496]]), [
      announcement('192.0.2.0/25', 64496, 300),
      announcement('192.0.2.0/25', 64497, 30),
    ]);
    expect(stateAt(valid, '192.0.2.1')).toBe('valid');
  });

  it('no announcements: all of IPv4 unrouted, one range', () => {
    const ranges = rpkiStates(vrpsOf([['10.0.0.0/8', 8, 64500]]), []);
    expect([ranges.count, ranges.start[0], ranges.end[0], ranges.state[0]]).toEqual([1, 0, 0xffffffff, UNROUTED]);
  });

  it('a default route seen widely makes everything else routed (not_found here)', () => {
    const ranges = rpkiStates(vrpsOf([['10.0.0.0/8', 8, 64500]]), [announcement('0.0.0.0/0', 64511), announcement('10.0.0.0/8', 64500)]);
    expectTiling(ranges);
    expect(ranges.count).toBe(3);
    expect(stateAt(ranges, '0.0.0.0')).toBe('not_found');
    expect(stateAt(ranges, '10.9.9.9')).toBe('valid');
    expect(stateAt(ranges, '255.255.255.255')).toBe('not_found');
  });

  it('on the RIS fixture dump and the rpki-client fixture VRPs', async () => {
    const [vrps, dump] = await Promise.all([readVrps(RPKI_CLIENT), readRisWhoisDump(linesOfFile(RIS_IPV4), 4, RIS_IPV4)]);
    const ranges = rpkiStates(vrps, dump.announcements);
    expectTiling(ranges);
    expect(stateAt(ranges, '1.0.0.1')).toBe('valid'); // 1.0.0.0/24 AS13335
    expect(stateAt(ranges, '1.0.4.1')).toBe('valid'); // 1.0.4.0/22 AS38803 under 1.0.4.0/22-22
    expect(stateAt(ranges, '1.0.5.1')).toBe('valid'); // 1.0.5.0/24 AS38803 under 1.0.5.0/24-24
    expect(stateAt(ranges, '1.0.16.1')).toBe('not_found'); // AS2519, no VRP in this excerpt
    expect(stateAt(ranges, '0.0.0.1')).toBe('unrouted'); // the default routes are seen by 1–2 peers
    expect(stateAt(ranges, '12.12.96.1')).toBe('not_found'); // {32786}: an AS_SET route, no VRP
  });

  /** Against a brute-force state per address of one 1,024-address block. */
  it('agrees with a per-address brute force (most specific route, then RFC 6811)', () => {
    const base = Number(address('10.11.0.0'));
    const width = 32;
    const arbitraryPrefix = fc
      .record({ extra: fc.integer({ min: 0, max: 10 }), slot: fc.integer({ min: 0, max: 1023 }) })
      .map(({ extra, slot }) => {
        const length = 22 + extra;
        const size = 2 ** (width - length);
        return { start: base + ((slot * size) % 1024), length };
      });
    const origins = [13335, 15169, 64512, null];
    const arbitraryAnnouncement = fc.record({
      p: arbitraryPrefix,
      origin: fc.constantFrom(...origins),
      seen: fc.integer({ min: MIN_SEEN_BY_PEERS - 2, max: MIN_SEEN_BY_PEERS + 40 }),
    });
    const arbitraryVrp = fc.record({
      p: arbitraryPrefix,
      more: fc.integer({ min: 0, max: 4 }),
      asn: fc.constantFrom(0, 13335, 15169, 64512),
    });
    fc.assert(
      fc.property(fc.array(arbitraryAnnouncement, { maxLength: 30 }), fc.array(arbitraryVrp, { maxLength: 12 }), (raw, rawVrps) => {
        const announcements: Announcement[] = raw.map(({ p, origin, seen }) => ({
          family: 4,
          start: BigInt(p.start),
          prefixLength: p.length,
          origin,
          originSet: origin === null ? [13335] : null,
          seenByPeers: seen,
        }));
        const rows: [bigint, number, number, number][] = rawVrps.map(({ p, more, asn }) => [
          BigInt(p.start),
          p.length,
          Math.min(32, p.length + more),
          asn,
        ]);
        const vrps: Vrps = {
          date: null,
          ipv4: {
            count: rows.length,
            start: Uint32Array.from(rows, (r) => Number(r[0])),
            prefixLength: Uint8Array.from(rows, (r) => r[1]),
            maxLength: Uint8Array.from(rows, (r) => r[2]),
            asn: Uint32Array.from(rows, (r) => r[3]),
          },
          ipv6: [],
        };
        const ranges = rpkiStates(vrps, announcements);
        expectTiling(ranges);
        const counted = announcements.filter((a) => a.seenByPeers >= MIN_SEEN_BY_PEERS);
        const publicOrigin = (a: Announcement): boolean => a.origin !== null && isPublicAsn(a.origin);
        let r = 0;
        for (let a = base; a < base + 1024; a++) {
          const covering = counted.filter((x) => Number(x.start) <= a && a < Number(x.start) + 2 ** (width - x.prefixLength));
          let expected: RpkiState = 'unrouted';
          if (covering.length > 0) {
            const longest = Math.max(...covering.map((x) => x.prefixLength));
            // routingTable.ts's choice: a public origin first, then most peers, then the lower AS number.
            const chosen = covering
              .filter((x) => x.prefixLength === longest)
              .sort(
                (x, y) =>
                  Number(publicOrigin(y)) - Number(publicOrigin(x)) || y.seenByPeers - x.seenByPeers || (x.origin ?? 0) - (y.origin ?? 0),
              )[0];
            expected = RPKI_STATES[bruteForce(rows, 32, chosen.start, chosen.prefixLength, chosen.origin)];
          }
          while (ranges.end[r] < a) r++;
          expect(RPKI_STATES[ranges.state[r]]).toBe(expected);
        }
      }),
      { numRuns: 150, seed: 20261001 },
    );
  });
});
