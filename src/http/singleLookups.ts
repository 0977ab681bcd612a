/**
 * The hot path of the API: `GET /v1/ip/{ip}`, `GET /v1/blacklist/{ip}` and `GET /v1/mac/{mac}` go
 * straight to their handlers (the same ones the v1 router serves), without the router's matching
 * and the middleware layers every other request passes. What those layers do for a request is
 * done here too, by the same functions: metrics (RequestObserver) and error rendering
 * (renderError); the CORS header is set before this middleware runs.
 *
 * Only the plain form of each path is taken here: one path segment after the prefix that looks
 * like what the route takes (an IP address has a dot or a colon; a MAC address or prefix is hex
 * digits and separators), so that named routes beside them (`batch`, `search`, `report`, `export`)
 * are never shadowed. Anything else (trailing slash, other methods, input that is neither) goes on
 * to the router, which answers it with the same handlers.
 */
import type { Context, Next } from 'koa';
import type { RequestObserver } from './app.js';
import type { Eventually } from './eventually.js';
import { renderError } from './respond.js';
import type { ServiceDeps } from './serviceDeps.js';
import { singleLookupHandlers, type SingleLookupRoute } from './v1Routes.js';

const addressLike = /^[0-9A-Fa-f.:%]*[.:%][0-9A-Fa-f.:%]*$/;
const macLike = /^[0-9A-Fa-f.:%-]+$/;

const prefixes: readonly { prefix: string; route: SingleLookupRoute; looksRight: RegExp }[] = [
  { prefix: '/v1/ip/', route: '/v1/ip/:ip', looksRight: addressLike },
  { prefix: '/v1/blacklist/', route: '/v1/blacklist/:ip', looksRight: addressLike },
  { prefix: '/v1/mac/', route: '/v1/mac/:mac', looksRight: macLike },
];

/** The route and its decoded parameter, or null when the router should answer the path. */
export function singleLookupOf(path: string): { route: SingleLookupRoute; param: string } | null {
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

export function singleLookups(deps: ServiceDeps, observe: RequestObserver) {
  return (ctx: Context, next: Next): unknown => {
    const lookup = ctx.method === 'GET' ? singleLookupOf(ctx.path) : null;
    if (lookup === null) return next();
    const started = performance.now();
    const failed = (error: unknown) => renderError(ctx, error, deps.logger);
    const done = () => observe(ctx, lookup.route, started);
    // With the embedded store the handler answers at once; with a shared one it returns a promise.
    let answered: Eventually<void>;
    try {
      answered = singleLookupHandlers[lookup.route](ctx, deps, lookup.param);
    } catch (error) {
      failed(error);
      return done();
    }
    if (answered instanceof Promise) return answered.then(done, (error) => {
      failed(error);
      done();
    });
    return done();
  };
}
