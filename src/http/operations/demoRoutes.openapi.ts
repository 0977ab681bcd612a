/** OpenAPI paths of the demo page: the page, its files and the compact tables it reads. */
import type { JsonSchema } from '../../records/jsonSchema.js';
import { errorResponses, everyResponseHeaders, operation, param } from '../openapi/openApiComponents.js';

/** A static file of the demo (dist/demo): 200 with ETag, 304 on If-None-Match, 404 for anything else. */
function demoFileOperation(path: string, operationId: string, summary: string, mediaTypes: string[]): JsonSchema {
  const schemaOf = (type: string): JsonSchema =>
    type === 'application/json'
      ? { type: 'object' }
      : type.startsWith('text/')
        ? { type: 'string' }
        : { type: 'string', contentEncoding: 'binary' };
  return operation('get', path, {
    operationId,
    tags: ['operations'],
    summary,
    security: [],
    parameters: [param('demoFile')],
    responses: {
      '200': {
        description: 'the file (ETag, Cache-Control: no-cache)',
        headers: everyResponseHeaders,
        content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: schemaOf(type) }])),
      },
      '304': { description: 'not modified (If-None-Match)', headers: everyResponseHeaders },
      ...errorResponses(['not_found', 'internal_error']),
    },
  });
}

export function demoPaths(): Record<string, Record<string, JsonSchema>> {
  return {
    '/demo': {
      get: operation('get', '/demo', {
        operationId: 'demoPage',
        tags: ['operations'],
        summary:
          'The demo page: IP and MAC lookups computed in the browser by the WASM engine over the compact sets (/demo redirects to /demo/)',
        security: [],
        responses: {
          '200': { description: 'the page', headers: everyResponseHeaders, content: { 'text/html': { schema: { type: 'string' } } } },
          '302': {
            description: '/demo redirects to /demo/',
            headers: { ...everyResponseHeaders, Location: { schema: { type: 'string', const: '/demo/' } } },
          },
          ...errorResponses(['not_found', 'internal_error']),
        },
      }),
    },
    '/demo/{file}': {
      get: demoFileOperation(
        '/demo/{file}',
        'demoFile',
        "A file of the demo page: its script (demo.js), the engine's WASM module (netlookup.wasm)",
        ['text/javascript', 'application/wasm', 'application/json'],
      ),
    },
    '/demo/tables/{file}': {
      get: demoFileOperation(
        '/demo/tables/{file}',
        'demoTable',
        'A compact table (ip4c.nlt, ip6c.nlt, macc.nlt: gzip Content-Encoding when accepted), its .gz copy, or the compact manifest.json',
        ['application/octet-stream', 'application/gzip', 'application/json'],
      ),
    },
  };
}
