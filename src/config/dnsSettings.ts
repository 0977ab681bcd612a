/**
 * The reverse DNS settings (src/enrichment/reverseDns.ts), from the environment:
 *
 * - NETLOOKUP_DNS_SERVERS: the resolvers asked, comma-separated: `192.0.2.53`, `192.0.2.53:5353`,
 *   `2001:db8::53`, `[2001:db8::53]:5353`; `off` for no reverse DNS at all (the record's
 *   `network.hostname` is then always null); `system` or unset: the system's resolvers
 *   (/etc/resolv.conf, read by c-ares when each resolver is made).
 * - NETLOOKUP_DNS_DEADLINE_MS: how long one lookup may take, 10 to 5000 (default 300).
 * - NETLOOKUP_DNS_CACHE_SIZE: addresses whose answer is kept, 0 (no cache) to 100000 (default 10000).
 * - NETLOOKUP_DNS_MAX_QUERIES: queries in flight at once, 1 to 256 (default 64).
 *
 * Rules: values are read strictly, as src/config/config.ts reads its own (`envValue`): unset or
 * empty is the default, anything else must have the documented form, or the start stops with a
 * ConfigError naming the variable and the value. Server addresses are strict dotted IPv4 or IPv6
 * (src/address/ipAddress.ts: no zone ids, no leading zeros, no host names: a resolver found by a
 * DNS lookup would be circular), at most 8, no duplicates, never the unspecified address; the port
 * is 1 to 65535 without leading zeros (53, the default, is dropped: `a:53` and `a` are one server).
 * They are returned in the form Resolver.setServers takes.
 *
 * Bounds: the deadline's floor is 10 ms because below it timer granularity and event-loop lag
 * are the same size as the budget itself; its ceiling is 5000 ms, c-ares' own upper bound for one
 * try (RFC 1123 6.1.3.3's recommended timeout): no request should wait longer on a name that only
 * decorates the record. The cache's ceiling keeps its worst case (a 39-character key, a
 * 253-character name, Map overhead: under 1 KB an entry) under 100 MB of a 1 GB heap. The query
 * ceiling keeps the resolvers' sockets (one each in flight) well under a default 1024 file limit.
 */
import { envValue, wholeNumber } from './envValue.js';
import { formatIPv4, formatIPv6, ipv4MappedOf, parseIPv4, parseIPv6 } from '../address/ipAddress.js';

export interface DnsSettings {
  /** the resolvers, each `host` or `host:port` as Resolver.setServers takes them; 'system'; 'off' */
  servers: readonly string[] | 'system' | 'off';
  /** one lookup's budget, ms: the caller has an answer (or "unknown") by then */
  deadlineMs: number;
  /** addresses whose answer is cached (0: none) */
  cacheSize: number;
  /** queries in flight at once, over all requests */
  maxQueries: number;
}

export const DEFAULT_DNS_SETTINGS: DnsSettings = { servers: 'system', deadlineMs: 300, cacheSize: 10_000, maxQueries: 64 };

const DNS_DEADLINE_MIN_MS = 10;
const DNS_DEADLINE_MAX_MS = 5000;
const MAX_SERVERS = 8;
const MAX_CACHE_SIZE = 100_000;
const MAX_QUERIES = 256;

const scratch = new Uint32Array(4);

/** The port's text, or undefined for 53 (the default: `a:53` and `a` are one server). */
function portOf(text: string, item: string): string | undefined {
  const port = /^[1-9]\d{0,4}$/.test(text) ? Number(text) : 0;
  if (port < 1 || port > 65535) throw new Error(`"${item}": the port must be 1 to 65535`);
  return port === 53 ? undefined : String(port);
}

/** One server: its canonical `host` or `host:port` text for Resolver.setServers. */
function serverOf(item: string): string {
  let host = item;
  let port: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(item);
  if (bracketed) {
    host = bracketed[1];
    if (bracketed[2] !== undefined) port = portOf(bracketed[2], item);
    if (!parseIPv6(host, scratch)) throw new Error(`"${item}": brackets hold an IPv6 address`);
  } else if (item.indexOf(':') === item.lastIndexOf(':') && item.includes(':')) {
    // one colon: IPv4 with a port (an IPv6 address has at least two)
    [host] = item.split(':');
    port = portOf(item.slice(host.length + 1), item);
  }
  const dotted = parseIPv4(host);
  if (dotted < 0 && !parseIPv6(host, scratch)) throw new Error(`"${item}" is not an IPv4 or IPv6 address`);
  // an IPv4-mapped IPv6 address is that IPv4 server
  const v4 = dotted >= 0 ? dotted : ipv4MappedOf(scratch);
  if (v4 >= 0) {
    if (v4 === 0) throw new Error(`"${item}" is the unspecified address`);
    return port === undefined ? formatIPv4(v4) : `${formatIPv4(v4)}:${port}`;
  }
  if (scratch.every((word) => word === 0)) throw new Error(`"${item}" is the unspecified address`);
  const v6 = formatIPv6(scratch);
  return port === undefined ? v6 : `[${v6}]:${port}`;
}

function serversOf(text: string): DnsSettings['servers'] {
  if (text === 'off' || text === 'system') return text;
  // spaces after commas are fine; a tab or a newline is a pasting mistake, refused with the item
  const items = text.split(',').map((item) => item.replace(/^ +| +$/g, ''));
  if (items.some((item) => item === '')) throw new Error('an empty entry');
  if (items.length > MAX_SERVERS) throw new Error(`${items.length} servers, at most ${MAX_SERVERS}`);
  const servers = items.map(serverOf);
  const duplicate = servers.find((server, i) => servers.indexOf(server) !== i);
  if (duplicate !== undefined) throw new Error(`${duplicate} is given twice`);
  return servers;
}

/** The reverse DNS settings in force: the configured ones, defaults for the rest. Throws on a bad value. */
export function dnsSettingsFromEnv(env: NodeJS.ProcessEnv): DnsSettings {
  const d = DEFAULT_DNS_SETTINGS;
  return {
    servers:
      envValue(
        env,
        'NETLOOKUP_DNS_SERVERS',
        `off, system, or up to ${MAX_SERVERS} comma-separated IPv4 or IPv6 addresses, each with an optional port (192.0.2.53:53, [2001:db8::53]:53) is expected`,
        serversOf,
      ) ?? d.servers,
    deadlineMs:
      envValue(
        env,
        'NETLOOKUP_DNS_DEADLINE_MS',
        `a whole number of milliseconds from ${DNS_DEADLINE_MIN_MS} to ${DNS_DEADLINE_MAX_MS} is expected`,
        wholeNumber(DNS_DEADLINE_MIN_MS, DNS_DEADLINE_MAX_MS),
      ) ?? d.deadlineMs,
    cacheSize:
      envValue(env, 'NETLOOKUP_DNS_CACHE_SIZE', `a whole number from 0 to ${MAX_CACHE_SIZE} is expected`, wholeNumber(0, MAX_CACHE_SIZE)) ??
      d.cacheSize,
    maxQueries:
      envValue(env, 'NETLOOKUP_DNS_MAX_QUERIES', `a whole number from 1 to ${MAX_QUERIES} is expected`, wholeNumber(1, MAX_QUERIES)) ??
      d.maxQueries,
  };
}
