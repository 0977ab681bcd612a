/**
 * The blacklist of the shared store (BlacklistStore on Redis), composed into RedisStore on the
 * same connection. Key layout (under the store's prefix; `{ip:<address>}` is a hash tag, so one
 * address's keys share a Cluster slot):
 *   bl:{ip:<address>}:reports      hash report id → report JSON (reporter, type, message, source,
 *                                  created_at, last_at, repeats); TTL: retention after its last report
 *   bl:{ip:<address>}:facts        hash next_id, country_code, isp (captured when a report lists it)
 *   bl:index                       sorted set by lex: `4:<8 hex>` / `6:<32 hex>` of every reported
 *                                  address, so exports stream in address order, IPv4 first
 *   bl:last                        sorted set: address → its last report (ms), for purgeExpired
 *   bl:state                       hash seq, changed_at (the export ETag)
 *   bl:{rep:<reporter>}:window:<ms> sorted set: report rate window (TTL window + 10 s)
 *   bl:{rep:<reporter>}:reports    sorted set: `<address>#<report id>` (the report's id for its
 *                                  reporter) → its last report (ms), of the reporter's reports in the
 *                                  retention window; TTL: retention after the newest
 *   bl:daily:<bucket>:<day>:<client> the keyless legacy endpoints' daily counter (TTL: end of day + 1 day;
 *                                  while Redis is away, each process counts on its own)
 *
 * Each report is one script on its address's keys (merging exact under concurrency); the index, the
 * last-report set, the reporter's index and the version are written right after it, then the address
 * is announced to every instance's listed-address set (src/store/redis/redisListedAddresses.ts) before the
 * report answers. A reporter's index loses a report when it is withdrawn or its address deleted,
 * and its reports that left the window at the reporter's next report or by TTL; a member whose
 * report is gone all the same (a deletion between a report's script and its indexing) is dropped
 * when a page of the reporter's reports meets it.
 * Reads aggregate an address's reports at read time (src/blacklist/aggregate.ts), so no facts are
 * cached in this process and every instance sees every report at once; the set only spares the
 * read of an address that has no reports. Report rate windows run on the request's clock.
 */
import { parseBlacklistAddress, type BlacklistAddress } from '../../blacklist/address.js';
import { aggregateReports, listingOf, type Aggregate } from '../../blacklist/aggregate.js';
import { blacklistTime } from '../../blacklist/blacklistTime.js';
import type { ExportFilter, ExportRow, Listing, ReportInput } from '../../blacklist/listing.js';
import { confidenceOf, DAY_MS, DEFAULT_RETENTION_DAYS, MERGE_WINDOW_MS } from '../../blacklist/scoring.js';
import { NO_THREAT_FACTS, type ThreatFacts } from '../../blacklist/threatFacts.js';
import type { ThreatType } from '../../blacklist/threatTypes.js';
import { formatIPv4, formatIPv6 } from '../../address/ipAddress.js';
import type {
  BlacklistPolicy,
  BlacklistStore,
  BlacklistVersion,
  DailyAllowance,
  ReporterReport,
  ReporterReportPage,
  ReportOutcome,
} from '../blacklistStore.js';
import { checkedReportsPage, exportSince, reporterReportOf } from '../blacklistStore.js';
import { dayKey, nextDayReset } from '../quotaPeriod.js';
import { ChangeFeed } from './redisChangeFeed.js';
import { ListedAddresses } from './redisListedAddresses.js';
import { execResult, isRedisOutage, type RedisGuard } from './redisFailures.js';
import type { ConfirmedWrites } from './redisReplicas.js';
import type { StoreRedis } from './redisScripts.js';

export interface RedisBlacklistOptions {
  /** the retention window in days (default 90) */
  retentionDays?: number;
}

interface StoredReportRecord {
  reporter: string;
  threat_type: ThreatType;
  message: string | null;
  source: string;
  created_at: number;
  last_at: number;
  repeats: number;
}

interface ReportRow extends StoredReportRecord {
  id: number;
}

const EXPORT_CHUNK = 1024;
const IMPORT_BATCH = 500;
const PURGE_CHUNK = 1000;
const LOCAL_DAILY_LIMIT = 100_000;

