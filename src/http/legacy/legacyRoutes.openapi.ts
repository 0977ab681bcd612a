/** OpenAPI schemas and paths of the legacy router (docs/api.md "Legacy endpoints"). */
import type { ErrorCode } from '../../errors.js';
import { BLACKLIST_TIME } from '../../records/blacklistRecord.openapi.js';
import { macBlockTypes, OUI } from '../../records/macRecord.openapi.js';
import { threatTypes } from '../../blacklist/threatTypes.js';
import {
  COUNTRY_CODE,
  DATE_TIME,
  IP_ADDRESS,
  arrayOf,
  bool,
  constant,
  int,
  oneOf,
  orNull,
  record,
  ref,
  shape,
  str,
  strOrNull,
  stringEnum,
  stringEnumOrNull,
  type JsonSchema,
} from '../../records/jsonSchema.js';
import { exportResponses } from '../v1/blacklistRoutes.openapi.js';
import type { LegacyCheckAnswer, LegacyMacAnswer, LegacyMacHealth, LegacyVendorAnswer } from './legacyRoutes.js';
import {
  apiKeySecurity,
  callerErrors,
  common,
  errorResponses,
  header,
  json,
  operation,
  param,
  v1Common,
  type OperationInput,
  type SecurityRequirement,
} from '../openapi/openApiComponents.js';
import { MAX_SEARCH_RESULTS } from '../v1/vendorSearch.js';

export function legacySchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  schemas.LegacyMacAnswer = record<LegacyMacAnswer>('GET /lookup?mac=: the SPEC 4.9 legacy MAC answer.', {
    success: constant(true),
    found: bool('whether a registered block holds the address'),
    macAddress: record<LegacyMacAnswer['macAddress']>('the address bits', {
      oui: str('AA:BB:CC', OUI),
      isRandomized: bool('locally administered unicast: a privacy (random) address'),
      transmission: stringEnum(['unicast', 'multicast']),
      administration: stringEnum(['UAA', 'LAA'], 'universally or locally administered'),
      special: orNull(
        record<NonNullable<LegacyMacAnswer['macAddress']['special']>>(
          "what a group, broadcast or special-purpose unicast address is (the v1 record's special); null for any other address",
          {
            name: str('what the address is (IPv4 multicast, Bridge Group Address, Broadcast)'),
            protocol: strOrNull('the protocols that use it, where known'),
            assignedBy: str('IANA, IEEE, IETF or the vendor'),
            reference: str('the standard or document that assigns it'),
          },
        ),
      ),
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
  return schemas;
}

/** The allowance headers of a legacy request sent without a key (docs/api.md "Legacy endpoints"). */
const keylessQuotaHeaders = {
  'X-Quota-Limit': header('KeylessQuotaLimit'),
  'X-Quota-Remaining': header('KeylessQuotaRemaining'),
  'X-Quota-Reset': header('KeylessQuotaReset'),
};

/** A key is optional on the legacy endpoints: without one, the client address's daily allowance applies. */
const optionalKeySecurity: SecurityRequirement[] = [{}, ...apiKeySecurity];
/** Refusals of a legacy request: a key, when given, is checked as v1 checks it; or the keyless allowance. */
const legacyErrors: ErrorCode[] = [...callerErrors.filter((code) => code !== 'missing_key'), 'quota_exceeded'];

/** The legacy paths (SPEC 4.9): each under both its names (`/lookup` and `/lookup.php`, ...). */
export function legacyPaths(): Record<string, Record<string, JsonSchema>> {
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
        '200': json(
          'the MAC answer (mac=) or the prefixes of matching companies (vendor=)',
          oneOf(ref('LegacyMacAnswer'), ref('LegacyVendorAnswer')),
          keylessQuotaHeaders,
        ),
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
        responses: {
          '200': json('the MAC table is loaded', ref('LegacyMacHealth')),
          '503': json('the MAC table is not loaded', ref('LegacyMacHealth')),
          ...errorResponses(['internal_error']),
        },
      }),
    },
    ...twice('/api/check', 'legacyBlacklistCheck', {
      summary: 'Legacy compact blacklist check',
      security: optionalKeySecurity,
      parameters: [param('legacyIp'), ...v1Common],
      responses: {
        '200': json('the check', ref('LegacyCheckAnswer'), keylessQuotaHeaders),
        ...errorResponses([...legacyErrors, 'invalid_ip'], keylessQuotaHeaders),
      },
    }),
    ...twice('/api/export', 'legacyBlacklistExport', {
      summary: 'Legacy firewall export: the v1 export under the blacklist host',
      security: optionalKeySecurity,
      parameters: [param('format'), param('min_confidence'), param('version'), param('max_age'), param('name'), ...v1Common],
      responses: { ...exportResponses(keylessQuotaHeaders), ...errorResponses([...legacyErrors, 'invalid_input'], keylessQuotaHeaders) },
    }),
  };
}
