/** OpenAPI schemas of the IP records (SPEC 2.2, 2.3), the reserved-address record and the not-found answer. */
import { connectionTypes } from '../tables/format/ipTable.js';
import { RPKI_STATES, type RpkiState } from '../feeds/format/feedTable.js';
import { SPECIAL_PURPOSE_REGISTRY, type ReservedType } from '../address/reservedRange.js';
import type {
  CountryInfoRecord,
  IpRecordBasic,
  IpRecordFull,
  Ipv4Range,
  Ipv6Range,
  LocationRecord,
  NetworkBasic,
  NetworkFull,
  NotFoundIpRecord,
  ReservedIpRecord,
  SecurityRecord,
  TimezoneBasic,
  TimezoneFull,
} from './ipRecord.js';
import { withMeta } from './metaRecord.openapi.js';
import {
  COUNTRY_CODE,
  DATE_TIME,
  IP_ADDRESS,
  arrayOf,
  bool,
  boolOrNull,
  constant,
  every,
  int,
  num,
  numOrNull,
  orNull,
  record,
  ref,
  str,
  strOrNull,
  stringEnum,
  stringEnumOrNull,
  type JsonSchema,
  type Properties,
} from './jsonSchema.js';

const connectionTypeValues = connectionTypes.filter((t): t is Exclude<(typeof connectionTypes)[number], null> => t !== null);
const reservedTypes: ReservedType[] = [...new Set(SPECIAL_PURPOSE_REGISTRY.map((r) => r.type))].filter(
  (t): t is ReservedType => t !== 'global',
);
const rpkiStates = every<RpkiState>()([...RPKI_STATES]);
const addressTypes = every<NonNullable<LocationRecord['address_type']>>()(['datacenter', 'office']);
const IPV4: JsonSchema = { type: 'string', format: 'ipv4' };
const IPV6: JsonSchema = { type: 'string', format: 'ipv6' };

