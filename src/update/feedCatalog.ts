/**
 * The feeds `netlookup update` fetches for the paid record's verdicts, beside the table sources of
 * sourceCatalog.ts: where each is, how big it may be, how it is checked, how often it changes, how
 * long it answers, and its licence. docs/feeds.md states the same for operators.
 */
import type { ValuedRange } from '../feeds/build/feedTables.js';
import { RPKI_STATES, rpkiStates } from '../feeds/rpkiValidation.js';
import { abuseFeedId, type AbuseRegistry } from '../feeds/abuseMailbox.js';
import { ABUSE_DUMP_URLS, readAbuseContacts, type AbuseDumpFiles } from '../feeds/sources/abuseContacts.js';
import { readRpslDump } from '../feeds/sources/rpslDump.js';
import { RDAP_BOOTSTRAP_MAX_BYTES, RDAP_BOOTSTRAP_URLS, readRdapBootstrap } from '../feeds/sources/rdapBootstrap.js';
import type { FeedListing } from '../feeds/sources/feedListing.js';
import { readVrps, VRP_MAX_BYTES } from '../feeds/sources/rpkiVrps.js';
import { readRisWhoisDump } from '../tables/sources/routingTable.js';
import { linesOfFile } from '../tables/sources/textLines.js';
import { FIREHOL_PROXIES_URL, MONOSANS_PROXIES_URL, readFireholNetset, readMonosansProxyList } from '../feeds/sources/proxyLists.js';
import {
  ONIONOO_EXITS_URL,
  ONIONOO_MAX_BYTES,
  readOnionooExits,
  readTorBulkExitList,
  readTorExitAddresses,
  TOR_BULK_EXIT_LIST_URL,
  TOR_EXIT_ADDRESSES_URL,
} from '../feeds/sources/torExits.js';
import { AZ0_VPN_IPS_URL, readAz0VpnIps, readX4bVpnList, X4B_VPN_URLS } from '../feeds/sources/vpnAggregates.js';
import {
  AIRVPN_STATUS_URL,
  IVPN_SERVERS_URL,
  MULLVAD_RELAYS_URL,
  NORDVPN_SERVERS_URL,
  PIA_SERVERS_URL,
  PRIVATE_RELAY_EGRESS_URL,
  readAirVpnStatus,
  readIvpnServers,
  readMullvadRelays,
  readNordVpnServers,
  readPiaServers,
  readPrivateRelayEgress,
  readWindscribeServers,
  WINDSCRIBE_SERVERS_URL,
} from '../feeds/sources/vpnServers.js';
import { publisherFileName } from './download.js';
import type { PublishedSource } from './sourceCatalog.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const MB = 1024 * 1024;
/**
 * A feed answers until this many of its cadences have passed since its date (or since it was
 * fetched, when it states none): an update that fails twice in a row leaves its verdicts standing,
 * a third makes them null rather than stale.
 */
const STALE_AFTER_CADENCES = 3;

export interface FeedSourceDefinition extends PublishedSource {
  /** the feed table it goes into */
  table: 'security' | 'rpki' | 'abuse' | 'rdap';
  /** what a listed address is */
  says: 'tor' | 'vpn' | 'proxy' | 'relay' | 'rpki' | 'abuse' | 'rdap';
  /** how long after its date the feed answers (a multiple of its cadence); past it, its verdicts are null */
  staleAfterMs: number;
  /** security feeds: the listing of the file */
  listing?(file: string, url: string): Promise<FeedListing>;
  /** rpki, abuse and rdap feeds: the valued ranges of the file (with the routes in force, or the group's other files) */
  ranges?(file: string, url: string, context: { routes?: string; files?: Record<string, string> }): Promise<ValuedRange<string>[]>;
  /** abuse feeds: the registry whose dump files are read together, and this file's part of it */
  group?: string;
  part?: string;
}

