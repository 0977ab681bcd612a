/** OpenAPI schemas and paths of the blacklist's own routes: reports, firewall exports, deletion of an address's reports. */
import { threatTypes } from '../../blacklist/threatTypes.js';
import { MAX_MESSAGE_LENGTH, MAX_SOURCE_LENGTH } from '../../blacklist/reportDraft.js';
import { BLACKLIST_TIME } from '../../records/blacklistRecord.openapi.js';
import {
  DATE_TIME,
  IP_ADDRESS,
  arrayOf,
  bool,
  constant,
  int,
  numOrNull,
  oneOf,
  ref,
  shape,
  str,
  strOrNull,
  stringEnum,
  stringEnumOrNull,
  type JsonSchema,
} from '../../records/jsonSchema.js';
import {
  apiKeySecurity,
  bodyErrors,
  callerErrors,
  errorResponses,
  everyResponseHeaders,
  header,
  json,
  meterErrors,
  operation,
  param,
  quotaHeaders,
  v1Common,
} from '../openapi/openApiComponents.js';

export function blacklistSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const threatType = stringEnum(threatTypes);
  schemas.BlacklistReportSaved = shape("A saved report: the address's facts right after it.", {
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
    timestamp: oneOf(
      str(
        'when the reporter saw it: ISO 8601 (UTC when without zone) or Unix seconds; not in the future, not older than the ' +
          'retention window. Checked only: the report is dated when it arrives',
      ),
      int(),
    ),
    key: str('the API key, for tools that cannot send a header'),
  };
  schemas.BlacklistReportJson = { type: 'object', description: 'A report as JSON.', properties: reportFields };
  schemas.BlacklistReportForm = {
    type: 'object',
    description: 'A report as form fields.',
    properties: Object.fromEntries(Object.keys(reportFields).map((k) => [k, str()])),
  };
  schemas.BlacklistExportJson = shape('format=json: the listed addresses passing the filter.', {
    success: constant(true),
    generated_at: str(
      'when this export was made; every answer of the same export (same ETag) carries the same text, this included',
      DATE_TIME,
    ),
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
  return schemas;
}

/** The 200 and 304 of a firewall export (v1 and legacy), with the caller's metering headers. */
export function exportResponses(metering: Record<string, JsonSchema>): Record<string, JsonSchema> {
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

/** The blacklist routes registered into the v1 router. */
export function blacklistPaths(): Record<string, Record<string, JsonSchema>> {
  return {
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
          content: {
            'application/json': { schema: ref('BlacklistReportJson') },
            'application/x-www-form-urlencoded': { schema: ref('BlacklistReportForm') },
          },
        },
        responses: {
          '201': json('the report was saved', ref('BlacklistReportSaved')),
          '200': json("the report merged into the same reporter's report of the last 15 minutes", ref('BlacklistReportSaved')),
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
          'Decay and expiry evaluated at the start of the current quarter hour. Send If-None-Match (or If-Modified-Since) to get 304 ' +
          'while nothing changed. format=json takes pretty.',
        security: apiKeySecurity,
        parameters: [param('format'), param('min_confidence'), param('version'), param('max_age'), param('name'), ...v1Common],
        responses: { ...exportResponses(quotaHeaders), ...errorResponses([...meterErrors, 'invalid_input']) },
      }),
    },
  };
}
