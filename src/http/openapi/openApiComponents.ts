/**
 * The shared components of the OpenAPI document (parameters, headers, security schemes) and the
 * builders of its operations and responses, used by the paths beside each router.
 *
 * Error responses are generated from lists of codes: each code lands under its errorTable status
 * and the response narrows `error.code` to the codes that operation can return there.
 */
import { errorTable, type ErrorCode } from '../../errors.js';
import { errorCodes } from '../../errors.openapi.js';
import { planCodes } from '../../plans/plans.js';
import { ALWAYS_KEPT } from '../../records/fieldsFilter.js';
import { ref, stringEnum, type JsonSchema } from '../../records/jsonSchema.js';
import { exportFormats } from '../../blacklist/exportFormats.js';
import { DEFAULT_EXPORT_MIN_CONFIDENCE, SINGLE_REPORTER_CEILING } from '../../blacklist/scoring.js';
import { endpoints } from '../v1/endpointList.js';

export const parameters: Record<string, JsonSchema> = {
  fields: {
    name: 'fields',
    in: 'query',
    required: false,
    description:
      `Comma-separated dot paths to keep (location.city). ${ALWAYS_KEPT.join(', ')} are always kept; unknown ` +
      `paths are ignored; applies to each batch result. The response schemas describe unfiltered records.`,
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
    description:
      'MAC address or prefix, 6 to 12 hex digits: colon or hyphen byte groups (the last group of a prefix may be one digit, ' +
      '70:B3:D5:00:1), the OUI then the rest (001a2b-3c4d5e), dotted groups of four (the last may be shorter) or bare hex',
    schema: { type: 'string' },
    example: '3C:22:FB:12:34:56',
  },
  q: {
    name: 'q',
    in: 'query',
    required: false,
    description: 'company-name substring, at least 2 characters (required unless vendor is given)',
    schema: { type: 'string' },
  },
  vendor: { name: 'vendor', in: 'query', required: false, description: 'alias of q', schema: { type: 'string' } },
  ips: {
    name: 'ips',
    in: 'query',
    required: false,
    description:
      'comma-separated addresses, repeatable (ips=a,b&ips=c); without addresses, GET answers 405 method_not_allowed (send a POST)',
    schema: { type: 'string' },
  },
  format: {
    name: 'format',
    in: 'query',
    required: false,
    description: `export format (default plain): ${exportFormats.join(', ')}`,
    schema: { ...stringEnum(exportFormats), default: 'plain' },
  },
  min_confidence: {
    name: 'min_confidence',
    in: 'query',
    required: false,
    description:
      `only addresses with at least this confidence (default ${DEFAULT_EXPORT_MIN_CONFIDENCE}: one reporter alone ` +
      `reaches at most ${SINGLE_REPORTER_CEILING}; 0 exports every listed address)`,
    schema: { type: 'string', pattern: '^\\d{1,3}$', default: String(DEFAULT_EXPORT_MIN_CONFIDENCE) },
  },
  version: { name: 'version', in: 'query', required: false, description: 'only IPv4 (4) or IPv6 (6)', schema: stringEnum(['4', '6']) },
  max_age: {
    name: 'max_age',
    in: 'query',
    required: false,
    description: 'only addresses reported within this time: 7d, 12h, 30m, 3600s, or a number of days',
    schema: { type: 'string' },
  },
  name: {
    name: 'name',
    in: 'query',
    required: false,
    description: 'set/table/chain name for ipset, nftables and iptables (default netlookup)',
    schema: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,23}$' },
  },
  legacyMac: {
    name: 'mac',
    in: 'query',
    required: false,
    description: 'MAC address or OUI prefix in any common format (one of mac or vendor is required)',
    schema: { type: 'string' },
    example: '3C:22:FB:12:34:56',
  },
  legacyVendor: {
    name: 'vendor',
    in: 'query',
    required: false,
    description: 'company-name substring, at least 2 characters: reverse search',
    schema: { type: 'string' },
  },
  legacyIp: {
    name: 'ip',
    in: 'query',
    required: true,
    description: 'IPv4 or IPv6 address',
    schema: { type: 'string' },
    example: '203.0.113.7',
  },
  accountId: { name: 'id', in: 'path', required: true, description: 'account id', schema: { type: 'string' } },
  keyId: { name: 'id', in: 'path', required: true, description: 'key id', schema: { type: 'string' } },
  demoFile: {
    name: 'file',
    in: 'path',
    required: true,
    description: 'a file of the demo (dist/demo, written by npm run build:web)',
    schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' },
  },
};
export const param = (name: keyof typeof parameters & string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });

