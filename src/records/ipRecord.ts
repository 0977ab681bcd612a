/**
 * SPEC 2.2 / 2.3 IP records from the engine's plain answers (src/engine/answers.ts). Pure: no
 * HTTP, no Koa; the caller appends `meta` (src/records/metaRecord.ts) and applies `fields`.
 *
 * Three shapes, by answer status:
 * - found: the SPEC 2.2 record of the field level. Every key of the level is present, null where
 *   unknown (SPEC 1.5). The only omitted keys are location.address and location.address_type,
 *   which SPEC 2.2 makes "present only when known" (below).
 * - reserved: the SPEC 2.3 record, the same on every plan (it has no plan column).
 * - not_found: `{ success: true, ip, version, found: false, message }`. SPEC 2.3 fixes only found
 *   and message ("fields beyond found and message: not shown"); ours adds the envelope keys every
 *   response carries (success, ip, version) and nothing else: no location/network objects full
 *   of nulls that would look like an answer. The same on every plan.
 *
 * Where our data comes from, field by field (docs/tables.md "Estimates and rules": unknown is null, and
 * optional feeds that are not loaded leave their fields false/null, honestly):
 * - location.address, address_type (full level): the street address of the datacenter of a hosting
 *   network that PeeringDB places at one facility (the AS row's datacenter), with "datacenter", only
 *   where the range's country is the datacenter's: where the geolocation and the facility disagree,
 *   neither is trusted for a street. Absent otherwise, and always without PeeringDB.
 * - location.*: the city table row; district is ours (the part of the source's place name that
 *   names a district, kept out of city: src/tables/build/placeNames.ts); continent, country name and is_eu from the table's country
 *   facts (answer.country). latitude/longitude are rounded to 4 decimals (about 11 m): the sources
 *   store 32-bit floats (37.422 arrives as 37.422000885009766) and city-level positions carry an
 *   accuracy radius of kilometres anyway. accuracy_radius_km follows the documented estimate of
 *   src/tables/build/accuracyRadius.ts (null for anycast blocks). is_eu is null when the country is
 *   unknown.
 * - timezone.id: the zone the builder derived from the coordinates; null without one, and then
 *   utc_offset/is_dst/current_time are null too. utc_offset/is_dst/current_time are computed for
 *   `now` from the IANA zone with Intl (src/records/zoneClock.ts). A zone the runtime's ICU does not know
 *   keeps its id and gets null for the three computed fields.
 * - network.asn_name, organization, isp, domain, org_domain, holding, holding_domain: the network
 *   identity of the AS row, each field one source's fact by the rules of
 *   src/tables/sources/networkIdentity.ts (docs/tables.md "Network identity"): asn_name the AS name
 *   as registered, organization the registered organisation, isp a curated brand else the
 *   organisation, org_domain and holding only where a source names them.
 * - network.usage: an estimate from the connection type by the mapping of usageOf (docs/tables.md
 *   "Estimates and rules"); null where the type is unknown.
 * - network.hostname, speed_mbps: null, no source. (hostname would need a PTR query per request,
 *   which this pure, synchronous layer does not make.)
 * - network.range: the engine's block: {start, end, size} for IPv4, {start, end, prefix} for IPv6.
 * - network.rpki: null for IPv6 (SPEC). For IPv4 null as well unless the caller passes an RPKI
 *   state from a loaded ROA feed (feeds.rpki). Without a feed, "not_found" would claim that no ROA
 *   covers the route, which we do not know, so null (unknown) is the honest value.
 * - country_info: from the country facts; null as a whole when the country is unknown (SPEC lists
 *   it as one object-typed field).
 * - security: is_vpn/vpn_provider/is_proxy/is_tor from feeds.security; without a loaded VPN, proxy
 *   or Tor feed they are null (no feed, no claim either way). is_threat/threat_* from feeds.threat,
 *   which the blacklist fills (default false/null/0/0/null). is_hosting = a VPN range, or else the
 *   connection type is hosting (SPEC: "datacenter or VPN range"); null where the connection type is
 *   unknown. A VPN range also reports connection_type hosting (SPEC 2.2).
 * - abuse.email: feeds.abuse, the mailbox of a loaded registry dump or of the registry's RDAP answer
 *   (src/http/v1/ipRecordFeeds.ts); null without one.
 */
