/**
 * The caller's address. X-Forwarded-For is believed only from proxies listed in
 * NETLOOKUP_TRUST_PROXY: the chain is walked from the right (the hop nearest to us) past trusted
 * proxies to the first untrusted address, which is the client. Nothing is trusted by default.
 */
import { formatIPv4, formatIPv6, ipv4MappedOf, parseIPv4, parseIPv6 } from './ipAddress.js';

interface Network {
  version: 4 | 6;
  /** IPv4: [address]; IPv6: four words */
  words: Uint32Array;
  prefix: number;
}

export type NetworkList = Network[];

const scratch = new Uint32Array(4);

/**
 * Parses "10.0.0.0/8, ::1, 192.168.1.1" (CIDRs or single addresses); throws naming the variable.
 * A prefix is 1 to 3 digits within the family's range: "10.0.0.1/" is refused, never read as /0.
 * An IPv4-mapped entry (::ffff:10.0.0.1, ::ffff:10.0.0.0/104) becomes its IPv4 network, since peers
 * in that form are matched as IPv4.
 */
export function parseNetworkList(text: string, name: string): NetworkList {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map((item) => {
      const refuse = (): never => {
        throw new Error(`${name}: "${item}" is not an IP address or CIDR block`);
      };
      const parts = item.split('/');
      if (parts.length > 2) refuse();
      const [address, prefixText] = parts;
      const v4 = parseIPv4(address);
      const version = v4 >= 0 ? 4 : parseIPv6(address, scratch) ? 6 : 0;
      if (version === 0) refuse();
      const max = version === 4 ? 32 : 128;
      if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) refuse();
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (prefix > max) refuse();
      if (version === 4) return { version, words: Uint32Array.of(v4), prefix } as Network;
      const mapped = ipv4MappedOf(scratch);
      if (mapped >= 0 && prefix >= 96) return { version: 4, words: Uint32Array.of(mapped), prefix: prefix - 96 } as Network;
      return { version, words: Uint32Array.from(scratch), prefix } as Network;
    });
}

function contains(network: Network, version: 4 | 6, words: ArrayLike<number>): boolean {
  if (network.version !== version) return false;
  let bits = network.prefix;
  for (let i = 0; bits > 0; i++, bits -= 32) {
    const mask = bits >= 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
    if (((network.words[i] ^ words[i]) & mask) >>> 0 !== 0) return false;
  }
  return true;
}

/** Canonical form of an address for matching: IPv4-mapped IPv6 counts as its IPv4. */
function addressOf(text: string): { version: 4 | 6; words: Uint32Array } | null {
  const v4 = parseIPv4(text);
  if (v4 >= 0) return { version: 4, words: Uint32Array.of(v4) };
  const words = new Uint32Array(4);
  if (!parseIPv6(text, words)) return null;
  const mapped = ipv4MappedOf(words);
  return mapped >= 0 ? { version: 4, words: Uint32Array.of(mapped) } : { version: 6, words };
}

export function isTrusted(list: NetworkList, text: string): boolean {
  if (list.length === 0) return false;
  const address = addressOf(text);
  return address !== null && list.some((n) => contains(n, address.version, address.words));
}

/**
 * The client address of a request that arrived from `peer` with the given X-Forwarded-For
 * header(s). Entries that are not addresses end the walk: a proxy we trust wrote them badly.
 */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trusted: NetworkList): string {
  if (!isTrusted(trusted, peer) || forwardedFor === undefined) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    if (addressOf(hops[i]) === null) return client;
    client = hops[i];
    if (!isTrusted(trusted, client)) return client;
  }
  return client;
}

/**
 * The unit a per-client allowance counts: an IPv4 address (IPv4-mapped IPv6 as its IPv4), or the
 * /64 network of an IPv6 address, since one subscriber holds a whole /64 and can use any address
 * in it. Text that is no address is counted as it is.
 */
export function allowanceClient(address: string): string {
  const words = new Uint32Array(4);
  if (parseIPv4(address) >= 0 || !parseIPv6(address, words)) return address;
  const mapped = ipv4MappedOf(words);
  if (mapped >= 0) return formatIPv4(mapped);
  words[2] = 0;
  words[3] = 0;
  return `${formatIPv6(words)}/64`;
}
