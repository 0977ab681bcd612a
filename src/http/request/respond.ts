/**
 * Rendering, in one place: every response body is JSON (SPEC 1.1), indented with `pretty`, and
 * every refusal is the error envelope of SPEC 2.9 with its status and headers.
 */
import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';
import type { Exchange, RequestSource } from './exchange.js';
import type { Logger } from 'pino';
import { ApiError, errorTable, type ErrorCode } from '../../errors.js';
import { StoreUnavailableError } from '../../store/store.js';
import { redactedUrl } from '../operations/logger.js';

export function wantsPretty(query: Record<string, unknown>): boolean {
  if (!('pretty' in query)) return false;
  const value = Array.isArray(query.pretty) ? query.pretty[0] : query.pretty;
  return value !== '0' && value !== 'false';
}

export function sendJson(ctx: Exchange, status: number, body: unknown): void {
  sendJsonText(ctx, status, JSON.stringify(body, null, ctx.querystring !== '' && wantsPretty(ctx.query) ? 2 : undefined));
}

const ONE_WRITE_LIMIT = 16 * 1024;

/** A body that is JSON text already. */
export function sendJsonText(ctx: Exchange, status: number, json: string): void {
  // A string body goes out in one socket write with the headers (Node joins them); a Buffer body
  // needs a second chunk (writev), which costs more than the lookup on a single record. A big body
  // is better as a Buffer: a string would be UTF-8 encoded twice (for Content-Length by Koa, then
  // for the socket by Node), which costs milliseconds on a 1000-address batch.
  sendJsonBytes(ctx, status, json.length < ONE_WRITE_LIMIT ? json : Buffer.from(json, 'utf8'));
}

/** A body that is JSON already, as text or UTF-8 bytes. */
function sendJsonBytes(ctx: Exchange, status: number, json: string | Buffer): void {
  ctx.status = status;
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = json;
}

/**
 * A big JSON body made of many parts (a batch's records), encoded part by part into one buffer.
 * Joining the parts first would make one string, and one that is two bytes per character as soon
 * as one part has a non-ASCII character (a city name): encoding that whole costs several times
 * more than encoding the mostly one-byte parts one by one.
 */
export class Utf8Body {
  private bytes: Buffer;
  private length = 0;

  /** `capacity`: the bytes expected, so that a big body is not copied as it grows. */
  constructor(capacity = 64 * 1024) {
    this.bytes = bodyBuffers.take(capacity);
  }

  append(text: string): this {
    this.reserve(text.length * 3);
    this.length += this.bytes.write(text, this.length, 'utf8');
    return this;
  }

  /** Room for `most` more bytes. */
  private reserve(most: number): void {
    if (this.length + most <= this.bytes.length) return;
    const grown = bodyBuffers.take(Math.max(this.bytes.length * 2, this.length + most));
    this.bytes.copy(grown, 0, 0, this.length);
    bodyBuffers.giveBack(this.bytes);
    this.bytes = grown;
  }

  /** The bytes written (a view: the buffer is not copied). */
  toBuffer(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  /**
   * Sends the bytes written as the JSON answer; its buffer serves a later body once node:http has
   * handed the whole answer to the system ('finish'). Nothing may be appended after.
   */
  sendOn(ctx: Context, status: number): void {
    const { bytes } = this;
    sendJsonBytes(ctx, status, this.toBuffer());
    ctx.res.once('finish', () => bodyBuffers.giveBack(bytes));
  }
}

/** Buffers kept for big bodies, and the sizes kept: a few batch answers' worth (docs/performance.md). */
const KEPT_BUFFERS = 4;
const KEPT_BYTES_MIN = 256 * 1024;
const KEPT_BYTES_MAX = 4 * 1024 * 1024;

/**
 * Buffers of big bodies (batch answers), kept once written for the next ones: the first touch of
 * a new buffer's pages costs several times the copying into it (1,000 records: about 0.5 ms
 * against 0.1 ms). A kept one has its own memory (allocUnsafeSlow: never a slice of Node's shared
 * pool); small bodies are not kept.
 */
class BodyBuffers {
  private readonly kept: Buffer[] = [];

  take(bytes: number): Buffer {
    if (bytes < KEPT_BYTES_MIN) return Buffer.allocUnsafe(bytes);
    for (let i = 0; i < this.kept.length; i++) {
      if (this.kept[i].length >= bytes) return this.kept.splice(i, 1)[0];
    }
    // with room to spare, so that the next batches, a little bigger or smaller, can take it again
    return Buffer.allocUnsafeSlow(bytes > KEPT_BYTES_MAX ? bytes : Math.ceil((bytes * 1.25) / 65536) * 65536);
  }

  giveBack(buffer: Buffer): void {
    if (buffer.length < KEPT_BYTES_MIN || buffer.length > KEPT_BYTES_MAX) return;
    if (this.kept.length < KEPT_BUFFERS && !this.kept.includes(buffer)) this.kept.push(buffer);
  }
}

const bodyBuffers = new BodyBuffers();

export function errorEnvelope(code: ErrorCode, message: string) {
  return { success: false, error: { code, message } };
}

/**
 * Whether the client's cached copy is current (RFC 9110 13.1.2, 13.1.3): If-None-Match decides
 * when sent (any of its tags, weak or strong, or `*`); else If-Modified-Since against
 * `lastModified`, when the answer has one.
 */
export function clientCopyIsCurrent(ctx: Context, etag: string, lastModified?: Date): boolean {
  const ifNoneMatch = ctx.get('if-none-match');
  if (ifNoneMatch) {
    return ifNoneMatch.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t.replace(/^W\//, '') === etag;
    });
  }
  if (lastModified === undefined) return false;
  const since = Date.parse(ctx.get('if-modified-since'));
  return !Number.isNaN(since) && lastModified.getTime() <= since;
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

/**
 * Waits until the answers before this one on its connection (pipelined requests) have been taken
 * by the system; false when the connection closed first. node:http holds each pipelined answer in
 * memory until those before it are sent, so a big answer made only then keeps a client that sends
 * many requests and reads none to one big answer in memory, until the send timeout cuts it.
 */
export function earlierAnswersTaken(ctx: Context): true | Promise<boolean> {
  const { res } = ctx;
  if (res.socket !== null) return true;
  if (ctx.req.socket.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (taken: boolean) => () => {
      res.off('socket', assigned);
      forget();
      resolve(taken);
    };
    const assigned = settle(true);
    const forget = whenClosed(ctx.req.socket, settle(false));
    res.once('socket', assigned);
  });
}

/** What waits on each connection's close: one listener per connection, however many requests wait. */
const closeWaiters = new WeakMap<Socket, Set<() => void>>();

/** Calls `then` when `socket` closes; returns what cancels that. */
function whenClosed(socket: Socket, then: () => void): () => void {
  let waiters = closeWaiters.get(socket);
  if (waiters === undefined) {
    const set = (waiters = new Set());
    closeWaiters.set(socket, set);
    socket.once('close', () => {
      closeWaiters.delete(socket);
      for (const waiter of set) waiter();
    });
  }
  waiters.add(then);
  const set = waiters;
  return () => set.delete(then);
}
