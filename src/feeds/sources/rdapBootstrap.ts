/**
 * Reader of IANA's RDAP bootstrap files for IP addresses (RFC 9224):
 * `https://data.iana.org/rdap/ipv4.json` and `ipv6.json`. Each is one JSON object
 * `{"description", "publication", "services": [[[prefix, ...], [base URL, ...]], ...], "version": "1.0"}`
 * naming, per block IANA allocated, the RDAP service of the registry that manages it. They are
 * what query-time RDAP (src/enrichment/rdapAbuse.ts) asks to find an address's registry.
 *
 * Rules: the file is bounded (RDAP_BOOTSTRAP_MAX_BYTES, UTF-8, JSON depth) and read whole;
 * `version` must be "1.0" and `publication` a time (RFC 9224 section 10 requires both); every
 * entry is a CIDR block of the file's family without host bits; a service's base URLs must be
 * absolute http(s) URLs ending in `/` (RFC 9224 section 3), and the HTTPS one is taken (RFC 9224
 * 3: "clients SHOULD use the HTTPS URL"); a service with no HTTPS URL is left out and counted, since
 * an abuse contact fetched in clear could be rewritten on the way. Blocks may nest (the longest
 * match wins, section 5.1): the feed builder keeps the smallest.
 */
import { SourceFormatError } from '../../tables/sources/textLines.js';
import type { ValuedRange } from '../build/feedTables.js';
import { isObject } from '../boundedJson.js';
import { boundedText, parseJson, prefixRange, type Fail } from './vpnServers.js';

export const RDAP_BOOTSTRAP_URLS = {
  ipv4: 'https://data.iana.org/rdap/ipv4.json',
  ipv6: 'https://data.iana.org/rdap/ipv6.json',
} as const;

/** Both files were under 10 KB in 2026. */
export const RDAP_BOOTSTRAP_MAX_BYTES = 4 * 1024 * 1024;
const MAX_URL_LENGTH = 2048;

export interface RdapBootstrap {
  /** each block with the HTTPS base URL of its registry's RDAP service */
  ranges: ValuedRange<string>[];
  /** the file's `publication` time */
  date: string;
  /** services listed with no HTTPS URL, left out */
  withoutHttps: number;
}

/** The HTTPS base URL of one service, or null when it lists none. */
function httpsBaseOf(urls: unknown[], fail: Fail): string | null {
  let https: string | null = null;
  for (const url of urls) {
    if (typeof url !== 'string' || url.length > MAX_URL_LENGTH) fail(`a base URL is not a string of at most ${MAX_URL_LENGTH} characters`);
    let parsed: URL;
    try {
      parsed = new URL(url as string);
    } catch {
      fail(`${JSON.stringify((url as string).slice(0, 64))} is not a URL`);
    }
    if ((parsed!.protocol !== 'https:' && parsed!.protocol !== 'http:') || parsed!.search !== '' || parsed!.hash !== '') {
      fail(`${JSON.stringify((url as string).slice(0, 64))} is not an http(s) base URL`);
    }
    if (!(url as string).endsWith('/')) fail(`${JSON.stringify((url as string).slice(0, 64))} does not end in "/"`);
    if (parsed!.protocol === 'https:' && https === null) https = parsed!.href;
  }
  return https;
}

/** Reads one bootstrap file of `family` (4: ipv4.json, 6: ipv6.json). */
export function readRdapBootstrap(file: string, family: 4 | 6): RdapBootstrap {
  const root = parseJson(boundedText(file, RDAP_BOOTSTRAP_MAX_BYTES), file);
  const fail: Fail = (message) => {
    throw new SourceFormatError(file, 0, message);
  };
  if (!isObject(root)) fail('not a JSON object');
  const { version, publication, services } = root as Record<string, unknown>;
  if (version !== '1.0') fail(`"version" is ${JSON.stringify(version)}, not "1.0"`);
  if (
    typeof publication !== 'string' ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(publication) ||
    !Number.isFinite(Date.parse(publication))
  ) {
    fail('"publication" is not a UTC time');
  }
  if (!Array.isArray(services)) fail('"services" is not a list');
  const ranges: ValuedRange<string>[] = [];
  let withoutHttps = 0;
  (services as unknown[]).forEach((service, index) => {
    const failHere: Fail = (message) => fail(`service ${index + 1}: ${message}`);
    if (!Array.isArray(service) || service.length !== 2 || !Array.isArray(service[0]) || !Array.isArray(service[1])) {
      failHere('is not a pair of lists [blocks, base URLs]');
    }
    const [blocks, urls] = service as [unknown[], unknown[]];
    if (blocks.length === 0 || urls.length === 0) failHere('has no block or no base URL');
    const base = httpsBaseOf(urls, failHere);
    const own = blocks.map((block) => {
      if (typeof block !== 'string') failHere('a block is not a string');
      const range = prefixRange(block as string, null, failHere);
      if (range.family !== family) failHere(`${block as string} is not an IPv${family} block`);
      return range;
    });
    if (base === null) {
      withoutHttps++;
      return;
    }
    for (const { start, end } of own) ranges.push({ family, start, end, value: base });
  });
  if (ranges.length === 0) fail('no block with an HTTPS service');
  return { ranges, date: publication as string, withoutHttps };
}