/** The index member of an address: fixed-width hex sorts as the numbers do, `4:` before `6:`. */
function indexMember(address: BlacklistAddress): string {
  if (address.v4 >= 0) return `4:${address.v4.toString(16).padStart(8, '0')}`;
  let hex = '6:';
  for (const word of address.words) hex += word.toString(16).padStart(8, '0');
  return hex;
}

function addressOfMember(member: string): BlacklistAddress {
  if (member.startsWith('4:')) {
    const v4 = parseInt(member.slice(2), 16);
    return { text: formatIPv4(v4), v4, words: new Uint32Array(0) };
  }
  const words = new Uint32Array(4);
  for (let i = 0; i < 4; i++) words[i] = parseInt(member.slice(2 + 8 * i, 10 + 8 * i), 16);
  return { text: formatIPv6(words), v4: -1, words };
}

/**
 * A report's id for its reporter: `<address>#<id in the address's reports hash>`. Null unless the
 * address is in canonical form and the id a positive whole number as the hash names it.
 */
function parseReportId(reportId: string): { address: BlacklistAddress; id: string } | null {
  const hash = reportId.lastIndexOf('#');
  if (hash < 0) return null;
  const text = reportId.slice(0, hash);
  const id = reportId.slice(hash + 1);
  const address = parseBlacklistAddress(text);
  return address !== null && address.text === text && /^[1-9][0-9]{0,14}$/.test(id) ? { address, id } : null;
}

/** An HGETALL reply (flat id/JSON pairs) as report rows. */
function rowsOf(flat: readonly string[], from = 0): ReportRow[] {
  const rows: ReportRow[] = [];
  for (let i = from; i + 1 < flat.length; i += 2) rows.push({ id: Number(flat[i]), ...(JSON.parse(flat[i + 1]) as StoredReportRecord) });
  return rows;
}

export class RedisBlacklist implements BlacklistStore {
  readonly policy: BlacklistPolicy;
  private readonly base: string;
  /** the daily counters counted here while Redis is away */
  private readonly localDaily = new Map<string, number>();
  /** the addresses with reports, when this instance keeps the set (a change feed is open) */
  readonly listed: ListedAddresses | null;
  /** the connection reports are saved on: their WAIT covers their writes (redisReplicas.ts) */
  private readonly writer: StoreRedis;

  constructor(
    private readonly redis: StoreRedis,
    private readonly confirmed: ConfirmedWrites,
    private readonly prefix: string,
    private readonly guard: RedisGuard,
    feed: ChangeFeed | null,
    options: RedisBlacklistOptions = {},
  ) {
    this.writer = confirmed.redis;
    const days = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
    if (!(days > 0)) throw new RangeError('the blacklist retention must be a positive number of days');
    this.policy = { retentionMs: days * DAY_MS };
    this.base = `${prefix}bl:`;
    this.listed = feed && new ListedAddresses(feed, () => this.indexedAddresses());
  }

  private reportsKey = (ip: string) => `${this.base}{ip:${ip}}:reports`;
  private factsKey = (ip: string) => `${this.base}{ip:${ip}}:facts`;
  private indexKey = () => `${this.base}index`;
  private lastKey = () => `${this.base}last`;
  private stateKey = () => `${this.base}state`;
  private reporterKey = (reporter: string) => `${this.base}{rep:${reporter}}:reports`;

  async report(input: ReportInput, now: Date): Promise<ReportOutcome> {
    return this.guard('save report', async () => {
      const { merged, rows } = await this.save(input, now.getTime());
      await this.confirmed.confirm(this.savedKeys([input]));
      await this.announceListed([input.ip]);
      return { merged, facts: this.factsOf(this.current(rows, now.getTime()), now.getTime()) };
    });
  }

  async reportMany(inputs: readonly ReportInput[], now: Date): Promise<ReportOutcome[]> {
    const outcomes: ReportOutcome[] = [];
    for (let start = 0; start < inputs.length; start += IMPORT_BATCH) {
      const batch = inputs.slice(start, start + IMPORT_BATCH);
      await this.guard('save reports', async () => {
        // Issued together, executed in order on the one connection: merges within the batch hold.
        const saved = await Promise.all(batch.map((input) => this.save(input, now.getTime())));
        await this.confirmed.confirm(this.savedKeys(batch));
        await this.announceListed([...new Set(batch.map((input) => input.ip))]);
        const facts = new Map<string, ThreatFacts>();
        for (const input of batch) {
          if (!facts.has(input.ip)) facts.set(input.ip, await this.facts(input.ip, now.getTime()));
        }
        batch.forEach((input, i) => outcomes.push({ merged: saved[i].merged, facts: facts.get(input.ip)! }));
      });
    }
    return outcomes;
  }

