/**
 * The blacklist of the embedded store (BlacklistStore on SQLite), composed into SqliteStore on
 * the same connection. Reports are rows; each report is its own immediate transaction (or one
 * transaction per batch of an import), so concurrent reporters lose nothing and merge exactly.
 *
 * Reads of threat facts come from an in-memory ThreatIndex of every listed address, loaded at
 * open and updated by every write. Changes made by another connection (the CLI importing while
 * the server runs) are found through `PRAGMA data_version` and the change counter: each change
 * stamps its address with the next `blacklist_state.seq`, and the addresses stamped after the
 * last refresh are read again. That check runs on every write, export and listing and once a
 * second, never on the threat-facts hot path.
 *
 * Reports that leave the retention window stop counting at once at read time (an aggregate whose
 * oldest report left the window is recomputed from SQLite); purgeExpired only reclaims space.
 *
 * A reporter's own reports (the dashboard) are read through the (reporter, last_at) index; their
 * id is the row id. Withdrawing one changes its address as deleting the address does: a new
 * change counter value, and the address's entry in the index read again from what is left.
 *
 * The keyless legacy daily counters are kept in memory and written every second and at close,
 * like the usage counters: a crash loses at most a second of counts.
 */
import type Database from 'better-sqlite3';
import { parseBlacklistAddress, type BlacklistAddress } from '../../blacklist/address.js';
import { formatIPv4, formatIPv6 } from '../../address/ipAddress.js';
import { aggregateReports, listingOf, type ReportTimes } from '../../blacklist/aggregate.js';
import { blacklistTime } from '../../blacklist/blacklistTime.js';
import type { ExportFilter, ExportRow, Listing, ReportInput } from '../../blacklist/listing.js';
import { confidenceOf, DAY_MS, DEFAULT_RETENTION_DAYS, MERGE_WINDOW_MS } from '../../blacklist/scoring.js';
import { NO_THREAT_FACTS, type ThreatFacts } from '../../blacklist/threatFacts.js';
import type {
  BlacklistPolicy,
  BlacklistStore,
  BlacklistVersion,
  DailyAllowance,
  ReporterReportPage,
  ReportOutcome,
} from '../blacklistStore.js';
import { checkedReportsPage, exportSince, reporterReportOf } from '../blacklistStore.js';
import { dayKey, nextDayReset } from '../quotaPeriod.js';
import { SlidingRateWindow } from '../rateWindow.js';
import { ThreatIndex } from './threatIndex.js';
import type { Guard } from './sqliteGuard.js';
import type { OtherWriters } from './otherWriters.js';

export interface SqliteBlacklistOptions {
  /** the retention window in days (default 90) */
  retentionDays?: number;
}

interface ReportRow extends ReportTimes {
  id: number;
  message: string | null;
  source: string;
}

const EXPORT_CHUNK = 1024;
const NO_WORDS = new Uint32Array(0);
const IMPORT_BATCH = 500;
const DAILY_CACHE_LIMIT = 100_000;
/** Rows of days past deleted per timer tick: the purge never holds the event loop for long. */
const DAILY_PURGE_BATCH = 1000;

interface DailyCount {
  day: string;
  count: number;
  unflushed: number;
}

export class SqliteBlacklist implements BlacklistStore {
  readonly policy: BlacklistPolicy;
  /** the in-memory index of listed addresses (exposed for the bench's memory figures) */
  readonly index = new ThreatIndex();
  private readonly sql: ReturnType<typeof prepareStatements>;
  private readonly reportWindows = new Map<number, SlidingRateWindow>();
  private readonly daily = new Map<string, DailyCount>();
  /** keys of `daily` with counts not yet written: the flush visits these only */
  private readonly dailyPending = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  /** the other connections' changes taken in (their addresses read again) */
  private changesTaken = 0;
  /** every change up to this counter value is in the index */
  private refreshedSeq: number;

  constructor(
    private readonly db: Database.Database,
    private readonly guard: Guard,
    private readonly otherWriters: OtherWriters,
    options: SqliteBlacklistOptions = {},
  ) {
    const days = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
    if (!(days > 0)) throw new RangeError('the blacklist retention must be a positive number of days');
    this.policy = { retentionMs: days * DAY_MS };
    this.sql = prepareStatements(db);
    this.refreshedSeq = this.sql.state.get()!.seq;
    this.loadIndex();
    this.timer = setInterval(() => {
      try {
        this.refreshIfChangedElsewhere();
        this.flushDaily();
        this.purgeDaily(new Date());
      } catch {
        // Retried next second; a write that needs the database reports the failure itself.
      }
    }, 1000);
    this.timer.unref();
  }

