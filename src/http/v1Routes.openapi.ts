/** OpenAPI paths of the v1 router (SPEC 2, 4), with the batch envelopes (SPEC 2.8) and batch request bodies. */
import type { ErrorCode } from '../errors.js';
import { defaultPlans, planCodes } from '../plans/plans.js';
import { arrayOf, constant, int, oneOf, ref, shape, str, stringEnum, type JsonSchema } from '../records/jsonSchema.js';
import { asnPaths } from './asnLookup.openapi.js';
import { blacklistPaths } from './blacklistRoutes.openapi.js';
import {
  apiKeySecurity,
  bodyErrors,
  callerErrors,
  errorResponses,
  json,
  metered,
  meterErrors,
  operation,
  param,
  v1Common,
  withFields,
} from './openApiComponents.js';
import { MAX_SEARCH_RESULTS } from './vendorSearch.js';

const paidPlans = planCodes.filter((code) => defaultPlans[code].max_batch > 0);
const batchLimits = paidPlans.map((code) => `${code} ${defaultPlans[code].max_batch}`).join(', ');
const batchErrors: ErrorCode[] = [...meterErrors, 'invalid_ip', 'plan_required', 'empty_batch', 'batch_too_large'];

export function batchSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
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
  return schemas;
}

export function batchRequestSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const ipsArray = arrayOf(str(), 'addresses; entries that are not valid addresses (or not strings) fail only their own result');
  schemas.BatchRequestObject = {
    type: 'object',
    description: 'JSON object with ips: an array of addresses (or one comma-separated string).',
    properties: { ips: oneOf(ipsArray, str('comma-separated addresses')) },
  };
  schemas.BatchRequestArray = { ...ipsArray, description: 'A plain JSON array of addresses.' };
  schemas.BatchRequestForm = {
    type: 'object',
    description: 'Form field ips with comma-separated addresses.',
    properties: { ips: str('comma-separated addresses') },
  };
  return schemas;
}

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
      responses: {
        '200': metered(`batch envelope; counted as one ${api} lookup per valid unique address`, envelope),
        ...errorResponses([...batchErrors, 'method_not_allowed']),
      },
    }),
    post: operation('post', path, {
      operationId: `${api}BatchPost`,
      tags: [api],
      summary: `Many ${name} (paid plans)`,
      security: apiKeySecurity,
      parameters: withFields,
      requestBody: batchRequestBody,
      responses: {
        '200': metered(`batch envelope; counted as one ${api} lookup per valid unique address`, envelope),
        ...errorResponses([...batchErrors, ...bodyErrors]),
      },
    }),
  };
}

export function v1Paths(): Record<string, Record<string, JsonSchema>> {
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
        description:
          'The IP record (basic on free, full on paid plans), the reserved-address record, or the not-found answer. Counted ' +
          'as 1 IP lookup.',
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
    ...asnPaths(),
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
    ...blacklistPaths(),
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
        responses: {
          '200': metered(`up to ${MAX_SEARCH_RESULTS} results ordered by company name`, 'MacSearchResponse'),
          ...errorResponses([...meterErrors, 'plan_required', 'invalid_query']),
        },
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
  };
}
