/**
 * The OpenAPI 3.1 description of the whole service as built (GET /openapi.json): the v1 API, the
 * admin API and the operations endpoints, generated here from the code's own types and tables.
 *
 * How it stays true to the code:
 * - Every record schema is built with `record<T>()`, whose `properties` argument must name exactly
 *   the keys of the TypeScript type T (a missing key fails `tsc`, an extra key fails the excess
 *   property check). Every key is `required` unless T makes it optional, and every object has
 *   `additionalProperties: false`, so a response that gains or loses a key fails validation
 *   (test/http/openapi.test.ts).
 * - Enumerations come from the code: plan codes (plans.ts), connection types (ipTable.ts),
 *   reserved types (the special-purpose registry of reservedRange.ts), MAC block types
 *   (macTable.ts, IAB shown as MA-S), error codes and their statuses (errors.ts errorTable). Small
 *   unions that exist only as types (RPKI states, quota periods) go through `every<T>()`, which
 *   fails `tsc` when a member is missing.
 * - Error responses are generated from lists of codes: each code lands under its errorTable status
 *   and the response narrows `error.code` to the codes that operation can return there.
 *
 * JSON Schema is draft 2020-12 (the OpenAPI 3.1 dialect): nullable fields are `type: [T, 'null']`,
 * nullable objects `oneOf: [schema, {type: 'null'}]`.
 */
import type { Account, ApiKey, KeyWithSecret } from '../store/store.js';
import { SECRET_PREFIX } from '../store/apiKeySecret.js';
import { errorTable, type ErrorCode } from '../errors.js';
import { apis, defaultPlans, planCodes, type PlanCode } from '../plans/plans.js';
import type { QuotaPeriod } from '../plans/quota.js';
import { connectionTypes } from '../tables/format/ipTable.js';
import { blockTypes } from '../tables/format/macTable.js';
import { SPECIAL_PURPOSE_REGISTRY, type ReservedType } from '../address/reservedRange.js';
import type { TableInfo } from '../engine/lookupEngine.js';
import type {
  CountryInfoRecord,
  FieldLevel,
  IpRecordBasic,
  IpRecordFull,
  Ipv4Range,
  Ipv6Range,
  LocationRecord,
  NetworkBasic,
  NetworkFull,
  NotFoundIpRecord,
  ReservedIpRecord,
  RpkiState,
  SecurityRecord,
  TimezoneBasic,
  TimezoneFull,
} from '../records/ipRecord.js';
import type { MacBlockType, MacRecordBasic, MacRecordFull, MacSearchResult, MacVendorBasic, MacVendorFull } from '../records/macRecord.js';
import type { MetaRecord } from '../records/metaRecord.js';
import type { FreeUsageRecord, PaidUsageRecord } from '../records/usageRecord.js';
import { ALWAYS_KEPT } from '../records/fieldsFilter.js';
import { endpoints, type DataSource, type endpointList } from './endpointList.js';
import type { LegacyCheckAnswer, LegacyMacAnswer, LegacyMacHealth, LegacyVendorAnswer } from './legacyRoutes.js';
import { MAX_SEARCH_RESULTS } from './vendorSearch.js';
import { threatTypes } from '../blacklist/threatTypes.js';
import { exportFormats } from '../blacklist/exportFormats.js';
import { MAX_MESSAGE_LENGTH, MAX_SOURCE_LENGTH } from '../blacklist/reportDraft.js';
import { DEFAULT_EXPORT_MIN_CONFIDENCE, SINGLE_REPORTER_CEILING } from '../blacklist/scoring.js';

// ---------------------------------------------------------------------------------------------
// Schema building blocks
// ---------------------------------------------------------------------------------------------

export type JsonSchema = { [keyword: string]: unknown };

/** The keys of T that T itself marks optional (`key?:`). */
type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];
/** One schema per key of T, no more, no less. */
type Properties<T> = { [K in keyof T]-?: JsonSchema };

/**
 * An object schema for the TypeScript type T: exactly T's keys, all required except T's optional
 * ones (which must be listed in `optional`), no other keys allowed.
 */
function record<T>(description: string, properties: Properties<T>, optional: readonly OptionalKeys<T>[] = []): JsonSchema {
  const keys = Object.keys(properties);
  return {
    type: 'object',
    description,
    properties,
    required: keys.filter((k) => !(optional as readonly string[]).includes(k)),
    additionalProperties: false,
  };
}

/** An object schema without a TypeScript type behind it (records the code builds inline). */
function shape(description: string, properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return record<Record<string, unknown>>(description, properties, optional);
}

