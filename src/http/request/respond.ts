/**
 * JSON bodies, in one place: every response body is JSON (SPEC 1.1), indented with `pretty`; a big
 * one (a batch) is encoded part by part into a kept buffer. Refusals are errorResponse.ts's.
 */
import type { Context } from 'koa';
import type { Exchange } from './exchange.js';

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

  /** Appends UTF-8 bytes given one per character of a Latin-1 string (the engine's records, IpRecordRenderer.renderUtf8). */
  appendBytes(bytes: string): this {
    this.reserve(bytes.length);
    this.length += this.bytes.write(bytes, this.length, 'latin1');
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
