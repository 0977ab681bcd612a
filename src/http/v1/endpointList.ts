/** GET /v1: the endpoint list (SPEC 1.4) with the data credits that must travel with the data. */
import type { SourceCredit } from '../../tables/format/tableMeta.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { dataStatus } from '../operations/dataStatus.js';

export const endpoints = [
  {
    method: 'GET',
    path: '/v1/ip/{ip}',
    plan: 'all',
    counted_as: '1 IP lookup',
    description: 'location, time zone, network (and on paid plans security, abuse, country facts) of an IPv4 or IPv6 address',
  },
  { method: 'GET', path: '/v1/ip', plan: 'all', counted_as: '1 IP lookup', description: 'the same for the address the request comes from' },
  {
    method: 'POST',
    path: '/v1/ip/batch',
    plan: 'paid',
    counted_as: '1 per unique address',
    description: 'many IP lookups: {"ips": [...]}, a JSON array, or the form field ips=a,b,c',
  },
  {
    method: 'GET',
    path: '/v1/blacklist/{ip}',
    plan: 'all',
    counted_as: '1 blacklist check',
    description: "whether the address is listed in the service's own blacklist",
  },
  {
    method: 'POST',
    path: '/v1/blacklist/batch',
    plan: 'paid',
    counted_as: '1 per unique address',
    description: 'many blacklist checks, same body forms as /v1/ip/batch',
  },
  {
    method: 'POST',
    path: '/v1/blacklist/report',
    plan: 'all',
    counted_as: 'not counted (rate limited)',
    description: 'report an abusive address: ip, threat_type or categories, comment, source, timestamp (JSON or form)',
  },
  {
    method: 'GET',
    path: '/v1/blacklist/export',
    plan: 'all',
    counted_as: '1 blacklist check',
    description:
      'the blacklist for firewalls: format=plain|cidr|ipset|nftables|iptables|csv|json, min_confidence, version, max_age; ETag/Last-Modified',
  },
  {
    method: 'GET',
    path: '/v1/mac/{mac}',
    plan: 'all',
    counted_as: '1 MAC lookup',
    description: 'vendor of a MAC address or OUI prefix (most specific of MA-S, MA-M, MA-L)',
  },
  {
    method: 'GET',
    path: '/v1/mac/search?q=',
    plan: 'paid',
    counted_as: '1 MAC lookup',
    description: 'MAC blocks of companies whose name contains q (alias: vendor), up to 100',
  },
  {
    method: 'GET',
    path: '/v1/usage',
    plan: 'all',
    counted_as: 'not counted',
    description: 'plan, limits and usage of the account of the key',
  },
  {
    method: 'GET',
    path: '/v1/asn/{asn}',
    plan: 'all',
    counted_as: '1 IP lookup',
    description:
      'an autonomous system (AS15169 or 15169): name, organisation, domain, country, connection type, IPv4 and IPv6 prefixes ' +
      'and addresses; on paid plans its prefixes, paged with offset and limit',
  },
  { method: 'GET', path: '/v1', plan: 'all', counted_as: 'not counted', description: 'this list' },
] as const;

/** What a client may want to know of a source: what it is, its version and its own publication date. */
export interface DataSource {
  name: string;
  version: string | null;
  /** the date the source states for its data (ISO 8601); null when it states none */
  date: string | null;
  licence: string;
  url: string | null;
}

export const dataSourceOf = (source: SourceCredit): DataSource => ({
  name: source.name,
  version: source.version,
  date: source.date,
  licence: source.licence,
  url: source.url,
});

/** The third-party credits of the loaded tables (their attribution lines, once each). */
export function dataCredits(deps: ServiceDeps): string[] {
  const credits = new Map<string, string>();
  for (const table of deps.engine.engine.tables()) {
    for (const source of table.meta.sources) if (source.attribution) credits.set(source.name, source.attribution);
  }
  return [...credits.values()];
}

export function endpointList(deps: ServiceDeps) {
  const sources = new Map<string, DataSource>();
  for (const table of deps.engine.engine.tables()) {
    for (const source of table.meta.sources) sources.set(source.name, dataSourceOf(source));
  }
  return {
    success: true,
    version: 1,
    endpoints,
    authentication: 'X-API-Key header, Authorization: Bearer <key>, or ?key=<key> (checked in that order)',
    parameters: { fields: 'comma-separated dot paths to keep', pretty: 'indented output', key: 'API key' },
    credits: dataCredits(deps),
    data_sources: [...sources.values()],
    data_updates: dataStatus(deps),
  };
}