/** All members of the string union T, checked by the compiler: a missing member is an error. */
function every<T extends string>() {
  return <const A extends readonly T[]>(values: A & ([Exclude<T, A[number]>] extends [never] ? unknown : { missing: Exclude<T, A[number]> })): T[] => [...values];
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
const strOrNull = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: ['string', 'null'], ...(description ? { description } : {}), ...extra });
const num = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'number', ...(description ? { description } : {}), ...extra });
const numOrNull = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: ['number', 'null'], ...(description ? { description } : {}), ...extra });
const int = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const boolOrNull = (description?: string): JsonSchema => ({ type: ['boolean', 'null'], ...(description ? { description } : {}) });
const constant = (value: string | number | boolean, description?: string): JsonSchema => ({ type: typeof value === 'number' ? 'integer' : typeof value, const: value, ...(description ? { description } : {}) });
const oneOf = (...schemas: JsonSchema[]): JsonSchema => ({ oneOf: schemas });
const orNull = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: 'null' }] });
const stringEnum = (values: readonly string[], description?: string): JsonSchema => ({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const stringEnumOrNull = (values: readonly string[], description?: string): JsonSchema => ({ type: ['string', 'null'], enum: [...values, null], ...(description ? { description } : {}) });
const arrayOf = (items: JsonSchema, description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, ...(description ? { description } : {}), ...extra });

/** Adds `meta` (SPEC 2.1) to a record schema: the shape of a metered single-record response. */
function withMeta(schema: JsonSchema, description: string): JsonSchema {
  return {
    ...schema,
    description,
    properties: { ...(schema.properties as Record<string, JsonSchema>), meta: ref('Meta') },
    required: [...(schema.required as string[]), 'meta'],
  };
}

// ---------------------------------------------------------------------------------------------
// Values derived from the code
// ---------------------------------------------------------------------------------------------

const errorCodes = Object.keys(errorTable) as ErrorCode[];
const connectionTypeValues = connectionTypes.filter((t): t is Exclude<(typeof connectionTypes)[number], null> => t !== null);
const reservedTypes: ReservedType[] = [...new Set(SPECIAL_PURPOSE_REGISTRY.map((r) => r.type))].filter((t): t is ReservedType => t !== 'global');
const macBlockTypes = blockTypes.filter((t): t is MacBlockType => t !== 'IAB');
const rpkiStates = every<RpkiState>()(['valid', 'invalid', 'unrouted', 'not_found']);
const quotaPeriods = every<QuotaPeriod>()(['day', 'month']);
const fieldLevels = every<FieldLevel>()(['basic', 'full']);
const addressTypes = every<NonNullable<LocationRecord['address_type']>>()(['datacenter', 'office']);
const tableKinds = every<TableInfo['kind']>()(['ip4', 'ip6', 'mac']);
const paidPlans = planCodes.filter((code) => defaultPlans[code].max_batch > 0);
const batchLimits = paidPlans.map((code) => `${code} ${defaultPlans[code].max_batch}`).join(', ');

const IP_ADDRESS: JsonSchema = { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] };
const IPV4: JsonSchema = { type: 'string', format: 'ipv4' };
const IPV6: JsonSchema = { type: 'string', format: 'ipv6' };
const COUNTRY_CODE = { pattern: '^[A-Z]{2}$' };
const OUI = { pattern: '^[0-9A-F]{2}(:[0-9A-F]{2}){2}$' };
const MAC48 = { pattern: '^[0-9A-F]{2}(:[0-9A-F]{2}){5}$' };
const HEX12 = { pattern: '^[0-9A-F]{12}$' };
const BLACKLIST_TIME = { pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' };
const DATE_TIME = { format: 'date-time' };

// ---------------------------------------------------------------------------------------------
// Component schemas
// ---------------------------------------------------------------------------------------------

function recordSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};

  schemas.Meta = record<MetaRecord>('SPEC 2.1: plan, field level and quota of the request; the same numbers as the X-Quota-* headers.', {
    plan: stringEnum(planCodes, 'plan code'),
    fields: stringEnum(fieldLevels, 'field level: basic (free) or full (paid)'),
    quota: record<MetaRecord['quota']>('the quota of the current period', {
      limit: int('quota of the current period', { minimum: 0 }),
      used: int('lookups used in the period', { minimum: 0 }),
      remaining: int('lookups left in the period', { minimum: 0 }),
      period: stringEnum(quotaPeriods, 'day (free plan, per API) or month (paid plans, pooled)'),
      resets_at: str('next reset, ISO 8601 with UTC offset', DATE_TIME),
    }),
  });

  // ---- IP records (SPEC 2.2, 2.3) ----
  schemas.IpLocation = record<LocationRecord>(
    'Location of the network block. address and address_type (full level) are present only when known.',
    {
      continent: strOrNull('continent name'),
      continent_code: strOrNull('two-letter continent code', { pattern: '^[A-Z]{2}$' }),
      country: strOrNull('country name'),
      country_code: strOrNull('ISO 3166-1 alpha-2', COUNTRY_CODE),
      region: strOrNull('region where known'),
      city: strOrNull('city where known, without a district part'),
      district: strOrNull('ours, beyond SPEC 2.2: the district, neighbourhood or street the source names within the city; null when it names none'),
      postal_code: strOrNull('postal code where known'),
      latitude: numOrNull('latitude of the estimated location', { minimum: -90, maximum: 90 }),
      longitude: numOrNull('longitude of the estimated location', { minimum: -180, maximum: 180 }),
      accuracy_radius_km: numOrNull(
        'radius around the coordinates in km, estimated from what the source row knows (city, region, country) and measured disagreement with an independent reference; null for anycast blocks, which are served from many places',
        { minimum: 0 },
      ),
      is_eu: boolOrNull('country is an EU member; null when the country is unknown'),
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
    isp: strOrNull('service provider'),
    organization: strOrNull('registered organisation'),
    domain: strOrNull('website domain of the organisation'),
    connection_type: stringEnumOrNull(connectionTypeValues, 'connection type; VPN ranges report hosting'),
  };
  schemas.IpNetworkBasic = record<NetworkBasic>('Network (basic level).', networkBasic);
  schemas.Ipv4Range = record<Ipv4Range>('IPv4 block of the address.', { start: IPV4, end: IPV4, size: int('number of addresses', { minimum: 1 }) });
  schemas.Ipv6Range = record<Ipv6Range>('IPv6 block of the address.', { start: IPV6, end: IPV6, prefix: int('CIDR prefix length', { minimum: 0, maximum: 128 }) });
  schemas.IpNetworkFull = record<NetworkFull>('Network (full level).', {
    ...networkBasic,
    asn_name: strOrNull('registered name of the AS'),
    org_domain: strOrNull('domain of the organisation'),
    holding: strOrNull('parent company owning the ISP'),
    holding_domain: strOrNull('domain of the parent company'),
    usage: strOrNull('what the range is used for'),
    hostname: strOrNull('reverse DNS (PTR) name'),
    range: { oneOf: [ref('Ipv4Range'), ref('Ipv6Range'), { type: 'null' }], description: 'the block of the address' },
    rpki: stringEnumOrNull(rpkiStates, 'RPKI state of the route; IPv4 only, null for IPv6 and when unknown'),
    speed_mbps: orNull(record<NonNullable<NetworkFull['speed_mbps']>>('average measured ISP speed', { download: num(undefined, { minimum: 0 }), upload: num(undefined, { minimum: 0 }) })),
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
    is_hosting: boolOrNull('datacenter or VPN range; null where the connection type is unknown'),
    is_threat: boolOrNull('listed in the service blacklist; null, with the other threat fields, while the blacklist cannot be read (a shared store\'s outage)'),
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
  schemas.IpReservedRecord = record<ReservedIpRecord>('SPEC 2.3 reserved-address record, the same on every plan; counted as a lookup.', {
    ...ipEnvelope,
    reserved: constant(true),
    reserved_type: stringEnum(reservedTypes, 'kind of special-purpose range'),
    description: str('text description of the range'),
    security: record<ReservedIpRecord['security']>('', { is_private: bool('RFC 1918 or unique local'), is_cgnat: bool('RFC 6598 shared address space') }),
  });
  schemas.IpNotFoundRecord = record<NotFoundIpRecord>('SPEC 2.3 answer for a public address no database locates; the same on every plan; counted as a lookup.', {
    ...ipEnvelope,
    found: constant(false),
    message: str(),
  });
  schemas.IpRecordBasicResponse = withMeta(schemas.IpRecordBasic, 'IP record (basic) with meta.');
  schemas.IpRecordFullResponse = withMeta(schemas.IpRecordFull, 'IP record (full) with meta.');
  schemas.IpReservedResponse = withMeta(schemas.IpReservedRecord, 'Reserved-address record with meta.');
  schemas.IpNotFoundResponse = withMeta(schemas.IpNotFoundRecord, 'Not-found answer with meta.');
  schemas.IpLookupResponse = {
    description: 'GET /v1/ip/{ip} and /v1/ip: the IP record of the plan\'s field level, the reserved-address record, or the not-found answer.',
    oneOf: [ref('IpRecordBasicResponse'), ref('IpRecordFullResponse'), ref('IpReservedResponse'), ref('IpNotFoundResponse')],
  };

  // ---- Blacklist record (SPEC 2.4) ----
  const blacklistBase = { success: constant(true), ip: { ...IP_ADDRESS, description: 'the address' } };
  schemas.BlacklistNotListed = shape('SPEC 2.4 blacklist record of an address that is not listed: no fields follow except meta.', {
    ...blacklistBase,
    listed: constant(false),
  });
  const listedBasic = {
    ...blacklistBase,
    listed: constant(true),
    threat_type: str('main category, e.g. brute-force, spam, scanner, web-attack'),
    confidence: num('0 to 100; grows with number and spread of reports', { minimum: 0, maximum: 100 }),
    last_seen: str('time of the most recent report, UTC, YYYY-MM-DD HH:MM:SS', BLACKLIST_TIME),
  };
  schemas.BlacklistReport = shape('One report of a listed address.', {
    threat_type: str('threat type'),
    message: strOrNull('report text'),
    source: str('source of the report'),
    created_at: str('time of the report, UTC, YYYY-MM-DD HH:MM:SS', BLACKLIST_TIME),
  });
  schemas.BlacklistListedBasic = shape('SPEC 2.4 blacklist record of a listed address, basic field level (free plan).', listedBasic);
  schemas.BlacklistListedFull = shape('SPEC 2.4 blacklist record of a listed address, full field level (paid plans).', {
    ...listedBasic,
    total_reports: int('number of reports', { minimum: 0 }),
    distinct_reporters: int('number of independent reporters', { minimum: 0 }),
    first_seen: str('time of the first report, UTC, YYYY-MM-DD HH:MM:SS', BLACKLIST_TIME),
    source: str('source of the listing (the value multiple occurs)'),
    country_code: strOrNull('country of the address at listing time', COUNTRY_CODE),
    isp: strOrNull('provider at listing time'),
    reports: arrayOf(ref('BlacklistReport'), 'the most recent reports', { maxItems: 20 }),
  });
  schemas.BlacklistNotListedResponse = withMeta(schemas.BlacklistNotListed, 'Blacklist record (not listed) with meta.');
  schemas.BlacklistListedBasicResponse = withMeta(schemas.BlacklistListedBasic, 'Blacklist record (listed, basic) with meta.');
  schemas.BlacklistListedFullResponse = withMeta(schemas.BlacklistListedFull, 'Blacklist record (listed, full) with meta.');
  schemas.BlacklistResponse = {
    description: 'GET /v1/blacklist/{ip}: the blacklist record of the plan\'s field level.',
    oneOf: [ref('BlacklistNotListedResponse'), ref('BlacklistListedBasicResponse'), ref('BlacklistListedFullResponse')],
  };

  // ---- MAC record (SPEC 2.5) and search (SPEC 2.6) ----
  const macEnvelope = {
    success: constant(true),
    mac: str('echoed input'),
    found: bool('a vendor is registered for the prefix; when false, vendor (and block) are null'),
    oui: str('first three bytes, AA:BB:CC', OUI),
    normalized: strOrNull('full address AA:BB:CC:DD:EE:FF; null when only a prefix was given', MAC48),
    is_multicast: bool('group address (I/G bit set)'),
    is_local: bool('locally administered (U/L bit set)'),
    is_randomized: bool('locally administered unicast (MAC randomisation pattern)'),
  };
  const vendorBasic: Properties<MacVendorBasic> = {
    company: strOrNull('registered company; null for a private registration (the IEEE lists the block as "Private", without its assignee)'),
    country_code: strOrNull('country code of the company', COUNTRY_CODE),
  };
  schemas.MacVendorBasic = record<MacVendorBasic>('Vendor (basic level).', vendorBasic);
  schemas.MacVendorFull = record<MacVendorFull>('Vendor (full level).', {
    ...vendorBasic,
    short_name: strOrNull('short name: our curated one, else the registered name without its legal form (all-capitals names in title case); null for a private registration'),
    website: strOrNull('website domain'),
    country: strOrNull('country name'),
    address: strOrNull('registered address'),
    industry: strOrNull('where known'),
    founded: { type: ['string', 'integer', 'null'], description: 'where known' },
    headquarters: strOrNull('where known'),
    total_ouis: { type: ['integer', 'null'], minimum: 1, description: 'number of prefixes registered to the company, across the spellings of its name; null for a private registration' },
    is_private: bool('the IEEE lists the block without naming its assignee (company, short_name, website and total_ouis are null)'),
  });
  schemas.MacBlock = record<NonNullable<MacRecordFull['block']>>('The matched registry block (IAB blocks show as MA-S).', {
    type: stringEnum(macBlockTypes, 'registry'),
    start: str('12 hex digits', HEX12),
    end: str('12 hex digits', HEX12),
    size: int('number of addresses', { minimum: 1 }),
  });
  schemas.MacDevice = record<MacRecordFull['device']>('Device facts (full level).', {
    type: strOrNull('device type where known'),
    interface: strOrNull('interface type where known'),
    is_virtual_machine: bool('prefix belongs to a virtualisation platform'),
    vm_platform: strOrNull('which platform'),
  });
  const notFoundMeansNull = (keys: string[]): JsonSchema => ({
    if: { properties: { found: { const: false } }, required: ['found'] },
    then: { properties: Object.fromEntries(keys.map((k) => [k, { type: 'null' }])) },
  });
  schemas.MacRecordBasic = {
    ...record<MacRecordBasic>('SPEC 2.5 MAC record, basic field level (free plan).', { ...macEnvelope, vendor: orNull(ref('MacVendorBasic')) }),
    ...notFoundMeansNull(['vendor']),
  };
  schemas.MacRecordFull = {
    ...record<MacRecordFull>('SPEC 2.5 MAC record, full field level (paid plans).', {
      ...macEnvelope,
      vendor: orNull(ref('MacVendorFull')),
      block: orNull(ref('MacBlock')),
      device: ref('MacDevice'),
      registry_updated: strOrNull('date of the registry record, YYYY/MM/DD', { pattern: '^\\d{4}/\\d{2}/\\d{2}$' }),
    }),
    ...notFoundMeansNull(['vendor', 'block']),
  };
  schemas.MacRecordBasicResponse = withMeta(schemas.MacRecordBasic, 'MAC record (basic) with meta.');
  schemas.MacRecordFullResponse = withMeta(schemas.MacRecordFull, 'MAC record (full) with meta.');
  schemas.MacLookupResponse = { description: 'GET /v1/mac/{mac}: the MAC record of the plan\'s field level.', oneOf: [ref('MacRecordBasicResponse'), ref('MacRecordFullResponse')] };
  schemas.MacSearchResult = record<MacSearchResult>('One MAC block (MA-L, MA-M, MA-S or IAB) of a matching registered company; private registrations name no company and are never results.', {
    oui: str('AA:BB:CC', OUI),
    company: str('registered company'),
    country_code: strOrNull('country code of the company', COUNTRY_CODE),
    block_type: stringEnum(macBlockTypes, 'registry of the block'),
  });
  schemas.MacSearchResponse = shape('SPEC 2.6 MAC search result.', {
    success: constant(true),
    query: str('the query, echoed (trimmed)'),
    count: int('number of results', { minimum: 0, maximum: MAX_SEARCH_RESULTS }),
    results: arrayOf(ref('MacSearchResult'), `ordered by company name, at most ${MAX_SEARCH_RESULTS}`, { maxItems: MAX_SEARCH_RESULTS }),
    meta: ref('Meta'),
  });

  // ---- Usage (SPEC 2.7) ----
  const usageBase = {
    success: constant(true),
    plan: record<FreeUsageRecord['plan']>('the plan in force (an expired paid plan acts as free)', {
      code: stringEnum(planCodes, 'plan code'),
      name: str('plan name'),
      expires_at: strOrNull('expiry of a paid plan; null on the free plan and without expiry', DATE_TIME),
    }),
    rate_limit_per_second: int('per-second limit of the plan', { minimum: 1 }),
    today: record<FreeUsageRecord['today']>('requests today (UTC)', {
      ip: int('IP lookups today', { minimum: 0 }),
      blacklist: int('blacklist checks today', { minimum: 0 }),
      mac: int('MAC lookups today', { minimum: 0 }),
      rejected: int('rejected requests today', { minimum: 0 }),
    }),
  };
  schemas.UsageFree = record<FreeUsageRecord>('SPEC 2.7 usage record of a plan with daily per-API allowances (free).', {
    ...usageBase,
    daily_quota: record<FreeUsageRecord['daily_quota']>(`daily allowance per API (${apis.join(', ')})`, {
      ip: int(undefined, { minimum: 0 }),
      blacklist: int(undefined, { minimum: 0 }),
      mac: int(undefined, { minimum: 0 }),
    }),
  });
  schemas.UsagePaid = record<PaidUsageRecord>('SPEC 2.7 usage record of a plan with a monthly pooled quota (paid).', {
    ...usageBase,
    monthly_quota: record<PaidUsageRecord['monthly_quota']>('the monthly pool, all APIs together', {
      limit: int(undefined, { minimum: 0 }),
      used: int(undefined, { minimum: 0 }),
      remaining: int(undefined, { minimum: 0 }),
    }),
  });
  schemas.UsageResponse = { description: 'GET /v1/usage: daily_quota on the free plan, monthly_quota on paid plans.', oneOf: [ref('UsageFree'), ref('UsagePaid')] };

  // ---- Batch (SPEC 2.8) ----
  schemas.BatchFailure = shape('A batch entry that is not a valid address; only that entry fails.', {
    success: constant(false),
    ip: str('the submitted text (non-string JSON entries as their JSON text)'),
    error: shape('', { code: stringEnum(['invalid_ip'] satisfies ErrorCode[]), message: str() }),
  });
  const batchEnvelope = (description: string, results: JsonSchema[]) =>
    shape(description, {
      success: constant(true),
      count: int('number of results', { minimum: 0 }),
      results: arrayOf(oneOf(...results), 'one entry per unique submitted address, in order of first appearance'),
      meta: ref('Meta'),
    });
  schemas.IpBatchResponse = batchEnvelope('SPEC 2.8 batch envelope of IP records (full field set).', [
    ref('IpRecordFull'),
    ref('IpReservedRecord'),
    ref('IpNotFoundRecord'),
    ref('BatchFailure'),
  ]);
  schemas.BlacklistBatchResponse = batchEnvelope('SPEC 2.8 batch envelope of blacklist records (full field set).', [
    ref('BlacklistNotListed'),
    ref('BlacklistListedFull'),
    ref('BatchFailure'),
  ]);

  // ---- Blacklist intake and exports (ours; README "The blacklist") ----
  const threatType = stringEnum(threatTypes);
  schemas.BlacklistReportSaved = shape('A saved report: the address\'s facts right after it.', {
    success: constant(true),
    ip: { ...IP_ADDRESS, description: 'the reported address, canonical' },
    merged: bool('true: a repeat by the same reporter within 15 minutes, merged into that report (200)'),
    listed: bool('the address is listed'),
    threat_type: stringEnumOrNull(threatTypes, 'the most reported type'),
    confidence: int('0 to 100', { minimum: 0, maximum: 100 }),
    total_reports: int('reports within the retention window', { minimum: 0 }),
    last_seen: strOrNull('time of the most recent report, UTC, YYYY-MM-DD HH:MM:SS', BLACKLIST_TIME),
  });
  const reportFields = {
    ip: str('the abusive address (public IPv4 or IPv6)'),
    threat_type: { ...threatType, description: 'the threat type (or give categories)' },
    categories: oneOf(str('comma-separated category numbers 1–23'), int(), arrayOf(oneOf(int(), str()))),
    category: oneOf(str('alias of categories'), int()),
    comment: str(`what was seen; cut to ${MAX_MESSAGE_LENGTH} characters`),
    message: str('alias of comment'),
    source: str(`the reporting tool (default manual), at most ${MAX_SOURCE_LENGTH} characters`),
    timestamp: oneOf(str('when the reporter saw it: ISO 8601 (UTC when without zone) or Unix seconds; not in the future, not older than the retention window. Checked only: the report is dated when it arrives'), int()),
    key: str('the API key, for tools that cannot send a header'),
  };
  schemas.BlacklistReportJson = { type: 'object', description: 'A report as JSON.', properties: reportFields };
  schemas.BlacklistReportForm = { type: 'object', description: 'A report as form fields.', properties: Object.fromEntries(Object.keys(reportFields).map((k) => [k, str()])) };
  schemas.BlacklistExportJson = shape('format=json: the listed addresses passing the filter.', {
    success: constant(true),
    generated_at: str('the instant the export is evaluated at (start of its quarter hour)', DATE_TIME),
    filter: shape('', {
      min_confidence: int(undefined, { minimum: 0, maximum: 100 }),
      version: { type: ['integer', 'null'], enum: [4, 6, null] },
      max_age_ms: numOrNull('only addresses reported within this many ms'),
    }),
    addresses: arrayOf(
      shape('', {
        ip: IP_ADDRESS,
        version: { type: 'integer', enum: [4, 6] },
        threat_type: threatType,
        confidence: int(undefined, { minimum: 0, maximum: 100 }),
        reports: int(undefined, { minimum: 1 }),
        first_seen: str(undefined, BLACKLIST_TIME),
        last_seen: str(undefined, BLACKLIST_TIME),
      }),
    ),
    count: int(undefined, { minimum: 0 }),
  });
  schemas.BlacklistAddressDeleted = shape('Every report of the address was deleted.', {
    success: constant(true),
    ip: IP_ADDRESS,
    deleted_reports: int(undefined, { minimum: 1 }),
  });

  // ---- Errors (SPEC 2.9, 7) ----
  schemas.ErrorCode = stringEnum(errorCodes, errorCodes.map((c) => `${c} (${errorTable[c].status})`).join(', '));
  schemas.ErrorEnvelope = shape('SPEC 2.9 error envelope.', {
    success: constant(false),
    error: shape('', { code: ref('ErrorCode'), message: str('for people; may change') }),
  });

  // ---- Endpoint list (GET /v1) ----
  type EndpointListBody = ReturnType<typeof endpointList>;
  schemas.Endpoint = record<(typeof endpoints)[number]>('One v1 endpoint.', {
    method: stringEnum([...new Set(endpoints.map((e) => e.method))]),
    path: stringEnum(endpoints.map((e) => e.path)),
    plan: stringEnum([...new Set(endpoints.map((e) => e.plan))]),
    counted_as: str(),
    description: str(),
  });
  schemas.EndpointList = record<EndpointListBody>('SPEC 1.4: the list of endpoints, with the data credits.', {
    success: constant(true),
    version: constant(1),
    endpoints: arrayOf(ref('Endpoint')),
    authentication: str(),
    parameters: record<EndpointListBody['parameters']>('', { fields: str(), pretty: str(), key: str() }),
    credits: arrayOf(str(), 'attributions of the data sources'),
    data_sources: arrayOf(ref('DataSource'), 'the data sources of the loaded tables, with the dates they state for their data'),
  });
  schemas.DataSource = record<DataSource>('A data source of the tables.', {
    name: str(),
    version: strOrNull('package or file version'),
    date: strOrNull('the date the source states for its data (its own publication date, not the build time); null when it states none', DATE_TIME),
    licence: str(),
    url: strOrNull(),
  });

  // ---- Operations ----
  schemas.Health = shape('Health of the tables and the store.', {
    success: bool('true when the store is healthy'),
    status: stringEnum(['ok', 'degraded', 'unavailable'], 'degraded: the shared store (Redis) is unreachable; lookups are answered from this instance alone and its counts are written back on recovery'),
    tables: arrayOf(
      record<Pick<TableInfo, 'kind' | 'checksum' | 'built_at' | 'source_date' | 'bytes'> & { sources: DataSource[] }>('a loaded table', {
        kind: stringEnum(tableKinds),
        checksum: str(),
        built_at: str(undefined, DATE_TIME),
        source_date: strOrNull('the newest date the data sources of the table state (their own publication dates, not the build time); null when none states one', DATE_TIME),
        bytes: int(undefined, { minimum: 0 }),
        sources: arrayOf(ref('DataSource')),
      }),
    ),
    store: shape('', { kind: stringEnum(['sqlite', 'redis']), healthy: bool() }),
  });

  // ---- Legacy (SPEC 4.9; README "Legacy endpoints") ----
  schemas.LegacyMacAnswer = record<LegacyMacAnswer>('GET /lookup?mac=: the SPEC 4.9 legacy MAC answer.', {
    success: constant(true),
    found: bool('whether a registered block holds the address'),
    macAddress: record<LegacyMacAnswer['macAddress']>('the address bits', {
      oui: str('AA:BB:CC', OUI),
      isRandomized: bool('locally administered unicast: a privacy (random) address'),
      transmission: stringEnum(['unicast', 'multicast']),
      administration: stringEnum(['UAA', 'LAA'], 'universally or locally administered'),
    }),
    vendor: orNull(
      record<NonNullable<LegacyMacAnswer['vendor']>>('the registered company (null when not found)', {
        company: strOrNull('null for a private registration (the registry does not name the assignee)'),
        website: strOrNull(),
        country: strOrNull('country code', COUNTRY_CODE),
        countryName: strOrNull(),
      }),
    ),
  });
  schemas.LegacyVendorAnswer = record<LegacyVendorAnswer>('GET /lookup?vendor=: OUI prefixes of companies whose name contains the text.', {
    success: constant(true),
    found: bool(),
    vendor: str('the text searched (trimmed)'),
    count: int(undefined, { minimum: 0, maximum: MAX_SEARCH_RESULTS }),
    prefixes: arrayOf(
      record<LegacyVendorAnswer['prefixes'][number]>('one block', {
        oui: str('AA:BB:CC', OUI),
        company: str(),
        country: strOrNull('country code', COUNTRY_CODE),
        blockType: stringEnum(macBlockTypes),
      }),
      `ordered by company name, at most ${MAX_SEARCH_RESULTS}`,
      { maxItems: MAX_SEARCH_RESULTS },
    ),
  });
  schemas.LegacyMacHealth = record<LegacyMacHealth>('GET /api/mac/v1/health: the MAC table.', {
    success: bool('true when the MAC table is loaded'),
    status: stringEnum(['ok', 'unavailable']),
    mac_table: oneOf(
      shape('loaded', {
        loaded: constant(true),
        built_at: str(undefined, DATE_TIME),
        source_date: strOrNull('the date of the registry data; null when its sources state none', DATE_TIME),
        blocks: { type: ['integer', 'null'], minimum: 0 },
      }),
      shape('not loaded', { loaded: constant(false) }),
    ),
  });
  schemas.LegacyCheckAnswer = record<LegacyCheckAnswer>('GET /api/check?ip=: the compact legacy blacklist check.', {
    success: constant(true),
    ip: { ...IP_ADDRESS, description: 'the address, canonical' },
    listed: bool('at least one report within the retention window'),
    threat_type: stringEnumOrNull(threatTypes, 'the most reported type'),
    confidence: int('0 to 100', { minimum: 0, maximum: 100 }),
    reports: int('reports within the window', { minimum: 0 }),
    last_seen: strOrNull('time of the last report, YYYY-MM-DD HH:MM:SS UTC', BLACKLIST_TIME),
  });

  // ---- Admin ----
  const accountId = str('account id', { pattern: '^acc_[0-9a-f]+$' });
  const keyId = str('key id', { pattern: '^key_[0-9a-f]+$' });
  schemas.Account = record<Account>('An account.', {
    id: accountId,
    plan: stringEnum(planCodes),
    expires_at: strOrNull('expiry of a paid plan; null: none', DATE_TIME),
    suspended: bool(),
    email: strOrNull(),
    created_at: str(undefined, DATE_TIME),
  });
  const keyProperties: Properties<ApiKey> = {
    id: keyId,
    account_id: accountId,
    name: str(undefined, { minLength: 1, maxLength: 100 }),
    websites: arrayOf(str(), 'allowed hosts (example.com, *.example.com); empty: any origin'),
    created_at: str(undefined, DATE_TIME),
    rolled_at: strOrNull(undefined, DATE_TIME),
  };
  schemas.ApiKey = record<ApiKey>('A key as the store shows it: never its secret.', keyProperties);
  schemas.KeyWithSecret = record<KeyWithSecret>('A key with its secret, shown only when the secret is created.', {
    ...keyProperties,
    secret: str('the API key', { pattern: `^${SECRET_PREFIX}[0-9a-f]{40}$` }),
  });
  schemas.AccountCreated = shape('A new account and its first key.', { account: ref('Account'), key: ref('KeyWithSecret') });
  schemas.AccountWithKeys = shape('An account and its keys.', { account: ref('Account'), keys: arrayOf(ref('ApiKey')) });
  schemas.AccountResponse = shape('An account.', { account: ref('Account') });
  schemas.KeyResponse = shape('A key (without secret).', { key: ref('ApiKey') });
  schemas.KeySecretResponse = shape('A key with its new secret.', { key: ref('KeyWithSecret') });
  schemas.KeyDeleted = shape('A deleted key.', { success: constant(true), deleted: keyId });

  // ---- Request bodies ----
  const ipsArray = arrayOf(str(), 'addresses; entries that are not valid addresses (or not strings) fail only their own result');
  schemas.BatchRequestObject = {
    type: 'object',
    description: 'JSON object with ips: an array of addresses (or one comma-separated string).',
    properties: { ips: oneOf(ipsArray, str('comma-separated addresses')) },
  };
  schemas.BatchRequestArray = { ...ipsArray, description: 'A plain JSON array of addresses.' };
  schemas.BatchRequestForm = { type: 'object', description: 'Form field ips with comma-separated addresses.', properties: { ips: str('comma-separated addresses') } };
  const plan = stringEnum(planCodes);
  const expiry = strOrNull('ISO 8601 date; null: no expiry', DATE_TIME);
  schemas.NewAccount = { type: 'object', properties: { plan: { ...plan, default: 'free' }, expires_at: expiry, email: strOrNull() } };
  schemas.AccountPatch = { type: 'object', properties: { plan, expires_at: expiry, suspended: bool(), email: strOrNull() } };
  schemas.NewKey = { type: 'object', properties: { name: str('default: key', { minLength: 1, maxLength: 100 }), websites: arrayOf(str()) } };
  schemas.KeyPatch = { type: 'object', properties: { name: str(undefined, { minLength: 1, maxLength: 100 }), websites: arrayOf(str()) } };

  return schemas;
}

// ---------------------------------------------------------------------------------------------
// Parameters, headers, security
// ---------------------------------------------------------------------------------------------

const parameters: Record<string, JsonSchema> = {
  fields: {
    name: 'fields',
    in: 'query',
    required: false,
    description: `Comma-separated dot paths to keep (location.city). ${ALWAYS_KEPT.join(', ')} are always kept; unknown paths are ignored; applies to each batch result. The response schemas describe unfiltered records.`,
    schema: { type: 'string' },
    example: 'location.country_code,network.asn',
  },
  pretty: {
    name: 'pretty',
    in: 'query',
    required: false,
    description: 'Flag: indented output (pretty=0 and pretty=false turn it off).',
    schema: { type: 'string' },
    allowEmptyValue: true,
  },
  key: {
    name: 'key',
    in: 'query',
    required: false,
    description: 'The API key (third way to authenticate, after X-API-Key and Authorization: Bearer; keys in URLs end up in logs).',
    schema: { type: 'string' },
  },
  ip: { name: 'ip', in: 'path', required: true, description: 'IPv4 or IPv6 address', schema: { type: 'string' }, example: '8.8.8.8' },
  mac: {
    name: 'mac',
    in: 'path',
    required: true,
    description: 'MAC address or OUI prefix: colon or hyphen separated, dotted groups of four, or bare hex; 6 to 12 hex digits',
    schema: { type: 'string' },
    example: '3C:22:FB:12:34:56',
  },
  q: { name: 'q', in: 'query', required: false, description: 'company-name substring, at least 2 characters (required unless vendor is given)', schema: { type: 'string' } },
  vendor: { name: 'vendor', in: 'query', required: false, description: 'alias of q', schema: { type: 'string' } },
  ips: {
    name: 'ips',
    in: 'query',
    required: false,
    description: 'comma-separated addresses; without it, GET answers 405 method_not_allowed (send a POST)',
    schema: { type: 'string' },
  },
  format: { name: 'format', in: 'query', required: false, description: `export format (default plain): ${exportFormats.join(', ')}`, schema: { ...stringEnum(exportFormats), default: 'plain' } },
  min_confidence: { name: 'min_confidence', in: 'query', required: false, description: `only addresses with at least this confidence (default ${DEFAULT_EXPORT_MIN_CONFIDENCE}: one reporter alone reaches at most ${SINGLE_REPORTER_CEILING}; 0 exports every listed address)`, schema: { type: 'string', pattern: '^\\d{1,3}$', default: String(DEFAULT_EXPORT_MIN_CONFIDENCE) } },
  version: { name: 'version', in: 'query', required: false, description: 'only IPv4 (4) or IPv6 (6)', schema: stringEnum(['4', '6']) },
  max_age: { name: 'max_age', in: 'query', required: false, description: 'only addresses reported within this time: 7d, 12h, 30m, 3600s, or a number of days', schema: { type: 'string' } },
  name: { name: 'name', in: 'query', required: false, description: 'set/table/chain name for ipset, nftables and iptables (default netlookup)', schema: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,23}$' } },
  legacyMac: { name: 'mac', in: 'query', required: false, description: 'MAC address or OUI prefix in any common format (one of mac or vendor is required)', schema: { type: 'string' }, example: '3C:22:FB:12:34:56' },
  legacyVendor: { name: 'vendor', in: 'query', required: false, description: 'company-name substring, at least 2 characters: reverse search', schema: { type: 'string' } },
  legacyIp: { name: 'ip', in: 'query', required: true, description: 'IPv4 or IPv6 address', schema: { type: 'string' }, example: '203.0.113.7' },
  accountId: { name: 'id', in: 'path', required: true, description: 'account id', schema: { type: 'string' } },
  keyId: { name: 'id', in: 'path', required: true, description: 'key id', schema: { type: 'string' } },
  demoFile: { name: 'file', in: 'path', required: true, description: 'a file of the demo (dist/demo, written by npm run build:web)', schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' } },
};
const param = (name: keyof typeof parameters & string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });

const integerHeader = (description: string, extra: JsonSchema = {}): JsonSchema => ({ description, schema: { type: 'integer', minimum: 0, ...extra } });
const headers: Record<string, JsonSchema> = {
  AccessControlAllowOrigin: { description: 'Every response allows any origin (SPEC 1.3).', required: true, schema: { type: 'string', const: '*' } },
  AccessControlExposeHeaders: { description: 'Names the quota headers and Retry-After for browser code; sent when the request carries Origin (every cross-origin browser request does).', required: false, schema: { type: 'string' } },
  XPlan: { description: 'plan code', required: true, schema: stringEnum(planCodes) },
  XRateLimitLimit: { ...integerHeader('requests per second allowed on the plan', { minimum: 1 }), required: true },
  XQuotaLimit: { ...integerHeader('quota of the current period: daily allowance of this API (free) or monthly pool (paid)'), required: true },
  XQuotaRemaining: { ...integerHeader('lookups left after this request'), required: true },
  XQuotaReset: { ...integerHeader('Unix time (UTC) of the next reset'), required: true },
  QuotaResetOnRefusal: { ...integerHeader('quota_exceeded: Unix time (UTC) of the next reset'), required: false },
  RetryAfter: { ...integerHeader('rate_limited: seconds to wait (1)', { minimum: 1 }), required: false },
  Allow: { description: 'methods allowed on the endpoint', required: true, schema: { type: 'string' } },
  KeylessQuotaLimit: { ...integerHeader('without a key: requests allowed per day per client address'), required: false },
  KeylessQuotaRemaining: { ...integerHeader('without a key: requests left today for this client address'), required: false },
  KeylessQuotaReset: { ...integerHeader('without a key: Unix time (UTC) of the next reset'), required: false },
  ETag: { description: 'identifies this export: the blacklist\'s change counter, the parameters and the quarter hour', required: true, schema: { type: 'string' } },
  LastModified: { description: 'the later of the last change and the start of the quarter hour (HTTP date)', required: true, schema: { type: 'string' } },
};
const header = (name: keyof typeof headers & string): JsonSchema => ({ $ref: `#/components/headers/${name}` });
const everyResponseHeaders = { 'Access-Control-Allow-Origin': header('AccessControlAllowOrigin'), 'Access-Control-Expose-Headers': header('AccessControlExposeHeaders') };
const quotaHeaders = {
  'X-Plan': header('XPlan'),
  'X-RateLimit-Limit': header('XRateLimitLimit'),
  'X-Quota-Limit': header('XQuotaLimit'),
  'X-Quota-Remaining': header('XQuotaRemaining'),
  'X-Quota-Reset': header('XQuotaReset'),
};
/** The allowance headers of a legacy request sent without a key (README "Legacy endpoints"). */
const keylessQuotaHeaders = {
  'X-Quota-Limit': header('KeylessQuotaLimit'),
  'X-Quota-Remaining': header('KeylessQuotaRemaining'),
  'X-Quota-Reset': header('KeylessQuotaReset'),
};
/** Headers that belong to one refusal status. */
const refusalHeaders: Partial<Record<number, Record<string, JsonSchema>>> = {
  429: { 'Retry-After': header('RetryAfter'), 'X-Quota-Reset': header('QuotaResetOnRefusal') },
  405: { Allow: header('Allow') },
};

const securitySchemes = {
  ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'checked first' },
  ApiKeyBearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>; checked second' },
  ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: 'checked third; keys in URLs end up in logs' },
  AdminToken: { type: 'http', scheme: 'bearer', description: 'the admin token (NETLOOKUP_ADMIN_TOKEN); the admin API exists only when it is set' },
} as const;
type SecurityRequirement = Partial<Record<keyof typeof securitySchemes, string[]>>;
/** SPEC 5.3: any one of the three ways (the service checks them in this order). */
const apiKeySecurity: SecurityRequirement[] = [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }, { ApiKeyQuery: [] }];
const adminSecurity: SecurityRequirement[] = [{ AdminToken: [] }];

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

