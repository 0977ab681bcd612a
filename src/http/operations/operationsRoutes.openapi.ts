/** OpenAPI schemas and paths of the operations router: health, metrics, the demo page and this document. */
import type { TableInfo } from '../../engine/lookupEngine.js';
import {
  DATE_TIME,
  arrayOf,
  bool,
  every,
  int,
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
import { demoPaths } from './demoRoutes.openapi.js';
import type { DataSource } from '../v1/endpointList.js';
import { common, errorResponses, everyResponseHeaders, json, operation } from '../openapi/openApiComponents.js';

const tableKinds = every<TableInfo['kind']>()(['ip4', 'ip6', 'mac']);

export function operationsSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  schemas.Health = shape('Health of the tables and the store.', {
    success: bool('true when the store is healthy'),
    status: stringEnum(
      ['ok', 'degraded', 'unavailable'],
      'degraded: the shared store (Redis) is unreachable; lookups are answered from this instance alone and its counts are ' +
        'written back on recovery',
    ),
    tables: arrayOf(
      record<Pick<TableInfo, 'kind' | 'checksum' | 'built_at' | 'source_date' | 'bytes'> & { sources: DataSource[] }>('a loaded table', {
        kind: stringEnum(tableKinds),
        checksum: str(),
        built_at: str(undefined, DATE_TIME),
        source_date: strOrNull(
          'the newest date the data sources of the table state (their own publication dates, not the build time); null when ' +
            'none states one',
          DATE_TIME,
        ),
        bytes: int(undefined, { minimum: 0 }),
        sources: arrayOf(ref('DataSource')),
      }),
    ),
    data: ref('DataStatus'),
    store: shape('', { kind: stringEnum(['sqlite', 'redis']), healthy: bool() }),
    transport: orNull(
      shape('How this process takes its connections (null before it listens).', {
        direct_connections: bool(
          'true: single lookups are answered on the socket; false: node:http answers every request (turned off by ' +
            'NETLOOKUP_DIRECT_CONNECTIONS=off, or this Node lacks what the fast path relies on: the log says which)',
        ),
        socket_reads: stringEnumOrNull(
          ['shared', 'events'],
          'how the direct connections read: into one shared buffer, or through data events (NETLOOKUP_SOCKET_READS, or where ' +
            'Node offers no shared reads); null without direct connections',
        ),
      }),
    ),
  });
  return schemas;
}

/** The demo's routes are added to the operations router. */
export function operationsPaths(): Record<string, Record<string, JsonSchema>> {
  return {
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
          '200': {
            description: 'Prometheus text exposition format',
            headers: everyResponseHeaders,
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses(['internal_error']),
        },
      }),
    },
    ...demoPaths(),
    '/openapi.json': {
      get: operation('get', '/openapi.json', {
        operationId: 'openApi',
        tags: ['operations'],
        summary: 'This document',
        security: [],
        parameters: common,
        responses: {
          '200': json('the OpenAPI 3.1 document', {
            type: 'object',
            required: ['openapi', 'info', 'paths', 'components'],
            properties: { openapi: { const: '3.1.0' } },
          }),
          ...errorResponses(['internal_error']),
        },
      }),
    },
  };
}