  threatFacts(address: BlacklistAddress, now: Date): ThreatFacts | Promise<ThreatFacts> {
    if (this.listed !== null && !this.listed.mayBeListed(address)) return NO_THREAT_FACTS;
    return this.guard('read threat facts', () => this.facts(address.text, now.getTime()));
  }

  async listing(address: BlacklistAddress, now: Date, reportLimit: number): Promise<Listing | null> {
    return this.guard('read listing', async () => {
      const nowMs = now.getTime();
      const [flat, facts] = await Promise.all([
        this.redis.hgetall(this.reportsKey(address.text)),
        this.redis.hgetall(this.factsKey(address.text)),
      ]);
      const rows = this.current(rowsOf(Object.entries(flat).flat()), nowMs);
      return listingOf(address.text, rows, { country_code: facts.country_code ?? null, isp: facts.isp ?? null }, nowMs, reportLimit);
    });
  }

  async *exportRows(filter: ExportFilter, now: Date): AsyncIterable<ExportRow[]> {
    const nowMs = now.getTime();
    const since = exportSince(filter, this.policy, nowMs);
    for await (const addresses of this.indexedAddresses(filter.version, 'export')) {
      const replies = await this.guard('export', () => Promise.all(addresses.map((a) => this.redis.hgetall(this.reportsKey(a.text)))));
      const rows: ExportRow[] = [];
      addresses.forEach((address, i) => {
        const aggregate = aggregateReports(this.current(rowsOf(Object.entries(replies[i]).flat()), nowMs));
        if (aggregate === null || aggregate.lastAt < since) return;
        const confidence = confidenceOf(aggregate.reportsAtAnchor, aggregate.reportersAtAnchor, aggregate.lastAt, nowMs);
        if (confidence < filter.min_confidence) return;
        rows.push({
          ip: address.text,
          version: address.v4 >= 0 ? 4 : 6,
          threat_type: aggregate.threatType,
          confidence,
          total_reports: aggregate.reports,
          // whole seconds, as the embedded store's index keeps them
          first_seen: Math.floor(aggregate.oldestAt / 1000) * 1000,
          last_seen: aggregate.lastAt,
        });
      });
      if (rows.length > 0) yield rows;
    }
  }

  /** The index's addresses in address order (IPv4 first), in chunks; of one IP version unless null. */
  private async *indexedAddresses(version: 4 | 6 | null = null, what = 'read the address index'): AsyncIterable<BlacklistAddress[]> {
    // A cursor over the lex index: each chunk is read by range from the last member seen.
    let from = version === 6 ? '[6:' : '[4:';
    const to = version === 4 ? '(5' : '(7';
    for (;;) {
      const members = await this.guard(what, () => this.redis.zrangebylex(this.indexKey(), from, to, 'LIMIT', 0, EXPORT_CHUNK));
      if (members.length === 0) return;
      from = `(${members[members.length - 1]}`;
      yield members.map(addressOfMember);
      if (members.length < EXPORT_CHUNK) return;
    }
  }

  /** Every instance's listed-address set holds `ips` before this returns. */
  private announceListed(ips: readonly string[]): Promise<void> {
    return ChangeFeed.announce(this.redis, this.prefix, 'listed', ips.join(' '));
  }

  /** Stops the listed-address set's timers (the store closes the feed). */
  close(): void {
    this.listed?.close();
  }

  async version(): Promise<BlacklistVersion> {
    return this.guard('read blacklist version', async () => {
      const [seq, changedAt] = await this.redis.hmget(this.stateKey(), 'seq', 'changed_at');
      return { seq: Number(seq ?? 0), changed_at: changedAt === null ? null : Number(changedAt) };
    });
  }

  async deleteAddress(address: BlacklistAddress, now: Date): Promise<number> {
    return this.guard('delete reports', async () => {
      const deleted = rowsOf(await this.redis.netlookupDeleteAddress(this.reportsKey(address.text), this.factsKey(address.text)));
      await this.redis.zrem(this.indexKey(), indexMember(address));
      await this.redis.zrem(this.lastKey(), address.text);
      // Each reporter's list loses the report at once, so that its total stays exact.
      await Promise.all(deleted.map((row) => this.redis.zrem(this.reporterKey(row.reporter), `${address.text}#${row.id}`)));
      if (deleted.length > 0) await this.redis.netlookupBumpVersion(this.stateKey(), now.getTime());
      return deleted.length;
    });
  }