function json(description: string, schema: JsonSchema, extraHeaders: Record<string, JsonSchema> = {}): JsonSchema {
  return { description, headers: { ...everyResponseHeaders, ...extraHeaders }, content: { 'application/json': { schema } } };
}

const metered = (description: string, schemaName: string) => json(description, ref(schemaName), quotaHeaders);

/** The error responses of an operation: its codes grouped under their errorTable statuses. */
function errorResponses(codes: readonly ErrorCode[], extraHeaders: Record<string, JsonSchema> = {}): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes) {
    if (!codes.includes(code)) continue;
    const status = errorTable[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const description = list.map((c) => `${c}: ${errorTable[c].message}`).join(' | ');
    const schema = { $ref: '#/components/schemas/ErrorEnvelope', properties: { error: { properties: { code: { enum: list } } } } };
    out[String(status)] = json(description, schema, { ...extraHeaders, ...refusalHeaders[status] });
  }
  return out;
}

/** Refusals of every keyed v1 request: caller checks and store outages (SPEC 5, 7). */
const callerErrors: ErrorCode[] = ['missing_key', 'invalid_key', 'origin_not_allowed', 'account_suspended', 'unavailable', 'internal_error'];
/** Refusals of a metered request on top of the caller's. */
const meterErrors: ErrorCode[] = [...callerErrors, 'rate_limited', 'quota_exceeded'];
const batchErrors: ErrorCode[] = [...meterErrors, 'invalid_ip', 'plan_required', 'empty_batch', 'batch_too_large'];
const bodyErrors: ErrorCode[] = ['invalid_body', 'body_too_large', 'unsupported_media_type'];
const adminErrors: ErrorCode[] = ['admin_unauthorized', 'admin_throttled', 'invalid_body', 'body_too_large', 'unavailable', 'internal_error'];

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