/** A feed of listed addresses (Tor, VPN, proxy, relay): its check reads the listing the builder will read. */
function listedFeed(
  definition: Omit<FeedSourceDefinition, 'table' | 'staleAfterMs' | 'check' | 'listing'> & {
    read(file: string): FeedListing | Promise<FeedListing>;
  },
): FeedSourceDefinition {
  const { read, ...rest } = definition;
  return {
    ...rest,
    table: 'security',
    staleAfterMs: STALE_AFTER_CADENCES * rest.cadenceMs,
    listing: async (file) => read(file),
    check: async (file) => {
      const listing = await read(file);
      return { rows: listing.ranges.length, date: listing.date };
    },
  };
}

const VPN_TERMS = 'published by the provider for its own clients; no licence stated: read as a fact about its servers';

/**
 * Validated ROA payloads: the states of the IPv4 routes of the table set in force (RFC 6811 origin
 * validation, src/feeds/rpkiValidation.ts), as ranges of addresses.
 */
const RPKI_FEED: FeedSourceDefinition = {
  id: 'rpki-cloudflare',
  name: "Cloudflare's validated ROA payloads (rpki.json)",
  table: 'rpki',
  says: 'rpki',
  urls: () => ['https://rpki.cloudflare.com/rpki.json'],
  maxBytes: VRP_MAX_BYTES,
  minRows: 250_000,
  cadenceMs: HOUR,
  staleAfterMs: STALE_AFTER_CADENCES * HOUR,
  licence: "RPKI data: the RIRs' relying party terms; validated and published by Cloudflare",
  attribution: "RPKI validated ROA payloads: Cloudflare (rpki.cloudflare.com), from the five RIRs' trust anchors",
  about: 'https://rpki.cloudflare.com/',
  check: async (file, url) => {
    const vrps = await readVrps(file, publisherFileName(url));
    return { rows: vrps.ipv4.count + vrps.ipv6.length, date: vrps.date };
  },
  ranges: async (file, url, { routes }) => {
    const vrps = await readVrps(file, publisherFileName(url));
    const dump = await readRisWhoisDump(linesOfFile(routes!), 4, routes!);
    const states = rpkiStates(vrps, dump.announcements);
    const out: ValuedRange<string>[] = [];
    for (let i = 0; i < states.count; i++) {
      out.push({ family: 4, start: BigInt(states.start[i]), end: BigInt(states.end[i]), value: RPKI_STATES[states.state[i]] });
    }
    return out;
  },
};

/**
 * The RIRs' public database dumps that keep `abuse-mailbox` (RIPE NCC's split files; AFRINIC's one
 * file): one feed per file, read together per registry (src/feeds/sources/abuseContacts.ts).
 * APNIC's public dumps mask every mailbox (`********`), and ARIN and LACNIC publish none with
 * contacts: their addresses answer abuse.email null (docs/feeds.md).
 */