  async reportsBy(reporter: string, page: { offset: number; limit: number }, now: Date): Promise<ReporterReportPage> {
    const { offset, limit } = checkedReportsPage(page);
    const cutoff = now.getTime() - this.policy.retentionMs;
    const key = this.reporterKey(reporter);
    return this.guard('read reports', async () => {
      // Each round drops the members of the page whose report is gone; the next reads the page again.
      for (;;) {
        const [total, members] = execResult(
          await this.redis.multi().zcount(key, cutoff, '+inf').zrevrangebyscore(key, '+inf', cutoff, 'LIMIT', offset, limit).exec(),
        ) as [number, string[]];
        const ids = members.map(parseReportId);
        const stored = await Promise.all(
          ids.map((id) => (id === null ? Promise.resolve(null) : this.redis.hget(this.reportsKey(id.address.text), id.id))),
        );
        const reports: ReporterReport[] = [];
        const gone: string[] = [];
        members.forEach((member, i) => {
          const record = stored[i] === null ? null : (JSON.parse(stored[i]!) as StoredReportRecord);
          if (record === null || record.reporter !== reporter || record.last_at < cutoff) gone.push(member);
          // a record counts its merged repeats (0: none)
          else reports.push(reporterReportOf(member, ids[i]!.address.text, record, record.repeats + 1));
        });
        if (gone.length === 0) return { total, reports };
        await this.redis.zrem(key, ...gone);
      }
    });
  }

  async withdrawReport(reporter: string, reportId: string, now: Date): Promise<boolean> {
    const id = parseReportId(reportId);
    if (id === null) return false;
    const { address } = id;
    const nowMs = now.getTime();
    return this.guard('withdraw report', async () => {
      const left = await this.redis.netlookupWithdrawReport(
        this.reportsKey(address.text),
        id.id,
        reporter,
        nowMs - this.policy.retentionMs,
      );
      if (left < 0) return false;
      await this.redis.zrem(this.reporterKey(reporter), reportId);
      // As deleteAddress when it was the address's last report.
      if (left === 0) {
        await this.redis.zrem(this.indexKey(), indexMember(address));
        await this.redis.zrem(this.lastKey(), address.text);
      }
      await this.redis.netlookupBumpVersion(this.stateKey(), nowMs);
      return true;
    });
  }

  async purgeExpired(now: Date): Promise<number> {
    const cutoff = now.getTime() - this.policy.retentionMs;
    let purged = 0;
    // Addresses whose last report left the window; reports of still-listed addresses that left it
    // are dropped by their address's next report, and everything expires by TTL anyway.
    for (;;) {
      const ips = await this.guard('purge reports', () =>
        this.redis.zrangebyscore(this.lastKey(), '-inf', `(${cutoff}`, 'LIMIT', 0, PURGE_CHUNK),
      );
      if (ips.length === 0) return purged;
      for (const ip of ips) {
        const address = parseBlacklistAddress(ip);
        purged += await this.guard('purge reports', async () => {
          // Reporters' indexes keep these reports' members, out of the window now: their TTL or next report drops them.
          const n = (await this.redis.netlookupDeleteAddress(this.reportsKey(ip), this.factsKey(ip))).length / 2;
          if (address) await this.redis.zrem(this.indexKey(), indexMember(address));
          await this.redis.zrem(this.lastKey(), ip);
          return n;
        });
      }
    }
  }

  async admitReport(reporter: string, limit: number, windowMs: number, now: Date): Promise<boolean> {
    const nowMs = now.getTime();
    const admitted = await this.guard('admit report', () =>
      this.redis.netlookupSlide(
        `${this.base}{rep:${reporter}}:window:${windowMs}`,
        nowMs,
        windowMs,
        limit,
        `${nowMs}:${Math.random().toString(36).slice(2)}`,
      ),
    );
    return admitted === 1;
  }