interface OperationInput {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security: unknown[];
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
}

/** The facts of GET /v1's own list (plan, counting) attached to the matching v1 operation. */
function operation(method: string, path: string, input: OperationInput): JsonSchema {
  const listed = endpoints.find((e) => e.method === method.toUpperCase() && e.path.replace('?q=', '') === path);
  return {
    ...input,
    ...(listed ? { 'x-plan': listed.plan, 'x-counted-as': listed.counted_as } : {}),
  };
}

/** A static file of the demo (dist/demo): 200 with ETag, 304 on If-None-Match, 404 for anything else. */
function demoFileOperation(path: string, operationId: string, summary: string, mediaTypes: string[]): JsonSchema {
  const schemaOf = (type: string): JsonSchema => (type === 'application/json' ? { type: 'object' } : type.startsWith('text/') ? { type: 'string' } : { type: 'string', contentEncoding: 'binary' });
  return operation('get', path, {
    operationId,
    tags: ['operations'],
    summary,
    security: [],
    parameters: [param('demoFile')],
    responses: {
      '200': { description: 'the file (ETag, Cache-Control: no-cache)', headers: everyResponseHeaders, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: schemaOf(type) }])) },
      '304': { description: 'not modified (If-None-Match)', headers: everyResponseHeaders },
      ...errorResponses(['not_found', 'internal_error']),
    },
  });
}

