/**
 * Prometheus metrics (GET /metrics): requests by endpoint and status, request latency, rejections,
 * the data's age and freshness, and the query-time lookups (reverse DNS, RDAP).
 *
 * The two per-request metrics are counted in plain numbers and handed to prom-client when the
 * registry is scraped: prom-client's own `inc`/`observe` hash their labels on every call, which
 * costs about as much as the whole lookup on the hot path. A request finds its endpoint's series
 * by one map lookup of the route pattern (a constant string) and its status by a number; the
 * requests counter is a prom-client Counter brought up to date in its `collect()` hook; the latency
 * histogram is a metric object of our own that the registry reads like its own histograms (name,
 * help, type, `get()` values). The series are bounded: endpoints are the route patterns (and
 * `unmatched`), statuses are HTTP's.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric, type MetricValue } from 'prom-client';
import type { RdapAbuse } from '../../enrichment/rdapAbuse.js';
import type { ReverseDns } from '../../enrichment/reverseDns.js';
import type { DataStatus } from './dataStatus.js';

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5] as const;

export interface ServiceMetrics {
  registry: Registry;
  /** one answered request of an endpoint (the route pattern), its status and duration */
  observeRequest(endpoint: string, status: number, seconds: number): void;
  rejections: Counter<'reason'>;
}

/**
 * Per endpoint: requests by status not yet handed to the counter, and the latency: counts per
 * bucket (not cumulative; the last one is +Inf), sum and count.
 */
class EndpointSeries {
  /** by status code (HTTP's are three digits) */
  readonly pending = new Float64Array(1000);
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  observe(status: number, seconds: number): void {
    this.pending[status]++;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
    this.buckets[bucket]++;
    this.sum += seconds;
    this.count++;
  }
}

class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames = ['endpoint'];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly endpoints: Map<string, EndpointSeries>,
  ) {}

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
    for (const latency of this.endpoints.values()) {
      latency.buckets.fill(0);
      latency.sum = 0;
      latency.count = 0;
    }
  }
}

/** The update's outcome and each source's age, read from the status file when scraped. */
function dataMetrics(registry: Registry, data: () => DataStatus): void {
  const seconds = (iso: string | null | undefined) => (iso ? Date.parse(iso) / 1000 : NaN);
  new Gauge({
    name: 'netlookup_source_age_seconds',
    help: "Age of each source's data in force (from the publisher's date), by source",
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.reset();
      for (const source of data().sources) if (source.date) this.set({ source: source.id }, Date.now() / 1000 - seconds(source.date));
    },
  });
  new Gauge({
    name: 'netlookup_feed_fresh',
    help: 'Whether each feed of the feed set in force answers now (1) or is past three of its cadences (0), by feed',
    labelNames: ['feed'],
    registers: [registry],
    collect() {
      this.reset();
      for (const feed of data().feeds) this.set({ feed: feed.id }, feed.fresh ? 1 : 0);
    },
  });
  new Gauge({
    name: 'netlookup_update_last_attempt_timestamp_seconds',
    help: 'When the last `netlookup update` finished, by outcome (updated, unchanged, failed, rolled_back)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      const attempt = data().update?.last_attempt;
      if (attempt?.finished_at) this.set({ outcome: attempt.outcome }, seconds(attempt.finished_at));
    },
  });
  new Gauge({
    name: 'netlookup_update_last_success_timestamp_seconds',
    help: 'When an update last ended without failing',
    registers: [registry],
    collect() {
      this.reset();
      const last = data().update?.last_success;
      if (last) this.set(seconds(last));
    },
  });
}

/** What the query-time services (src/enrichment) have counted since the start. */
export interface QueryTimeStats {
  reverseDns: ReturnType<ReverseDns['stats']>;
  rdap: ReturnType<RdapAbuse['stats']>;
}

/** A counter whose series are read, whole, from the services' own counts when scraped. */
function countsCounter(registry: Registry, name: string, help: string, label: string, read: () => Record<string, number>): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, count] of Object.entries(read())) this.inc({ [label]: value }, count);
    },
  });
}

/** Reverse DNS and RDAP: lookups by how they were answered, queries by what the servers said. */
function queryTimeMetrics(registry: Registry, stats: () => QueryTimeStats): void {
  countsCounter(registry, 'netlookup_reverse_dns_lookups_total', 'Reverse DNS lookups by how they were answered', 'outcome', () => {
    const s = stats().reverseDns;
    return { hit: s.hits, miss: s.misses, coalesced: s.coalesced, unsent: s.unsent, expired: s.expired };
  });
  countsCounter(registry, 'netlookup_reverse_dns_queries_total', 'PTR queries sent, by their answer', 'answer', () => {
    const s = stats().reverseDns;
    return { name: s.names, no_name: s.noNames, timeout: s.timeouts, failure: s.failures };
  });
  countsCounter(registry, 'netlookup_rdap_lookups_total', 'RDAP abuse-contact lookups by how they were answered', 'outcome', () => {
    const s = stats().rdap;
    return { hit: s.hits, miss: s.misses, coalesced: s.coalesced, rate_limited: s.rateLimited, busy: s.busy, expired: s.expired };
  });
  countsCounter(registry, 'netlookup_rdap_queries_total', 'RDAP queries sent, by their answer', 'answer', () => {
    const s = stats().rdap;
    return { contact: s.contacts, no_contact: s.noContacts, not_found: s.notFound, timeout: s.timeouts, failure: s.failures };
  });
  new Gauge({
    name: 'netlookup_rdap_cache_ok',
    help: 'Whether the RDAP cache file works (1), or lookups go on without it (0)',
    registers: [registry],
    collect() {
      this.set(stats().rdap.cacheError === null ? 1 : 0);
    },
  });
}

export function createMetrics(data?: () => DataStatus, queryTime?: () => QueryTimeStats): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (data) dataMetrics(registry, data);
  if (queryTime) queryTimeMetrics(registry, queryTime);
  const endpoints = new Map<string, EndpointSeries>();
  new Counter({
    name: 'netlookup_requests_total',
    help: 'Requests by endpoint and HTTP status',
    labelNames: ['endpoint', 'status'],
    registers: [registry],
    collect() {
      for (const [endpoint, series] of endpoints) {
        const { pending } = series;
        for (let status = 0; status < pending.length; status++) {
          if (pending[status] > 0) this.inc({ endpoint, status: String(status) }, pending[status]);
        }
        pending.fill(0);
      }
    },
  });
  const latency = new LatencyHistogram('netlookup_request_duration_seconds', 'Time from request to response, by endpoint', endpoints);
  registry.registerMetric(latency as unknown as Metric);
  return {
    registry,
    observeRequest(endpoint, status, seconds) {
      let series = endpoints.get(endpoint);
      if (series === undefined) endpoints.set(endpoint, (series = new EndpointSeries()));
      series.observe(status, seconds);
    },
    rejections: new Counter({
      name: 'netlookup_quota_rejections_total',
      help: 'Requests refused by the rate limit or the quota',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}
