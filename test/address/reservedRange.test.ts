import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIPv4, parseIPv6 } from '../../src/address/ipAddress.js';
import {
  reservedIPv4,
  reservedIPv6,
  SPECIAL_PURPOSE_REGISTRY,
  type RegistryRow,
  type ReservedRange,
} from '../../src/address/reservedRange.js';

const classify = (text: string): ReservedRange | null => {
  if (!text.includes(':')) {
    const n = parseIPv4(text);
    if (n < 0) throw new Error(`bad test address ${text}`);
    return reservedIPv4(n);
  }
  const out = new Uint32Array(4);
  if (!parseIPv6(text, out)) throw new Error(`bad test address ${text}`);
  return reservedIPv6(out);
};

/** [address, expected cidr of the matching entry or null, expected type]. */
type Case = [string, string | null, string?];

const ipv4Cases: Case[] = [
  ['0.1.2.3', '0.0.0.0/8', 'reserved'],
  ['1.0.0.0', null],
  ['0.0.0.0', '0.0.0.0/32', 'reserved'],
  ['0.0.0.1', '0.0.0.0/8', 'reserved'],
  ['10.255.255.255', '10.0.0.0/8', 'private'],
  ['9.255.255.255', null],
  ['11.0.0.0', null],
  ['100.64.0.0', '100.64.0.0/10', 'cgnat'],
  ['100.127.255.255', '100.64.0.0/10', 'cgnat'],
  ['100.63.255.255', null],
  ['100.128.0.0', null],
  ['127.0.0.1', '127.0.0.0/8', 'loopback'],
  ['126.255.255.255', null],
  ['128.0.0.0', null],
  ['169.254.1.1', '169.254.0.0/16', 'link_local'],
  ['169.253.255.255', null],
  ['169.255.0.0', null],
  ['172.16.0.0', '172.16.0.0/12', 'private'],
  ['172.31.255.255', '172.16.0.0/12', 'private'],
  ['172.15.255.255', null],
  ['172.32.0.0', null],
  ['192.0.0.255', '192.0.0.0/24', 'reserved'],
  ['191.255.255.255', null],
  ['192.0.1.0', null],
  ['192.0.0.7', '192.0.0.0/29', 'reserved'],
  ['192.0.0.8', '192.0.0.8/32', 'reserved'],
  ['192.0.0.9', null],
  ['192.0.0.10', null],
  ['192.0.0.11', '192.0.0.0/24', 'reserved'],
  ['192.0.0.169', '192.0.0.0/24', 'reserved'],
  ['192.0.0.170', '192.0.0.170/32', 'reserved'],
  ['192.0.0.171', '192.0.0.171/32', 'reserved'],
  ['192.0.0.172', '192.0.0.0/24', 'reserved'],
  ['192.0.2.1', '192.0.2.0/24', 'documentation'],
  ['192.0.3.0', null],
  ['192.31.196.1', null],
  ['192.31.195.255', null],
  ['192.52.193.1', null],
  ['192.88.99.1', '192.88.99.0/24', 'reserved'],
  ['192.88.99.2', '192.88.99.2/32', 'reserved'],
  ['192.88.99.3', '192.88.99.0/24', 'reserved'],
  ['192.88.98.255', null],
  ['192.88.100.0', null],
  ['192.168.0.1', '192.168.0.0/16', 'private'],
  ['192.167.255.255', null],
  ['192.169.0.0', null],
  ['192.175.48.1', null],
  ['198.18.0.0', '198.18.0.0/15', 'benchmark'],
  ['198.19.255.255', '198.18.0.0/15', 'benchmark'],
  ['198.17.255.255', null],
  ['198.20.0.0', null],
  ['198.51.100.7', '198.51.100.0/24', 'documentation'],
  ['198.51.99.255', null],
  ['198.51.101.0', null],
  ['203.0.113.255', '203.0.113.0/24', 'documentation'],
  ['203.0.112.255', null],
  ['203.0.114.0', null],
  ['224.0.0.1', '224.0.0.0/4', 'multicast'],
  ['239.255.255.255', '224.0.0.0/4', 'multicast'],
  ['223.255.255.255', null],
  ['240.0.0.0', '240.0.0.0/4', 'reserved'],
  ['255.255.255.254', '240.0.0.0/4', 'reserved'],
  ['255.255.255.255', '255.255.255.255/32', 'reserved'],
  ['8.8.8.8', null],
  ['1.1.1.1', null],
];