  /** Writes the pending daily counts and stops the timer; the connection stays SqliteStore's. */
  close(): void {
    clearInterval(this.timer);
    this.flushDaily();
  }

  async report(input: ReportInput, now: Date): Promise<ReportOutcome> {
    return this.guard('save report', () => {
      this.refreshIfChangedElsewhere();
      const merged = this.write(() => this.saveReport(input, now.getTime()));
      // The index follows the committed state only: a failed commit leaves it as it was.
      return { merged, facts: this.factsAfterWrite(input.ip, now.getTime()) };
    });
  }

  async reportMany(inputs: readonly ReportInput[], now: Date): Promise<ReportOutcome[]> {
    const outcomes: ReportOutcome[] = [];
    for (let start = 0; start < inputs.length; start += IMPORT_BATCH) {
      const batch = inputs.slice(start, start + IMPORT_BATCH);
      this.guard('save reports', () => {
        this.refreshIfChangedElsewhere();
        const merged = this.write(() => batch.map((input) => this.saveReport(input, now.getTime())));
        const facts = new Map<string, ThreatFacts>();
        for (const input of batch) if (!facts.has(input.ip)) facts.set(input.ip, this.factsAfterWrite(input.ip, now.getTime()));
        batch.forEach((input, i) => outcomes.push({ merged: merged[i], facts: facts.get(input.ip)! }));
      });
      // Let the event loop breathe between batches (a server sharing this store keeps answering).
      await new Promise((resolve) => setImmediate(resolve));
    }
    return outcomes;
  }

  threatFacts(address: BlacklistAddress, now: Date): ThreatFacts {
    this.noticeOtherWriters();
    const id = address.v4 >= 0 ? this.index.find4(address.v4) : this.index.find6(address.words);
    if (id < 0) return NO_THREAT_FACTS;
    return this.factsOf(address, id, now.getTime());
  }

  async listing(address: BlacklistAddress, now: Date, reportLimit: number): Promise<Listing | null> {
    return this.guard('read listing', () => {
      this.refreshIfChangedElsewhere();
      const nowMs = now.getTime();
      const rows = this.sql.reportsOf.all(address.text, nowMs - this.policy.retentionMs);
      if (rows.length === 0) return null;
      const place = this.sql.address.get(address.text);
      return listingOf(address.text, rows, { country_code: place?.country_code ?? null, isp: place?.isp ?? null }, nowMs, reportLimit);
    });
  }

  async *exportRows(filter: ExportFilter, now: Date): AsyncIterable<ExportRow[]> {
    const nowMs = now.getTime();
    const since = exportSince(filter, this.policy, nowMs);
    this.guard('export', () => this.refreshIfChangedElsewhere());
    const recent = (id: number) => this.index.lastAt[id] >= since;
    const index = this.index;
    const rowOf = (address: BlacklistAddress): ExportRow | null => {
      let id = address.v4 >= 0 ? index.find4(address.v4) : index.find6(address.words);
      if (id < 0 || index.lastAt[id] < since) return null;
      if (index.oldestSec[id] * 1000 < nowMs - this.policy.retentionMs) id = this.reindex(address, nowMs - this.policy.retentionMs);
      if (id < 0) return null;
      const confidence = confidenceOf(index.reportsAtAnchor[id], index.reportersAtAnchor[id], index.lastAt[id], nowMs);
      if (confidence < filter.min_confidence) return null;
      return {
        ip: address.text,
        version: address.v4 >= 0 ? 4 : 6,
        threat_type: index.threatType(id),
        confidence,
        total_reports: index.reports[id],
        first_seen: index.oldestSec[id] * 1000,
        last_seen: index.lastAt[id],
      };
    };
    if (filter.version !== 6) {
      const keys = this.index.keys4(recent).sort();
      for (let start = 0; start < keys.length; start += EXPORT_CHUNK) {
        const rows = this.guard('export', () => {
          const out: ExportRow[] = [];
          for (const key of keys.subarray(start, start + EXPORT_CHUNK)) {
            const row = rowOf({ text: formatIPv4(key), v4: key, words: NO_WORDS });
            if (row) out.push(row);
          }
          return out;
        });
        if (rows.length > 0) yield rows;
      }
    }
    if (filter.version !== 4) {
      const words = this.index.keys6(recent);
      const order = Array.from({ length: words.length / 4 }, (_, i) => i).sort((a, b) => compareWords(words, a, b));
      for (let start = 0; start < order.length; start += EXPORT_CHUNK) {
        const rows = this.guard('export', () => {
          const out: ExportRow[] = [];
          for (const i of order.slice(start, start + EXPORT_CHUNK)) {
            const key = words.slice(4 * i, 4 * i + 4);
            const row = rowOf({ text: formatIPv6(key), v4: -1, words: key });
            if (row) out.push(row);
          }
          return out;
        });
        if (rows.length > 0) yield rows;
      }
    }
  }