const common = [param('pretty')];
const v1Common = [param('key'), param('pretty')];
const withFields = [param('fields'), ...v1Common];

const batchRequestBody: JsonSchema = {
  required: false,
  description: `Any of three forms. Duplicates are removed (by canonical address). Per-batch limit: ${batchLimits}.`,
  content: {
    'application/json': { schema: oneOf(ref('BatchRequestObject'), ref('BatchRequestArray')) },
    'application/x-www-form-urlencoded': { schema: ref('BatchRequestForm') },
  },
};

function batchOperations(api: 'ip' | 'blacklist', envelope: string): Record<string, JsonSchema> {
  const name = api === 'ip' ? 'IP lookups' : 'blacklist checks';
  const path = `/v1/${api}/batch`;
  return {
    get: operation('get', path, {
      operationId: `${api}BatchGet`,
      tags: [api],
      summary: `Many ${name} with ?ips=a,b,c (paid plans)`,
      description: 'Without ips: 405 method_not_allowed with Allow: POST.',
      security: apiKeySecurity,
      parameters: [param('ips'), ...withFields],
      responses: { '200': metered(`batch envelope; counted as one ${api} lookup per valid unique address`, envelope), ...errorResponses([...batchErrors, 'method_not_allowed']) },
    }),
    post: operation('post', path, {
      operationId: `${api}BatchPost`,
      tags: [api],
      summary: `Many ${name} (paid plans)`,
      security: apiKeySecurity,
      parameters: withFields,
      requestBody: batchRequestBody,
      responses: { '200': metered(`batch envelope; counted as one ${api} lookup per valid unique address`, envelope), ...errorResponses([...batchErrors, ...bodyErrors]) },
    }),
  };
}

