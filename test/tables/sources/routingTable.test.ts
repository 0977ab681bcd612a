import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { writeRisWhoisDumps } from '../../../bench/fixtures/risWhoisDump.js';
import { parseIPv4, parseIPv6 } from '../../../src/address/ipAddress.js';
import {
  isPublicAsn,
  MIN_SEEN_BY_PEERS,
  readRisWhoisDump,
  routedRanges,
  type Announcement,
  type RoutedRange,
  type RoutingDump,
} from '../../../src/tables/sources/routingTable.js';
import { linesOf, linesOfFile, SourceFormatError } from '../../../src/tables/sources/textLines.js';

const DUMPS = 'test/fixtures/publishers/www.ris.ripe.net/dumps';

function addressOf(text: string): bigint {
  if (!text.includes(':')) return BigInt(parseIPv4(text));
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words)) throw new Error(text);
  return words.reduce((n, w) => (n << 32n) | BigInt(w), 0n);
}

/** The range holding `address` (binary search), or undefined. */
function rangeAt(ranges: RoutedRange[], text: string): RoutedRange | undefined {
  const address = addressOf(text);
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (ranges[mid].end < address) low = mid + 1;
    else if (ranges[mid].start > address) high = mid - 1;
    else return ranges[mid];
  }
  return undefined;
}

const HEADER =
  '%\n% This file was generated at Fri Dec 20 10:06:01 UTC 2024.\n% \n% Format:  <origin> <tab> <prefix> <tab> <seen by #rispeers>\n% \n';

function read(body: string, family: 4 | 6 = 4, header = HEADER): Promise<RoutingDump> {
  return readRisWhoisDump(linesOf(Readable.from([Buffer.from(header + body)]), 'inline'), family, 'inline');
}

async function refusal(promise: Promise<unknown>): Promise<SourceFormatError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceFormatError);
  return error as SourceFormatError;
}