import type { IpAnswer, IpBlock } from '../engine/answers.js';
import type { IpVersion } from '../address/ipAddress.js';
import type { ReservedType } from '../address/reservedRange.js';
import { NO_THREAT_FACTS, type ThreatFacts, type UnknownThreatFacts } from '../blacklist/threatFacts.js';
import type { RpkiState } from '../feeds/format/feedTable.js';
import type { ConnectionType } from '../tables/format/ipTable.js';
import { localTime, tickedClock } from './zoneClock.js';

export type FieldLevel = 'basic' | 'full';

/** VPN / proxy / Tor facts of an address, from optional feeds; null: no fresh feed for the fact is loaded. */
export interface SecurityFacts {
  is_vpn: boolean | null;
  vpn_provider: string | null;
  is_proxy: boolean | null;
  is_tor: boolean | null;
  /** the names of the fresh feeds that list the address ([]: consulted, not listed; null: none loaded) */
  listed_by: string[] | null;
}

/** Facts from sources beyond the engine's tables; every part optional. */
export interface IpRecordFeeds {
  security?: SecurityFacts | null;
  threat?: ThreatFacts | UnknownThreatFacts | null;
  /** RPKI state of the IPv4 route, when a ROA feed is loaded (ignored for IPv6) */
  rpki?: RpkiState | null;
  /** the abuse mailbox the registry names for the address's block: its dump's, else its RDAP answer's */
  abuse?: string | null;
  /** the address's reverse DNS name, when it was asked for and answered in time */
  hostname?: string | null;
}

/** The security facts while no VPN, proxy or Tor feed is loaded: unknown, not "no". */
export const NO_SECURITY_FACTS: Readonly<SecurityFacts> = Object.freeze({
  is_vpn: null,
  vpn_provider: null,
  is_proxy: null,
  is_tor: null,
  listed_by: null,
});

export interface LocationRecord {
  continent: string | null;
  continent_code: string | null;
  country: string | null;
  country_code: string | null;
  region: string | null;
  city: string | null;
  /** ours: the district, neighbourhood or street the source names within the city (not in the city name) */
  district: string | null;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy_radius_km: number | null;
  is_eu: boolean | null;
  /** full level, present only when known: the datacenter of a hosting network at one facility */
  address?: string;
  /** full level, present only with address ("office" is never given: no source) */
  address_type?: 'datacenter' | 'office';
}

export interface TimezoneBasic {
  id: string | null;
}

export interface TimezoneFull extends TimezoneBasic {
  /** +HH:MM / -HH:MM */
  utc_offset: string | null;
  is_dst: boolean | null;
  /** local time, ISO 8601 with offset: 2026-11-22T14:05:09+01:00 */
  current_time: string | null;
}

export interface NetworkBasic {
  asn: number | null;
  isp: string | null;
  organization: string | null;
  domain: string | null;
  connection_type: ConnectionType | null;
}

export interface Ipv4Range {
  start: string;
  end: string;
  size: number;
}

export interface Ipv6Range {
  start: string;
  end: string;
  prefix: number;
}

export interface NetworkFull extends NetworkBasic {
  asn_name: string | null;
  org_domain: string | null;
  holding: string | null;
  holding_domain: string | null;
  usage: string | null;
  hostname: string | null;
  range: Ipv4Range | Ipv6Range | null;
  rpki: RpkiState | null;
  speed_mbps: { download: number; upload: number } | null;
}

export interface CountryInfoRecord {
  calling_code: string | null;
  tld: string | null;
  currency: { code: string | null; symbol: string | null };
  languages: string[];
}

export interface SecurityRecord {
  /** null while no VPN feed is loaded */
  is_vpn: boolean | null;
  vpn_provider: string | null;
  /** null while no proxy feed is loaded */
  is_proxy: boolean | null;
  /** null while no Tor exit feed is loaded */
  is_tor: boolean | null;
  /** ours, beyond SPEC 2.2: the feeds that list the address ([]: consulted, none lists it; null: none loaded) */
  listed_by: string[] | null;
  /** null where the connection type is unknown and no VPN feed says otherwise */
  is_hosting: boolean | null;
  /** null (with the other threat fields) while the blacklist cannot be read */
  is_threat: boolean | null;
  threat_type: string | null;
  threat_confidence: number | null;
  threat_reports: number | null;
  threat_last_seen: string | null;
}

