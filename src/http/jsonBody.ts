/**
 * The JSON body of the admin API and the dashboard: another content type is refused rather than
 * silently ignored (for the dashboard this is also what keeps cross-site forms out: a form cannot
 * send application/json), and the body is parsed with a size limit.
 */
import bodyParser from 'koa-bodyparser';
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.js';
import { changeBody, type ChangeBody } from './accountChanges.js';

async function requireJsonContentType(ctx: Context, next: Next) {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('json')) throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
  await next();
}

/** The middleware of a route that takes a JSON body (or none). */
export const jsonBodyOnly = [
  requireJsonContentType,
  bodyParser({
    enableTypes: ['json'],
    jsonLimit: '64kb',
    onerror: (e) => {
      throw e;
    },
  }),
];

/** The parsed body of a request that passed `jsonBodyOnly`. */
export function jsonBodyOf(ctx: Context): ChangeBody {
  return changeBody((ctx.request as { body?: unknown }).body);
}
