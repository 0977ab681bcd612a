/**
 * The settings of query-time RDAP (src/enrichment/rdapAbuse.ts), from the environment:
 *
 * - NETLOOKUP_RDAP: `on` (default) or `off`. On, a paid record whose block no fresh registry dump
 *   answers asks the registry's RDAP service for the abuse contact; the service is known only once
 *   `netlookup update` has fetched IANA's bootstrap, so a fresh install asks nobody.
 * - NETLOOKUP_RDAP_DEADLINE_MS: how long a lookup waits for an answer, 10 to 5000 (default 300).
 *   The query itself may run on for RDAP_QUERY_TIMEOUT_MS and fills the cache for later requests.
 * - NETLOOKUP_RDAP_RATE: queries per minute to each registry's service, 1 to 600 (default 60).
 * - NETLOOKUP_RDAP_CACHE: the SQLite file of the cache (default `<data dir>/rdap-cache.sqlite`).
 *
 * Values are read strictly (`envValue`): unset or empty is the default, anything else must have
 * the documented form or the start stops naming the variable. The deadline's bounds are reverse
 * DNS's (src/config/dnsSettings.ts: no request should wait longer on a field that decorates the
 * record). The rate's default is one query a second per registry: the registries publish no
 * limit for RDAP and LACNIC's is known to be strict; an answer serves its whole block for a week.
 */
import path from 'node:path';
import { envValue, hasControlCharacter, wholeNumber } from './envValue.js';

export interface RdapSettings {
  enabled: boolean;
  /** a lookup's budget, ms */
  deadlineMs: number;
  /** queries per minute to each RDAP service */
  perMinute: number;
  /** the cache's SQLite file */
  cacheFile: string;
}

/** How long a query may run, for the cache, after its caller has stopped waiting. */
export const RDAP_QUERY_TIMEOUT_MS = 10_000;

export function rdapSettingsFromEnv(env: NodeJS.ProcessEnv, dataDir: string): RdapSettings {
  return {
    enabled:
      envValue(env, 'NETLOOKUP_RDAP', 'on or off is expected', (text) =>
        text === 'on' ? { on: true } : text === 'off' ? { on: false } : undefined,
      )?.on ?? true,
    deadlineMs:
      envValue(env, 'NETLOOKUP_RDAP_DEADLINE_MS', 'a whole number of milliseconds from 10 to 5000 is expected', wholeNumber(10, 5000)) ??
      300,
    perMinute: envValue(env, 'NETLOOKUP_RDAP_RATE', 'a whole number from 1 to 600 is expected', wholeNumber(1, 600)) ?? 60,
    cacheFile: path.resolve(
      envValue(env, 'NETLOOKUP_RDAP_CACHE', 'a path without control characters is expected', (text) =>
        hasControlCharacter(text) ? undefined : text,
      ) ?? path.join(dataDir, 'rdap-cache.sqlite'),
    ),
  };
}
