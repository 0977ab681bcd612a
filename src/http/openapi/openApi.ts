/**
 * The OpenAPI 3.1 description of the whole service as built (GET /openapi.json): the v1 API, the
 * admin API and the operations endpoints, generated from the code's own types and tables.
 *
 * This module assembles the document. The schema of each record sits beside its record
 * (`src/records/*.openapi.ts`, `src/errors.openapi.ts`), the paths of each router beside that
 * router (`src/http/*Routes.openapi.ts`), the shared parameters, headers and security schemes in
 * openApiComponents.ts, and the JSON Schema building blocks in records/jsonSchema.ts.
 *
 * Enumerations come from the code: plan codes (plans.ts), connection types (ipTable.ts),
 * reserved types (the special-purpose registry of reservedRange.ts), MAC block types
 * (macTable.ts, IAB shown as MA-S), error codes and their statuses (errors.ts errorTable).
 */
import { errorSchemas } from '../../errors.openapi.js';
import { defaultPlans, planCodes, type PlanCode } from '../../plans/plans.js';
import { asnRecordSchemas } from '../../records/asnRecord.openapi.js';
import { blacklistRecordSchemas } from '../../records/blacklistRecord.openapi.js';
import { ipRecordSchemas } from '../../records/ipRecord.openapi.js';
import { macRecordSchemas } from '../../records/macRecord.openapi.js';
import { metaRecordSchemas } from '../../records/metaRecord.openapi.js';
import { usageRecordSchemas } from '../../records/usageRecord.openapi.js';
import { adminPaths, adminRequestSchemas, adminSchemas } from '../admin/adminRoutes.openapi.js';
import { blacklistSchemas } from '../v1/blacklistRoutes.openapi.js';
import { endpointListSchemas } from '../v1/endpointList.openapi.js';
import { legacyPaths, legacySchemas } from '../legacy/legacyRoutes.openapi.js';
import { headers, json, parameters, securitySchemes } from './openApiComponents.js';
import { operationsPaths, operationsSchemas } from '../operations/operationsRoutes.openapi.js';
import { batchRequestSchemas, batchSchemas, v1Paths } from '../v1/v1Routes.openapi.js';
import { macSearchSchemas } from '../v1/vendorSearch.openapi.js';

/** The component schemas, in the document's order: records first, then what the routers add. */
function componentSchemas() {
  return {
    ...metaRecordSchemas(),
    ...ipRecordSchemas(),
    ...blacklistRecordSchemas(),
    ...macRecordSchemas(),
    ...asnRecordSchemas(),
    ...macSearchSchemas(),
    ...usageRecordSchemas(),
    ...batchSchemas(),
    ...blacklistSchemas(),
    ...errorSchemas(),
    ...endpointListSchemas(),
    ...operationsSchemas(),
    ...legacySchemas(),
    ...adminSchemas(),
    ...batchRequestSchemas(),
    ...adminRequestSchemas(),
  };
}

function paths() {
  return { ...v1Paths(), ...adminPaths(), ...legacyPaths(), ...operationsPaths() };
}

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
        'IP, blacklist and MAC lookup API. Every v1 endpoint needs an API key (X-API-Key header, Authorization: Bearer, or ' +
        '?key=, checked in that order). ' +
        `Default plans: ${planList}. Unknown paths answer 404 not_found (components/responses/NotFound). ` +
        'Any request may also be refused before it reaches an endpoint, in the same envelope: 400 invalid_request (not ' +
        'parsable as HTTP), ' +
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
      schemas: componentSchemas(),
      parameters,
      headers,
      securitySchemes,
      responses: {
        NotFound: json('not_found: an unknown endpoint (any path or method no route serves)', {
          $ref: '#/components/schemas/ErrorEnvelope',
          properties: { error: { properties: { code: { const: 'not_found' } } } },
        }),
      },
    },
  };
}
