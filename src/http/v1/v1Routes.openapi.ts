/** OpenAPI paths of the v1 router (SPEC 2, 4), with the batch envelopes (SPEC 2.8) and batch request bodies. */
import type { ErrorCode } from '../../errors.js';
import { defaultPlans, planCodes } from '../../plans/plans.js';
import { arrayOf, constant, int, oneOf, ref, shape, str, stringEnum, type JsonSchema } from '../../records/jsonSchema.js';
import { asnPaths } from './asnLookup.openapi.js';
import { blacklistRecordSchemas } from '../../records/blacklistRecord.openapi.js';
import { ipRecordSchemas } from '../../records/ipRecord.openapi.js';
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
} from '../openapi/openApiComponents.js';
import { MAX_SEARCH_RESULTS } from './vendorSearch.js';
import { macSearchPaging } from './vendorSearch.openapi.js';

const paidPlans = planCodes.filter((code) => defaultPlans[code].max_batch > 0);
const batchLimits = paidPlans.map((code) => `${code} ${defaultPlans[code].max_batch}`).join(', ');
const batchErrors: ErrorCode[] = [...meterErrors, 'invalid_ip', 'plan_required', 'empty_batch', 'batch_too_large'];

/** How a batch result names what it answers: the first spelling the client sent of it. */
const batchInput = str(
  'the first entry submitted that this result answers, to match the result by (later spellings of the same address share ' +
    'it; their canonical form is ip): a string of a JSON array exactly as sent, an item of a comma-separated list without ' +
    'the spaces around it, a non-string JSON entry as its JSON text ([array] and [object] for those)',
);

/** A record as a batch result: its single-lookup answer with `input` after `success` and without `meta`. */
function inBatch(answer: JsonSchema, description: string): JsonSchema {
  const { success, ...rest } = answer.properties as Record<string, JsonSchema>;
  return {
    ...answer,
    description,
    properties: { success, input: batchInput, ...Object.fromEntries(Object.entries(rest).filter(([key]) => key !== 'meta')) },
    required: ['input', ...(answer.required as string[]).filter((key) => key !== 'meta')],
  };
}

export function batchSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const answers = { ...ipRecordSchemas(), ...blacklistRecordSchemas() };
  schemas.BatchFailure = shape('A batch entry that is not a valid address; only that entry fails.', {
    success: constant(false),
    input: batchInput,
    ip: str('the submitted text without surrounding whitespace (non-string JSON entries as their JSON text)'),
    error: shape('', { code: stringEnum(['invalid_ip'] satisfies ErrorCode[]), message: str() }),
  });
  const batchResults: [string, string, string][] = [
    ['BatchIpRecordFull', 'IpRecordFullResponse', 'IP record (full field level) as a batch result.'],
    ['BatchIpReserved', 'IpReservedResponse', 'Reserved-address record as a batch result.'],
    ['BatchIpNotFound', 'IpNotFoundResponse', 'Not-found answer as a batch result.'],
    ['BatchBlacklistNotListed', 'BlacklistNotListedResponse', 'Blacklist record (not listed) as a batch result.'],
    ['BatchBlacklistListedFull', 'BlacklistListedFullResponse', 'Blacklist record (listed, full field level) as a batch result.'],
  ];
  for (const [name, answer, description] of batchResults) schemas[name] = inBatch(answers[answer], description);
  const batchEnvelope = (description: string, results: JsonSchema[]) =>
    shape(description, {
      success: constant(true),
      count: int('number of results', { minimum: 0 }),
      results: arrayOf(
        oneOf(...results),
        'one result per distinct address (every spelling of it is one) and per distinct invalid entry (by its text without ' +
          'surrounding whitespace), in order of first appearance; never more than the plan allows per batch',
      ),
      meta: ref('Meta'),
    });
  schemas.IpBatchResponse = batchEnvelope('SPEC 2.8 batch envelope of IP records (full field set).', [
    ref('BatchIpRecordFull'),
    ref('BatchIpReserved'),
    ref('BatchIpNotFound'),
    ref('BatchFailure'),
  ]);
  schemas.BlacklistBatchResponse = batchEnvelope('SPEC 2.8 batch envelope of blacklist records (full field set).', [
    ref('BatchBlacklistNotListed'),
    ref('BatchBlacklistListedFull'),
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
    description: 'Form field ips with comma-separated addresses; repeated fields (ips=a,b&ips=c, ips[]=a) are all read.',
    properties: { ips: str('comma-separated addresses') },
  };
  return schemas;
}

const batchRequestBody: JsonSchema = {
  required: false,
  description:
    'Any of three forms, read by what the body holds: JSON (an array or an object) whatever the Content-Type (also ' +
    "curl -d's form type, text/plain, none); otherwise form fields with ips. A body that is neither: 400 invalid_body when " +
    'declared JSON, form data or nothing, 415 unsupported_media_type when declared as another type; the message names the ' +
    `Content-Type and the start of the body received. Duplicates are removed (by canonical address). Per-batch limit: ${batchLimits}.`,
  content: {
    'application/json': { schema: oneOf(ref('BatchRequestObject'), ref('BatchRequestArray')) },
    'application/x-www-form-urlencoded': { schema: ref('BatchRequestForm') },
    'text/plain': { schema: str('a JSON text of one of the application/json forms (what fetch sends for a string body)') },
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
      description:
        'Without addresses in ips: 405 method_not_allowed with Allow: POST, before the key is checked (a batch is sent with POST).',
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
          'as 1 IP lookup. A range in the path (/v1/ip/192.0.2.0/24) answers 400 invalid_ip: only single addresses are looked up.',
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
        description: 'A range in the path (/v1/blacklist/192.0.2.0/24) answers 400 invalid_ip: only single addresses are checked.',
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
        parameters: [param('q'), param('vendor'), ...macSearchPaging, ...withFields],
        responses: {
          '200': metered(`a page of up to ${MAX_SEARCH_RESULTS} results ordered by company name, and the total`, 'MacSearchResponse'),
          ...errorResponses([...meterErrors, 'plan_required', 'invalid_query', 'invalid_input']),
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