export function ipRecordSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  schemas.IpLocation = record<LocationRecord>(
    "Location of the network block. address and address_type (full level) are present only when known: the street address of the one datacenter a hosting network is at (PeeringDB), in the range's country.",
    {
      continent: strOrNull('continent name'),
      continent_code: strOrNull('two-letter continent code', { pattern: '^[A-Z]{2}$' }),
      country: strOrNull('country name'),
      country_code: strOrNull('ISO 3166-1 alpha-2', COUNTRY_CODE),
      region: strOrNull('region where known'),
      city: strOrNull('city where known, without a district part'),
      district: strOrNull(
        'ours, beyond SPEC 2.2: the district, neighbourhood or street the source names within the city; null when it names none',
      ),
      postal_code: strOrNull('postal code where known'),
      latitude: numOrNull('latitude of the estimated location', { minimum: -90, maximum: 90 }),
      longitude: numOrNull('longitude of the estimated location', { minimum: -180, maximum: 180 }),
      accuracy_radius_km: numOrNull(
        'radius around the coordinates in km, estimated from what the source row knows (city, region, country) and measured ' +
          'disagreement with an independent reference; null for anycast blocks, which are served from many places',
        { minimum: 0 },
      ),
      is_eu: boolOrNull(
        'the country, or territory with a country code of its own, is in the EU (data/curated/eu-countries.csv); null when the country is unknown',
      ),
      address: str('street address of the datacenter or office (full level, only when known)'),
      address_type: stringEnum(addressTypes, 'full level, only when known'),
    },
    ['address', 'address_type'],
  );
  schemas.IpTimezoneBasic = record<TimezoneBasic>('Time zone (basic level).', { id: strOrNull('IANA time zone identifier') });
  schemas.IpTimezoneFull = record<TimezoneFull>('Time zone (full level); the computed fields are null when the zone is unknown.', {
    id: strOrNull('IANA time zone identifier'),
    utc_offset: strOrNull('current UTC offset, +HH:MM / -HH:MM', { pattern: '^[+-]\\d{2}:\\d{2}$' }),
    is_dst: boolOrNull('daylight saving in effect'),
    current_time: strOrNull('local time, ISO 8601 with offset', DATE_TIME),
  });
  const networkBasic: Properties<NetworkBasic> = {
    asn: { type: ['integer', 'null'], minimum: 0, description: 'autonomous system number announcing the address' },
    isp: strOrNull('service provider as people call it: a curated brand (WE, Jio), else the registered organisation'),
    organization: strOrNull('registered organisation'),
    domain: strOrNull('website domain of the organisation'),
    connection_type: stringEnumOrNull(connectionTypeValues, 'connection type; VPN ranges report hosting'),
  };
  schemas.IpNetworkBasic = record<NetworkBasic>('Network (basic level).', networkBasic);
  schemas.Ipv4Range = record<Ipv4Range>('IPv4 block of the address.', {
    start: IPV4,
    end: IPV4,
    size: int('number of addresses', { minimum: 1 }),
  });
  schemas.Ipv6Range = record<Ipv6Range>('IPv6 block of the address.', {
    start: IPV6,
    end: IPV6,
    prefix: int('CIDR prefix length', { minimum: 0, maximum: 128 }),
  });
  schemas.IpNetworkFull = record<NetworkFull>('Network (full level).', {
    ...networkBasic,
    asn_name: strOrNull('registered name of the AS (a handle such as TE-AS); null where the network source gives only the organisation'),
    org_domain: strOrNull('domain of the organisation, where a source gives one apart from network.domain'),
    holding: strOrNull('parent company owning the ISP, or the organisation that groups several ASNs (CAIDA)'),
    holding_domain: strOrNull('domain of the parent company'),
    usage: strOrNull('what the range is used for: an estimate from connection_type (consumer access, hosting/cloud, …)'),
    hostname: strOrNull('reverse DNS (PTR) name'),
    range: { oneOf: [ref('Ipv4Range'), ref('Ipv6Range'), { type: 'null' }], description: 'the block of the address' },
    rpki: stringEnumOrNull(rpkiStates, 'RPKI state of the route; IPv4 only, null for IPv6 and when unknown'),
    speed_mbps: orNull(
      record<NonNullable<NetworkFull['speed_mbps']>>('average measured ISP speed', {
        download: num(undefined, { minimum: 0 }),
        upload: num(undefined, { minimum: 0 }),
      }),
    ),
  });
  schemas.IpCountryInfo = record<CountryInfoRecord>('Facts about the country (full level).', {
    calling_code: strOrNull('international calling code, e.g. +49'),
    tld: strOrNull('country code top-level domain, e.g. .de'),
    currency: record<CountryInfoRecord['currency']>('currency', { code: strOrNull('ISO 4217 code'), symbol: strOrNull('symbol') }),
    languages: arrayOf(str(), 'languages'),
  });
  schemas.IpSecurity = record<SecurityRecord>('Security facts (full level).', {
    is_vpn: boolOrNull('belongs to a known VPN service; null while no VPN feed is loaded (no claim either way)'),
    vpn_provider: strOrNull('which VPN service'),
    is_proxy: boolOrNull('open proxy; null while no proxy feed is loaded'),
    is_tor: boolOrNull('Tor exit node; null while no Tor exit feed is loaded'),
    listed_by: {
      type: ['array', 'null'],
      items: str(),
      description:
        'ours, beyond SPEC 2.2: the names of the fresh feeds (Tor, VPN, proxy, relay lists) that list the address; [] when they were consulted and none lists it; null while none is loaded',
    },
    is_hosting: boolOrNull('datacenter or VPN range; null where the connection type is unknown'),
    is_threat: boolOrNull(
      "listed in the service blacklist; null, with the other threat fields, while the blacklist cannot be read (a shared store's outage)",
    ),
    threat_type: strOrNull('threat type'),
    threat_confidence: numOrNull('0 to 100; null while the blacklist cannot be read', { minimum: 0, maximum: 100 }),
    threat_reports: { type: ['integer', 'null'], minimum: 0, description: 'number of reports; null while the blacklist cannot be read' },
    threat_last_seen: strOrNull('time of the last report'),
  });

  const ipEnvelope = {
    success: constant(true),
    ip: { ...IP_ADDRESS, description: 'the address; IPv6 in compressed form, IPv4-mapped IPv6 as IPv4' },
    version: { type: 'integer', enum: [4, 6], description: 'IP version' },
  };
  schemas.IpRecordBasic = record<IpRecordBasic>('SPEC 2.2 IP record, basic field level (free plan).', {
    ...ipEnvelope,
    location: ref('IpLocation'),
    timezone: ref('IpTimezoneBasic'),
    network: ref('IpNetworkBasic'),
  });
  schemas.IpRecordFull = record<IpRecordFull>('SPEC 2.2 IP record, full field level (paid plans).', {
    ...ipEnvelope,
    location: ref('IpLocation'),
    timezone: ref('IpTimezoneFull'),
    network: ref('IpNetworkFull'),
    country_info: orNull(ref('IpCountryInfo')),
    security: ref('IpSecurity'),
    abuse: record<IpRecordFull['abuse']>('abuse contact', { email: strOrNull('abuse contact of the network', { format: 'email' }) }),
  });
  const reservedRecord = record<ReservedIpRecord>('SPEC 2.3 reserved-address record, the same on every plan; counted as a lookup.', {
    ...ipEnvelope,
    reserved: constant(true),
    reserved_type: stringEnum(reservedTypes, 'kind of special-purpose range'),
    description: str('text description of the range'),
    security: record<ReservedIpRecord['security']>('', {
      is_private: bool('RFC 1918 or unique local'),
      is_cgnat: bool('RFC 6598 shared address space'),
    }),
  });
  const notFoundRecord = record<NotFoundIpRecord>(
    'SPEC 2.3 answer for a public address no database locates; the same on every plan; counted as a lookup.',
    {
      ...ipEnvelope,
      found: constant(false),
      message: str(),
    },
  );
  schemas.IpRecordBasicResponse = withMeta(schemas.IpRecordBasic, 'IP record (basic) with meta.');
  schemas.IpRecordFullResponse = withMeta(schemas.IpRecordFull, 'IP record (full) with meta.');
  schemas.IpReservedResponse = withMeta(reservedRecord, 'Reserved-address record with meta.');
  schemas.IpNotFoundResponse = withMeta(notFoundRecord, 'Not-found answer with meta.');
  schemas.IpLookupResponse = {
    description:
      "GET /v1/ip/{ip} and /v1/ip: the IP record of the plan's field level, the reserved-address record, or the not-found answer.",
    oneOf: [ref('IpRecordBasicResponse'), ref('IpRecordFullResponse'), ref('IpReservedResponse'), ref('IpNotFoundResponse')],
  };
  return schemas;
}
