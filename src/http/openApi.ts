/** The OpenAPI 3.1 description of the service (GET /openapi.json). */
import { endpoints } from './endpointList.js';

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    const path = e.path.replace('?q=', '');
    paths[path] ??= {};
    paths[path][e.method.toLowerCase()] = { summary: e.description, responses: { '200': { description: 'success' } } };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'netlookup', version: '1.0.0', description: 'IP, blacklist and MAC lookup API' },
    paths,
  };
}
