/** OpenAPI schemas and parameters of the MAC search (SPEC 2.6, 4.7): the blocks of companies whose name contains the query. */
import type { MacSearchResult } from '../../records/macRecord.js';
import { macBlockTypes, OUI } from '../../records/macRecord.openapi.js';
import { blockTypes } from '../../tables/format/macTable.js';
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
} from '../../records/jsonSchema.js';
import { MAX_SEARCH_OFFSET, MAX_SEARCH_RESULTS } from './vendorSearch.js';

/** 6, 7 or 9 hex digits as byte pairs, an odd last digit alone. */
const BLOCK_PREFIX = { pattern: '^[0-9A-F]{2}(:[0-9A-F]{2}){2}(:[0-9A-F]|:[0-9A-F]{2}:[0-9A-F])?$' };

export function macSearchSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  schemas.MacSearchResult = record<MacSearchResult>(
    'One MAC block (MA-L, MA-M, MA-S or IAB) of a matching registered company; private registrations name no company and are ' +
      'never results. GET /v1/mac/{prefix} answers the block with this company.',
    {
      oui: str('first three bytes of the block, AA:BB:CC', OUI),
      prefix: str(
        "the block's prefix: its prefix_length / 4 hex digits as colon-separated byte pairs, an odd last digit alone " +
          '(MA-L 8C:1F:64, MA-M 70:B3:D5:A, MA-S and IAB 8C:1F:64:A0:0)',
        BLOCK_PREFIX,
      ),
      prefix_length: int('bits of the prefix: 24 (MA-L), 28 (MA-M), 36 (MA-S, IAB)', { enum: [24, 28, 36] }),
      registry: stringEnum(blockTypes, 'the IEEE registry of the block'),
      size: int('number of addresses in the block, 2^(48 - prefix_length)', { enum: [2 ** 24, 2 ** 20, 2 ** 12] }),
      company: str('registered company'),
      country_code: strOrNull('country code of the company', COUNTRY_CODE),
      block_type: stringEnum(macBlockTypes, 'block type as SPEC 2.6 names it: the registry, IAB shown as MA-S'),
    },
  );
  schemas.MacSearchResponse = shape('SPEC 2.6 MAC search result: one page of the matches.', {
    success: constant(true),
    query: str('the query, echoed (trimmed)'),
    total: int('number of all matches', { minimum: 0 }),
    offset: int('matches skipped before this page, as asked', { minimum: 0, maximum: MAX_SEARCH_OFFSET }),
    limit: int('the largest page asked for', { minimum: 1, maximum: MAX_SEARCH_RESULTS }),
    count: int('number of results on this page', { minimum: 0, maximum: MAX_SEARCH_RESULTS }),
    results: arrayOf(ref('MacSearchResult'), `ordered by company name, then prefix; at most limit`, { maxItems: MAX_SEARCH_RESULTS }),
    meta: ref('Meta'),
  });
  return schemas;
}

/** The paging parameters of the MAC search. */
export const macSearchPaging: JsonSchema[] = [
  {
    name: 'offset',
    in: 'query',
    required: false,
    description: 'matches to skip (default 0); past the last match the page is empty',
    schema: { type: 'string', pattern: '^\\d{1,9}$', default: '0' },
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: `largest page, 1 to ${MAX_SEARCH_RESULTS} (default ${MAX_SEARCH_RESULTS})`,
    schema: { type: 'string', pattern: '^\\d{1,3}$', default: String(MAX_SEARCH_RESULTS) },
  },
];
