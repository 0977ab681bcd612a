/**
 * The aggregates of one address over its reports within the retention window: what scoring
 * (scoring.ts) and the IP record's threat facts need, kept by a store per listed address.
 */
import type { Listing } from './listing.js';
import { confidenceOf, reportWeight } from './scoring.js';
import type { ThreatType } from './threatTypes.js';

/** A stored report as aggregation sees it (times in epoch ms). */
export interface ReportTimes {
  reporter: string;
  threat_type: ThreatType;
  /** first of the merged repeats */
  created_at: number;
  /** latest of the merged repeats: the report's age counts from here */
  last_at: number;
}

export interface Aggregate {
  /** epoch ms of the latest report: the anchor of the sums */
  lastAt: number;
  /** epoch ms of the earliest report counted (first seen) */
  oldestAt: number;
  reports: number;
  reporters: number;
  /** Σ report weights at the anchor */
  reportsAtAnchor: number;
  /** Σ distinct reporters' latest report weights at the anchor */
  reportersAtAnchor: number;
  /** the most reported type; a tie goes to the type reported last */
  threatType: ThreatType;
}

export function aggregateReports(rows: readonly ReportTimes[]): Aggregate | null {
  if (rows.length === 0) return null;
  let lastAt = -Infinity;
  let oldestAt = Infinity;
  const latestByReporter = new Map<string, number>();
  const byType = new Map<ThreatType, { n: number; last: number }>();
  for (const row of rows) {
    if (row.last_at > lastAt) lastAt = row.last_at;
    if (row.created_at < oldestAt) oldestAt = row.created_at;
    const latest = latestByReporter.get(row.reporter);
    if (latest === undefined || row.last_at > latest) latestByReporter.set(row.reporter, row.last_at);
    const type = byType.get(row.threat_type);
    if (type === undefined) byType.set(row.threat_type, { n: 1, last: row.last_at });
    else {
      type.n++;
      if (row.last_at > type.last) type.last = row.last_at;
    }
  }
  let reportsAtAnchor = 0;
  for (const row of rows) reportsAtAnchor += reportWeight(row.last_at, lastAt);
  let reportersAtAnchor = 0;
  for (const latest of latestByReporter.values()) reportersAtAnchor += reportWeight(latest, lastAt);
  let threatType: ThreatType = rows[0].threat_type;
  let best = { n: 0, last: -Infinity };
  for (const [type, counts] of byType) {
    if (counts.n > best.n || (counts.n === best.n && counts.last > best.last)) {
      best = counts;
      threatType = type;
    }
  }
  return { lastAt, oldestAt, reports: rows.length, reporters: latestByReporter.size, reportsAtAnchor, reportersAtAnchor, threatType };
}

/** A stored report as a listing shows it. */
export interface ListedReport extends ReportTimes {
  /** the store's order of insertion: ties of created_at show the later report first */
  id: number;
  message: string | null;
  source: string;
}

/** The listing of an address (SPEC 2.4) from its reports within the window at `nowMs`; null when none. */
export function listingOf(
  ip: string,
  rows: readonly ListedReport[],
  place: { country_code: string | null; isp: string | null },
  nowMs: number,
  reportLimit: number,
): Listing | null {
  const aggregate = aggregateReports(rows);
  if (aggregate === null) return null;
  const sources = new Set(rows.map((r) => r.source));
  const recent = [...rows].sort((a, b) => b.created_at - a.created_at || b.id - a.id).slice(0, Math.max(0, reportLimit));
  return {
    ip,
    threat_type: aggregate.threatType,
    confidence: confidenceOf(aggregate.reportsAtAnchor, aggregate.reportersAtAnchor, aggregate.lastAt, nowMs),
    first_seen: aggregate.oldestAt,
    last_seen: aggregate.lastAt,
    total_reports: aggregate.reports,
    distinct_reporters: aggregate.reporters,
    source: sources.size === 1 ? rows[0].source : 'multiple',
    country_code: place.country_code,
    isp: place.isp,
    reports: recent.map((r) => ({ threat_type: r.threat_type, message: r.message, source: r.source, created_at: r.created_at })),
  };
}
