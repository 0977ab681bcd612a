/**
 * Lines of a downloaded source file, read as a stream with bounds: the publishers' files are
 * hundreds of megabytes, and a file that is not what it claims (one endless line, a binary body
 * served as text) must fail on a bound, not exhaust memory. Gzip files are recognised by their
 * magic bytes and inflated on the way.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** A source file that does not hold what its publisher's format says; names the file and line. */
export class SourceFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(line > 0 ? `${file}:${line}: ${message}` : `${file}: ${message}`);
    this.name = 'SourceFormatError';
  }
}

export interface LineBounds {
  /** the longest line accepted, in characters (default 64 KiB) */
  maxLineLength?: number;
  /** the most text accepted after inflating, in bytes (default 4 GiB) */
  maxBytes?: number;
}

export interface NumberedLine {
  text: string;
  /** 1-based */
  line: number;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** Inflates a gzip stream, passes anything else through (the first two bytes decide). */
async function* inflated(input: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  const iterator = input[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const head = typeof first.value === 'string' ? Buffer.from(first.value) : first.value;
  const rest = (async function* () {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
  })();
  if (head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) {
    yield* Readable.from(rest).pipe(createGunzip()) as AsyncIterable<Buffer>;
  } else {
    yield* rest;
  }
}

/**
 * The lines of a stream (LF or CRLF; a final line without a break counts), inflated when gzip,
 * decoded as UTF-8. Throws SourceFormatError past a bound.
 */
export async function* linesOf(input: AsyncIterable<Buffer | string>, file: string, bounds: LineBounds = {}): AsyncGenerator<NumberedLine> {
  const maxLine = bounds.maxLineLength ?? 64 * 1024;
  const maxBytes = bounds.maxBytes ?? 4 * 1024 ** 3;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let carry = '';
  let bytes = 0;
  let line = 0;
  const decode = (chunk: Buffer | undefined): string => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw new SourceFormatError(file, line + 1, 'not UTF-8 text');
    }
  };
  for await (const chunk of inflated(input)) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new SourceFormatError(file, line, `more than ${maxBytes} bytes of text`);
    const text = carry + decode(chunk);
    let from = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', from)) {
      line++;
      const end = at > from && text.charCodeAt(at - 1) === 13 ? at - 1 : at;
      if (end - from > maxLine) throw new SourceFormatError(file, line, `line longer than ${maxLine} characters`);
      yield { text: text.slice(from, end), line };
      from = at + 1;
    }
    carry = text.slice(from);
    if (carry.length > maxLine) throw new SourceFormatError(file, line + 1, `line longer than ${maxLine} characters`);
  }
  carry += decode(undefined);
  if (carry.length > 0) {
    line++;
    if (carry.length > maxLine) throw new SourceFormatError(file, line, `line longer than ${maxLine} characters`);
    yield { text: carry.endsWith('\r') ? carry.slice(0, -1) : carry, line };
  }
}

/** The lines of a file on disk (gzip or plain). */
export function linesOfFile(file: string, bounds?: LineBounds): AsyncGenerator<NumberedLine> {
  return linesOf(fs.createReadStream(file, { highWaterMark: 1 << 20 }), file, bounds);
}
