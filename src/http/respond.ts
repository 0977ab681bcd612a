/**
 * Rendering, in one place: every response body is JSON (SPEC 1.1), indented with `pretty`, and
 * every refusal is the error envelope of SPEC 2.9 with its status and headers.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errorTable, type ErrorCode } from '../errors.js';
import { StoreUnavailableError } from '../store/store.js';

export function wantsPretty(query: Record<string, unknown>): boolean {
  if (!('pretty' in query)) return false;
  const value = Array.isArray(query.pretty) ? query.pretty[0] : query.pretty;
  return value !== '0' && value !== 'false';
}

export function sendJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  // A Buffer is measured and written as it is; a string would be UTF-8 encoded twice (for
  // Content-Length by Koa, then for the socket by Node), which costs milliseconds on a big batch.
  ctx.body = Buffer.from(JSON.stringify(body, null, wantsPretty(ctx.query) ? 2 : undefined), 'utf8');
}

export function errorEnvelope(code: ErrorCode, message: string) {
  return { success: false, error: { code, message } };
}

/** Maps anything thrown below to an ApiError: our own, body parser failures, store outages. */
export function asApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) return new ApiError('unavailable', 'The account store is temporarily unavailable; retry later.');
  // Body parsing (co-body, raw-body) throws http-errors with a status; their text is for us, not for callers.
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large') return new ApiError('body_too_large');
  if (status === 415 || type === 'encoding.unsupported' || type === 'charset.unsupported') return new ApiError('unsupported_media_type');
  if (type === 'request.aborted') return new ApiError('invalid_body', 'The request body was cut short.');
  // A Content-Encoding whose body does not decode (zlib's Z_DATA_ERROR, Z_BUF_ERROR, …).
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) return new ApiError('invalid_body', 'The request body does not decode as its Content-Encoding says.');
  // Nothing of ours throws a bare 400: it is the body parser's (co-body's SyntaxError carries no type).
  if (status === 400) return new ApiError('invalid_body');
  return null;
}

/** Outermost middleware: renders refusals and unexpected failures in the envelope. */
export function renderErrors(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      // A body left unread would be taken for the next request on this connection: close it instead.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      const api = asApiError(error);
      if (api) {
        for (const [name, value] of Object.entries(api.headers)) ctx.set(name, value);
        sendJson(ctx, api.status, errorEnvelope(api.code, api.message));
        ctx.state.errorCode = api.code;
        return;
      }
      logger.error({ err: error, path: ctx.path }, 'request failed');
      sendJson(ctx, 500, errorEnvelope('internal_error', errorTable.internal_error.message));
      ctx.state.errorCode = 'internal_error';
    }
  };
}
