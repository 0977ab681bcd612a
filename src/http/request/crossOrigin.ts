/**
 * The CORS headers every response carries, set by the Koa application and by the single lookups'
 * hot path (singleLookups.ts) alike, so that both answer with the same headers.
 */
import type { Exchange } from './exchange.js';

/** The headers browser code may read: the plan, rate window and quota of a metered answer, and Retry-After. */
export const EXPOSED_HEADERS = [
  'X-Plan',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Quota-Limit',
  'X-Quota-Remaining',
  'X-Quota-Reset',
  'Retry-After',
];

const EXPOSED = EXPOSED_HEADERS.join(', ');

/** The CORS headers of every response (preflights get theirs from @koa/cors). */
export function allowAnyOrigin(exchange: Exchange): void {
  exchange.set('Access-Control-Allow-Origin', '*');
  // Only cross-origin browser code needs headers exposed, and its requests always carry Origin.
  if (exchange.headers.origin !== undefined) exchange.set('Access-Control-Expose-Headers', EXPOSED);
}