  async version(): Promise<BlacklistVersion> {
    return this.guard('read blacklist version', () => {
      const state = this.sql.state.get()!;
      return { seq: state.seq, changed_at: state.changed_at };
    });
  }

  async deleteAddress(address: BlacklistAddress, now: Date): Promise<number> {
    return this.guard('delete reports', () => {
      this.refreshIfChangedElsewhere();
      const deleted = this.write(() => {
        const n = this.sql.deleteReports.run(address.text).changes;
        if (n > 0)
          this.sql.touchAddress.run({ ip: address.text, country_code: null, isp: null, seq: this.sql.nextSeq.get(now.getTime())! });
        return n;
      });
      this.index.delete(address.v4, address.words);
      return deleted;
    });
  }

  async reportsBy(reporter: string, page: { offset: number; limit: number }, now: Date): Promise<ReporterReportPage> {
    const { offset, limit } = checkedReportsPage(page);
    const since = now.getTime() - this.policy.retentionMs;
    // One read transaction: the total and the page agree even while another connection writes.
    return this.guard('read reports', () =>
      this.db.transaction(() => ({
        total: this.sql.reporterCount.get(reporter, since)!,
        reports: this.sql.reporterReports
          .all(reporter, since, limit, offset)
          .map((row) => reporterReportOf(String(row.id), row.ip, row, row.repeats)),
      }))(),
    );
  }

  async withdrawReport(reporter: string, reportId: string, now: Date): Promise<boolean> {
    // The id is the row id, in the decimal form reportsBy gives; anything else names no report.
    if (!/^[1-9][0-9]{0,14}$/.test(reportId)) return false;
    const nowMs = now.getTime();
    return this.guard('withdraw report', () => {
      this.refreshIfChangedElsewhere();
      const ip = this.write(() => {
        const withdrawn = this.sql.withdrawReport.get(Number(reportId), reporter, nowMs - this.policy.retentionMs);
        if (withdrawn !== undefined)
          this.sql.touchAddress.run({ ip: withdrawn, country_code: null, isp: null, seq: this.sql.nextSeq.get(nowMs)! });
        return withdrawn;
      });
      if (ip === undefined) return false;
      // The address's other reports, if any are left in the window, make its entry again.
      this.reindex(parseBlacklistAddress(ip)!, nowMs - this.policy.retentionMs);
      return true;
    });
  }

