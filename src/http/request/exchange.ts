/**
 * One request and its answer, as the lookup handlers, auth, metering and rendering see it: the
 * part of Koa's Context they use. Koa's Context is one; the answering exchanges below are the
 * others, on which the hot path (singleLookups.ts) answers without Koa's per-request objects:
 * NodeExchange on node:http's request and response, DirectExchange (directConnections.ts) on the
 * socket itself.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import { LowerCaseNames } from '../transport/headerNames.js';

/** What the handlers read of node:http's request: the peer's address and whether a body is left. */
export interface RequestSource {
  readonly socket: { readonly remoteAddress?: string };
  readonly complete: boolean;
  readonly headers: IncomingHttpHeaders;
}

export interface Exchange {
  readonly req: RequestSource;
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly querystring: string;
  readonly query: ParsedUrlQuery;
  readonly headers: IncomingHttpHeaders;
  /** what the metrics and the debug log line read of the request: accountId, errorCode */
  readonly state: Record<string, unknown>;
  status: number;
  body: unknown;
  /** sets a response header, replacing one of the same name */
  set(field: string, value: string): void;
}

/**
 * An Exchange that sends its own answer, in one piece: the headers Koa would send for the same
 * handlers (the same names and values, Content-Length from the body), kept as one flat list
 * rather than set one by one on a response.
 */
export abstract class AnsweringExchange implements Exchange {
  status = 404;
  body: unknown = undefined;
  readonly state: Record<string, unknown> = {};
  /** name, value, name, value, …: the array form of writeHead */
  private readonly headerList: string[] = [];
  /** the names of headerList in lower case, in its order */
  private readonly lowerNames: string[] = [];
  private parsedQuery: ParsedUrlQuery | null = null;

  constructor(
    readonly req: RequestSource,
    readonly path: string,
    readonly querystring: string,
  ) {}

  abstract get method(): string;
  abstract get url(): string;

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  /** As Koa parses it (node:querystring), once. */
  get query(): ParsedUrlQuery {
    return (this.parsedQuery ??= queryOf(this.querystring));
  }

  set(field: string, value: string): void {
    const lower = LOWER_NAMES.of(field);
    const names = this.lowerNames;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === lower) {
        this.headerList[2 * i + 1] = value;
        return;
      }
    }
    names.push(lower);
    this.headerList.push(field, value);
  }

  /** Writes the answer: a JSON text or Buffer body, or none. */
  abstract send(): void;

  /** The headers to send, Content-Length of the body last. */
  protected headersWithLength(): string[] {
    const { body } = this;
    const list = this.headerList;
    if (typeof body === 'string') list.push('Content-Length', String(Buffer.byteLength(body)));
    else if (Buffer.isBuffer(body)) list.push('Content-Length', String(body.length));
    return list;
  }

  /** Gives up on answering: the connection is closed, as nothing else can be said on it. */
  abstract abandon(): void;
}

/** An AnsweringExchange over node:http's own request and response, answered in one `writeHead` + `end`. */
export class NodeExchange extends AnsweringExchange {
  constructor(
    override readonly req: IncomingMessage,
    readonly res: ServerResponse,
    path: string,
    querystring: string,
  ) {
    super(req, path, querystring);
  }

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get url(): string {
    return this.req.url ?? '/';
  }

  send(): void {
    const { body } = this;
    this.res.writeHead(this.status, this.headersWithLength());
    this.res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : undefined);
  }

  abandon(): void {
    this.res.destroy();
  }
}

/** Response header names: the code's constants, a few dozen. */
const LOWER_NAMES = new LowerCaseNames(256);

/** Queries longer than this go to node:querystring, whose key limit (1,000 pairs) they could reach. */
const PLAIN_QUERY_LIMIT = 1024;

/**
 * The parameters of the single lookups as constant strings. A name cut out of the query text
 * becomes a property key only once V8 has internalized it, which costs about half a microsecond
 * (node:querystring pays it on every request); the constant is internalized already.
 */
const SINGLE_LOOKUP_PARAMETERS = new Map(['key', 'fields', 'pretty'].map((name) => [name, name]));

/**
 * node:querystring's parse of a query, with its own loop for the usual one: plain `name=value`
 * pairs with nothing to decode (no `%`, no `+`), whose known names are taken as constants
 * (test/http/exchange.test.ts holds the two parsers equal).
 */
export function queryOf(text: string): ParsedUrlQuery {
  if (text.length > PLAIN_QUERY_LIMIT || text.includes('%') || text.includes('+')) return parseQuery(text);
  const query: ParsedUrlQuery = Object.create(null) as ParsedUrlQuery;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const equals = text.indexOf('=', start);
      const named = equals !== -1 && equals < end;
      const cut = named ? text.slice(start, equals) : text.slice(start, end);
      const name = SINGLE_LOOKUP_PARAMETERS.get(cut) ?? cut;
      const value = named ? text.slice(equals + 1, end) : '';
      const previous = query[name];
      if (previous === undefined) query[name] = value;
      else if (Array.isArray(previous)) previous.push(value);
      else query[name] = [previous, value];
    }
    start = end + 1;
  }
  return query;
}