function adminOperation(method: string, path: string, input: Omit<OperationInput, 'security' | 'tags'> & { extraErrors: ErrorCode[] }): JsonSchema {
  const { extraErrors, responses, ...rest } = input;
  return operation(method, path, {
    ...rest,
    tags: ['admin'],
    security: adminSecurity,
    parameters: [...(rest.parameters ?? []), ...common],
    responses: { ...responses, ...errorResponses([...adminErrors, ...extraErrors]) },
  });
}

const adminBody = (schemaName: string): JsonSchema => ({ required: false, content: { 'application/json': { schema: ref(schemaName) } } });

/** The 200 and 304 of a firewall export (v1 and legacy), with the caller's metering headers. */
function exportResponses(metering: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const cache = { ETag: header('ETag'), 'Last-Modified': header('LastModified') };
  return {
    '200': {
      description: 'the list in the asked format (plain, cidr, ipset, nftables and iptables are text/plain)',
      headers: { ...everyResponseHeaders, ...metering, ...cache },
      content: {
        'text/plain': { schema: { type: 'string' } },
        'text/csv': { schema: { type: 'string' } },
        'application/json': { schema: ref('BlacklistExportJson') },
      },
    },
    '304': { description: 'not modified since the ETag or date sent', headers: { ...everyResponseHeaders, ...metering, ...cache } },
  };
}