describe('readRisWhoisDump on the publisher fixtures', () => {
  it('reads the IPv4 dump: its time, its rows, its AS_SET origins', async () => {
    const dump = await readRisWhoisDump(linesOfFile(`${DUMPS}/riswhoisdump.IPv4.gz`), 4, 'riswhoisdump.IPv4.gz');
    expect(dump.dumpedAt).toBe('2024-12-20T10:06:01Z');
    expect(dump.announcements).toHaveLength(156);
    expect(dump.asSetRows).toBe(6);
    expect(dump.localOrigins).toBe(0);
    expect(dump.announcements.find((a) => a.start === addressOf('8.8.8.0'))).toEqual({
      family: 4,
      start: addressOf('8.8.8.0'),
      prefixLength: 24,
      origin: 15169,
      originSet: null,
      seenByPeers: 111,
    });
    const set = dump.announcements.find((a) => a.start === addressOf('41.191.116.0'));
    expect(set).toMatchObject({ origin: null, originSet: [3209, 6774, 8928, 20459, 37185, 39151], prefixLength: 22 });
  });

  it('gives each routed IPv4 address the origin of its most specific announcement', async () => {
    const dump = await readRisWhoisDump(linesOfFile(`${DUMPS}/riswhoisdump.IPv4.gz`), 4, 'riswhoisdump.IPv4.gz');
    const ranges = routedRanges(dump.announcements, 4);
    const at = (ip: string): [number, number] | undefined => {
      const range = rangeAt(ranges, ip);
      return range && [range.asn, range.prefixLength];
    };
    expect(at('8.8.8.8')).toEqual([15169, 24]);
    expect(at('1.1.1.1')).toEqual([13335, 24]);
    expect(at('109.122.130.1')).toEqual([49902, 18]);
    expect(at('41.213.130.1')).toEqual([37002, 21]);
    expect(at('130.102.1.1')).toEqual([24436, 16]);
    expect(at('41.32.6.9')).toEqual([8452, 24]);
    expect(at('41.40.0.1')).toEqual([8452, 12]);
    // MOAS: 49872 seen by 90 peers, 48159 by 18.
    expect(at('109.122.193.1')).toEqual([49872, 21]);
    // A private origin seen by more peers does not name the network; the public one does.
    expect(at('24.120.247.1')).toEqual([13432, 24]);
    expect(at('37.29.96.1')).toEqual([31133, 24]);
    // An AS_SET beside a single origin: the single origin. AS_SET only: no ASN.
    expect(at('24.223.130.1')).toEqual([11060, 17]);
    expect(at('60.198.1.1')).toBeUndefined();
    // A /24 seen by 1 peer is not announced: its /16 decides. Default routes seen by 1–2 peers decide nothing.
    expect(at('130.56.3.1')).toEqual([7575, 16]);
    expect(at('9.9.9.9')).toBeUndefined();
    expect(at('5.1.32.1')).toEqual([198731, 21]);
    expect(at('223.255.254.1')).toEqual([55415, 24]);
  });

  it('reads the IPv6 dump and decides its MOAS, AS_SET and private-origin prefixes', async () => {
    const dump = await readRisWhoisDump(linesOfFile(`${DUMPS}/riswhoisdump.IPv6.gz`), 6, 'riswhoisdump.IPv6.gz');
    expect(dump.dumpedAt).toBe('2024-12-20T10:06:01Z');
    expect(dump.announcements).toHaveLength(81);
    expect(dump.asSetRows).toBe(5);
    const ranges = routedRanges(dump.announcements, 6);
    const at = (ip: string): number | undefined => rangeAt(ranges, ip)?.asn;
    expect(rangeAt(ranges, '2001:4860:4860::8888')).toMatchObject({ asn: 15169, prefixLength: 32 });
    expect(rangeAt(ranges, '2604:a880:400::1')).toMatchObject({ asn: 14061, prefixLength: 48 });
    expect(at('2a00:a080::1')).toBe(49902);
    expect(at('2001:4388::1')).toBe(8452);
    expect(at('2001:670::1')).toBe(719);
    expect(at('2001:468:f00::1')).toBe(11164);
    expect(at('2001:500:88::1')).toBe(16876);
    expect(at('2001:510::1')).toBe(376);
    expect(at('2402:8100::1')).toBeUndefined();
    expect(at('2804:6534:8030::1')).toBe(269475);
    expect(rangeAt(ranges, '2001:388:c4::1')).toMatchObject({ asn: 7575, prefixLength: 32 });
    expect(rangeAt(ranges, '2001:388:cf85::1')).toMatchObject({ asn: 7575, prefixLength: 48 });
    expect(at('fd00:550:ffff:ffff:ffff:ffff:ffff:ffff')).toBeUndefined();
    expect(at('::1')).toBeUndefined();
  });
});

describe('readRisWhoisDump forms', () => {
  it('skips comments and blank lines, reads AS_SETs and counts Local origins', async () => {
    const dump = await read('15169\t8.8.8.0/24\t380\n\n{3,4}\t10.0.0.0/8\t12\nLocal\t84.205.71.0/24\t1\n% End of dump\n\n\n');
    expect(dump.announcements.map((a) => [a.origin, a.originSet])).toEqual([
      [15169, null],
      [null, [3, 4]],
    ]);
    expect(dump.asSetRows).toBe(1);
    expect(dump.localOrigins).toBe(1);
  });

  it('reads a generation time with a one-digit day, and a header without one', async () => {
    const header = '% This file was generated at Thu Oct  1 02:03:04 UTC 2026.\n';
    expect((await read('% End of dump\n', 4, header)).dumpedAt).toBe('2026-10-01T02:03:04Z');
    expect((await read('% End of dump\n', 4, '% no time here\n')).dumpedAt).toBeNull();
  });

  it('reads IPv6 prefixes in any RFC 4291 form, an IPv4-compatible one included', async () => {
    const dump = await read('34231\t::216.66.38.58/128\t62\n3356\t2001:DB8::/32\t9\n% End of dump\n', 6);
    expect(dump.announcements.map((a) => [a.start, a.prefixLength])).toEqual([
      [addressOf('::216.66.38.58'), 128],
      [addressOf('2001:db8::'), 32],
    ]);
  });
});