function abuseFeeds(registry: Exclude<AbuseRegistry, 'apnic'>, name: string, attribution: string, about: string): FeedSourceDefinition[] {
  const files = ABUSE_DUMP_URLS[registry];
  // one feed per distinct file: AFRINIC's single file holds every class
  const parts = new Map<string, (keyof AbuseDumpFiles)[]>();
  for (const [part, url] of Object.entries(files) as [keyof AbuseDumpFiles, string][]) parts.set(url, [...(parts.get(url) ?? []), part]);
  return [...parts].map(([url, classes]): FeedSourceDefinition => {
    const single = parts.size === 1;
    const fileName = publisherFileName(url);
    return {
      id: abuseFeedId(registry, single ? null : classes[0]),
      name: `${name}${single ? '' : ` (${fileName})`}`,
      table: 'abuse',
      says: 'abuse',
      group: registry,
      part: classes.join(','),
      urls: () => [url],
      maxBytes: 4 * 1024 * MB,
      minRows: 1,
      cadenceMs: DAY,
      staleAfterMs: 7 * DAY,
      licence: 'the RIR database terms: operational use (abuse reporting is one)',
      attribution,
      about,
      check: async (file) => {
        const counts = { objects: 0, kept: 0 };
        for await (const object of readRpslDump(file, { keep: {}, encoding: 'latin1', counts })) void object;
        if (counts.objects === 0) throw new Error('no objects');
        return { rows: counts.objects, date: null };
      },
      // the registry's whole set of files, read together, once: the first file of the group reads them
      ranges: async (_file, _url, { files: byPart }) => {
        const dumpFiles = {} as AbuseDumpFiles;
        for (const [part, path] of Object.entries(byPart ?? {}))
          for (const one of part.split(',')) dumpFiles[one as keyof AbuseDumpFiles] = path;
        const contacts = await readAbuseContacts(dumpFiles, registry);
        const out: ValuedRange<string>[] = [];
        for (const [family, table] of [
          [4, contacts.ipv4],
          [6, contacts.ipv6],
        ] as const) {
          for (const range of table) out.push({ family, start: range.start, end: range.end, value: range.email });
        }
        return out;
      },
    };
  });
}

/**
 * IANA's RDAP bootstrap (RFC 9224): which registry's RDAP service answers for each block, for the
 * abuse contacts of space no dump covers (src/enrichment/rdapAbuse.ts). IANA changes it a few
 * times a year, so it answers for 30 days after it was last fetched or confirmed.
 */
function rdapBootstrapFeed(family: 4 | 6): FeedSourceDefinition {
  return {
    id: `rdap-bootstrap-ipv${family}`,
    name: `IANA RDAP bootstrap (IPv${family})`,
    table: 'rdap',
    says: 'rdap',
    urls: () => [family === 4 ? RDAP_BOOTSTRAP_URLS.ipv4 : RDAP_BOOTSTRAP_URLS.ipv6],
    maxBytes: RDAP_BOOTSTRAP_MAX_BYTES,
    // 2026: about 220 IPv4 /8s and 35 IPv6 blocks
    minRows: family === 4 ? 100 : 20,
    cadenceMs: DAY,
    staleAfterMs: 30 * DAY,
    licence: 'IANA registry data, published for RDAP clients (RFC 9224)',
    attribution: 'RDAP bootstrap: IANA (data.iana.org/rdap)',
    about: 'https://www.iana.org/assignments/rdap-ipv4/',
    check: async (file) => {
      const bootstrap = readRdapBootstrap(file, family);
      return { rows: bootstrap.ranges.length, date: bootstrap.date };
    },
    ranges: async (file) => readRdapBootstrap(file, family).ranges,
  };
}

const TOR_TERMS = "the Tor Project's public data (Tor Metrics publishes its data under CC0)";

