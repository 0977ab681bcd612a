/**
 * The JSON body of the admin API and the dashboard: another content type is refused rather than
 * silently ignored (for the dashboard this is also what keeps cross-site forms out: a form cannot
 * send application/json), and the body is parsed with a size limit. The route authenticates
 * before this runs: a caller without the token or a session never has its body read.
 */
import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.js';
import { changeBody, type ChangeBody } from './accountChanges.js';

/** The largest JSON body of a change: a key's website list is the biggest there is. */
const CHANGE_BODY_LIMIT = '64kb';

/**
 * The one test of "this body is JSON", for the refusal and the parser both: koa-bodyparser's own
 * test (an older type-is) does not read some Content-Types that Koa's does
 * (`application/json;x=text/plain`), and would skip such a body silently.
 */
const isJson = (ctx: Context) => Boolean(ctx.is('json'));

async function requireJsonContentType(ctx: Context, next: Next) {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !isJson(ctx)) throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
  await next();
}

/** The middleware of a route that takes a JSON body (or none) of at most `limit` (bytes's notation: '4kb'). */
export function jsonBodyOnly(limit = CHANGE_BODY_LIMIT) {
  return [
    requireJsonContentType,
    bodyParser({
      enableTypes: ['json'],
      detectJSON: isJson,
      jsonLimit: limit,
      onerror: (e) => {
        throw e;
      },
    }),
  ];
}

/** The parsed body of a request that passed `jsonBodyOnly`. */
export function jsonBodyOf(ctx: Context): ChangeBody {
  return changeBody((ctx.request as { body?: unknown }).body);
}