/** A key is optional on the legacy endpoints: without one, the client address's daily allowance applies. */
const optionalKeySecurity: SecurityRequirement[] = [{}, ...apiKeySecurity];
/** Refusals of a legacy request: a key, when given, is checked as v1 checks it; or the keyless allowance. */
const legacyErrors: ErrorCode[] = [...callerErrors.filter((code) => code !== 'missing_key'), 'quota_exceeded'];

/** The legacy paths (SPEC 4.9): each under both its names (`/lookup` and `/lookup.php`, ...). */
function legacyPaths(): Record<string, Record<string, JsonSchema>> {
  const twice = (path: string, id: string, input: Omit<OperationInput, 'operationId' | 'tags'>) => ({
    [path]: { get: operation('get', path, { ...input, operationId: id, tags: ['legacy'] }) },
    [`${path}.php`]: { get: operation('get', `${path}.php`, { ...input, operationId: `${id}Php`, tags: ['legacy'] }) },
  });
  return {
    ...twice('/lookup', 'legacyMacLookup', {
      summary: 'Legacy MAC lookup (mac=) or reverse search by company (vendor=)',
      security: optionalKeySecurity,
      parameters: [param('legacyMac'), param('legacyVendor'), ...v1Common],
      responses: {
        '200': json('the MAC answer (mac=) or the prefixes of matching companies (vendor=)', oneOf(ref('LegacyMacAnswer'), ref('LegacyVendorAnswer')), keylessQuotaHeaders),
        ...errorResponses([...legacyErrors, 'invalid_mac', 'invalid_query', 'invalid_input'], keylessQuotaHeaders),
      },
    }),
    '/api/mac/v1/health': {
      get: operation('get', '/api/mac/v1/health', {
        operationId: 'legacyMacHealth',
        tags: ['legacy'],
        summary: 'Legacy MAC health: whether the MAC table is loaded, and its dates',
        security: [],
        parameters: common,
        responses: { '200': json('the MAC table is loaded', ref('LegacyMacHealth')), '503': json('the MAC table is not loaded', ref('LegacyMacHealth')), ...errorResponses(['internal_error']) },
      }),
    },
    ...twice('/api/check', 'legacyBlacklistCheck', {
      summary: 'Legacy compact blacklist check',
      security: optionalKeySecurity,
      parameters: [param('legacyIp'), ...v1Common],
      responses: { '200': json('the check', ref('LegacyCheckAnswer'), keylessQuotaHeaders), ...errorResponses([...legacyErrors, 'invalid_ip'], keylessQuotaHeaders) },
    }),
    ...twice('/api/export', 'legacyBlacklistExport', {
      summary: 'Legacy firewall export: the v1 export under the blacklist host',
      security: optionalKeySecurity,
      parameters: [param('format'), param('min_confidence'), param('version'), param('max_age'), param('name'), ...v1Common],
      responses: { ...exportResponses(keylessQuotaHeaders), ...errorResponses([...legacyErrors, 'invalid_input'], keylessQuotaHeaders) },
    }),
  };
}

