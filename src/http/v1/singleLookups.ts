/**
 * The hot path of the API: `GET /v1/ip/{ip}`, `GET /v1/blacklist/{ip}` and `GET /v1/mac/{mac}` are
 * answered on the socket (directConnections.ts) when the request is in the plain subset it reads,
 * else on node:http directly (a NodeExchange, see exchange.ts), by the same handlers the v1
 * router serves, without Koa's per-request context, its middleware chain and the router's
 * matching: for these answers that machinery cost more than everything the service does (docs/performance.md,
 * "HTTP"). What the layers do for a request is done here by the same
 * functions: the CORS headers (allowAnyOrigin), metrics and the log line (RequestObserver) and
 * error rendering (renderError).
 *
 * Only the plain form of each path is taken here: one path segment after the prefix that looks
 * like what the route takes (an IP address has a dot or a colon; a MAC address or prefix is hex
 * digits and separators), so that named routes beside them (`batch`, `search`, `report`, `export`)
 * are never shadowed. Anything else (trailing slash, other methods, input that is neither) goes on
 * to the router, which answers it with the same handlers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowAnyOrigin } from '../request/crossOrigin.js';
import { NodeExchange, type AnsweringExchange } from '../request/exchange.js';
import type { Eventually } from '../request/eventually.js';
import type { RequestObserver } from '../request/requestObserver.js';
import { renderError } from '../request/errorResponse.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { singleLookupHandlers, type SingleLookupRoute } from './v1Routes.js';
import { redactedUrl } from '../operations/logger.js';

const addressLike = /^[0-9A-Fa-f.:%]*[.:%][0-9A-Fa-f.:%]*$/;
const macLike = /^[0-9A-Fa-f.:%-]+$/;

const prefixes: readonly { prefix: string; route: SingleLookupRoute; looksRight: RegExp }[] = [
  { prefix: '/v1/ip/', route: '/v1/ip/:ip', looksRight: addressLike },
  { prefix: '/v1/blacklist/', route: '/v1/blacklist/:ip', looksRight: addressLike },
  { prefix: '/v1/mac/', route: '/v1/mac/:mac', looksRight: macLike },
];

export interface SingleLookup {
  readonly route: SingleLookupRoute;
  /** the path parameter, decoded */
  readonly param: string;
}

/** The route and its decoded parameter, or null when the router should answer the path. */
export function singleLookupOf(path: string): SingleLookup | null {
  for (const { prefix, route, looksRight } of prefixes) {
    if (!path.startsWith(prefix)) continue;
    const segment = path.slice(prefix.length);
    if (!looksRight.test(segment)) return null;
    return { route, param: segment.includes('%') ? decodedSegment(segment) : segment };
  }
  return null;
}

/** As the router decodes a path parameter: undecodable text stays as it is. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Characters that make Koa's URL parser (parseurl) take its slow path, whose path and query could
 * differ from the plain split below: such requests go to Koa.
 */
const unusualUrl = /[\t\n\f\r #]/;

/** Answers one single lookup on an exchange that sends its own answer; started: performance.now() at its start. */
export type SingleLookupAnswerer = (exchange: AnsweringExchange, lookup: SingleLookup, started: number) => void;

/**
 * The single lookups' answering, after the request is read, whatever it was read by: the CORS
 * header, the handler, error rendering, sending and the observer.
 */
export function singleLookupAnswerer(deps: ServiceDeps, observe: RequestObserver): SingleLookupAnswerer {
  // Koa would render a failure here as a 500; with no Koa below, a failure to answer closes the connection.
  const abandon = (exchange: AnsweringExchange, error: unknown) => {
    deps.logger.error({ err: error, path: redactedUrl(exchange.path) }, 'answer failed');
    exchange.abandon();
  };
  const finish = (exchange: AnsweringExchange, route: SingleLookupRoute, started: number) => {
    try {
      exchange.send();
      observe(exchange, route, started);
    } catch (error) {
      abandon(exchange, error);
    }
  };
  const failed = (exchange: AnsweringExchange, route: SingleLookupRoute, started: number, error: unknown) => {
    try {
      renderError(exchange, error, deps.logger);
    } catch (renderFailure) {
      abandon(exchange, renderFailure);
      return;
    }
    finish(exchange, route, started);
  };
  return (exchange, lookup, started) => {
    allowAnyOrigin(exchange);
    const { route } = lookup;
    // With the embedded store the handler answers at once; with a shared one it returns a promise.
    let answered: Eventually<void>;
    try {
      answered = singleLookupHandlers[route](exchange, deps, lookup.param);
    } catch (error) {
      failed(exchange, route, started, error);
      return;
    }
    if (answered instanceof Promise)
      answered.then(
        () => finish(exchange, route, started),
        (error: unknown) => failed(exchange, route, started, error),
      );
    else finish(exchange, route, started);
  };
}

/** The path and query of a request target, split as Koa splits them, when the hot path takes it. */
export function singleLookupTarget(url: string): { path: string; querystring: string; lookup: SingleLookup } | null {
  if (!url.startsWith('/v1/') || unusualUrl.test(url)) return null;
  const question = url.indexOf('?');
  const path = question === -1 ? url : url.slice(0, question);
  const lookup = singleLookupOf(path);
  if (lookup === null) return null;
  return { path, querystring: question === -1 ? '' : url.slice(question + 1), lookup };
}

/**
 * The hot path's request listener on node:http: answers a single lookup and returns true, or
 * returns false and leaves the request to Koa. It runs first on every request node:http reads, so
 * a miss costs one prefix test.
 */
export function singleLookupListener(answer: SingleLookupAnswerer): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET') return false;
    const target = singleLookupTarget(req.url ?? '');
    if (target === null) return false;
    const started = performance.now();
    answer(new NodeExchange(req, res, target.path, target.querystring), target.lookup, started);
    return true;
  };
}