describe('readRisWhoisDump bad-data corpus: each refused with its line', () => {
  // The header is 5 lines: the bad row is line 6.
  const cases: [string, string, 4 | 6, RegExp][] = [
    ['bad prefix', '15169\t8.8.8/24\t100', 4, /not an IPv4 prefix/],
    ['no prefix length', '15169\t8.8.8.0\t100', 4, /not an IPv4 prefix/],
    ['prefix length past 32', '15169\t8.8.8.0/33\t100', 4, /not an IPv4 prefix/],
    ['prefix length with a leading zero', '15169\t8.8.8.0/024\t100', 4, /not an IPv4 prefix/],
    ['host bits', '15169\t8.8.8.1/24\t100', 4, /host bits/],
    ['IPv6 host bits', '15169\t2001:4860::1/32\t100', 6, /host bits/],
    ['an IPv6 prefix in the IPv4 dump', '15169\t2001:4860::/32\t100', 4, /not an IPv4 prefix/],
    ['an IPv4 prefix in the IPv6 dump', '15169\t8.8.8.0/24\t100', 6, /not an IPv6 prefix/],
    ['AS0', '0\t8.8.8.0/24\t100', 4, /bad origin AS number/],
    ['an AS number past 32 bits', '4294967296\t8.8.8.0/24\t100', 4, /bad origin AS number/],
    ['an AS number written AS15169', 'AS15169\t8.8.8.0/24\t100', 4, /bad origin AS number/],
    ['a negative AS number', '-1\t8.8.8.0/24\t100', 4, /bad origin AS number/],
    ['an empty AS_SET', '{}\t8.8.8.0/24\t100', 4, /bad AS_SET/],
    ['an AS_SET with an empty member', '{1,}\t8.8.8.0/24\t100', 4, /bad AS_SET/],
    ['an AS_SET with AS0', '{0,5}\t8.8.8.0/24\t100', 4, /bad AS_SET/],
    ['an unclosed AS_SET', '{1,2\t8.8.8.0/24\t100', 4, /bad AS_SET/],
    ['seen by 0 peers', '15169\t8.8.8.0/24\t0', 4, /seen-by-peers/],
    ['seen by a fraction of a peer', '15169\t8.8.8.0/24\t1.5', 4, /seen-by-peers/],
    ['two fields', '15169\t8.8.8.0/24', 4, /expected origin<TAB>prefix<TAB>seen-by-peers/],
    ['four fields', '15169\t8.8.8.0/24\t100\t1', 4, /expected origin/],
    ['spaces for tabs', '15169 8.8.8.0/24 100', 4, /expected origin/],
    ['a whois client banner', '[Querying riswhois.ripe.net]', 4, /expected origin/],
    ['a second generation time', '% This file was generated at Fri Dec 20 10:06:01 UTC 2024.', 4, /second generation time/],
  ];
  for (const [name, row, family, message] of cases) {
    it(name, async () => {
      const error = await refusal(read(`${row}\n% End of dump\n`, family));
      expect(error.line).toBe(6);
      expect(error.message).toMatch(message);
      expect(error.message).toMatch(/^inline:6: /);
    });
  }

  for (const [name, stamp] of [
    ['a generation time that names the wrong weekday', 'Thu Dec 20 10:06:01 UTC 2024'],
    ['an impossible generation date (Feb 30)', 'Mon Feb 30 10:06:01 UTC 2026'],
    ['a generation time at hour 24', 'Fri Dec 20 24:06:01 UTC 2024'],
    ['a generation time in another zone', 'Fri Dec 20 10:06:01 CET 2024'],
  ]) {
    it(name, async () => {
      const error = await refusal(read('% End of dump\n', 4, `%\n% This file was generated at ${stamp}.\n`));
      expect(error.line).toBe(2);
      expect(error.message).toMatch(/unreadable generation time/);
    });
  }

  it('text after the end line', async () => {
    const error = await refusal(read('15169\t8.8.8.0/24\t100\n% End of dump\n\n13335\t1.1.1.0/24\t100\n'));
    expect(error.line).toBe(9);
    expect(error.message).toMatch(/after "% End of dump"/);
  });

  it('a dump without its end line (truncated)', async () => {
    const error = await refusal(read('15169\t8.8.8.0/24\t100\n'));
    expect(error.message).toMatch(/truncated/);
  });

  it('a truncated gzip file', async () => {
    const whole = fs.readFileSync(`${DUMPS}/riswhoisdump.IPv4.gz`);
    const error = await refusal(readRisWhoisDump(linesOf(Readable.from([whole.subarray(0, whole.length - 200)]), 'cut.gz'), 4, 'cut.gz'));
    expect(error.message).toMatch(/^cut\.gz:\d+: unreadable: /);
  });

  it('an over-long line (the bound linesOf keeps)', async () => {
    const text = HEADER + '15169\t8.8.8.0/24\t' + '1'.repeat(5000) + '\n% End of dump\n';
    const error = await refusal(readRisWhoisDump(linesOf(Readable.from([Buffer.from(text)]), 'long', { maxLineLength: 1024 }), 4, 'long'));
    expect(error.line).toBe(6);
  });
});

