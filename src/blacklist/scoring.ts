/**
 * Confidence of a listed address, 0–100 (SPEC 2.4 "grows with number and spread of reports"),
 * computed at read time so that it decays with age without any rewrite:
 *
 *   w(t)   = 2^(−age(t) / H)                         weight of a report made at t, H = 14 days
 *   R      = Σ over distinct reporters of w(their latest report)
 *   N      = Σ over all reports of w(report)          (N ≥ R: each reporter's latest is a report)
 *   E      = R + β · min(N − R, R)                    β = 0.25: repeats count a quarter, and all
 *                                                     repeats together at most a quarter of R
 *   confidence = round(100 · (1 − e^(−E / 2)))
 *
 * Only reports within the retention window count. One fresh report scores 39, two reporters 63,
 * five 92; a single report 30 days old scores 11, 90 days old 1. A reporter is an account and report
 * times are arrival times, so one account alone, however many reports or keys it uses, has R ≤ 1
 * and E ≤ 1.25: it never lifts an address above SINGLE_REPORTER_CEILING (46), which stays under
 * the export's default threshold. Only more accounts raise it further. No added report lowers E,
 * and one from a new reporter raises it at least as much as a repeat; a more recent report weighs
 * more; the result stays in 0–100.
 *
 * Sums of w are kept anchored at the latest report time L (Σ 2^((t − L)/H)), so that at read time
 * N = N_L · 2^(−(now − L)/H): one power per read, whatever the number of reports.
 */

export const HALF_LIFE_MS = 14 * 24 * 3600 * 1000;
export const REPEAT_WEIGHT = 0.25;
/** The highest confidence the reports of one reporter alone reach: round(100 · (1 − e^(−1.25 / 2))). */
export const SINGLE_REPORTER_CEILING = 46;
/** The export's default min_confidence: above the single-reporter ceiling, so one account's word alone is never exported by default. */
export const DEFAULT_EXPORT_MIN_CONFIDENCE = 50;
const EVIDENCE_SCALE = 2;
export const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_RETENTION_DAYS = 90;
/** One reporter's repeats for one address within this span merge into one report. */
export const MERGE_WINDOW_MS = 15 * 60 * 1000;

/** Weight of a report made at `at` seen from `reference` (no weight above 1 for clock skew). */
export function reportWeight(at: number, reference: number): number {
  return Math.pow(2, -Math.max(0, reference - at) / HALF_LIFE_MS);
}

/** Confidence from the anchored sums (see above): N_L and R_L at anchor L, read at `now`. */
export function confidenceOf(reportsAtAnchor: number, reportersAtAnchor: number, anchor: number, now: number): number {
  const decay = reportWeight(anchor, now);
  const repeats = Math.min(reportsAtAnchor - reportersAtAnchor, reportersAtAnchor);
  const evidence = (reportersAtAnchor + REPEAT_WEIGHT * repeats) * decay;
  return Math.round(100 * (1 - Math.exp(-evidence / EVIDENCE_SCALE)));
}

/** The same from plain report lists: times of all reports and of each reporter's latest. */
export function confidenceOfReports(reportTimes: readonly number[], reporterLatest: readonly number[], now: number): number {
  if (reportTimes.length === 0) return 0;
  const anchor = Math.max(...reportTimes);
  let n = 0;
  let r = 0;
  for (const t of reportTimes) n += reportWeight(t, anchor);
  for (const t of reporterLatest) r += reportWeight(t, anchor);
  return confidenceOf(n, r, anchor, now);
}
