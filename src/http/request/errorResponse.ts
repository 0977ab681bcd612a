/**
 * Refusals and failures, rendered in one place: the error envelope of SPEC 2.9 with its status and
 * headers, for what the handlers throw (ApiError), what the body parser and the store throw, and
 * anything unexpected (500, logged).
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errorTable, type ErrorCode } from '../../errors.js';
import { StoreUnavailableError } from '../../store/store.js';
import { redactedUrl } from '../operations/logger.js';
import type { Exchange, RequestSource } from './exchange.js';
import { sendJson } from './respond.js';

export function errorEnvelope(code: ErrorCode, message: string) {
  return { success: false, error: { code, message } };
}

/** Maps anything thrown below to an ApiError: our own, body parser failures, store outages. */
export function asApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  // Retryable: the store answers again once its database (or Redis) is back.
  if (error instanceof StoreUnavailableError)
    return new ApiError('unavailable', 'The store is temporarily unavailable; retry later.', { 'Retry-After': '1' });
  // Body parsing (co-body, raw-body) throws http-errors with a status; their text is for us, not for callers.
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large') return new ApiError('body_too_large');
  if (status === 415 || type === 'encoding.unsupported' || type === 'charset.unsupported') return new ApiError('unsupported_media_type');
  if (type === 'request.aborted') return new ApiError('invalid_body', 'The request body was cut short.');
  // A Content-Encoding whose body does not decode: zlib's Z_DATA_ERROR, Z_BUF_ERROR (gzip, deflate,
  // a cut Brotli stream), or the Brotli decoder's ERR__ERROR_FORMAT_… (garbage given as br).
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_')))
    return new ApiError('invalid_body', 'The request body does not decode as its Content-Encoding says.');
  // Nothing of ours throws a bare 400: it is the body parser's (co-body's SyntaxError carries no type).
  if (status === 400) return new ApiError('invalid_body');
  return null;
}

/**
 * Whether the request has a body not yet read to its end. A request without one counts as complete
 * even before node:http has seen its end (the hot path answers at its headers).
 */
function bodyLeftUnread(req: RequestSource): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Renders a refusal, or an unexpected failure, in the envelope. */
export function renderError(ctx: Exchange, error: unknown, logger: Logger): void {
  // A body left unread would be taken for the next request on this connection: close it instead.
  if (bodyLeftUnread(ctx.req)) ctx.set('Connection', 'close');
  const api = asApiError(error);
  if (api) {
    for (const [name, value] of Object.entries(api.headers)) ctx.set(name, value);
    sendJson(ctx, api.status, errorEnvelope(api.code, api.message));
    ctx.state.errorCode = api.code;
    return;
  }
  logger.error({ err: error, path: redactedUrl(ctx.path) }, 'request failed');
  sendJson(ctx, 500, errorEnvelope('internal_error', errorTable.internal_error.message));
  ctx.state.errorCode = 'internal_error';
}

/** Outermost middleware of the routed requests: renders what is thrown below. */
export function renderErrors(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      renderError(ctx, error, logger);
    }
  };
}