function paths(): Record<string, Record<string, JsonSchema>> {
  return {
    '/v1': {
      get: operation('get', '/v1', {
        operationId: 'endpointList',
        tags: ['account'],
        summary: 'The list of endpoints (not counted)',
        security: apiKeySecurity,
        parameters: v1Common,
        responses: { '200': json('the endpoint list', ref('EndpointList')), ...errorResponses(callerErrors) },
      }),
    },
    '/v1/ip/{ip}': {
      get: operation('get', '/v1/ip/{ip}', {
        operationId: 'ipLookup',
        tags: ['ip'],
        summary: 'IP lookup',
        description: 'The IP record (basic on free, full on paid plans), the reserved-address record, or the not-found answer. Counted as 1 IP lookup.',
        security: apiKeySecurity,
        parameters: [param('ip'), ...withFields],
        responses: { '200': metered('IP record with meta', 'IpLookupResponse'), ...errorResponses([...meterErrors, 'invalid_ip']) },
      }),
    },
    '/v1/ip': {
      get: operation('get', '/v1/ip', {
        operationId: 'ipLookupCaller',
        tags: ['ip'],
        summary: 'IP lookup of the address the request comes from',
        description: 'X-Forwarded-For is believed only from proxies listed in NETLOOKUP_TRUST_PROXY.',
        security: apiKeySecurity,
        parameters: withFields,
        responses: { '200': metered('IP record with meta', 'IpLookupResponse'), ...errorResponses([...meterErrors, 'invalid_ip']) },
      }),
    },
    '/v1/ip/batch': batchOperations('ip', 'IpBatchResponse'),
    '/v1/blacklist/{ip}': {
      get: operation('get', '/v1/blacklist/{ip}', {
        operationId: 'blacklistCheck',
        tags: ['blacklist'],
        summary: 'Blacklist check',
        security: apiKeySecurity,
        parameters: [param('ip'), ...withFields],
        responses: { '200': metered('blacklist record with meta', 'BlacklistResponse'), ...errorResponses([...meterErrors, 'invalid_ip']) },
      }),
    },
    '/v1/blacklist/batch': batchOperations('blacklist', 'BlacklistBatchResponse'),
    '/v1/blacklist/report': {
      post: operation('post', '/v1/blacklist/report', {
        operationId: 'blacklistReport',
        tags: ['blacklist'],
        summary: 'Report an abusive address (not counted against the lookup quota; rate limited per account and minute)',
        description:
          'The key may also come as a Key header or a key field. Every failure is a non-2xx error envelope, so `curl --fail` notices. ' +
          'A repeat by the same reporter for the same address within 15 minutes merges into its report (200).',
        security: apiKeySecurity,
        parameters: v1Common,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref('BlacklistReportJson') }, 'application/x-www-form-urlencoded': { schema: ref('BlacklistReportForm') } },
        },
        responses: {
          '201': json('the report was saved', ref('BlacklistReportSaved')),
          '200': json('the report merged into the same reporter\'s report of the last 15 minutes', ref('BlacklistReportSaved')),
          ...errorResponses([...callerErrors, 'rate_limited', 'invalid_ip', 'reserved_ip', 'invalid_report', ...bodyErrors]),
        },
      }),
    },
    '/v1/blacklist/export': {
      get: operation('get', '/v1/blacklist/export', {
        operationId: 'blacklistExport',
        tags: ['blacklist'],
        summary: 'The blacklist for firewalls, streamed (counted as 1 blacklist check)',
        description:
          'Evaluated at the start of the current quarter hour. Send If-None-Match (or If-Modified-Since) to get 304 while nothing changed.',
        security: apiKeySecurity,
        parameters: [param('format'), param('min_confidence'), param('version'), param('max_age'), param('name'), ...v1Common],
        responses: { ...exportResponses(quotaHeaders), ...errorResponses([...meterErrors, 'invalid_input']) },
      }),
    },
    '/v1/mac/{mac}': {
      get: operation('get', '/v1/mac/{mac}', {
        operationId: 'macLookup',
        tags: ['mac'],
        summary: 'MAC vendor lookup (most specific of MA-S, MA-M, MA-L)',
        security: apiKeySecurity,
        parameters: [param('mac'), ...withFields],
        responses: { '200': metered('MAC record with meta', 'MacLookupResponse'), ...errorResponses([...meterErrors, 'invalid_mac']) },
      }),
    },
    '/v1/mac/search': {
      get: operation('get', '/v1/mac/search', {
        operationId: 'macSearch',
        tags: ['mac'],
        summary: 'MAC blocks of companies whose name contains the query (paid plans)',
        security: apiKeySecurity,
        parameters: [param('q'), param('vendor'), ...v1Common],
        responses: { '200': metered(`up to ${MAX_SEARCH_RESULTS} results ordered by company name`, 'MacSearchResponse'), ...errorResponses([...meterErrors, 'plan_required', 'invalid_query']) },
      }),
    },
    '/v1/usage': {
      get: operation('get', '/v1/usage', {
        operationId: 'usage',
        tags: ['account'],
        summary: 'Plan, limits and usage of the account of the key (not counted, not quota limited)',
        security: apiKeySecurity,
        parameters: withFields,
        responses: { '200': json('usage record', ref('UsageResponse')), ...errorResponses(callerErrors) },
      }),
    },

    '/admin/accounts': {
      post: adminOperation('post', '/admin/accounts', {
        operationId: 'adminCreateAccount',
        summary: 'Create an account and its first key',
        requestBody: adminBody('NewAccount'),
        responses: { '201': json('the account and its first key (the secret is shown only here)', ref('AccountCreated')) },
        extraErrors: ['invalid_input'],
      }),
    },
    '/admin/accounts/{id}': {
      get: adminOperation('get', '/admin/accounts/{id}', {
        operationId: 'adminGetAccount',
        summary: 'An account and its keys',
        parameters: [param('accountId')],
        responses: { '200': json('the account and its keys', ref('AccountWithKeys')) },
        extraErrors: ['not_found'],
      }),
      patch: adminOperation('patch', '/admin/accounts/{id}', {
        operationId: 'adminUpdateAccount',
        summary: 'Change plan, expiry, suspension or email',
        parameters: [param('accountId')],
        requestBody: adminBody('AccountPatch'),
        responses: { '200': json('the changed account', ref('AccountResponse')) },
        extraErrors: ['invalid_input', 'not_found'],
      }),
    },
    '/admin/accounts/{id}/keys': {
      post: adminOperation('post', '/admin/accounts/{id}/keys', {
        operationId: 'adminCreateKey',
        summary: 'Create a key (up to the plan\'s number of keys)',
        parameters: [param('accountId')],
        requestBody: adminBody('NewKey'),
        responses: { '201': json('the new key with its secret', ref('KeySecretResponse')) },
        extraErrors: ['invalid_input', 'not_found', 'key_limit'],
      }),
    },
    '/admin/keys/{id}': {
      patch: adminOperation('patch', '/admin/keys/{id}', {
        operationId: 'adminUpdateKey',
        summary: 'Rename a key or change its website list',
        parameters: [param('keyId')],
        requestBody: adminBody('KeyPatch'),
        responses: { '200': json('the changed key', ref('KeyResponse')) },
        extraErrors: ['invalid_input', 'not_found'],
      }),
      delete: adminOperation('delete', '/admin/keys/{id}', {
        operationId: 'adminDeleteKey',
        summary: 'Delete (revoke) a key',
        parameters: [param('keyId')],
        responses: { '200': json('the deleted key id', ref('KeyDeleted')) },
        extraErrors: ['not_found'],
      }),
    },
    '/admin/keys/{id}/roll': {
      post: adminOperation('post', '/admin/keys/{id}/roll', {
        operationId: 'adminRollKey',
        summary: 'Replace the secret of a key (name and websites stay; the old secret stops working at once)',
        parameters: [param('keyId')],
        responses: { '200': json('the key with its new secret', ref('KeySecretResponse')) },
        extraErrors: ['not_found'],
      }),
    },

    '/admin/blacklist/{ip}': {
      delete: adminOperation('delete', '/admin/blacklist/{ip}', {
        operationId: 'adminDeleteBlacklistAddress',
        summary: 'Delete every report of an address (false-positive review; logged)',
        parameters: [param('ip')],
        responses: { '200': json('the reports were deleted', ref('BlacklistAddressDeleted')) },
        extraErrors: ['invalid_ip', 'not_found'],
      }),
    },

    ...legacyPaths(),
    '/health': {
      get: operation('get', '/health', {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Tables and store health',
        security: [],
        parameters: common,
        responses: {
          '200': json('healthy, or degraded (Redis unreachable, lookups still answered)', ref('Health')),
          '503': json('the store is unavailable', ref('Health')),
          ...errorResponses(['internal_error']),
        },
      }),
    },
    '/metrics': {
      get: operation('get', '/metrics', {
        operationId: 'metrics',
        tags: ['operations'],
        summary: 'Prometheus metrics',
        security: [],
        responses: {
          '200': { description: 'Prometheus text exposition format', headers: everyResponseHeaders, content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errorResponses(['internal_error']),
        },
      }),
    },
    '/demo': {
      get: operation('get', '/demo', {
        operationId: 'demoPage',
        tags: ['operations'],
        summary: 'The demo page: IP and MAC lookups computed in the browser by the WASM engine over the compact sets (/demo redirects to /demo/)',
        security: [],
        responses: {
          '200': { description: 'the page', headers: everyResponseHeaders, content: { 'text/html': { schema: { type: 'string' } } } },
          '302': { description: '/demo redirects to /demo/', headers: { ...everyResponseHeaders, Location: { schema: { type: 'string', const: '/demo/' } } } },
          ...errorResponses(['not_found', 'internal_error']),
        },
      }),
    },
    '/demo/{file}': {
      get: demoFileOperation('/demo/{file}', 'demoFile', "A file of the demo page: its script (demo.js), the engine's WASM module (netlookup.wasm)", ['text/javascript', 'application/wasm', 'application/json']),
    },
    '/demo/tables/{file}': {
      get: demoFileOperation('/demo/tables/{file}', 'demoTable', 'A compact table (ip4c.nlt, ip6c.nlt, macc.nlt: gzip Content-Encoding when accepted), its .gz copy, or the compact manifest.json', ['application/octet-stream', 'application/gzip', 'application/json']),
    },
    '/openapi.json': {
      get: operation('get', '/openapi.json', {
        operationId: 'openApi',
        tags: ['operations'],
        summary: 'This document',
        security: [],
        parameters: common,
        responses: {
          '200': json('the OpenAPI 3.1 document', { type: 'object', required: ['openapi', 'info', 'paths', 'components'], properties: { openapi: { const: '3.1.0' } } }),
          ...errorResponses(['internal_error']),
        },
      }),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

export function openApiDocument() {
  const planList = planCodes
    .map((code: PlanCode) => {
      const p = defaultPlans[code];
      const quota = p.quota.period === 'day' ? `${p.quota.per_api.ip} per API per day` : `${p.quota.pooled} per month, pooled`;
      return `${code}: ${quota}, ${p.rate_limit_per_second}/s, batch ${p.max_batch || 'none'}, ${p.field_level} fields`;
    })
    .join('; ');
  return {
    openapi: '3.1.0',
    info: {
      title: 'netlookup',
      version: '1.0.0',
      description:
        'IP, blacklist and MAC lookup API. Every v1 endpoint needs an API key (X-API-Key header, Authorization: Bearer, or ?key=, checked in that order). ' +
        `Default plans: ${planList}. Unknown paths answer 404 not_found (components/responses/NotFound). ` +
        'Any request may also be refused before it reaches an endpoint, in the same envelope: 400 invalid_request (not parsable as HTTP), ' +
        '408 request_timeout, 417 expectation_failed, 431 headers_too_large, 503 too_many_connections.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: 'this service' }],
    tags: [
      { name: 'ip', description: 'IP lookup' },
      { name: 'blacklist', description: "the service's own blacklist" },
      { name: 'mac', description: 'MAC vendor lookup and search' },
      { name: 'account', description: 'endpoint list and usage' },
      { name: 'admin', description: 'administration (only when NETLOOKUP_ADMIN_TOKEN is set)' },
      { name: 'legacy', description: 'the legacy MAC and blacklist endpoints (SPEC 4.9)' },
      { name: 'operations', description: 'health, metrics, this document, the demo page' },
    ],
    paths: paths(),
    components: {
      schemas: recordSchemas(),
      parameters,
      headers,
      securitySchemes,
      responses: { NotFound: json('not_found: an unknown endpoint (any path or method no route serves)', { $ref: '#/components/schemas/ErrorEnvelope', properties: { error: { properties: { code: { const: 'not_found' } } } } }) },
    },
  };
}