export const FEED_SOURCES: readonly FeedSourceDefinition[] = [
  RPKI_FEED,
  rdapBootstrapFeed(4),
  rdapBootstrapFeed(6),
  ...abuseFeeds(
    'ripencc',
    'RIPE NCC database dump',
    'Abuse contacts: RIPE NCC database (ftp.ripe.net), © RIPE NCC',
    'https://www.ripe.net/manage-ips-and-asns/db/',
  ),
  ...abuseFeeds(
    'afrinic',
    'AFRINIC database dump',
    'Abuse contacts: AFRINIC database (ftp.afrinic.net), © AFRINIC',
    'https://afrinic.net/whois',
  ),
  listedFeed({
    id: 'tor-bulk-exits',
    name: 'Tor bulk exit list',
    says: 'tor',
    urls: () => [TOR_BULK_EXIT_LIST_URL],
    maxBytes: 4 * MB,
    minRows: 500,
    cadenceMs: HOUR,
    licence: TOR_TERMS,
    attribution: 'Tor exit addresses: The Tor Project (check.torproject.org)',
    about: 'https://check.torproject.org/',
    read: (file) => readTorBulkExitList(file),
  }),
  listedFeed({
    id: 'tor-exit-addresses',
    name: 'Tor exit addresses (TorDNSEL)',
    says: 'tor',
    urls: () => [TOR_EXIT_ADDRESSES_URL],
    maxBytes: 32 * MB,
    minRows: 500,
    cadenceMs: HOUR,
    licence: TOR_TERMS,
    attribution: 'Tor exit addresses: The Tor Project (check.torproject.org)',
    about: 'https://metrics.torproject.org/collector.html#type-tordnsel',
    read: (file) => readTorExitAddresses(file),
  }),
  listedFeed({
    id: 'tor-onionoo',
    name: 'Tor relays exiting over IPv6 (Onionoo)',
    says: 'tor',
    urls: () => [ONIONOO_EXITS_URL],
    maxBytes: ONIONOO_MAX_BYTES,
    minRows: 500,
    cadenceMs: HOUR,
    licence: TOR_TERMS,
    attribution: 'Tor relays: The Tor Project, Onionoo (onionoo.torproject.org)',
    about: 'https://metrics.torproject.org/onionoo.html',
    read: (file) => readOnionooExits(file),
  }),
  listedFeed({
    id: 'proxy-firehol',
    name: 'FireHOL open proxies (firehol_proxies)',
    says: 'proxy',
    urls: () => [FIREHOL_PROXIES_URL],
    maxBytes: 64 * MB,
    minRows: 1_000,
    cadenceMs: HOUR,
    licence: "FireHOL IP lists: each list under its maintainers' terms (see the list's page)",
    attribution: 'Open proxies: FireHOL IP lists, firehol_proxies (https://iplists.firehol.org/)',
    about: 'https://iplists.firehol.org/?ipset=firehol_proxies',
    read: (file) => readFireholNetset(file),
  }),
  listedFeed({
    id: 'proxy-monosans',
    name: 'monosans proxy-list (checked hourly)',
    says: 'proxy',
    urls: () => [MONOSANS_PROXIES_URL],
    maxBytes: 64 * MB,
    minRows: 200,
    cadenceMs: HOUR,
    licence: "see the repository's licence",
    attribution: 'Checked open proxies: monosans/proxy-list (https://github.com/monosans/proxy-list)',
    about: 'https://github.com/monosans/proxy-list',
    read: (file) => readMonosansProxyList(file),
  }),
  listedFeed({
    id: 'vpn-mullvad',
    name: 'Mullvad VPN server list',
    says: 'vpn',
    urls: () => [MULLVAD_RELAYS_URL],
    maxBytes: 32 * MB,
    minRows: 300,
    cadenceMs: 12 * HOUR,
    licence: VPN_TERMS,
    attribution: 'VPN servers: Mullvad VPN (api.mullvad.net)',
    about: 'https://mullvad.net/en/servers',
    read: readMullvadRelays,
  }),
  listedFeed({
    id: 'vpn-nordvpn',
    name: 'NordVPN server list',
    says: 'vpn',
    urls: () => [NORDVPN_SERVERS_URL],
    maxBytes: 128 * MB,
    minRows: 3_000,
    cadenceMs: 12 * HOUR,
    licence: VPN_TERMS,
    attribution: 'VPN servers: NordVPN (api.nordvpn.com)',
    about: 'https://nordvpn.com/servers/',
    read: readNordVpnServers,
  }),
  listedFeed({
    id: 'vpn-pia',
    name: 'Private Internet Access server list',
    says: 'vpn',
    urls: () => [PIA_SERVERS_URL],
    maxBytes: 32 * MB,
    minRows: 500,
    cadenceMs: 12 * HOUR,
    licence: VPN_TERMS,
    attribution: 'VPN servers: Private Internet Access (serverlist.piaservers.net)',
    about: 'https://www.privateinternetaccess.com/vpn-server',
    read: readPiaServers,
  }),
  listedFeed({
    id: 'vpn-ivpn',
    name: 'IVPN server list',
    says: 'vpn',
    urls: () => [IVPN_SERVERS_URL],
    maxBytes: 32 * MB,
    minRows: 60,
    cadenceMs: 12 * HOUR,
    licence: VPN_TERMS,
    attribution: 'VPN servers: IVPN (api.ivpn.net)',
    about: 'https://www.ivpn.net/status/',
    read: readIvpnServers,
  }),
  listedFeed({
    id: 'vpn-windscribe',
    name: 'Windscribe server list',
    says: 'vpn',
    urls: () => [WINDSCRIBE_SERVERS_URL],
    maxBytes: 32 * MB,
    // about 1,100 addresses (az0/vpn_ip's daily reads of this list, late 2025)
    minRows: 300,
    cadenceMs: 12 * HOUR,
    licence: VPN_TERMS,
    attribution: 'VPN servers: Windscribe (assets.windscribe.com)',
    about: 'https://windscribe.com/status',
    read: readWindscribeServers,
  }),
  listedFeed({
    id: 'vpn-airvpn',
    name: 'AirVPN server status',
    says: 'vpn',
    urls: () => [AIRVPN_STATUS_URL],
    maxBytes: 32 * MB,
    // 257 servers of eight addresses, about 2,040 in service (a copy of 2026-08-22)
    minRows: 500,
    cadenceMs: 12 * HOUR,
    licence: VPN_TERMS,
    attribution: 'VPN servers: AirVPN (airvpn.org)',
    about: 'https://airvpn.org/status/',
    read: readAirVpnStatus,
  }),
  listedFeed({
    id: 'vpn-x4bnet-ipv4',
    name: 'X4BNet lists_vpn (IPv4)',
    says: 'vpn',
    urls: () => [X4B_VPN_URLS.ipv4],
    maxBytes: 64 * MB,
    minRows: 4_000,
    cadenceMs: DAY,
    licence: 'MIT',
    attribution: 'VPN networks: X4BNet lists_vpn (https://github.com/X4BNet/lists_vpn), MIT',
    about: 'https://github.com/X4BNet/lists_vpn',
    read: readX4bVpnList,
  }),
  listedFeed({
    id: 'vpn-x4bnet-ipv6',
    name: 'X4BNet lists_vpn (IPv6)',
    says: 'vpn',
    urls: () => [X4B_VPN_URLS.ipv6],
    maxBytes: 64 * MB,
    minRows: 150,
    cadenceMs: DAY,
    licence: 'MIT',
    attribution: 'VPN networks: X4BNet lists_vpn (https://github.com/X4BNet/lists_vpn), MIT',
    about: 'https://github.com/X4BNet/lists_vpn',
    read: readX4bVpnList,
  }),
  listedFeed({
    id: 'vpn-az0',
    name: 'az0 vpn_ip',
    says: 'vpn',
    urls: () => [AZ0_VPN_IPS_URL],
    maxBytes: 64 * MB,
    minRows: 10_000,
    cadenceMs: DAY,
    licence: 'GPL-3.0',
    attribution: 'VPN server addresses: az0 vpn_ip (https://github.com/az0/vpn_ip), GPL-3.0',
    about: 'https://github.com/az0/vpn_ip',
    read: readAz0VpnIps,
  }),
  listedFeed({
    id: 'relay-icloud',
    name: 'iCloud Private Relay egress ranges',
    says: 'relay',
    urls: () => [PRIVATE_RELAY_EGRESS_URL],
    maxBytes: 128 * MB,
    minRows: 100_000,
    cadenceMs: DAY,
    licence: 'published by Apple for IP geolocation providers',
    attribution: 'iCloud Private Relay egress ranges: Apple (mask-api.icloud.com)',
    about: 'https://developer.apple.com/support/prepare-your-network-for-icloud-private-relay/',
    read: readPrivateRelayEgress,
  }),
];
