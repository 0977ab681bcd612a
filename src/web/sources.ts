/**
 * Where browsers and edge runtimes get the engine's inputs: URLs (fetched), Responses, or bytes the
 * caller already holds. A table arrives as a stream and is copied chunk by chunk straight into WASM
 * memory: its length comes from its own header (the first chunk), so memory grows once and no
 * second copy of the file is made. A URL ending in .gz is decoded here by DecompressionStream
 * (unless the transport already did, by Content-Encoding). Web APIs only: no `node:` imports.
 */
import { asciiAt, FIXED_HEADER_BYTES, HEADER, TABLE_MAGIC } from '../tables/format/containerLayout.js';
import type { TableSource } from '../engine/wasmEngine.js';

/** Far above any table's header (FIXED_HEADER_BYTES + a directory entry per section): a bound on what is read before placement. */
const MAX_HEADER_BYTES = 1 << 16;

/** A URL (absolute, or relative to the page), a fetch Response (or its promise), or the bytes. */
export type Source = string | URL | Response | Promise<Response> | ArrayBuffer | ArrayBufferView;

function nameOf(source: Source, fallback: string): string {
  return typeof source === 'string'
    ? source
    : source instanceof URL
      ? source.href
      : source instanceof Response && source.url
        ? source.url
        : fallback;
}

async function responseOf(source: string | URL | Response | Promise<Response>, name: string): Promise<Response> {
  const response = typeof source === 'string' || source instanceof URL ? await fetch(source) : await source;
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status} ${response.statusText}`.trim());
  return response;
}

function bytesOf(source: ArrayBuffer | ArrayBufferView): Uint8Array {
  return source instanceof ArrayBuffer ? new Uint8Array(source) : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
}

const isBytes = (source: Source): source is ArrayBuffer | ArrayBufferView => source instanceof ArrayBuffer || ArrayBuffer.isView(source);

/** The body of a table response, gunzipped here only when the transport did not do it. */
export function tableStream(response: Response, name: string): ReadableStream<Uint8Array> {
  if (!response.body) throw new Error(`${name}: the response has no body`);
  const gzipFile = new URL(response.url || name, 'http://relative/').pathname.endsWith('.gz');
  const decoded = /gzip/i.test(response.headers.get('content-encoding') ?? '');
  return gzipFile && !decoded ? response.body.pipeThrough(new DecompressionStream('gzip')) : response.body;
}

/** A file's whole bytes (a table read in JavaScript, not placed in WASM memory): bytes as they are, or fetched. */
export async function fileBytes(source: Source, kind: string): Promise<Uint8Array> {
  if (isBytes(source)) return bytesOf(source);
  const response = await responseOf(source, nameOf(source, `${kind} table`));
  return new Uint8Array(await new Response(tableStream(response, response.url || nameOf(source, `${kind} table`))).arrayBuffer());
}

/** A table to place: bytes as they are, or a stream whose length is read from its header first. */
export async function tableSource(source: Source, kind: string): Promise<TableSource> {
  if (isBytes(source)) return bytesOf(source);
  const response = await responseOf(source, nameOf(source, `${kind} table`));
  const name = response.url || nameOf(source, `${kind} table`);
  const reader = tableStream(response, name).getReader();
  // The header and section directory come first: placement sizes the table (and what its reader
  // rebuilds beside it) from them.
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let headerLength = FIXED_HEADER_BYTES;
  while (headBytes < headerLength) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${name}: truncated: ${headBytes} bytes is shorter than its header`);
    head.push(value);
    headBytes += value.byteLength;
    if (headBytes >= FIXED_HEADER_BYTES && headerLength === FIXED_HEADER_BYTES) {
      const first = concat(head, headBytes);
      head.splice(0, head.length, first);
      const magic = asciiAt(first, HEADER.magic, TABLE_MAGIC.length);
      if (magic !== TABLE_MAGIC)
        throw new Error(`${name}: not a netlookup table (magic ${JSON.stringify(magic)}, expected ${TABLE_MAGIC})`);
      headerLength = Math.max(FIXED_HEADER_BYTES, new DataView(first.buffer, first.byteOffset).getUint32(HEADER.headerLength, true));
      if (headerLength > MAX_HEADER_BYTES) throw new Error(`${name}: a header of ${headerLength} bytes is not a table's`);
    }
  }
  const first = concat(head, headBytes);
  const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  if (view.getUint32(HEADER.fileLengthHigh, true) !== 0) throw new Error(`${name}: the header states a length beyond 4 GB`);
  const byteLength = view.getUint32(HEADER.fileLengthLow, true);
  return {
    name,
    byteLength,
    head: first,
    async fill(destination: Uint8Array) {
      // The table reader checks the result (length, checksum); here only overruns are refused.
      if (first.byteLength > byteLength) throw new Error(`${name}: longer than its header says (${byteLength} bytes)`);
      destination.set(first);
      let at = first.byteLength;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (at + value.byteLength > byteLength) throw new Error(`${name}: longer than its header says (${byteLength} bytes)`);
        destination.set(value, at);
        at += value.byteLength;
      }
      if (at !== byteLength) throw new Error(`${name}: truncated: ${at} of ${byteLength} bytes arrived`);
    },
  };
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** The WASM module, compiled while it downloads where the server says application/wasm. */
export async function wasmModule(source: Source | WebAssembly.Module): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (isBytes(source)) return WebAssembly.compile(bytesOf(source) as Uint8Array<ArrayBuffer>);
  const response = await responseOf(source, nameOf(source, 'netlookup.wasm'));
  if (response.headers.get('content-type')?.split(';')[0].trim() === 'application/wasm') return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}
