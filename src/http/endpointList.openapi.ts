/** OpenAPI schemas of the endpoint list (GET /v1, SPEC 1.4) and of the data sources it credits. */
import { DATE_TIME, arrayOf, constant, record, ref, str, strOrNull, stringEnum, type JsonSchema } from '../records/jsonSchema.js';
import { endpoints, type DataSource, type endpointList } from './endpointList.js';

export function endpointListSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  type EndpointListBody = ReturnType<typeof endpointList>;
  schemas.Endpoint = record<(typeof endpoints)[number]>('One v1 endpoint.', {
    method: stringEnum([...new Set(endpoints.map((e) => e.method))]),
    path: stringEnum(endpoints.map((e) => e.path)),
    plan: stringEnum([...new Set(endpoints.map((e) => e.plan))]),
    counted_as: str(),
    description: str(),
  });
  schemas.EndpointList = record<EndpointListBody>('SPEC 1.4: the list of endpoints, with the data credits.', {
    success: constant(true),
    version: constant(1),
    endpoints: arrayOf(ref('Endpoint')),
    authentication: str(),
    parameters: record<EndpointListBody['parameters']>('', { fields: str(), pretty: str(), key: str() }),
    credits: arrayOf(str(), 'attributions of the data sources'),
    data_sources: arrayOf(ref('DataSource'), 'the data sources of the loaded tables, with the dates they state for their data'),
  });
  schemas.DataSource = record<DataSource>('A data source of the tables.', {
    name: str(),
    version: strOrNull('package or file version'),
    date: strOrNull(
      'the date the source states for its data (its own publication date, not the build time); null when it states none',
      DATE_TIME,
    ),
    licence: str(),
    url: strOrNull(),
  });
  return schemas;
}
