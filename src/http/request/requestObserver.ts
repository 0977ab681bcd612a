/**
 * What is recorded of every answered request, by the Koa application and by the single lookups'
 * hot path (singleLookups.ts) alike: the metrics of its endpoint and status, and a debug log line.
 */
import type { Exchange } from './exchange.js';
import { redactedUrl } from '../operations/logger.js';
import type { ServiceDeps } from '../serviceDeps.js';

/** Records one answered request (its exchange, the route pattern it matched and when it started). */
export type RequestObserver = (exchange: Exchange, endpoint: string, startedMs: number) => void;

export function requestObserver(deps: ServiceDeps): RequestObserver {
  return (ctx, endpoint, startedMs) => {
    const seconds = (performance.now() - startedMs) / 1000;
    deps.metrics.observeRequest(endpoint, ctx.status, seconds);
    if (deps.logger.isLevelEnabled('debug')) {
      deps.logger.debug(
        {
          method: ctx.method,
          url: redactedUrl(ctx.url, deps.config.adminToken ? [deps.config.adminToken] : []),
          status: ctx.status,
          ms: seconds * 1000,
          account: ctx.state.accountId,
          error: ctx.state.errorCode,
        },
        'request',
      );
    }
  };
}
