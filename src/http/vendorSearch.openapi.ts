/** OpenAPI schemas of the MAC search (SPEC 2.6): the blocks of companies whose name contains the query. */
import type { MacSearchResult } from '../records/macRecord.js';
import { macBlockTypes, OUI } from '../records/macRecord.openapi.js';
import {
  COUNTRY_CODE,
  arrayOf,
  constant,
  int,
  record,
  ref,
  shape,
  str,
  strOrNull,
  stringEnum,
  type JsonSchema,
} from '../records/jsonSchema.js';
import { MAX_SEARCH_RESULTS } from './vendorSearch.js';

export function macSearchSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  schemas.MacSearchResult = record<MacSearchResult>(
    'One MAC block (MA-L, MA-M, MA-S or IAB) of a matching registered company; private registrations name no company and are ' +
      'never results.',
    {
      oui: str('AA:BB:CC', OUI),
      company: str('registered company'),
      country_code: strOrNull('country code of the company', COUNTRY_CODE),
      block_type: stringEnum(macBlockTypes, 'registry of the block'),
    },
  );
  schemas.MacSearchResponse = shape('SPEC 2.6 MAC search result.', {
    success: constant(true),
    query: str('the query, echoed (trimmed)'),
    count: int('number of results', { minimum: 0, maximum: MAX_SEARCH_RESULTS }),
    results: arrayOf(ref('MacSearchResult'), `ordered by company name, at most ${MAX_SEARCH_RESULTS}`, { maxItems: MAX_SEARCH_RESULTS }),
    meta: ref('Meta'),
  });
  return schemas;
}
