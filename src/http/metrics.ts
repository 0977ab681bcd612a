/**
 * Prometheus metrics (GET /metrics): requests by endpoint and status, request latency, rejections.
 *
 * The two per-request metrics are counted in plain numbers and handed to prom-client when the
 * registry is scraped: prom-client's own `inc`/`observe` hash their labels on every call, which
 * costs about as much as the whole lookup on the hot path. The requests counter is a prom-client
 * Counter brought up to date in its `collect()` hook; the latency histogram is a metric object of
 * our own that the registry reads like its own histograms (name, help, type, `get()` values).
 */
import { Counter, Registry, collectDefaultMetrics, type Metric, type MetricValue } from 'prom-client';

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5] as const;

export interface ServiceMetrics {
  registry: Registry;
  /** one answered request of an endpoint (the route pattern), its status and duration */
  observeRequest(endpoint: string, status: number, seconds: number): void;
  rejections: Counter<'reason'>;
}

/** Per endpoint: counts per bucket (not cumulative; the last one is +Inf), sum and count. */
interface EndpointLatency {
  buckets: Float64Array;
  sum: number;
  count: number;
}

class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames = ['endpoint'];
  private readonly endpoints = new Map<string, EndpointLatency>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  observe(endpoint: string, seconds: number): void {
    let latency = this.endpoints.get(endpoint);
    if (latency === undefined)
      this.endpoints.set(endpoint, (latency = { buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 }));
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
    latency.buckets[bucket]++;
    latency.sum += seconds;
    latency.count++;
  }

  /** The values as prom-client's Histogram gives them: cumulative buckets, then sum and count. */
  async get() {
    const values: (MetricValue<string> & { metricName: string })[] = [];
    for (const [endpoint, latency] of this.endpoints) {
      let cumulative = 0;
      for (let i = 0; i <= LATENCY_BUCKETS.length; i++) {
        cumulative += latency.buckets[i];
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { le: i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i] : '+Inf', endpoint },
          value: cumulative,
        });
      }
      values.push({ metricName: `${this.name}_sum`, labels: { endpoint }, value: latency.sum });
      values.push({ metricName: `${this.name}_count`, labels: { endpoint }, value: latency.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.endpoints.clear();
  }
}

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  /** counts since the last scrape, by `${endpoint} ${status}` */
  const pending = new Map<string, { endpoint: string; status: string; count: number }>();
  new Counter({
    name: 'netlookup_requests_total',
    help: 'Requests by endpoint and HTTP status',
    labelNames: ['endpoint', 'status'],
    registers: [registry],
    collect() {
      for (const series of pending.values()) {
        if (series.count > 0) this.inc({ endpoint: series.endpoint, status: series.status }, series.count);
        series.count = 0;
      }
    },
  });
  const latency = new LatencyHistogram('netlookup_request_duration_seconds', 'Time from request to response, by endpoint');
  registry.registerMetric(latency as unknown as Metric);
  return {
    registry,
    observeRequest(endpoint, status, seconds) {
      const key = `${endpoint} ${status}`;
      let series = pending.get(key);
      if (series === undefined) pending.set(key, (series = { endpoint, status: String(status), count: 0 }));
      series.count++;
      latency.observe(endpoint, seconds);
    },
    rejections: new Counter({
      name: 'netlookup_quota_rejections_total',
      help: 'Requests refused by the rate limit or the quota',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}
