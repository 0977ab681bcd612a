/**
 * Special-purpose address classifier for the reserved-address record (SPEC 2.3).
 *
 * Source: the IANA IPv4 and IPv6 Special-Purpose Address Registries (as of 2026), the IPv4
 * multicast block and the IANA IPv6 Address Space registry (everything outside 2000::/3 is either
 * a special block or reserved by the IETF). Rows are mapped onto the SPEC 2.3 types; rows the
 * registry marks globally reachable are 'global' and answer null, so they get a normal lookup.
 *
 * Decisions where the registry says N/A or "deprecated":
 * - 2002::/16 (6to4) and 2001::/32 (Teredo): global. They are ordinary, routed unicast addresses of
 *   real hosts (IANA: Globally Reachable N/A, not False), so they are not "reserved"; the lookup
 *   answers from the tables, which honestly gives found = false when no source locates them.
 * - 192.88.99.0/24 (6to4 relay anycast): reserved. It was deprecated by RFC 7526, names no host
 *   (it was anycast shared by unrelated relay operators) and is held by IANA for future IETF use.
 *
 * Lookup walks the rows most specific first and never allocates: it returns shared frozen objects.
 */
import { parseIPv4, parseIPv6 } from './ipAddress.js';

export type ReservedType = 'private' | 'loopback' | 'link_local' | 'cgnat' | 'multicast' | 'documentation' | 'benchmark' | 'reserved';

export interface ReservedRange {
  type: ReservedType;
  description: string;
  cidr: string;
}

/** 'global': the registry marks the block globally reachable; it is looked up like public space. */
type RegistryType = ReservedType | 'global';

export interface RegistryRow {
  cidr: string;
  type: RegistryType;
  description: string;
  rfc: string;
}

const row = (cidr: string, type: RegistryType, description: string, rfc: string): RegistryRow => ({
  cidr,
  type,
  description,
  rfc,
});

