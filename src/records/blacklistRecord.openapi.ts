/** OpenAPI schemas of the blacklist record (SPEC 2.4): not listed, listed at each field level, and its reports. */
import { withMeta } from './metaRecord.openapi.js';
import { COUNTRY_CODE, IP_ADDRESS, arrayOf, constant, int, num, ref, shape, str, strOrNull, type JsonSchema } from './jsonSchema.js';

/** A blacklist time: UTC, YYYY-MM-DD HH:MM:SS. */
export const BLACKLIST_TIME = { pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' };

export function blacklistRecordSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const blacklistBase = { success: constant(true), ip: { ...IP_ADDRESS, description: 'the address' } };
  schemas.BlacklistNotListed = shape('SPEC 2.4 blacklist record of an address that is not listed: no fields follow except meta.', {
    ...blacklistBase,
    listed: constant(false),
  });
  const listedBasic = {
    ...blacklistBase,
    listed: constant(true),
    threat_type: str('main category, e.g. brute-force, spam, scanner, web-attack'),
    confidence: num('0 to 100; grows with number and spread of reports', { minimum: 0, maximum: 100 }),
    last_seen: str('time of the most recent report, UTC, YYYY-MM-DD HH:MM:SS', BLACKLIST_TIME),
  };
  schemas.BlacklistReport = shape('One report of a listed address.', {
    threat_type: str('threat type'),
    message: strOrNull('report text'),
    source: str('source of the report'),
    created_at: str('time of the report, UTC, YYYY-MM-DD HH:MM:SS', BLACKLIST_TIME),
  });
  schemas.BlacklistListedBasic = shape('SPEC 2.4 blacklist record of a listed address, basic field level (free plan).', listedBasic);
  schemas.BlacklistListedFull = shape('SPEC 2.4 blacklist record of a listed address, full field level (paid plans).', {
    ...listedBasic,
    total_reports: int('number of reports', { minimum: 0 }),
    distinct_reporters: int('number of independent reporters', { minimum: 0 }),
    first_seen: str('time of the first report, UTC, YYYY-MM-DD HH:MM:SS', BLACKLIST_TIME),
    source: str('source of the listing (the value multiple occurs)'),
    country_code: strOrNull('country of the address at listing time', COUNTRY_CODE),
    isp: strOrNull('provider at listing time'),
    reports: arrayOf(ref('BlacklistReport'), 'the most recent reports', { maxItems: 20 }),
  });
  schemas.BlacklistNotListedResponse = withMeta(schemas.BlacklistNotListed, 'Blacklist record (not listed) with meta.');
  schemas.BlacklistListedBasicResponse = withMeta(schemas.BlacklistListedBasic, 'Blacklist record (listed, basic) with meta.');
  schemas.BlacklistListedFullResponse = withMeta(schemas.BlacklistListedFull, 'Blacklist record (listed, full) with meta.');
  schemas.BlacklistResponse = {
    description: "GET /v1/blacklist/{ip}: the blacklist record of the plan's field level.",
    oneOf: [ref('BlacklistNotListedResponse'), ref('BlacklistListedBasicResponse'), ref('BlacklistListedFullResponse')],
  };
  return schemas;
}