const ipv6Cases: Case[] = [
  ['::', '::/128', 'reserved'],
  ['::1', '::1/128', 'loopback'],
  ['::2', '::/8', 'reserved'],
  ['::1.2.3.4', '::/8', 'reserved'],
  ['::ffff:1.2.3.4', '::ffff:0:0/96', 'reserved'],
  ['::fffe:ffff:ffff', '::/8', 'reserved'],
  ['::1:0:0:0', '::/8', 'reserved'],
  ['64:ff9b::8.8.8.8', null],
  ['64:ff9b::1:0:0', '::/8', 'reserved'],
  ['64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff', '::/8', 'reserved'],
  ['64:ff9b:1::1', '64:ff9b:1::/48', 'reserved'],
  ['64:ff9b:2::', '::/8', 'reserved'],
  ['ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '::/8', 'reserved'],
  ['100::1', '100::/64', 'reserved'],
  ['100:0:0:1:ffff:ffff:ffff:ffff', '100:0:0:1::/64', 'reserved'],
  ['100:0:0:2::', '100::/8', 'reserved'],
  ['1ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '100::/8', 'reserved'],
  ['1234::', '1000::/4', 'reserved'],
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '1000::/4', 'reserved'],
  ['2000::', null],
  ['2001::', null],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', null],
  ['2001:1::', '2001::/23', 'reserved'],
  ['2001:1::1', null],
  ['2001:1::2', null],
  ['2001:1::3', null],
  ['2001:1::4', '2001::/23', 'reserved'],
  ['2001:2::1', '2001:2::/48', 'benchmark'],
  ['2001:2:0:ffff:ffff:ffff:ffff:ffff', '2001:2::/48', 'benchmark'],
  ['2001:2:1::', '2001::/23', 'reserved'],
  ['2001:3::1', null],
  ['2001:4::', '2001::/23', 'reserved'],
  ['2001:4:112::1', null],
  ['2001:4:113::', '2001::/23', 'reserved'],
  ['2001:f:ffff:ffff:ffff:ffff:ffff:ffff', '2001::/23', 'reserved'],
  ['2001:10::1', '2001:10::/28', 'reserved'],
  ['2001:1f:ffff:ffff:ffff:ffff:ffff:ffff', '2001:10::/28', 'reserved'],
  ['2001:20::1', null],
  ['2001:30::1', null],
  ['2001:40::', '2001::/23', 'reserved'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2001::/23', 'reserved'],
  ['2001:200::', null],
  ['2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['2001:db8:85a3::8a2e:370:7334', '2001:db8::/32', 'documentation'],
  ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['2001:db9::', null],
  ['2002:c000:204::1', null],
  ['2620:4f:8000::1', null],
  ['2620:4f:7fff:ffff:ffff:ffff:ffff:ffff', null],
  ['3fff::1', '3fff::/20', 'documentation'],
  ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff::/20', 'documentation'],
  ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['3fff:1000::', null],
  ['4000::', '4000::/3', 'reserved'],
  ['5f00::1', '5f00::/16', 'reserved'],
  ['5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '4000::/3', 'reserved'],
  ['5f01::', '4000::/3', 'reserved'],
  ['8000::', '8000::/3', 'reserved'],
  ['e000::', 'e000::/4', 'reserved'],
  ['fc00::', 'fc00::/7', 'private'],
  ['fd12:3456::1', 'fc00::/7', 'private'],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'f800::/6', 'reserved'],
  ['fe00::', 'fe00::/9', 'reserved'],
  ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fe00::/9', 'reserved'],
  ['fe80::1', 'fe80::/10', 'link_local'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fe80::/10', 'link_local'],
  ['fec0::1', 'fec0::/10', 'reserved'],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fec0::/10', 'reserved'],
  ['ff00::', 'ff00::/8', 'multicast'],
  ['ff02::1', 'ff00::/8', 'multicast'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ff00::/8', 'multicast'],
  ['2001:4860:4860::8888', null],
  ['2606:4700::1111', null],
];

describe.each([
  ['IPv4', ipv4Cases],
  ['IPv6', ipv6Cases],
])('%s hand-written cases', (_family, cases) => {
  it.each(cases.map(([address, cidr, type]) => [address, cidr, type ?? ''] as const))('%s → %s %s', (address, cidr, type) => {
    const result = classify(address);
    if (cidr === null) {
      expect(result).toBeNull();
    } else {
      expect(result).not.toBeNull();
      expect(result!.cidr).toBe(cidr);
      expect(result!.type).toBe(type);
      expect(result!.description).toMatch(/\(RFC \d+\)$/);
    }
  });
});

describe('SPEC 2.3 names', () => {
  it.each([
    ['192.168.1.1', 'Private network (RFC 1918)'],
    ['100.100.0.1', 'Shared address space for carrier-grade NAT (RFC 6598)'],
    ['fe80::1', 'Link-local unicast (RFC 4291)'],
  ])('%s is described as %s', (address, description) => {
    expect(classify(address)?.description).toBe(description);
  });
});

// An independent reference: BigInt ranges and a linear most-specific search over the table rows.
interface RefRange {
  row: RegistryRow;
  bits: number;
  first: bigint;
  last: bigint;
  prefix: number;
}

function toBigInt(address: string): [bigint, number] {
  if (!address.includes(':')) {
    return [address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(part), 0n), 32];
  }
  const [head, tail = ''] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const zeros = address.includes('::') ? 8 - headGroups.length - tailGroups.length : 0;
  const all = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  return [all.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n), 128];
}

const refRanges: RefRange[] = SPECIAL_PURPOSE_REGISTRY.map((row) => {
  const [address, prefixText] = row.cidr.split('/');
  const [start, bits] = toBigInt(address);
  const prefix = Number(prefixText);
  const size = 1n << BigInt(bits - prefix);
  return { row, bits, first: start, last: start + size - 1n, prefix };
});

function refOwner(value: bigint, bits: number): RefRange | null {
  let best: RefRange | null = null;
  for (const r of refRanges) {
    if (r.bits === bits && value >= r.first && value <= r.last && (!best || r.prefix > best.prefix)) best = r;
  }
  return best;
}

function reference(value: bigint, bits: number): ReservedRange | null | 'none' {
  const best = refOwner(value, bits);
  if (!best) return 'none';
  return best.row.type === 'global' ? null : { type: best.row.type, cidr: best.row.cidr, description: '' };
}

function classifyValue(value: bigint, bits: number): ReservedRange | null {
  if (bits === 32) return reservedIPv4(Number(value));
  const words = new Uint32Array(4);
  for (let w = 0; w < 4; w++) words[w] = Number((value >> BigInt(96 - 32 * w)) & 0xffffffffn);
  return reservedIPv6(words);
}

function expectMatchesReference(value: bigint, bits: number): void {
  const expected = reference(value, bits);
  const actual = classifyValue(value, bits);
  if (expected === 'none') {
    // No row: public IPv4, or IPv6 inside global unicast 2000::/3 (the table covers all else).
    expect(actual).toBeNull();
    if (bits === 128) expect(value >> 125n).toBe(1n);
  } else if (expected === null) {
    expect(actual).toBeNull();
  } else {
    expect(actual?.cidr).toBe(expected.cidr);
    expect(actual?.type).toBe(expected.type);
  }
}

describe('every registry entry, at and just beyond its edges', () => {
  it.each(refRanges.map((r) => [r.row.cidr, r] as const))('%s', (_cidr, r) => {
    const own = r.row.type === 'global' ? null : r.row.cidr;
    // Inside: first, middle and last address; at least one is not inside a more specific entry.
    const inside = [r.first, r.first + (r.last - r.first) / 2n, r.last];
    const claimed = inside.filter((v) => refOwner(v, r.bits) === r);
    expect(claimed.length).toBeGreaterThan(0);
    for (const v of claimed) expect(classifyValue(v, r.bits)?.cidr ?? null).toBe(own);
    for (const v of inside) expectMatchesReference(v, r.bits);
    const max = (1n << BigInt(r.bits)) - 1n;
    for (const beyond of [r.first - 1n, r.last + 1n]) {
      if (beyond < 0n || beyond > max) continue;
      if (own !== null) expect(classifyValue(beyond, r.bits)?.cidr).not.toBe(own);
      expectMatchesReference(beyond, r.bits);
    }
  });
});

describe('agreement with the reference search', () => {
  const nearEdge = (family: 32 | 128) => {
    const rows = refRanges.filter((r) => r.bits === family);
    return fc
      .tuple(fc.integer({ min: 0, max: rows.length - 1 }), fc.boolean(), fc.bigInt({ min: -300n, max: 300n }))
      .map(([i, atStart, offset]) => {
        const base = atStart ? rows[i].first : rows[i].last;
        const max = (1n << BigInt(family)) - 1n;
        const v = base + offset;
        return v < 0n ? 0n : v > max ? max : v;
      });
  };

  it('IPv4: uniform and near entry edges', () => {
    const value = fc.oneof(fc.bigInt({ min: 0n, max: 0xffffffffn }), nearEdge(32));
    fc.assert(
      fc.property(value, (v) => expectMatchesReference(v, 32)),
      { numRuns: 20000 },
    );
  });

  it('IPv6: uniform, near entry edges, and outside 2000::/3', () => {
    const outsideGlobalUnicast = [0n, 2n, 3n, 4n, 5n, 6n, 7n];
    const max = (1n << 128n) - 1n;
    const value = fc.oneof(
      fc.bigInt({ min: 0n, max }),
      nearEdge(128),
      fc.bigInt({ min: 0n, max: (1n << 125n) - 1n }).map((v) => v | (outsideGlobalUnicast[Number(v % 7n)] << 125n)),
      fc.bigInt({ min: 0n, max: (1n << 125n) - 1n }).map((v) => v | (1n << 125n)),
    );
    fc.assert(
      fc.property(value, (v) => expectMatchesReference(v, 128)),
      { numRuns: 20000 },
    );
  });

  it('returns the same shared object on every call (no allocation)', () => {
    expect(classify('10.1.2.3')).toBe(classify('10.9.9.9'));
    expect(classify('fe80::1')).toBe(classify('fe80::2'));
  });
});
