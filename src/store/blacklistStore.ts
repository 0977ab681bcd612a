/**
 * The blacklist part of the Store: reports, listings and
 * their aggregates, firewall exports, deletion, report rate limiting and the keyless legacy
 * endpoints' per-client-IP daily counters. Store-agnostic: addresses are canonical text (with
 * their numeric form for stores that index by number), times are Date or epoch ms, and nothing
 * here names SQL or Redis. Every implementation passes test/store/blacklistConformance.ts.
 *
 * Scoring is computed at read time from what the store keeps (src/blacklist/scoring.ts), so that
 * confidence decays and old reports leave the listing without any rewrite or manual job.
 */
import type { BlacklistAddress } from '../blacklist/address.js';
import type { ExportFilter, ExportRow, Listing, ReportInput } from '../blacklist/listing.js';
import type { ThreatType } from '../blacklist/threatTypes.js';
import type { ThreatFacts } from '../blacklist/threatFacts.js';

export interface BlacklistPolicy {
  /** reports older than this leave the listing and the scores (default 90 days) */
  retentionMs: number;
}

export interface ReportOutcome {
  /** the report merged into the same reporter's report of this address within 15 minutes */
  merged: boolean;
  /** the address's facts right after the report */
  facts: ThreatFacts;
}

/** The earliest last report an exported address may have: inside the retention window and the filter's age. */
export function exportSince(filter: ExportFilter, policy: BlacklistPolicy, nowMs: number): number {
  return Math.max(nowMs - policy.retentionMs, filter.max_age_ms === null ? -Infinity : nowMs - filter.max_age_ms);
}

/** What identifies the state of the blacklist for conditional GETs of exports. */
export interface BlacklistVersion {
  /** grows with every change (report, merge, deletion) made through any connection */
  seq: number;
  /** epoch ms of the last change (the `now` given to that write), null when none was ever made */
  changed_at: number | null;
}

export interface DailyAllowance {
  allowed: boolean;
  used: number;
  limit: number;
  /** 00:00 UTC of the next day */
  resets_at: Date;
}

/** One report as its reporter sees it (the dashboard's list of own reports). */
export interface ReporterReport {
  /** opaque, unique in the store: what `withdrawReport` takes */
  id: string;
  /** canonical address text */
  ip: string;
  threat_type: ThreatType;
  message: string | null;
  source: string;
  /** ISO 8601: the first report, and the last one merged into it */
  reported_at: string;
  last_reported_at: string;
  /** reports merged into this one (1: none) */
  count: number;
}

export interface ReporterReportPage {
  total: number;
  reports: ReporterReport[];
}

/** The most reports one page of `reportsBy` holds. */
export const REPORTS_PAGE_LIMIT = 100;

/** A page of `reportsBy` as asked: offset a whole number from 0, limit one from 1 to REPORTS_PAGE_LIMIT, else RangeError. */
export function checkedReportsPage(page: { offset: number; limit: number }): { offset: number; limit: number } {
  if (!Number.isSafeInteger(page.offset) || page.offset < 0) throw new RangeError('offset must be a whole number from 0');
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > REPORTS_PAGE_LIMIT)
    throw new RangeError(`limit must be a whole number from 1 to ${REPORTS_PAGE_LIMIT}`);
  return { offset: page.offset, limit: page.limit };
}

/** A stored report (times in epoch ms) as its reporter's list shows it; `count`: the reports merged into it. */
export function reporterReportOf(
  id: string,
  ip: string,
  report: { threat_type: ThreatType; message: string | null; source: string; created_at: number; last_at: number },
  count: number,
): ReporterReport {
  return {
    id,
    ip,
    threat_type: report.threat_type,
    message: report.message,
    source: report.source,
    reported_at: new Date(report.created_at).toISOString(),
    last_reported_at: new Date(report.last_at).toISOString(),
    count,
  };
}

export interface BlacklistStore {
  readonly policy: BlacklistPolicy;

  /**
   * Saves a report: a repeat by the same reporter for the same address within 15 minutes of that
   * reporter's report merges into it (counted once). Atomic per report: concurrent reports are
   * neither lost nor counted twice. Throws StoreUnavailableError when it cannot be written.
   */
  report(input: ReportInput, now: Date): Promise<ReportOutcome>;

  /** Many reports (bulk import) in batched transactions; outcomes in input order, facts as after the batch that saved them. */
  reportMany(inputs: readonly ReportInput[], now: Date): Promise<ReportOutcome[]>;

  /**
   * The IP record's security facts of an address (SPEC 2.2 is_threat/threat_*): the hot path of
   * every paid IP lookup. May answer synchronously (the embedded store answers from an in-memory
   * index: a not-listed address costs well under a microsecond and touches no database) or with
   * a Promise (a shared store). A not-listed address answers `NO_THREAT_FACTS` (is_threat false).
   */
  threatFacts(address: BlacklistAddress, now: Date): ThreatFacts | Promise<ThreatFacts>;

  /** The full listing of an address (SPEC 2.4), with up to `reportLimit` recent reports; null when not listed. */
  listing(address: BlacklistAddress, now: Date, reportLimit: number): Promise<Listing | null>;

  /**
   * The listed addresses passing the filter, at instant `now`, in ascending address order (all
   * IPv4 before IPv6), in chunks: a list of millions is never built whole.
   */
  exportRows(filter: ExportFilter, now: Date): AsyncIterable<ExportRow[]>;

  /** The change counter and time of the last change, for ETag/Last-Modified of exports. */
  version(): Promise<BlacklistVersion>;

  /** Deletes every report of the address (false-positive review); answers how many were deleted. */
  deleteAddress(address: BlacklistAddress, now: Date): Promise<number>;

  /** The reports a reporter sent that are inside the retention window at `now`, newest (last report) first. */
  reportsBy(reporter: string, page: { offset: number; limit: number }, now: Date): Promise<ReporterReportPage>;

  /**
   * Withdraws one report of this reporter (the dashboard): it leaves the listing and the scores at
   * once, as `deleteAddress` does for all of an address's reports. False when the reporter has no
   * report of that id.
   */
  withdrawReport(reporter: string, reportId: string, now: Date): Promise<boolean>;

  /** Drops reports older than the retention window (space only: reads already ignore them). */
  purgeExpired(now: Date): Promise<number>;

  /** Report rate limit: true (and counted) when the reporter made fewer than `limit` reports in the last `windowMs`. */
  admitReport(reporter: string, limit: number, windowMs: number, now: Date): Promise<boolean>;

  /**
   * The keyless legacy endpoints' daily allowance per client address (`bucket` names the endpoint
   * family): counts this request when under `limit` for the UTC day of `now`.
   */
  countDaily(bucket: string, client: string, limit: number, now: Date): Promise<DailyAllowance>;

  /** Gives back one request counted by `countDaily` the same UTC day (a request that was not served). */
  uncountDaily(bucket: string, client: string, now: Date): Promise<void>;
}
