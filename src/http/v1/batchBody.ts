/**
 * The entries of a batch request (docs/api.md "Batches"), as clients send them: `{"ips": [...]}`,
 * a JSON array, the form field `ips=a,b` (repeatable), or `GET ?ips=a,b` (repeatable).
 *
 * A body is read by what it holds, not by the Content-Type it declares: curl's `-d` declares form
 * data for a JSON text, a browser's fetch declares text/plain, Python's requests declares nothing.
 * JSON (an array or an object) is read as JSON; otherwise form fields with an `ips` field are read
 * as a form. A body that is neither is refused with what was received and how to send it: 400
 * invalid_body when it was declared JSON, form data or nothing (it is malformed), 415
 * unsupported_media_type when it was declared as another format.
 */
import bodyParser from 'koa-bodyparser';
import type { Context } from 'koa';
import { ApiError } from '../../errors.js';
import { asApiError } from '../request/errorResponse.js';

/** Form fields read as the list: `ips`, and the `ips[]` and `ips[0]` of PHP and jQuery encoders. */
const IPS_FIELD = /^ips(\[\d*\])?$/;
/** How much of an unreadable body the refusal shows. */
const SHOWN_CHARACTERS = 40;
const HOW_TO_SEND =
  'Send a JSON array of addresses such as ["8.8.8.8","1.1.1.1"] or a JSON object {"ips": [...]} ' +
  '(Content-Type: application/json), or the form field ips=8.8.8.8,1.1.1.1 (Content-Type: application/x-www-form-urlencoded).';

/** Items of comma-separated lists: the whitespace around an item belongs to the list, not to the item. */
function listItems(lists: readonly string[]): string[] {
  return lists.flatMap((list) => list.split(',').map((item) => item.trim())).filter((item) => item.length > 0);
}

/**
 * The addresses of `GET …/batch?ips=a,b&ips=c` (also HEAD). A GET that gives none is refused as a
 * method (SPEC 4.3: 405, a batch is sent with POST), before the caller is known as every 405 is.
 */
export function queryEntries(ctx: Context): string[] {
  const ips = ctx.query.ips;
  const entries = ips === undefined ? [] : listItems(Array.isArray(ips) ? ips : [ips]);
  if (entries.length === 0)
    throw new ApiError('method_not_allowed', 'A batch is sent with POST, or with GET and its addresses in ?ips=a,b.', { Allow: 'POST' });
  return entries;
}

/** The entries of a JSON body: an array, or an object's `ips` (array or comma-separated string). */
function jsonEntries(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const ips = (body as Record<string, unknown>).ips;
  if (Array.isArray(ips)) return ips;
  if (typeof ips === 'string') return listItems([ips]);
  if (ips !== undefined) throw new ApiError('invalid_body', 'ips must be an array of strings or a comma-separated string.');
  return [];
}

/** The values of the form's `ips` fields; null when the text has none. */
function formLists(text: string): string[] | null {
  const lists: string[] = [];
  let found = false;
  for (const [name, value] of new URLSearchParams(text)) {
    if (!IPS_FIELD.test(name)) continue;
    found = true;
    lists.push(value);
  }
  return found ? lists : null;
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Text shown in a message: printable ASCII, the rest escaped (\n, \u00e9), cut at `max` characters. */
function printable(text: string, max: number): string {
  const head = Array.from(text.slice(0, 2 * max))
    .slice(0, max)
    .join('');
  const shown = head.replace(/[^\x20-\x7e]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return head.length < text.length ? `${shown}...` : shown;
}

/** What a text that is JSON but not a batch is, for the refusal; null when it is not JSON. */
function jsonMisfit(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value === 'object' && value !== null) return 'The JSON body has a __proto__ key';
  return `The JSON body is ${value === null ? 'null' : `a ${typeof value}`}, not an array of addresses or an object with ips`;
}

/** The refusal of a body that is not a batch: what it is, what was received, how to send one. */
function unreadable(ctx: Context, text: string, what: string): ApiError {
  const declared = ctx.get('content-type');
  const type = declared === '' ? 'no Content-Type' : `Content-Type ${printable(declared, 100)}`;
  const message = `${what} (received ${type} and a body starting \`${printable(text, SHOWN_CHARACTERS)}\`). ${HOW_TO_SEND}`;
  const malformed = declared === '' || ctx.is('json', 'urlencoded') !== false;
  return new ApiError(malformed ? 'invalid_body' : 'unsupported_media_type', message);
}

/** The entries of a body that is not JSON: its form `ips` fields, else the refusal. */
function textEntries(ctx: Context, text: string): string[] {
  const lists = formLists(text);
  if (lists !== null) return listItems(lists);
  const what =
    jsonMisfit(text) ??
    (ctx.is('urlencoded') ? 'The form data has no ips field' : 'The body is neither JSON nor form data with an ips field');
  throw unreadable(ctx, text, what);
}

/**
 * Reads the entries of a POST batch's body (up to `limitBytes`, JSON or form), once the caller is
 * known so that key, rate and plan refusals come first. Any failure to read the body is the
 * request's input error.
 */
export function batchEntriesReader(limitBytes: number): (ctx: Context) => Promise<unknown[]> {
  // Every body goes to the JSON reader, whatever its declared type. co-body's reader keeps the text
  // it could not parse as JSON on its error (`body`): that text is then read as form data.
  const parse = bodyParser({
    enableTypes: ['json'],
    detectJSON: () => true,
    jsonLimit: `${limitBytes}b`,
    strict: true,
    onerror: (error) => {
      throw error;
    },
  });
  return async (ctx) => {
    if (Number(ctx.get('content-length') || 0) > limitBytes) throw new ApiError('body_too_large');
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      const text = (error as { body?: unknown }).body;
      if (error instanceof SyntaxError && typeof text === 'string') return textEntries(ctx, text);
      throw asApiError(error) ?? new ApiError('invalid_body');
    }
    return jsonEntries((ctx.request as { body?: unknown }).body);
  };
}
