/** OpenAPI schemas of the AS record (GET /v1/asn/{asn}) at each field level, and its not-found answer. */
import { connectionTypes, type ConnectionType } from '../tables/format/ipTable.js';
import type { AsnPrefix } from '../engine/asnIndex.js';
import {
  PREFIX_PAGE,
  type AsnIpv4Totals,
  type AsnIpv6Totals,
  type AsnPrefixPage,
  type AsnRecordBasic,
  type AsnRecordFull,
  type NotFoundAsnRecord,
} from './asnRecord.js';
import type { FieldLevel } from './ipRecord.js';
import { withMeta } from './metaRecord.openapi.js';
import { COUNTRY_CODE, arrayOf, constant, int, record, ref, str, strOrNull, stringEnumOrNull, type JsonSchema } from './jsonSchema.js';

const ASN = int('the AS number', { minimum: 1, maximum: 0xffffffff });

/** A response schema whose meta names the field level. */
function atLevel(schema: JsonSchema, level: FieldLevel): JsonSchema {
  const meta = { ...ref('Meta'), properties: { fields: { const: level } } };
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), meta } };
}

export function asnRecordSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const prefixCount = int('prefixes: the ranges of the ASN data announced by the AS', { minimum: 0 });
  schemas.AsnIpv4Totals = record<AsnIpv4Totals>('IPv4 prefixes of the AS and the addresses they hold.', {
    prefixes: prefixCount,
    addresses: int('IPv4 addresses in the prefixes', { minimum: 0 }),
  });
  schemas.AsnIpv6Totals = record<AsnIpv6Totals>('IPv6 prefixes of the AS and the addresses they hold.', {
    prefixes: prefixCount,
    addresses: str('IPv6 addresses in the prefixes, as decimal digits (totals reach 2^128, beyond exact JSON numbers)', {
      pattern: '^(0|[1-9][0-9]*)$',
    }),
  });
  schemas.AsnPrefix = record<AsnPrefix>('One prefix: a range of the ASN data announced by the AS.', {
    version: { type: 'integer', enum: [4, 6] },
    start: str('first address'),
    end: str('last address'),
    cidrs: arrayOf(str('address/length'), 'the CIDR blocks that make up the range, in order (one when the range is a CIDR block)', {
      minItems: 1,
    }),
  });
  schemas.AsnPrefixPage = record<AsnPrefixPage>('One page of the prefixes: IPv4 then IPv6, each in address order.', {
    total: int('prefixes of the AS, both families', { minimum: 0 }),
    offset: int('prefixes skipped (the offset parameter)', { minimum: 0 }),
    limit: int(`largest page (the limit parameter, default ${PREFIX_PAGE.defaultLimit})`, { minimum: 1, maximum: PREFIX_PAGE.maxLimit }),
    results: arrayOf(ref('AsnPrefix')),
  });
  const basic = {
    success: constant(true),
    asn: ASN,
    found: constant(true),
    name: strOrNull(
      'the AS name as registered (as network.asn_name of the IP record); null where the network source gives only the organisation',
    ),
    organization: strOrNull('the AS organisation (as network.organization of the IP record)'),
    domain: strOrNull('domain of the organisation, where curated'),
    country: strOrNull('country name of country_code'),
    country_code: strOrNull('where most addresses of the AS are located (IPv4 first, else IPv6)', COUNTRY_CODE),
    connection_type: stringEnumOrNull(
      connectionTypes.filter((t): t is ConnectionType => t !== null),
      'connection type of the AS (as network.connection_type of the IP record)',
    ),
    ipv4: ref('AsnIpv4Totals'),
    ipv6: ref('AsnIpv6Totals'),
  };
  schemas.AsnRecordBasic = record<AsnRecordBasic>('AS record, basic field level (free plan).', basic);
  schemas.AsnRecordFull = record<AsnRecordFull>('AS record, full field level (paid plans): with one page of prefixes.', {
    ...basic,
    prefixes: ref('AsnPrefixPage'),
  });
  schemas.AsnNotFound = record<NotFoundAsnRecord>('An AS number the ASN data lists no prefix for; the same on every plan.', {
    success: constant(true),
    asn: ASN,
    found: constant(false),
    message: str(),
  });
  // The two levels differ only by the prefix list: meta.fields tells them apart.
  schemas.AsnRecordBasicResponse = atLevel(withMeta(schemas.AsnRecordBasic, 'AS record (basic) with meta.'), 'basic');
  schemas.AsnRecordFullResponse = atLevel(withMeta(schemas.AsnRecordFull, 'AS record (full) with meta.'), 'full');
  schemas.AsnNotFoundResponse = withMeta(schemas.AsnNotFound, 'Not-found answer with meta.');
  schemas.AsnLookupResponse = {
    description: "GET /v1/asn/{asn}: the AS record of the plan's field level, or the not-found answer.",
    oneOf: [ref('AsnRecordBasicResponse'), ref('AsnRecordFullResponse'), ref('AsnNotFoundResponse')],
  };
  return schemas;
}
