/**
 * One request and its answer, as the lookup handlers, auth, metering and rendering see it: the
 * part of Koa's Context they use. Koa's Context is one; NodeExchange is the other, which the hot
 * path (singleLookups.ts) answers on node:http directly, without Koa's per-request objects.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';

export interface Exchange {
  readonly req: IncomingMessage;
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
 * An Exchange over node:http's own request and response, answered by `send()` in one
 * `writeHead` + `end`: the headers Koa would send for the same handlers (the same names and
 * values, Content-Length from the body), kept as one flat list rather than set one by one on the
 * response.
 */
export class NodeExchange implements Exchange {
  status = 404;
  body: unknown = undefined;
  readonly state: Record<string, unknown> = {};
  /** name, value, name, value, …: the array form of writeHead */
  private readonly headerList: string[] = [];
  private parsedQuery: ParsedUrlQuery | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly path: string,
    readonly querystring: string,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get url(): string {
    return this.req.url ?? '/';
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  /** As Koa parses it (node:querystring), once. */
  get query(): ParsedUrlQuery {
    return (this.parsedQuery ??= parseQuery(this.querystring));
  }

  set(field: string, value: string): void {
    const list = this.headerList;
    for (let i = 0; i < list.length; i += 2) {
      if (sameFieldName(list[i], field)) {
        list[i + 1] = value;
        return;
      }
    }
    list.push(field, value);
  }

  /** Writes the answer: a JSON text or Buffer body, or none. */
  send(): void {
    const { body } = this;
    const list = this.headerList;
    if (typeof body === 'string') list.push('Content-Length', String(Buffer.byteLength(body)));
    else if (Buffer.isBuffer(body)) list.push('Content-Length', String(body.length));
    this.res.writeHead(this.status, list);
    this.res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : undefined);
  }
}

/** Header names compare case-insensitively; a name set twice is mostly the same constant, and names of another length never match. */
function sameFieldName(a: string, b: string): boolean {
  return a === b || (a.length === b.length && a.toLowerCase() === b.toLowerCase());
}