describe('isPublicAsn', () => {
  it('refuses AS 0, AS_TRANS, documentation, private and reserved numbers', () => {
    for (const asn of [
      0, 23456, 64496, 64511, 64512, 65000, 65534, 65535, 65536, 65551, 65552, 131071, 4200000000, 4294967294, 4294967295,
    ]) {
      expect(isPublicAsn(asn), String(asn)).toBe(false);
    }
    for (const asn of [1, 719, 8452, 15169, 23455, 23457, 64495, 131072, 396982, 4199999999])
      expect(isPublicAsn(asn), String(asn)).toBe(true);
  });
});

describe('routedRanges', () => {
  const announcement = (family: 4 | 6, start: bigint, prefixLength: number, origin: number | null, seenByPeers: number): Announcement => ({
    family,
    start,
    prefixLength,
    origin,
    originSet: origin === null ? [64512, 7] : null,
    seenByPeers,
  });

  it('refuses an announcement of the other family', () => {
    expect(() => routedRanges([announcement(6, 0n, 0, 1, 20)], 4)).toThrow(/IPv6 announcement/);
  });

  it('breaks a MOAS tie by the lower AS number', () => {
    const ranges = routedRanges([announcement(4, 256n, 24, 300, 50), announcement(4, 256n, 24, 200, 50)], 4);
    expect(ranges).toEqual([{ start: 256n, end: 511n, asn: 200, prefixLength: 24 }]);
  });

  it('cuts a covering prefix around its more specifics, in address order', () => {
    const ranges = routedRanges([announcement(4, 0n, 22, 1, 20), announcement(4, 256n, 24, 2, 20), announcement(4, 512n, 25, null, 20)], 4);
    expect(ranges).toEqual([
      { start: 0n, end: 255n, asn: 1, prefixLength: 22 },
      { start: 256n, end: 511n, asn: 2, prefixLength: 24 },
      { start: 640n, end: 1023n, asn: 1, prefixLength: 22 },
    ]);
  });

  /**
   * Against a brute-force longest-prefix match over every address of a small block (1,024
   * addresses): random prefix sets inside it, with MOAS, AS_SET and private origins and visibility
   * on both sides of MIN_SEEN_BY_PEERS.
   */
  for (const family of [4, 6] as const) {
    it(`agrees with a brute-force longest-prefix match (IPv${family})`, () => {
      const width = family === 4 ? 32 : 128;
      const base = family === 4 ? addressOf('10.11.0.0') : addressOf('2001:db8::7000');
      const blockLength = width - 10;
      const origins = [100, 200, 300, 64512, 23456, null];
      const arbitraryAnnouncement = fc
        .record({
          extra: fc.integer({ min: 0, max: 10 }),
          slot: fc.integer({ min: 0, max: 1023 }),
          origin: fc.constantFrom(...origins),
          seen: fc.integer({ min: MIN_SEEN_BY_PEERS - 3, max: MIN_SEEN_BY_PEERS + 5 }),
        })
        .map(({ extra, slot, origin, seen }) => {
          const length = blockLength + extra;
          const size = 1n << BigInt(width - length);
          return announcement(family, base + ((BigInt(slot) * size) % 1024n), length, origin, seen);
        });
      fc.assert(
        fc.property(fc.array(arbitraryAnnouncement, { maxLength: 40 }), (announcements) => {
          const ranges = routedRanges(announcements, family);
          for (let i = 0; i < ranges.length; i++) {
            expect(ranges[i].start <= ranges[i].end).toBe(true);
            if (i > 0) expect(ranges[i - 1].end < ranges[i].start).toBe(true);
          }
          const counted = announcements.filter((a) => a.seenByPeers >= MIN_SEEN_BY_PEERS);
          let r = 0;
          for (let address = base; address < base + 1024n; address++) {
            const covering = counted.filter((a) => a.start <= address && address < a.start + (1n << BigInt(width - a.prefixLength)));
            const longest = Math.max(-1, ...covering.map((a) => a.prefixLength));
            const named = covering
              .filter((a) => a.prefixLength === longest && a.origin !== null && isPublicAsn(a.origin))
              .sort((a, b) => b.seenByPeers - a.seenByPeers || a.origin! - b.origin!);
            while (r < ranges.length && ranges[r].end < address) r++;
            const range = r < ranges.length && ranges[r].start <= address ? ranges[r] : undefined;
            if (named.length === 0) expect(range).toBeUndefined();
            else expect([range?.asn, range?.prefixLength]).toEqual([named[0].origin, longest]);
          }
          expect(ranges.every((range) => range.start >= base && range.end < base + 1024n)).toBe(true);
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe('the full-size dump generator', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'riswhois-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes dumps the reader reads back, row for row, at a small size', async () => {
    const written = await writeRisWhoisDumps(dir, { seed: 7, ipv4Rows: 3000, ipv6Rows: 2000 });
    expect(written.ipv4).toBe(path.join(dir, 'www.ris.ripe.net/dumps/riswhoisdump.IPv4.gz'));
    for (const [file, family, rows] of [
      [written.ipv4, 4, written.ipv4Rows],
      [written.ipv6, 6, written.ipv6Rows],
    ] as const) {
      expect(rows).toBe(family === 4 ? 3000 : 2000);
      const dump = await readRisWhoisDump(linesOfFile(file), family, file);
      expect(dump.dumpedAt).toBe('2026-10-01T10:06:01Z');
      expect(dump.announcements.length + dump.localOrigins).toBe(rows);
      // Sorted by address then prefix length, as the publisher's dumps are.
      for (let i = 1; i < dump.announcements.length; i++) {
        const [a, b] = [dump.announcements[i - 1], dump.announcements[i]];
        expect(a.start < b.start || (a.start === b.start && a.prefixLength <= b.prefixLength)).toBe(true);
      }
      expect(routedRanges(dump.announcements, family).length).toBeGreaterThan(rows / 2);
    }
  });

  it('is deterministic from its seed', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'riswhois-'));
    try {
      const a = await writeRisWhoisDumps(dir, { seed: 11, ipv4Rows: 500, ipv6Rows: 500 });
      const b = await writeRisWhoisDumps(other, { seed: 11, ipv4Rows: 500, ipv6Rows: 500 });
      expect(fs.readFileSync(a.ipv4).equals(fs.readFileSync(b.ipv4))).toBe(true);
      expect(fs.readFileSync(a.ipv6).equals(fs.readFileSync(b.ipv6))).toBe(true);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
