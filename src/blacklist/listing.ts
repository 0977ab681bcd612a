/**
 * The blacklist's data as the stores take and give it: a report in, the listing of an address and
 * the exported rows out. Store-agnostic; the stores (src/store), the blacklist's own modules and
 * the records all use these shapes.
 */
import type { ThreatType } from './threatTypes.js';

export interface ReportInput {
  /** canonical address text (src/blacklist/address.ts); the caller refuses reserved space */
  ip: string;
  /** who reports: the reporting account's id (distinct reporters are distinct accounts) */
  reporter: string;
  threat_type: ThreatType;
  message: string | null;
  /** the reporting tool or feed, e.g. fail2ban */
  source: string;
  /** when the abuse was seen (not in the future, within the retention window) */
  at: Date;
  /** the engine's country and provider of the address now; kept when this report lists it */
  country_code: string | null;
  isp: string | null;
}

/** One stored report as the paid record shows it. */
interface StoredReport {
  threat_type: ThreatType;
  message: string | null;
  source: string;
  /** epoch ms of the report (the first of merged repeats) */
  created_at: number;
}

/** Everything SPEC 2.4 shows about a listed address, at one instant. */
export interface Listing {
  ip: string;
  threat_type: ThreatType;
  confidence: number;
  /** epoch ms */
  first_seen: number;
  last_seen: number;
  total_reports: number;
  distinct_reporters: number;
  /** the single source of the reports, or `multiple` */
  source: string;
  country_code: string | null;
  isp: string | null;
  /** the most recent reports, newest first, at most the number asked for */
  reports: StoredReport[];
}

export interface ExportFilter {
  /** rows with at least this confidence (0 = every listed address) */
  min_confidence: number;
  /** only this IP version; null: both */
  version: 4 | 6 | null;
  /** only addresses reported within this many ms; null: the whole retention window */
  max_age_ms: number | null;
}

/** One exported address. */
export interface ExportRow {
  ip: string;
  version: 4 | 6;
  threat_type: ThreatType;
  confidence: number;
  total_reports: number;
  /** epoch ms */
  first_seen: number;
  last_seen: number;
}