export const SPECIAL_PURPOSE_REGISTRY: readonly RegistryRow[] = [
  row('0.0.0.0/8', 'reserved', '"This network"', 'RFC 791'),
  row('0.0.0.0/32', 'reserved', '"This host on this network"', 'RFC 1122'),
  row('10.0.0.0/8', 'private', 'Private network', 'RFC 1918'),
  row('100.64.0.0/10', 'cgnat', 'Shared address space for carrier-grade NAT', 'RFC 6598'),
  row('127.0.0.0/8', 'loopback', 'Loopback', 'RFC 1122'),
  row('169.254.0.0/16', 'link_local', 'Link-local', 'RFC 3927'),
  row('172.16.0.0/12', 'private', 'Private network', 'RFC 1918'),
  row('192.0.0.0/24', 'reserved', 'IETF protocol assignments', 'RFC 6890'),
  row('192.0.0.0/29', 'reserved', 'IPv4 service continuity prefix', 'RFC 7335'),
  row('192.0.0.8/32', 'reserved', 'IPv4 dummy address', 'RFC 7600'),
  row('192.0.0.9/32', 'global', 'Port Control Protocol anycast', 'RFC 7723'),
  row('192.0.0.10/32', 'global', 'TURN anycast', 'RFC 8155'),
  row('192.0.0.170/32', 'reserved', 'NAT64/DNS64 discovery', 'RFC 8880'),
  row('192.0.0.171/32', 'reserved', 'NAT64/DNS64 discovery', 'RFC 8880'),
  row('192.0.2.0/24', 'documentation', 'Documentation (TEST-NET-1)', 'RFC 5737'),
  row('192.31.196.0/24', 'global', 'AS112-v4', 'RFC 7535'),
  row('192.52.193.0/24', 'global', 'AMT', 'RFC 7450'),
  row('192.88.99.0/24', 'reserved', 'Deprecated 6to4 relay anycast', 'RFC 7526'),
  row('192.88.99.2/32', 'reserved', '6a44 relay anycast', 'RFC 6751'),
  row('192.168.0.0/16', 'private', 'Private network', 'RFC 1918'),
  row('192.175.48.0/24', 'global', 'AS112 direct delegation', 'RFC 7534'),
  row('198.18.0.0/15', 'benchmark', 'Benchmarking', 'RFC 2544'),
  row('198.51.100.0/24', 'documentation', 'Documentation (TEST-NET-2)', 'RFC 5737'),
  row('203.0.113.0/24', 'documentation', 'Documentation (TEST-NET-3)', 'RFC 5737'),
  row('224.0.0.0/4', 'multicast', 'Multicast', 'RFC 5771'),
  row('240.0.0.0/4', 'reserved', 'Reserved for future use', 'RFC 1112'),
  row('255.255.255.255/32', 'reserved', 'Limited broadcast', 'RFC 919'),

  row('::/128', 'reserved', 'Unspecified address', 'RFC 4291'),
  row('::1/128', 'loopback', 'Loopback', 'RFC 4291'),
  row('::ffff:0:0/96', 'reserved', 'IPv4-mapped address', 'RFC 4291'),
  row('64:ff9b::/96', 'global', 'IPv4/IPv6 translation (NAT64)', 'RFC 6052'),
  row('64:ff9b:1::/48', 'reserved', 'Local-use IPv4/IPv6 translation', 'RFC 8215'),
  row('100::/64', 'reserved', 'Discard-only', 'RFC 6666'),
  row('100:0:0:1::/64', 'reserved', 'Dummy IPv6 prefix', 'RFC 9780'),
  row('2001::/23', 'reserved', 'IETF protocol assignments', 'RFC 2928'),
  row('2001::/32', 'global', 'Teredo', 'RFC 4380'),
  row('2001:1::1/128', 'global', 'Port Control Protocol anycast', 'RFC 7723'),
  row('2001:1::2/128', 'global', 'TURN anycast', 'RFC 8155'),
  row('2001:1::3/128', 'global', 'DNS-SD Service Registration Protocol anycast', 'RFC 9665'),
  row('2001:2::/48', 'benchmark', 'Benchmarking', 'RFC 5180'),
  row('2001:3::/32', 'global', 'AMT', 'RFC 7450'),
  row('2001:4:112::/48', 'global', 'AS112-v6', 'RFC 7535'),
  row('2001:10::/28', 'reserved', 'Deprecated ORCHID', 'RFC 4843'),
  row('2001:20::/28', 'global', 'ORCHIDv2', 'RFC 7343'),
  row('2001:30::/28', 'global', 'Drone Remote ID entity tags', 'RFC 9374'),
  row('2001:db8::/32', 'documentation', 'Documentation', 'RFC 3849'),
  row('2002::/16', 'global', '6to4', 'RFC 3056'),
  row('2620:4f:8000::/48', 'global', 'AS112 direct delegation', 'RFC 7534'),
  row('3fff::/20', 'documentation', 'Documentation', 'RFC 9637'),
  row('5f00::/16', 'reserved', 'Segment Routing (SRv6) SIDs', 'RFC 9602'),
  row('fc00::/7', 'private', 'Unique local address', 'RFC 4193'),
  row('fe80::/10', 'link_local', 'Link-local unicast', 'RFC 4291'),
  row('fec0::/10', 'reserved', 'Deprecated site-local', 'RFC 3879'),
  row('ff00::/8', 'multicast', 'Multicast', 'RFC 4291'),
  // The rest of the space outside global unicast 2000::/3 (IANA IPv6 Address Space registry).
  row('::/8', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('100::/8', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('200::/7', 'reserved', 'Reserved by the IETF', 'RFC 4048'),
  row('400::/6', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('800::/5', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('1000::/4', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('4000::/3', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('6000::/3', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('8000::/3', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('a000::/3', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('c000::/3', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('e000::/4', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('f000::/5', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('f800::/6', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
  row('fe00::/9', 'reserved', 'Reserved by the IETF', 'RFC 4291'),
];

/** Numeric form of one address family's rows, most specific first; masks and networks as int32. */
interface CompiledFamily {
  count: number;
  network: Int32Array;
  mask: Int32Array;
  result: (ReservedRange | null)[];
  /** 1 where some row overlaps this value of the leading bits: other values skip the scan. */
  touched: Uint8Array;
}

function maskWord(prefix: number, word: number): number {
  const bits = Math.min(32, Math.max(0, prefix - 32 * word));
  return bits === 0 ? 0 : (0xffffffff << (32 - bits)) | 0;
}

function resultOf(entry: RegistryRow): ReservedRange | null {
  if (entry.type === 'global') return null;
  return Object.freeze({ type: entry.type, description: `${entry.description} (${entry.rfc})`, cidr: entry.cidr });
}

function parseCidrAddress(address: string, wordCount: number, words: Uint32Array): boolean {
  if (wordCount === 4) return parseIPv6(address, words);
  const n = parseIPv4(address);
  words[0] = n;
  return n >= 0;
}

function compileFamily(rows: RegistryRow[], wordCount: number, touchedBits: number): CompiledFamily {
  const ordered = rows
    .map((entry) => ({ entry, prefix: Number(entry.cidr.slice(entry.cidr.indexOf('/') + 1)) }))
    .sort((a, b) => b.prefix - a.prefix);
  const family: CompiledFamily = {
    count: ordered.length,
    network: new Int32Array(ordered.length * wordCount),
    mask: new Int32Array(ordered.length * wordCount),
    result: ordered.map(({ entry }) => resultOf(entry)),
    touched: new Uint8Array(2 ** touchedBits),
  };
  const words = new Uint32Array(4);
  ordered.forEach(({ entry, prefix }, index) => {
    const address = entry.cidr.slice(0, entry.cidr.indexOf('/'));
    if (!parseCidrAddress(address, wordCount, words) || !(prefix >= 0 && prefix <= 32 * wordCount)) {
      throw new Error(`bad registry cidr ${entry.cidr}`);
    }
    for (let w = 0; w < wordCount; w++) {
      const mask = maskWord(prefix, w);
      if ((words[w] & ~mask) !== 0) throw new Error(`registry cidr ${entry.cidr} has host bits set`);
      family.network[index * wordCount + w] = words[w] & mask;
      family.mask[index * wordCount + w] = mask;
    }
    const first = words[0] >>> (32 - touchedBits);
    const span = prefix >= touchedBits ? 1 : 2 ** (touchedBits - prefix);
    family.touched.fill(1, first, first + span);
  });
  return family;
}

const IPV4 = compileFamily(
  SPECIAL_PURPOSE_REGISTRY.filter((entry) => !entry.cidr.includes(':')),
  1,
  8,
);
const IPV6 = compileFamily(
  SPECIAL_PURPOSE_REGISTRY.filter((entry) => entry.cidr.includes(':')),
  4,
  16,
);

/** The special-purpose range of an IPv4 address (u32), or null for globally reachable space. */
export function reservedIPv4(n: number): ReservedRange | null {
  if (IPV4.touched[n >>> 24] === 0) return null;
  const { network, mask, result, count } = IPV4;
  for (let i = 0; i < count; i++) {
    if ((n & mask[i]) === network[i]) return result[i];
  }
  return null;
}

/** The special-purpose range of an IPv6 address (four big-endian words), or null for global space. */
export function reservedIPv6(words: Uint32Array | ArrayLike<number>): ReservedRange | null {
  if (IPV6.touched[words[0] >>> 16] === 0) return null;
  const { network, mask, result, count } = IPV6;
  const w0 = words[0];
  const w1 = words[1];
  const w2 = words[2];
  const w3 = words[3];
  for (let i = 0, j = 0; i < count; i++, j += 4) {
    if (
      (w0 & mask[j]) === network[j] &&
      (w1 & mask[j + 1]) === network[j + 1] &&
      (w2 & mask[j + 2]) === network[j + 2] &&
      (w3 & mask[j + 3]) === network[j + 3]
    ) {
      return result[i];
    }
  }
  return null;
}
