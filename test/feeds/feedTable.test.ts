import { describe, expect, it } from 'vitest';
import { disjointTableRanges, securityTableRanges, unroutableSpace, type SecurityFeedInput } from '../../src/feeds/build/feedTables.js';
import { FeedTable, writeFeedTable, type SecurityValue } from '../../src/feeds/format/feedTable.js';
import { feedState } from './feedState.js';
import { TableFormatError } from '../../src/tables/format/container.js';
import { parseIPv4, parseIPv6 } from '../../src/address/ipAddress.js';

const v4 = (text: string) => BigInt(parseIPv4(text));
function v6(text: string): bigint {
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words)) throw new Error(text);
  return words.reduce((acc, w) => (acc << 32n) | BigInt(w), 0n);
}
const halves = (n: bigint): [bigint, bigint] => [n >> 64n, n & ((1n << 64n) - 1n)];

const feed = (id: string, says: string) => feedState(id, says);

function securityTable(inputs: SecurityFeedInput[], proxies: { family: 4 | 6; start: bigint; end: bigint }[] = []) {
  const parts = securityTableRanges(inputs, { everywhere: unroutableSpace(), proxies });
  const bytes = writeFeedTable<SecurityValue>({
    meta: { feed_kind: 'security', built_at: '2026-11-28T00:00:00.000Z', feeds: inputs.map((input, i) => feed(`f${i}`, input.says)) },
    builtAt: new Date('2026-11-28T00:00:00Z'),
    ...parts,
  });
  return { bytes, table: new FeedTable<SecurityValue>(bytes, 'security.nlt') };
}

describe('feed tables', () => {
  const tor: SecurityFeedInput = {
    says: 'tor',
    listing: { date: null, ranges: [{ family: 4, start: v4('185.220.101.1'), end: v4('185.220.101.1'), provider: null }] },
  };
  const vpn: SecurityFeedInput = {
    says: 'vpn',
    listing: {
      date: null,
      ranges: [
        { family: 4, start: v4('185.220.101.0'), end: v4('185.220.101.255'), provider: 'Example VPN' },
        { family: 6, start: v6('2a03:b0c0::'), end: v6('2a03:b0c0::ffff'), provider: 'Example VPN' },
        // private space is nobody's server
        { family: 4, start: v4('10.0.0.0'), end: v4('10.0.0.255'), provider: 'Example VPN' },
      ],
    },
  };
  const proxy: SecurityFeedInput = {
    says: 'proxy',
    listing: { date: null, ranges: [{ family: 4, start: v4('104.16.0.0'), end: v4('104.16.0.255'), provider: null }] },
  };

  it('lays the listings over each other and answers each address with the feeds that list it', () => {
    const { table } = securityTable([tor, vpn, proxy], [{ family: 4, start: v4('104.16.0.128'), end: v4('104.16.0.255') }]);
    expect(table.lookup4(Number(v4('185.220.101.1')))).toEqual({ by: [0, 1], vpn_provider: 'Example VPN', vpn_provider_by: 1 });
    expect(table.lookup4(Number(v4('185.220.101.2')))).toEqual({ by: [1], vpn_provider: 'Example VPN', vpn_provider_by: 1 });
    expect(table.lookup4(Number(v4('185.220.102.0')))).toBeNull();
    expect(table.lookup4(Number(v4('10.0.0.1')))).toBeNull();
    // the proxy list minus the CDN's anycast block
    expect(table.lookup4(Number(v4('104.16.0.1')))?.by).toEqual([2]);
    expect(table.lookup4(Number(v4('104.16.0.200')))).toBeNull();
    expect(table.lookup6(...halves(v6('2a03:b0c0::1')))?.vpn_provider).toBe('Example VPN');
    expect(table.lookup6(...halves(v6('2a03:b0c0::1:0')))).toBeNull();
    expect(table.meta.counts.values).toBe(table.valueList.length);
  });

  it('answers exactly as a scan of the listings does, on random addresses', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const ranges = Array.from({ length: 300 }, () => {
      const start = BigInt(Math.floor(random() * 2 ** 24)) + v4('20.0.0.0');
      return { family: 4 as const, start, end: start + BigInt(Math.floor(random() * 5000)), provider: random() < 0.5 ? 'P' : null };
    });
    const inputs: SecurityFeedInput[] = [
      { says: 'vpn', listing: { date: null, ranges: ranges.slice(0, 150) } },
      { says: 'proxy', listing: { date: null, ranges: ranges.slice(150) } },
    ];
    const { table } = securityTable(inputs);
    for (let n = 0; n < 5000; n++) {
      const address = v4('20.0.0.0') + BigInt(Math.floor(random() * 2 ** 24));
      const by = inputs.flatMap((input, i) => (input.listing.ranges.some((r) => r.start <= address && address <= r.end) ? [i] : []));
      const got = table.lookup4(Number(address));
      expect(got?.by ?? [], String(address)).toEqual(by);
    }
  });

  it('tiles disjoint valued ranges and refuses overlapping ones', () => {
    const parts = disjointTableRanges([
      { family: 4, start: v4('1.0.0.0'), end: v4('1.0.0.255'), value: 'valid' },
      { family: 4, start: v4('1.0.1.0'), end: v4('1.0.1.255'), value: 'valid' },
      { family: 4, start: v4('1.0.2.0'), end: v4('1.0.2.255'), value: 'invalid' },
    ]);
    // neighbours with one value are one range
    expect(Array.from(parts.keys4)).toEqual([0, Number(v4('1.0.0.0')), Number(v4('1.0.2.0')), Number(v4('1.0.3.0'))]);
    expect(() =>
      disjointTableRanges([
        { family: 4, start: 0n, end: 10n, value: 'a' },
        { family: 4, start: 10n, end: 20n, value: 'b' },
      ]),
    ).toThrow(/overlap/);
  });

  describe('the reader refuses', () => {
    const { bytes } = securityTable([tor, vpn]);
    const corrupt = (change: (copy: Uint8Array) => void) => {
      const copy = new Uint8Array(bytes.length);
      copy.set(bytes);
      change(copy);
      return () => new FeedTable(copy, 'security.nlt');
    };
    it('a truncated file', () => expect(() => new FeedTable(bytes.slice(0, bytes.length - 16), 'x')).toThrow(TableFormatError));
    it('a changed byte (checksum)', () => expect(corrupt((c) => (c[c.length - 20] ^= 1))).toThrow(/checksum/));
    it('another kind of table', () => expect(corrupt((c) => (c[6] = 1))).toThrow(/kind/));
  });
});