export interface IpRecordBasic {
  success: true;
  ip: string;
  version: IpVersion;
  location: LocationRecord;
  timezone: TimezoneBasic;
  network: NetworkBasic;
}

export interface IpRecordFull {
  success: true;
  ip: string;
  version: IpVersion;
  location: LocationRecord;
  timezone: TimezoneFull;
  network: NetworkFull;
  country_info: CountryInfoRecord | null;
  security: SecurityRecord;
  abuse: { email: string | null };
}

export interface ReservedIpRecord {
  success: true;
  ip: string;
  version: IpVersion;
  reserved: true;
  reserved_type: ReservedType;
  description: string;
  security: { is_private: boolean; is_cgnat: boolean };
}

/** Our design (SPEC 2.3 shows only found and message): envelope keys, found = false, message. */
export interface NotFoundIpRecord {
  success: true;
  ip: string;
  version: IpVersion;
  found: false;
  message: string;
}

export type IpRecord = IpRecordBasic | IpRecordFull | ReservedIpRecord | NotFoundIpRecord;

export const NOT_FOUND_MESSAGE = 'No data for this address: it is public, but none of the service databases locates it.';

export function ipRecord(
  answer: IpAnswer,
  level: 'basic',
  now: Date,
  feeds?: IpRecordFeeds,
): IpRecordBasic | ReservedIpRecord | NotFoundIpRecord;
export function ipRecord(
  answer: IpAnswer,
  level: 'full',
  now: Date,
  feeds?: IpRecordFeeds,
): IpRecordFull | ReservedIpRecord | NotFoundIpRecord;
export function ipRecord(answer: IpAnswer, level: FieldLevel, now: Date, feeds?: IpRecordFeeds): IpRecord;
export function ipRecord(answer: IpAnswer, level: FieldLevel, now: Date, feeds?: IpRecordFeeds): IpRecord {
  if (answer.status === 'reserved') return reservedRecord(answer);
  if (answer.status === 'not_found')
    return { success: true, ip: answer.ip, version: answer.version, found: false, message: NOT_FOUND_MESSAGE };

  const loc = answer.location;
  const country = answer.country;
  const net = answer.network;
  const security = feeds?.security ?? NO_SECURITY_FACTS;
  const connectionType: ConnectionType | null = security.is_vpn ? 'hosting' : (net?.connection_type ?? null);
  const location: LocationRecord = {
    continent: country?.continent ?? null,
    continent_code: country?.continent_code ?? null,
    country: country?.name ?? null,
    country_code: loc?.country_code ?? null,
    region: loc?.region ?? null,
    city: loc?.city ?? null,
    district: loc?.district ?? null,
    postal_code: loc?.postal_code ?? null,
    latitude: round4(loc?.latitude ?? null),
    longitude: round4(loc?.longitude ?? null),
    accuracy_radius_km: loc?.accuracy_radius_km ?? null,
    is_eu: country ? country.is_eu : null,
  };
  const zone = loc?.timezone ?? null;
  const organization = net?.organization ?? null;
  const domain = net?.domain ?? null;
  const isp = net?.isp ?? null;

  if (level === 'basic') {
    return {
      success: true,
      ip: answer.ip,
      version: answer.version,
      location,
      timezone: { id: zone },
      network: { asn: net?.asn ?? null, isp, organization, domain, connection_type: connectionType },
    };
  }

  return {
    success: true,
    ip: answer.ip,
    version: answer.version,
    location: withDatacenter(location, net),
    timezone: timezoneFull(zone, now.getTime()),
    network: {
      asn: net?.asn ?? null,
      isp,
      organization,
      domain,
      connection_type: connectionType,
      asn_name: net?.asn_name ?? null,
      org_domain: net?.org_domain ?? null,
      holding: net?.holding ?? null,
      holding_domain: net?.holding_domain ?? null,
      usage: usageOf(connectionType),
      hostname: feeds?.hostname ?? null,
      range: rangeOf(answer.block, answer.version),
      rpki: answer.version === 4 ? (feeds?.rpki ?? null) : null,
      speed_mbps: null,
    },
    country_info: country
      ? {
          calling_code: country.calling_code,
          tld: country.tld,
          currency: { code: country.currency.code, symbol: country.currency.symbol },
          languages: country.languages.slice(),
        }
      : null,
    security: securityRecord(security, isHostingOf(connectionType), feeds?.threat ?? NO_THREAT_FACTS),
    abuse: { email: feeds?.abuse ?? null },
  };
}

