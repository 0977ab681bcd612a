/** Operations endpoints: GET /health (tables and store), GET /metrics (Prometheus), GET /openapi.json, and the demo page (GET /demo/). */
import Router from '@koa/router';
import { sendJson } from '../request/respond.js';
import type { ServiceDeps } from '../serviceDeps.js';
import { openApiDocument } from '../openapi/openApi.js';
import { demoRoutes } from './demoRoutes.js';
import { dataSourceOf } from '../v1/endpointList.js';
import { dataStatus } from './dataStatus.js';

export function operationsRouter(deps: ServiceDeps): Router {
  const router = new Router();

  router.get('/health', async (ctx) => {
    const tables = deps.engine.engine.tables().map((t) => ({
      kind: t.kind,
      checksum: t.checksum,
      built_at: t.built_at,
      source_date: t.source_date,
      bytes: t.bytes,
      sources: t.meta.sources.map(dataSourceOf),
    }));
    const storeHealthy = await deps.store.healthy().catch(() => false);
    // Degraded still serves lookups: 200, so a load balancer keeps the instance in rotation.
    const status = storeHealthy ? 'ok' : deps.store.degraded?.() ? 'degraded' : 'unavailable';
    sendJson(ctx, status === 'unavailable' ? 503 : 200, {
      success: storeHealthy,
      status,
      tables,
      data: dataStatus(deps),
      store: { kind: deps.store.kind, healthy: storeHealthy },
      transport: deps.transport ?? null,
    });
  });

  router.get('/metrics', async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });

  router.get('/openapi.json', (ctx) => sendJson(ctx, 200, openApiDocument()));

  demoRoutes(router);

  return router;
}