  async countDaily(bucket: string, client: string, limit: number, now: Date): Promise<DailyAllowance> {
    const resetsAt = nextDayReset(now);
    const ttl = resetsAt.getTime() - now.getTime() + DAY_MS;
    const key = this.dailyKey(bucket, client, now);
    try {
      const [allowed, used] = await this.guard('count daily', () => this.redis.netlookupCountDaily(key, limit, ttl));
      return { allowed: allowed === 1, used, limit, resets_at: resetsAt };
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      // Redis is away: this process's own count of the day stands in (the keyless lookups keep answering).
      if (this.localDaily.size >= LOCAL_DAILY_LIMIT) this.localDaily.clear();
      const used = this.localDaily.get(key) ?? 0;
      if (used >= limit) return { allowed: false, used, limit, resets_at: resetsAt };
      this.localDaily.set(key, used + 1);
      return { allowed: true, used: used + 1, limit, resets_at: resetsAt };
    }
  }

  async uncountDaily(bucket: string, client: string, now: Date): Promise<void> {
    const key = this.dailyKey(bucket, client, now);
    try {
      await this.guard('uncount daily', () => this.redis.netlookupUncountDaily(key));
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      // Redis is away, as it was when the request was counted: the count stands in this process.
      const used = this.localDaily.get(key) ?? 0;
      if (used > 0) this.localDaily.set(key, used - 1);
    }
  }

  // Internals

  /** One report's script, then the export index, the last-report set and the version. */
  private dailyKey(bucket: string, client: string, now: Date): string {
    return `${this.base}daily:${bucket}:${dayKey(now)}:${client}`;
  }

  /** The keys `save` writes for `inputs`, for replicas to confirm. */
  private savedKeys(inputs: readonly ReportInput[]): string[] {
    const keys = [this.indexKey(), this.lastKey(), this.stateKey()];
    for (const input of inputs) keys.push(this.reportsKey(input.ip), this.reporterKey(input.reporter));
    return keys;
  }

  private async save(input: ReportInput, nowMs: number): Promise<{ merged: boolean; rows: ReportRow[] }> {
    const address = parseBlacklistAddress(input.ip);
    if (address === null) throw new RangeError(`not an address: ${input.ip}`);
    const at = input.at.getTime();
    const record: StoredReportRecord = {
      reporter: input.reporter,
      threat_type: input.threat_type,
      message: input.message,
      source: input.source,
      created_at: at,
      last_at: at,
      repeats: 0,
    };
    const cutoff = nowMs - this.policy.retentionMs;
    const [merged, savedId, ...flat] = await this.writer.netlookupReport(
      this.reportsKey(input.ip),
      this.factsKey(input.ip),
      JSON.stringify(record),
      MERGE_WINDOW_MS,
      cutoff,
      input.country_code ?? '',
      input.isp ?? '',
    );
    const rows = rowsOf(flat);
    const lastAt = Math.max(...rows.map((r) => r.last_at));
    await this.writer.zadd(this.indexKey(), 0, indexMember(address));
    await this.writer.zadd(this.lastKey(), 'GT', lastAt, input.ip);
    const saved = rows.find((r) => r.id === Number(savedId))!;
    await this.writer.netlookupIndexReport(this.reporterKey(input.reporter), `${input.ip}#${savedId}`, saved.last_at, cutoff);
    await this.writer.netlookupBumpVersion(this.stateKey(), nowMs);
    return { merged: merged === 1, rows };
  }

  private async facts(ip: string, nowMs: number): Promise<ThreatFacts> {
    const flat = await this.redis.hgetall(this.reportsKey(ip));
    return this.factsOf(this.current(rowsOf(Object.entries(flat).flat()), nowMs), nowMs);
  }

  /** The reports still inside the retention window at `nowMs`. */
  private current(rows: ReportRow[], nowMs: number): ReportRow[] {
    const cutoff = nowMs - this.policy.retentionMs;
    return rows.filter((r) => r.last_at >= cutoff);
  }

  private factsOf(rows: ReportRow[], nowMs: number): ThreatFacts {
    const aggregate: Aggregate | null = aggregateReports(rows);
    if (aggregate === null) return NO_THREAT_FACTS;
    return {
      is_threat: true,
      threat_type: aggregate.threatType,
      threat_confidence: confidenceOf(aggregate.reportsAtAnchor, aggregate.reportersAtAnchor, aggregate.lastAt, nowMs),
      threat_reports: aggregate.reports,
      threat_last_seen: blacklistTime(aggregate.lastAt),
    };
  }
}