const integerHeader = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  description,
  schema: { type: 'integer', minimum: 0, ...extra },
});
export const headers: Record<string, JsonSchema> = {
  AccessControlAllowOrigin: {
    description: 'Every response allows any origin (SPEC 1.3).',
    required: true,
    schema: { type: 'string', const: '*' },
  },
  AccessControlExposeHeaders: {
    description:
      'Names the plan, rate-limit and quota headers and Retry-After for browser code; sent when the request carries Origin ' +
      '(every cross-origin browser request does).',
    required: false,
    schema: { type: 'string' },
  },
  XPlan: { description: 'plan code', required: true, schema: stringEnum(planCodes) },
  XRateLimitLimit: { ...integerHeader('requests per second allowed on the plan (the per-second window)', { minimum: 1 }), required: true },
  XRateLimitRemaining: {
    ...integerHeader('requests the per-second window admits now, after this one (it counts the requests of the last second)'),
    required: true,
  },
  XRateLimitReset: {
    ...integerHeader('Unix time (UTC, rounded up to the second) when the per-second window has all its places free again'),
    required: true,
  },
  XQuotaLimit: {
    ...integerHeader('quota of the current period: daily allowance of this API (free) or monthly pool (paid)'),
    required: true,
  },
  XQuotaRemaining: { ...integerHeader('lookups left after this request'), required: true },
  XQuotaReset: { ...integerHeader('Unix time (UTC) of the next reset'), required: true },
  Allow: { description: 'method_not_allowed: the methods the path takes', required: true, schema: { type: 'string' } },
  QuotaResetOnRefusal: { ...integerHeader('quota_exceeded: Unix time (UTC) of the next reset'), required: false },
  RetryAfter: {
    ...integerHeader('rate_limited: seconds to wait (1); quota_exceeded: seconds until the quota resets', { minimum: 1 }),
    required: false,
  },
  KeylessQuotaLimit: { ...integerHeader('without a key: requests allowed per day per client address'), required: false },
  KeylessQuotaRemaining: { ...integerHeader('without a key: requests left today for this client address'), required: false },
  KeylessQuotaReset: { ...integerHeader('without a key: Unix time (UTC) of the next reset'), required: false },
  ETag: {
    description: "identifies this export: the blacklist's change counter, the parameters and the quarter hour",
    required: true,
    schema: { type: 'string' },
  },
  LastModified: {
    description: 'the later of the last change and the start of the quarter hour (HTTP date)',
    required: true,
    schema: { type: 'string' },
  },
};
export const header = (name: keyof typeof headers & string): JsonSchema => ({ $ref: `#/components/headers/${name}` });
export const everyResponseHeaders = {
  'Access-Control-Allow-Origin': header('AccessControlAllowOrigin'),
  'Access-Control-Expose-Headers': header('AccessControlExposeHeaders'),
};
export const quotaHeaders = {
  'X-Plan': header('XPlan'),
  'X-RateLimit-Limit': header('XRateLimitLimit'),
  'X-RateLimit-Remaining': header('XRateLimitRemaining'),
  'X-RateLimit-Reset': header('XRateLimitReset'),
  'X-Quota-Limit': header('XQuotaLimit'),
  'X-Quota-Remaining': header('XQuotaRemaining'),
  'X-Quota-Reset': header('XQuotaReset'),
};
/** Headers that belong to one refusal status. */
const refusalHeaders: Partial<Record<number, Record<string, JsonSchema>>> = {
  405: { Allow: header('Allow') },
  429: { 'Retry-After': header('RetryAfter'), 'X-Quota-Reset': header('QuotaResetOnRefusal') },
};

export const securitySchemes = {
  ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'checked first' },
  ApiKeyBearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>; checked second' },
  ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: 'checked third; keys in URLs end up in logs' },
  AdminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'the admin token (NETLOOKUP_ADMIN_TOKEN); the admin API exists only when it is set',
  },
} as const;
export type SecurityRequirement = Partial<Record<keyof typeof securitySchemes, string[]>>;
/** SPEC 5.3: any one of the three ways (the service checks them in this order). */
export const apiKeySecurity: SecurityRequirement[] = [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }, { ApiKeyQuery: [] }];

export function json(description: string, schema: JsonSchema, extraHeaders: Record<string, JsonSchema> = {}): JsonSchema {
  return { description, headers: { ...everyResponseHeaders, ...extraHeaders }, content: { 'application/json': { schema } } };
}

export const metered = (description: string, schemaName: string) => json(description, ref(schemaName), quotaHeaders);

/** The error responses of an operation: its codes grouped under their errorTable statuses. */
export function errorResponses(codes: readonly ErrorCode[], extraHeaders: Record<string, JsonSchema> = {}): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes) {
    if (!codes.includes(code)) continue;
    const status = errorTable[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, JsonSchema> = {};
  // A metered operation's 429 (rate_limited, quota_exceeded) carries the headers of its successes.
  const metered = meterErrors.every((code) => codes.includes(code));
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const description = list.map((c) => `${c}: ${errorTable[c].message}`).join(' | ');
    const schema = { $ref: '#/components/schemas/ErrorEnvelope', properties: { error: { properties: { code: { enum: list } } } } };
    out[String(status)] = json(description, schema, {
      ...extraHeaders,
      ...refusalHeaders[status],
      ...(metered && status === 429 ? quotaHeaders : {}),
    });
  }
  return out;
}

/** Refusals of every keyed v1 request: caller checks and store outages (SPEC 5, 7). */
export const callerErrors: ErrorCode[] = [
  'missing_key',
  'invalid_key',
  'origin_not_allowed',
  'account_suspended',
  'unavailable',
  'internal_error',
];
/** Refusals of a metered request on top of the caller's. */
export const meterErrors: ErrorCode[] = [...callerErrors, 'rate_limited', 'quota_exceeded'];
export const bodyErrors: ErrorCode[] = ['invalid_body', 'body_too_large', 'unsupported_media_type'];

export interface OperationInput {
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
export function operation(method: string, path: string, input: OperationInput): JsonSchema {
  const listed = endpoints.find((e) => e.method === method.toUpperCase() && e.path.replace('?q=', '') === path);
  return {
    ...input,
    ...(listed ? { 'x-plan': listed.plan, 'x-counted-as': listed.counted_as } : {}),
  };
}

export const common = [param('pretty')];
export const v1Common = [param('key'), param('pretty')];
export const withFields = [param('fields'), ...v1Common];
