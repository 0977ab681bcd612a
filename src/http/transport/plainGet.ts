/**
 * The request heads the direct connections (directConnections.ts) answer themselves: a strict
 * subset of HTTP/1.1 on which node:http's parser could not read anything else. Validate first,
 * then trust: the whole head must match one pattern before anything is cut out of it; anything
 * outside the subset is left to node:http, which applies its own rules and answers its own
 * errors (test/http/plainGet.test.ts holds the two readings equal on what the subset takes).
 *
 * The subset: `GET <origin-form target> HTTP/1.1`, the target only of RFC 3986's unreserved,
 * sub-delims, `:@/?%`; header lines `name: value` with a token name, a value of visible ASCII,
 * spaces and tabs (no obs-text, no folding); a Host header; each name once; no body (no
 * Content-Length, Transfer-Encoding), no Expect or Upgrade, a Connection only of `keep-alive`
 * or `close` (spaces around it, no tab); the head at most MAX_HEAD_BYTES.
 */

import { LowerCaseNames, TOKEN_CHARS } from './headerNames.js';

/** Heads past this go to node:http, whose limit (16 KB) answers 431 beyond its own. */
export const MAX_HEAD_BYTES = 8192;
const MAX_HEADERS = 64;

/** Request header names: clients choose them, so the bound matters. */
const LOWER_NAMES = new LowerCaseNames(512);

const TARGET = "/[A-Za-z0-9\\-._~!$&'()*+,;=:@/?%]*";
const HEADER_LINE = `[${TOKEN_CHARS}]+:[\\t\\x20-\\x7e]*\\r\\n`;
const HEAD = new RegExp(`^GET ${TARGET} HTTP/1\\.1\\r\\n(?:${HEADER_LINE})*\\r\\n$`);
/** What has come of a head in the subset, before its end: a start of the request line, or the whole line and a start of the header lines. */
const HEAD_START = new RegExp(
  `^GET ${TARGET}(?: (?:H(?:T(?:T(?:P(?:/(?:1(?:\\.(?:1\\r?)?)?)?)?)?)?)?)?)?$|` +
    `^GET ${TARGET} HTTP/1\\.1\\r\\n(?:${HEADER_LINE})*(?:[${TOKEN_CHARS}]*|[${TOKEN_CHARS}]+:[\\t\\x20-\\x7e]*\\r?|\\r)$`,
);

/** Names whose presence takes the request out of the subset. */
const OUTSIDE = new Set(['content-length', 'transfer-encoding', 'expect', 'upgrade']);

export interface PlainGet {
  /** the request target as sent: node:http's req.url */
  readonly url: string;
  /** lower-case names, values without surrounding spaces: node:http's req.headers */
  readonly headers: Record<string, string>;
  /** false when the client asked to close the connection after this answer */
  readonly keepAlive: boolean;
  /** the offset just past the head in the text read */
  readonly end: number;
}

/** What a head that is not complete yet, or not in the subset, reads as. */
export type NotPlain = 'incomplete' | 'other';

/**
 * Reads the head starting at `start` of `text` (the connection's bytes as Latin-1: one character
 * per byte, so offsets are byte offsets).
 */
export function plainGetAt(text: string, start: number): PlainGet | NotPlain {
  const close = text.indexOf('\r\n\r\n', start);
  if (close === -1) {
    if (text.length - start > MAX_HEAD_BYTES || !startsLikeGet(text, start) || bareLineFeed(text, start)) return 'other';
    // A byte no plain head holds has come: node:http reads it now (and refuses a bad one at once).
    return text.length - start <= GET_START.length || HEAD_START.test(start === 0 ? text : text.slice(start)) ? 'incomplete' : 'other';
  }
  const end = close + 4;
  if (end - start > MAX_HEAD_BYTES) return 'other';
  const head = start === 0 && end === text.length ? text : text.slice(start, end);
  if (!HEAD.test(head)) return 'other';
  const lineEnd = head.indexOf('\r\n');
  const url = head.slice(4, lineEnd - 9);
  // A plain object, for V8's fast properties: a name that is also one of Object.prototype's
  // (`__proto__`, `constructor`, …) reads as present already, so such a head goes to node:http.
  const headers: Record<string, string> = {};
  let keepAlive = true;
  let count = 0;
  let at = lineEnd + 2;
  while (at < head.length - 2) {
    if (++count > MAX_HEADERS) return 'other';
    const next = head.indexOf('\r\n', at);
    const colon = head.indexOf(':', at);
    const name = LOWER_NAMES.of(head.slice(at, colon));
    if (headers[name] !== undefined || OUTSIDE.has(name)) return 'other';
    const value = trimmed(head, colon + 1, next);
    if (name === 'connection') {
      const token = value.toLowerCase();
      if (token === 'close') keepAlive = false;
      else if (token !== 'keep-alive') return 'other';
      // A tab beside the token: `close` and a tab read as no close to llhttp before 9.4.2 (Node 20's), as close to later ones.
      if (head.lastIndexOf('\t', next) > colon) return 'other';
    }
    headers[name] = value;
    at = next + 2;
  }
  if (headers.host === undefined) return 'other';
  return { url, headers, keepAlive, end };
}

/**
 * Whether what has come of a head can still be a plain GET: anything else (another method, a TLS
 * handshake on the HTTP port) goes to node:http at once rather than waiting for a whole head.
 */
function startsLikeGet(text: string, start: number): boolean {
  const sent = Math.min(GET_START.length, text.length - start);
  for (let i = 0; i < sent; i++) if (text.charCodeAt(start + i) !== GET_START.charCodeAt(i)) return false;
  return true;
}

const GET_START = 'GET /';

/**
 * Whether a line of the head ends in a line feed alone. node:http may take such a head as whole,
 * so it reads it rather than this waiting for a CRLF CRLF that need never come.
 */
function bareLineFeed(text: string, start: number): boolean {
  for (let at = text.indexOf('\n', start); at !== -1; at = text.indexOf('\n', at + 1))
    if (at === start || text.charCodeAt(at - 1) !== 0x0d) return true;
  return false;
}

/** The value between `from` and `to` without the spaces and tabs around it. */
function trimmed(text: string, from: number, to: number): string {
  let a = from;
  let b = to;
  while (a < b && isSpace(text.charCodeAt(a))) a++;
  while (b > a && isSpace(text.charCodeAt(b - 1))) b--;
  return text.slice(a, b);
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}
