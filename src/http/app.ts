/**
 * The service's request handling: the single lookups' hot path (src/http/v1/singleLookups.ts), on
 * the socket (directConnections.ts) or on node:http, then the Koa application for everything
 * else. Order of its middleware, outermost first: CORS header on every response → timing and
 * metrics → error rendering → preflight → operations → admin → v1 → dashboard → 404. The
 * dashboard's responses carry no CORS headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@koa/cors';
import Koa, { type Context, type Next } from 'koa';
import compose from 'koa-compose';
import type Router from '@koa/router';
import { ApiError } from '../errors.js';
import { adminRouter } from './admin/adminRoutes.js';
import { allowAnyOrigin, EXPOSED_HEADERS } from './request/crossOrigin.js';
import { operationsRouter } from './operations/operationsRoutes.js';
import { requestObserver, type RequestObserver } from './request/requestObserver.js';
import { sendJson } from './request/respond.js';
import { renderErrors } from './request/errorResponse.js';
import { singleLookupAnswerer, singleLookupListener, type SingleLookupAnswerer } from './v1/singleLookups.js';
import type { ServiceDeps } from './serviceDeps.js';
import { v1Router } from './v1/v1Routes.js';
import { isLegacyPath, legacyRouter } from './legacy/legacyRoutes.js';
import { dashboardRouter, isDashboardPath } from './dashboard/dashboardRoutes.js';

/** Every response but the dashboard's: its page is same-origin only (src/http/dashboard/dashboardRoutes.ts). */
function everyResponseAllowsAnyOrigin(ctx: Context, next: Next) {
  if (!isDashboardPath(ctx.path)) allowAnyOrigin(ctx);
  return next();
}

function measure(observe: RequestObserver) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      observe(ctx, (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched', started);
    }
  };
}

/**
 * What the routers leave without a JSON body becomes JSON here: a known path with another method
 * (405 with Allow, set by allowedMethods), a plain OPTIONS (the methods of the path), and
 * anything unanswered: 404 not_found.
 */
async function answerTheUnanswered(ctx: Context, next: Next) {
  await next();
  if (ctx.status === 405 || ctx.status === 501) {
    throw new ApiError('method_not_allowed', undefined, { Allow: ctx.response.get('Allow') || 'GET' });
  }
  if (ctx.method === 'OPTIONS' && ctx.status === 200 && !ctx.body) {
    sendJson(ctx, 200, { success: true, allow: ctx.response.get('Allow').split(/,\s*/) });
    return;
  }
  if (ctx.body === undefined && ctx.status === 404) throw new ApiError('not_found');
}

function routerMiddleware(router: Router): Koa.Middleware {
  return compose([router.routes(), router.allowedMethods()]) as Koa.Middleware;
}

export interface RequestHandling {
  /** node:http's request listener: the hot path, else Koa */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** the hot path's answering, for the requests the direct connections read themselves */
  answerSingleLookup: SingleLookupAnswerer;
}

export function requestHandling(deps: ServiceDeps): RequestHandling {
  const observe = requestObserver(deps);
  const answerSingleLookup = singleLookupAnswerer(deps, observe);
  const listenHot = singleLookupListener(answerSingleLookup);
  const handle = createApp(deps, observe).callback();
  return {
    listener: (req, res) => {
      if (!listenHot(req, res)) void handle(req, res);
    },
    answerSingleLookup,
  };
}

function createApp(deps: ServiceDeps, observe: RequestObserver): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(everyResponseAllowsAnyOrigin);
  app.use(measure(observe));
  app.use(renderErrors(deps.logger));
  app.use(answerTheUnanswered);
  const preflight = cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['X-API-Key', 'Authorization', 'Content-Type'],
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 86400,
  });
  // The CORS headers of simple requests are set above on every response; @koa/cors answers preflights.
  app.use((ctx, next) => (ctx.method === 'OPTIONS' && !isDashboardPath(ctx.path) ? preflight(ctx, next) : next()));
  // Each request meets only the router of its path prefix: matching every router costs per request.
  const v1 = routerMiddleware(v1Router(deps));
  const admin = deps.config.adminToken ? routerMiddleware(adminRouter(deps, deps.config.adminToken)) : null;
  const operations = routerMiddleware(operationsRouter(deps));
  const legacy = routerMiddleware(legacyRouter(deps));
  const dashboard = routerMiddleware(dashboardRouter(deps));
  app.use((ctx, next) => {
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) return v1(ctx, next);
    if (isDashboardPath(ctx.path)) return dashboard(ctx, next);
    if (admin && (ctx.path === '/admin' || ctx.path.startsWith('/admin/'))) return admin(ctx, next);
    if (isLegacyPath(ctx.path)) return legacy(ctx, next);
    return operations(ctx, next);
  });
  return app;
}
