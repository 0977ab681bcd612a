/** Prometheus metrics (GET /metrics): requests by endpoint and status, lookup latency, rejections. */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ServiceMetrics {
  registry: Registry;
  requests: Counter<'endpoint' | 'status'>;
  latency: Histogram<'endpoint'>;
  rejections: Counter<'reason'>;
}

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({ name: 'netlookup_requests_total', help: 'Requests by endpoint and HTTP status', labelNames: ['endpoint', 'status'], registers: [registry] }),
    latency: new Histogram({
      name: 'netlookup_request_duration_seconds',
      help: 'Time from request to response, by endpoint',
      labelNames: ['endpoint'],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers: [registry],
    }),
    rejections: new Counter({ name: 'netlookup_quota_rejections_total', help: 'Requests refused by the rate limit or the quota', labelNames: ['reason'], registers: [registry] }),
  };
}
