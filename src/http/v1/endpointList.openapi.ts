/** OpenAPI schemas of the endpoint list (GET /v1, SPEC 1.4) and of the data sources it credits. */
import {
  DATE_TIME,
  arrayOf,
  bool,
  constant,
  num,
  numOrNull,
  orNull,
  record,
  ref,
  str,
  strOrNull,
  stringEnum,
  type JsonSchema,
} from '../../records/jsonSchema.js';
import type { SourceStatus, UpdateStatus } from '../../tables/tableSets.js';
import type { DataStatus } from '../operations/dataStatus.js';
import type { FeedStatus } from '../../feeds/feedSet.js';
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
    data_updates: ref('DataStatus'),
  });
  schemas.DataStatus = record<DataStatus>('The table set in force and what the last `netlookup update` did with each source.', {
    set: strOrNull('`installed` (built by npm install) or the name of the set an update built; null for tables loaded from elsewhere'),
    update: orNull(
      record<NonNullable<DataStatus['update']>>('null until the first update', {
        last_attempt: record<UpdateStatus['last_attempt']>('', {
          started_at: str(undefined, DATE_TIME),
          finished_at: strOrNull(undefined, DATE_TIME),
          outcome: stringEnum(['running', 'updated', 'unchanged', 'failed', 'rolled_back']),
          message: strOrNull(),
          set: strOrNull('the set in force after it'),
        }),
        last_success: strOrNull('when an update last ended without failing', DATE_TIME),
      }),
    ),
    sources: arrayOf(
      record<SourceStatus & { id: string }>('one source at its last attempt', {
        id: str(),
        name: str(),
        url: str('the publisher URL'),
        outcome: stringEnum(['fetched', 'unchanged', 'failed', 'refused', 'skipped']),
        message: strOrNull('why it failed or was refused'),
        attempted_at: str(undefined, DATE_TIME),
        date: strOrNull("the publisher's date of the file in force (a date or a time)"),
        fetched_at: strOrNull('when the file in force was fetched; null while the npm-installed data stands in', DATE_TIME),
        rows: numOrNull('rows of the file in force', { multipleOf: 1, minimum: 0 }),
      }),
    ),
    feed_set: strOrNull('the feed set the server answers Tor, VPN, proxy, RPKI and abuse facts from; null until an update builds one'),
    feeds: arrayOf(
      record<FeedStatus>('one feed of the feed set in force', {
        id: str(),
        name: str(),
        says: stringEnum(['tor', 'vpn', 'proxy', 'relay', 'rpki', 'abuse'], 'what a listed address is'),
        date: strOrNull("the publisher's date of the file (a date or a time); null when it states none"),
        fetched_at: str('when the file was fetched', DATE_TIME),
        rows: num('ranges or records the file lists', { multipleOf: 1, minimum: 0 }),
        stale_after: str('when its verdicts turn null unless the publisher gives or confirms the file again', DATE_TIME),
        fresh: bool('whether it answers now'),
      }),
    ),
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