  async purgeExpired(now: Date): Promise<number> {
    const cutoff = now.getTime() - this.policy.retentionMs;
    let purged = 0;
    // In slices, so that a big purge never holds the write lock for long.
    for (;;) {
      const n = this.guard('purge reports', () => this.sql.purgeReports.run(cutoff).changes);
      purged += n;
      if (n === 0) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.guard('purge addresses', () => this.sql.purgeAddresses.run());
    const expired = (id: number) => this.index.lastAt[id] < cutoff;
    for (const key of this.index.keys4(expired)) this.index.delete(key, []);
    const words = this.index.keys6(expired);
    for (let at = 0; at < words.length; at += 4) this.index.delete(-1, words.subarray(at, at + 4));
    return purged;
  }

  async admitReport(reporter: string, limit: number, windowMs: number, now: Date): Promise<boolean> {
    let window = this.reportWindows.get(windowMs);
    if (window === undefined) this.reportWindows.set(windowMs, (window = new SlidingRateWindow(windowMs)));
    return window.tryAdmit(reporter, limit, now.getTime());
  }

  async countDaily(bucket: string, client: string, limit: number, now: Date): Promise<DailyAllowance> {
    const day = dayKey(now);
    const key = `${bucket}\u0000${client}`;
    let entry = this.daily.get(key);
    if (entry === undefined || entry.day !== day) {
      // The entry's counts of another day go to SQLite before it is replaced: its own row only, so
      // the first request of a day costs the same however many clients came the day before. A full
      // cache is written out and emptied, once per DAILY_CACHE_LIMIT new entries.
      if (entry !== undefined && entry.unflushed !== 0) this.flushDailyEntry(key, entry);
      if (entry === undefined && this.daily.size >= DAILY_CACHE_LIMIT) this.flushDaily(true);
      const stored = this.guard('read daily counter', () => this.sql.dailyCount.get(bucket, client, day));
      entry = { day, count: stored ?? 0, unflushed: 0 };
      this.daily.set(key, entry);
    }
    const allowed = entry.count < limit;
    if (allowed) {
      entry.count++;
      entry.unflushed++;
      this.dailyPending.add(key);
    }
    return { allowed, used: entry.count, limit, resets_at: nextDayReset(now) };
  }

  async uncountDaily(bucket: string, client: string, now: Date): Promise<void> {
    const key = `${bucket}\u0000${client}`;
    const entry = this.daily.get(key);
    // Only today's entry: a count of another day (or one already written out and replaced) stays.
    if (entry === undefined || entry.day !== dayKey(now) || entry.count === 0) return;
    entry.count--;
    entry.unflushed--;
    this.dailyPending.add(key);
  }

  // Internals

  /** Saves one report inside the caller's transaction; true when it merged into an earlier one. */
  private saveReport(input: ReportInput, nowMs: number): boolean {
    const at = input.at.getTime();
    const candidate = this.sql.mergeCandidate.get({
      ip: input.ip,
      reporter: input.reporter,
      from: at - MERGE_WINDOW_MS,
      to: at + MERGE_WINDOW_MS,
      at,
    });
    const listedBefore = this.sql.reportedSince.get(input.ip, nowMs - this.policy.retentionMs) !== undefined;
    const seq = this.sql.nextSeq.get(nowMs)!;
    if (candidate !== undefined) {
      this.sql.mergeReport.run({ id: candidate, at, message: input.message });
    } else {
      this.sql.insertReport.run({ ...input, created_at: at, last_at: at });
    }
    // The country and provider at listing time: captured when this report lists the address.
    (listedBefore ? this.sql.touchAddress : this.sql.listAddress).run({
      ip: input.ip,
      country_code: input.country_code,
      isp: input.isp,
      seq,
    });
    return candidate !== undefined;
  }

  /** Reads a written address's reports into the index; its facts now. */
  private factsAfterWrite(ip: string, nowMs: number): ThreatFacts {
    const address = parseBlacklistAddress(ip)!;
    const id = this.reindex(address, nowMs - this.policy.retentionMs);
    return id < 0 ? NO_THREAT_FACTS : this.factsOf(address, id, nowMs);
  }

  /**
   * Runs a write transaction (each change in it takes the next change counter value). When no
   * other connection wrote since the last refresh, the index stays known complete after the commit.
   */
  private write<T>(work: () => T): T {
    let from = 0;
    let to = 0;
    const result = this.db
      .transaction(() => {
        from = this.sql.state.get()!.seq;
        const value = work();
        to = this.sql.state.get()!.seq;
        return value;
      })
      .immediate();
    if (from === this.refreshedSeq) this.refreshedSeq = to;
    return result;
  }

  /** Recomputes an address's aggregate from its reports since `since` (ms); its entry id or -1. */
  private reindex(address: BlacklistAddress, since: number): number {
    const aggregate = aggregateReports(this.sql.reportsOf.all(address.text, since));
    if (aggregate === null) {
      this.index.delete(address.v4, address.words);
      return -1;
    }
    this.index.set(address.v4, address.words, aggregate);
    return address.v4 >= 0 ? this.index.find4(address.v4) : this.index.find6(address.words);
  }

  private factsOf(address: BlacklistAddress, entry: number, nowMs: number): ThreatFacts {
    const cutoff = nowMs - this.policy.retentionMs;
    const index = this.index;
    if (index.lastAt[entry] < cutoff) return NO_THREAT_FACTS;
    let id = entry;
    // Its oldest report left the window: the counts and sums change, read them again.
    if (index.oldestSec[id] * 1000 < cutoff) id = this.guard('read reports', () => this.reindex(address, cutoff));
    if (id < 0) return NO_THREAT_FACTS;
    return {
      is_threat: true,
      threat_type: index.threatType(id),
      threat_confidence: confidenceOf(index.reportsAtAnchor[id], index.reportersAtAnchor[id], index.lastAt[id], nowMs),
      threat_reports: index.reports[id],
      threat_last_seen: blacklistTime(index.lastAt[id]),
    };
  }

  /** Every stored report, grouped by address, into the index (at open). */
  private loadIndex(): void {
    this.guard('load blacklist', () => {
      let ip: string | null = null;
      let rows: ReportTimes[] = [];
      const flush = () => {
        const address = ip === null ? null : parseBlacklistAddress(ip);
        const aggregate = aggregateReports(rows);
        if (address && aggregate) this.index.set(address.v4, address.words, aggregate);
      };
      for (const row of this.sql.allReports.iterate()) {
        if (row.ip !== ip) {
          flush();
          ip = row.ip;
          rows = [];
        }
        rows.push(row);
      }
      flush();
    });
  }

  /**
   * A report saved by another worker or the CLI reaches the lookups here within a millisecond
   * (the next lookup after it refreshes), not at the next timer tick.
   */
  private noticeOtherWriters(): void {
    const changes = this.otherWriters.changesLately();
    if (changes === this.changesTaken) return;
    try {
      this.refreshChanged();
      this.changesTaken = changes;
    } catch {
      // The index stays as it was; the timer, and the next write or listing, try again.
    }
  }

  /** Reads again the addresses another connection changed since the last refresh. */
  private refreshIfChangedElsewhere(): void {
    const changes = this.otherWriters.changesNow();
    if (changes === this.changesTaken) return;
    this.refreshChanged();
    this.changesTaken = changes;
  }

  private refreshChanged(): void {
    const upTo = this.sql.state.get()!.seq;
    if (upTo === this.refreshedSeq) return;
    for (const ip of this.sql.changedSince.all(this.refreshedSeq, upTo)) {
      const address = parseBlacklistAddress(ip);
      // Every report counts until a read with its own clock finds the oldest outside the window.
      if (address) this.reindex(address, -Infinity);
    }
    this.refreshedSeq = upTo;
  }

  private flushDaily(clear = false): void {
    const pending = [...this.dailyPending].flatMap((key) => {
      const entry = this.daily.get(key);
      return entry && entry.unflushed !== 0 ? [[key, entry] as const] : [];
    });
    if (pending.length > 0) {
      this.guard('write daily counters', () =>
        this.db
          .transaction(() => {
            for (const [key, entry] of pending) this.writeDaily(key, entry);
          })
          .immediate(),
      );
      for (const [, entry] of pending) entry.unflushed = 0;
    }
    this.dailyPending.clear();
    if (clear) this.daily.clear();
  }

  private flushDailyEntry(key: string, entry: DailyCount): void {
    this.guard('write daily counter', () => this.writeDaily(key, entry));
    entry.unflushed = 0;
    this.dailyPending.delete(key);
  }

  private writeDaily(key: string, entry: DailyCount): void {
    const [bucket, client] = key.split('\u0000');
    this.sql.addDaily.run(bucket, client, entry.day, entry.unflushed);
  }

  /** Deletes a batch of counter rows of days before yesterday (a reset answers no question about them). */
  private purgeDaily(now: Date): void {
    this.sql.purgeDaily.run(dayKey(new Date(now.getTime() - DAY_MS)), DAILY_PURGE_BATCH);
  }
}

function compareWords(words: Uint32Array, a: number, b: number): number {
  for (let i = 0; i < 4; i++) {
    const d = words[4 * a + i] - words[4 * b + i];
    if (d !== 0) return d;
  }
  return 0;
}

function prepareStatements(db: Database.Database) {
  return {
    state: db.prepare<[], { seq: number; changed_at: number | null }>('SELECT seq, changed_at FROM blacklist_state WHERE id = 1'),
    nextSeq: db.prepare<[number], number>('UPDATE blacklist_state SET seq = seq + 1, changed_at = ? WHERE id = 1 RETURNING seq').pluck(),
    mergeCandidate: db
      .prepare<[{ ip: string; reporter: string; from: number; to: number; at: number }], number>(
        'SELECT id FROM blacklist_reports WHERE ip = @ip AND reporter = @reporter AND created_at BETWEEN @from AND @to ORDER BY abs(created_at - @at), id LIMIT 1',
      )
      .pluck(),
    reportedSince: db.prepare<[string, number], number>('SELECT 1 FROM blacklist_reports WHERE ip = ? AND last_at >= ? LIMIT 1').pluck(),
    insertReport: db.prepare(
      'INSERT INTO blacklist_reports (ip, reporter, threat_type, message, source, created_at, last_at) VALUES (@ip, @reporter, @threat_type, @message, @source, @created_at, @last_at)',
    ),
    mergeReport: db.prepare(
      'UPDATE blacklist_reports SET repeats = repeats + 1, created_at = min(created_at, @at), last_at = max(last_at, @at), message = coalesce(message, @message) WHERE id = @id',
    ),
    listAddress: db.prepare(
      'INSERT INTO blacklist_addresses (ip, country_code, isp, seq) VALUES (@ip, @country_code, @isp, @seq) ON CONFLICT (ip) DO UPDATE SET country_code = excluded.country_code, isp = excluded.isp, seq = excluded.seq',
    ),
    touchAddress: db.prepare(
      'INSERT INTO blacklist_addresses (ip, country_code, isp, seq) VALUES (@ip, @country_code, @isp, @seq) ON CONFLICT (ip) DO UPDATE SET seq = excluded.seq',
    ),
    reportsOf: db.prepare<[string, number], ReportRow>(
      'SELECT id, reporter, threat_type, message, source, created_at, last_at FROM blacklist_reports WHERE ip = ? AND last_at >= ?',
    ),
    address: db.prepare<[string], { country_code: string | null; isp: string | null }>(
      'SELECT country_code, isp FROM blacklist_addresses WHERE ip = ?',
    ),
    allReports: db.prepare<[], ReportTimes & { ip: string }>(
      'SELECT ip, reporter, threat_type, created_at, last_at FROM blacklist_reports ORDER BY ip',
    ),
    changedSince: db.prepare<[number, number], string>('SELECT ip FROM blacklist_addresses WHERE seq > ? AND seq <= ?').pluck(),
    deleteReports: db.prepare<[string]>('DELETE FROM blacklist_reports WHERE ip = ?'),
    reporterCount: db
      .prepare<[string, number], number>('SELECT count(*) FROM blacklist_reports WHERE reporter = ? AND last_at >= ?')
      .pluck(),
    reporterReports: db.prepare<[string, number, number, number], ReportRow & { ip: string; repeats: number }>(
      'SELECT id, ip, reporter, threat_type, message, source, created_at, last_at, repeats FROM blacklist_reports WHERE reporter = ? AND last_at >= ? ORDER BY last_at DESC, id DESC LIMIT ? OFFSET ?',
    ),
    withdrawReport: db
      .prepare<[number, string, number], string>(
        'DELETE FROM blacklist_reports WHERE id = ? AND reporter = ? AND last_at >= ? RETURNING ip',
      )
      .pluck(),
    purgeReports: db.prepare<[number]>(
      'DELETE FROM blacklist_reports WHERE id IN (SELECT id FROM blacklist_reports WHERE last_at < ? LIMIT 10000)',
    ),
    purgeAddresses: db.prepare(
      'DELETE FROM blacklist_addresses WHERE NOT EXISTS (SELECT 1 FROM blacklist_reports r WHERE r.ip = blacklist_addresses.ip)',
    ),
    dailyCount: db
      .prepare<[string, string, string], number>('SELECT count FROM daily_counters WHERE bucket = ? AND client = ? AND day = ?')
      .pluck(),
    purgeDaily: db.prepare<[string, number]>(
      'DELETE FROM daily_counters WHERE (bucket, client, day) IN (SELECT bucket, client, day FROM daily_counters WHERE day < ? ORDER BY day LIMIT ?)',
    ),
    addDaily: db.prepare(
      'INSERT INTO daily_counters (bucket, client, day, count) VALUES (?, ?, ?, ?) ON CONFLICT (bucket, client, day) DO UPDATE SET count = count + excluded.count',
    ),
  };
}
