/** OpenAPI path of the AS lookup (GET /v1/asn/{asn}), with its parameters. */
import { PREFIX_PAGE } from '../../records/asnRecord.js';
import type { JsonSchema } from '../../records/jsonSchema.js';
import { apiKeySecurity, errorResponses, metered, meterErrors, operation, withFields } from '../openapi/openApiComponents.js';

const asnParameters: JsonSchema[] = [
  {
    name: 'asn',
    in: 'path',
    required: true,
    description: 'AS number, 1 to 4294967295: AS15169, as15169 or 15169',
    schema: { type: 'string', pattern: '^([Aa][Ss])?[0-9]{1,10}$' },
    example: 'AS15169',
  },
  {
    name: 'offset',
    in: 'query',
    required: false,
    description: 'prefixes to skip (full level)',
    schema: { type: 'string', pattern: '^[0-9]{1,10}$', default: '0' },
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: `largest page of prefixes (full level), 1 to ${PREFIX_PAGE.maxLimit}`,
    schema: { type: 'string', pattern: '^[0-9]{1,10}$', default: String(PREFIX_PAGE.defaultLimit) },
  },
];

export function asnPaths(): Record<string, Record<string, JsonSchema>> {
  return {
    '/v1/asn/{asn}': {
      get: operation('get', '/v1/asn/{asn}', {
        operationId: 'asnLookup',
        tags: ['ip'],
        summary: 'AS lookup',
        description:
          'What the IP tables say about an autonomous system: its name, organisation, domain, country and connection type (as ' +
          'the IP record gives them for its addresses), and how many IPv4 and IPv6 prefixes (ranges of the ASN data) and ' +
          'addresses it announces. The full level (paid plans) adds one page of the prefixes, IPv4 then IPv6 in address order. ' +
          'An AS number the data lists no prefix for answers found: false. Counted as 1 IP lookup.',
        security: apiKeySecurity,
        parameters: [...asnParameters, ...withFields],
        responses: {
          '200': metered('AS record with meta', 'AsnLookupResponse'),
          ...errorResponses([...meterErrors, 'invalid_asn', 'invalid_input']),
        },
      }),
    },
  };
}
