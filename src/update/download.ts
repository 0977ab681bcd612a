/**
 * Fetching one publisher's file to disk, bounded: a size cap counted while streaming (a server
 * that sends more is cut off, whatever its Content-Length said), a deadline for the first byte and
 * for each pause between bytes, and conditional requests so an unchanged file is not fetched
 * again. The file is written beside its name and renamed only when complete; digests are computed
 * on the way for the publishers that state one.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export class DownloadError extends Error {
  constructor(
    readonly url: string,
    message: string,
    /** the HTTP status, when the server answered */
    readonly status: number | null = null,
  ) {
    super(`${url}: ${message}`);
    this.name = 'DownloadError';
  }
}

/**
 * The publisher's name of the file at a URL (the last part of its path: some names carry the
 * data's date); for a URL that ends in a folder (`…/relays/all/`), the folder's name.
 */
export function publisherFileName(url: string): string {
  const parts = new URL(url).pathname.split('/').filter((part) => part !== '');
  return decodeURIComponent(parts.pop() ?? new URL(url).host);
}

export interface DownloadOptions {
  maxBytes: number;
  /** the longest wait for the answer's head and for each next chunk */
  idleTimeoutMs: number;
  /** the Last-Modified / ETag of the copy in hand: an unchanged file answers 304 and is not fetched */
  ifModifiedSince?: string | null;
  ifNoneMatch?: string | null;
  progress?: (received: number, total: number | null) => void;
}

export interface Downloaded {
  /** false when the publisher answered 304 (the copy in hand is current) */
  changed: boolean;
  bytes: number;
  sha256: string;
  md5: string;
  lastModified: string | null;
  etag: string | null;
}

const USER_AGENT = 'netlookup-update (+https://github.com/netlookup)';

export async function download(url: string, file: string, options: DownloadOptions): Promise<Downloaded> {
  const controller = new AbortController();
  let timedOut = false;
  let timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.idleTimeoutMs);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.idleTimeoutMs);
  };
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, 'accept-encoding': 'identity' };
  if (options.ifModifiedSince) headers['if-modified-since'] = options.ifModifiedSince;
  if (options.ifNoneMatch) headers['if-none-match'] = options.ifNoneMatch;
  const temporary = `${file}.${process.pid}.part`;
  let out: fs.WriteStream | null = null;
  try {
    let response: Response;
    try {
      response = await fetch(url, { headers, signal: controller.signal, redirect: 'follow' });
    } catch (error) {
      const cause = causeOf(error);
      const unreachable = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/.test(cause);
      throw new DownloadError(
        url,
        timedOut
          ? `no answer within ${options.idleTimeoutMs} ms`
          : unreachable
            ? `not reachable (${cause})`
            : `the connection was cut before the answer (${cause})`,
      );
    }
    const lastModified = response.headers.get('last-modified');
    const etag = response.headers.get('etag');
    if (response.status === 304) {
      await response.body?.cancel();
      return { changed: false, bytes: 0, sha256: '', md5: '', lastModified, etag };
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadError(url, `HTTP ${response.status}`, response.status);
    }
    const declared = Number(response.headers.get('content-length'));
    const total = Number.isFinite(declared) && declared > 0 ? declared : null;
    if (total !== null && total > options.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadError(url, `${total} bytes announced, more than the bound of ${options.maxBytes}`);
    }
    const sha256 = createHash('sha256');
    const md5 = createHash('md5');
    out = fs.createWriteStream(temporary);
    const written = new Promise<void>((resolve, reject) => {
      out!.on('finish', resolve);
      out!.on('error', reject);
    });
    let bytes = 0;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        rearm();
        bytes += chunk.byteLength;
        if (bytes > options.maxBytes) throw new DownloadError(url, `more than the bound of ${options.maxBytes} bytes`);
        sha256.update(chunk);
        md5.update(chunk);
        if (!out.write(chunk)) await new Promise<void>((resolve) => out!.once('drain', () => resolve()));
        options.progress?.(bytes, total);
      }
    } catch (error) {
      if (error instanceof DownloadError) throw error;
      throw new DownloadError(
        url,
        timedOut ? `stalled for ${options.idleTimeoutMs} ms after ${bytes} bytes` : `cut off after ${bytes} bytes (${causeOf(error)})`,
      );
    }
    if (total !== null && bytes !== total) throw new DownloadError(url, `${bytes} bytes received of the ${total} announced`);
    out.end();
    await written;
    fs.renameSync(temporary, file);
    return { changed: true, bytes, sha256: sha256.digest('hex'), md5: md5.digest('hex'), lastModified, etag };
  } finally {
    clearTimeout(timer);
    if (out && !out.closed) out.destroy();
    fs.rmSync(temporary, { force: true });
  }
}

/** A small text file (a checksum, a directory index), read whole within a bound. */
export async function downloadText(
  url: string,
  options: Pick<DownloadOptions, 'maxBytes' | 'idleTimeoutMs'>,
  scratch: string,
): Promise<string> {
  await download(url, scratch, options);
  try {
    return fs.readFileSync(scratch, 'utf8');
  } finally {
    fs.rmSync(scratch, { force: true });
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