/** The location with the network's datacenter address, where the datacenter is in the location's country. */
function withDatacenter(location: LocationRecord, net: IpAnswer['network']): LocationRecord {
  const address = net?.datacenter_address ?? null;
  if (address === null || location.country_code === null || net!.datacenter_country !== location.country_code) return location;
  return { ...location, address, address_type: 'datacenter' };
}

/** The full level's timezone object at instant `ms`; the three computed fields are null without a known zone. */
export function timezoneFull(zone: string | null, ms: number): TimezoneFull {
  const clock = zone === null ? null : tickedClock(zone, ms);
  return {
    id: zone,
    utc_offset: clock ? clock.offsetText : null,
    is_dst: clock ? clock.isDst : null,
    current_time: clock ? localTime(clock, ms) : null,
  };
}

/**
 * network.usage, an estimate from the connection type (docs/tables.md "Estimates and rules"): what
 * the addresses of such a network are mostly used for. null where the type is unknown.
 */
const USAGE: Readonly<Record<ConnectionType, string>> = {
  residential: 'consumer access',
  cable: 'consumer access',
  fixed_wireless: 'consumer access',
  mobile: 'mobile access',
  satellite: 'satellite access',
  hosting: 'hosting/cloud',
  business: 'business network',
  backbone: 'transit/backbone',
  education: 'education',
  research: 'research and education network',
  government: 'government',
  military: 'military',
  financial: 'financial services',
  healthcare: 'healthcare',
  media: 'media',
  ixp: 'internet exchange',
};

export function usageOf(connectionType: ConnectionType | null): string | null {
  return connectionType === null ? null : USAGE[connectionType];
}

/** SPEC 2.2 is_hosting from the connection type (a VPN range already reads as hosting); null when unknown. */
function isHostingOf(connectionType: ConnectionType | null): boolean | null {
  return connectionType === null ? null : connectionType === 'hosting';
}

export function securityRecord(
  security: SecurityFacts,
  isHosting: boolean | null,
  threat: ThreatFacts | UnknownThreatFacts,
): SecurityRecord {
  return {
    is_vpn: security.is_vpn,
    vpn_provider: security.vpn_provider,
    is_proxy: security.is_proxy,
    is_tor: security.is_tor,
    listed_by: security.listed_by === null ? null : security.listed_by.slice(),
    is_hosting: isHosting,
    is_threat: threat.is_threat,
    threat_type: threat.threat_type,
    threat_confidence: threat.threat_confidence,
    threat_reports: threat.threat_reports,
    threat_last_seen: threat.threat_last_seen,
  };
}

/**
 * SPEC 2.3. is_private: RFC 1918 space and IPv6 unique local addresses (reserved_type private);
 * is_cgnat: RFC 6598 shared address space (reserved_type cgnat).
 */
function reservedRecord(answer: IpAnswer): ReservedIpRecord {
  const reserved = answer.reserved;
  if (!reserved) throw new Error(`reserved answer for ${answer.ip} without its range`);
  return {
    success: true,
    ip: answer.ip,
    version: answer.version,
    reserved: true,
    reserved_type: reserved.type,
    description: reserved.description,
    security: { is_private: reserved.type === 'private', is_cgnat: reserved.type === 'cgnat' },
  };
}

function rangeOf(block: IpBlock | null, version: IpVersion): Ipv4Range | Ipv6Range | null {
  if (!block) return null;
  if (version === 4) return block.size === null ? null : { start: block.start, end: block.end, size: block.size };
  return block.prefix === null ? null : { start: block.start, end: block.end, prefix: block.prefix };
}

function round4(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10000) / 10000;
}
