/**
 * SPEC 2.4 blacklist record: `listed` false and nothing else (but meta) for an address without
 * reports in the retention window; the basic fields on the free plan; everything, with the 20
 * most recent reports, on paid plans. Times are `YYYY-MM-DD HH:MM:SS` UTC.
 */
import { blacklistTime } from '../blacklist/blacklistTime.js';
import type { ThreatType } from '../blacklist/threatTypes.js';
import type { Listing } from '../blacklist/listing.js';
import type { FieldLevel } from './ipRecord.js';

/** SPEC 8.2.7: at most 20 reports. */
export const RECORD_REPORTS = 20;

interface BlacklistNotListed {
  success: true;
  ip: string;
  listed: false;
}

interface BlacklistListedBasic {
  success: true;
  ip: string;
  listed: true;
  threat_type: ThreatType;
  confidence: number;
  last_seen: string;
}

interface BlacklistReportRecord {
  threat_type: ThreatType;
  message: string | null;
  source: string;
  created_at: string;
}

interface BlacklistListedFull extends BlacklistListedBasic {
  total_reports: number;
  distinct_reporters: number;
  first_seen: string;
  source: string;
  country_code: string | null;
  isp: string | null;
  reports: BlacklistReportRecord[];
}

export type BlacklistRecord = BlacklistNotListed | BlacklistListedBasic | BlacklistListedFull;

export function blacklistRecord(ip: string, listing: Listing | null, level: FieldLevel): BlacklistRecord {
  if (listing === null) return { success: true, ip, listed: false };
  const basic: BlacklistListedBasic = {
    success: true,
    ip,
    listed: true,
    threat_type: listing.threat_type,
    confidence: listing.confidence,
    last_seen: blacklistTime(listing.last_seen),
  };
  if (level === 'basic') return basic;
  return {
    ...basic,
    total_reports: listing.total_reports,
    distinct_reporters: listing.distinct_reporters,
    first_seen: blacklistTime(listing.first_seen),
    source: listing.source,
    country_code: listing.country_code,
    isp: listing.isp,
    reports: listing.reports.slice(0, RECORD_REPORTS).map((r) => ({
      threat_type: r.threat_type,
      message: r.message,
      source: r.source,
      created_at: blacklistTime(r.created_at),
    })),
  };
}
