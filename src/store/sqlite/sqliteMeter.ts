/**
 * The embedded store's meter (the `Meter` of SqliteStore, on its connection), answered from
 * memory: the rate window lives only in memory, and usage counters are kept in memory and flushed
 * to SQLite in one transaction by `flush()` (SqliteStore calls it every `flushIntervalMs` and on
 * close). A crash therefore loses at most the counts of the last flush interval, nothing else. An
 * account's counters of the current day and month are read back from SQLite at its first request.
 */
import type Database from 'better-sqlite3';
import { apis, type Api } from '../../plans/plans.js';
import { dayKey, historyDayKeys, monthDayRange, monthKey, nextReset } from '../quotaPeriod.js';
import { SlidingRateWindow } from '../rateWindow.js';
import type { Guard } from './sqliteGuard.js';
import type { AdmitDecision, AdmitOutcome, AdmitRequest, DailyUsage, Meter } from '../store.js';
import type { UsageCounts } from '../../plans/quota.js';

type CounterName = Api | 'rejected';
type Counts = Record<CounterName, number>;
const counterNames: readonly CounterName[] = [...apis, 'rejected'];
const zeroCounts = (): Counts => ({ ip: 0, blacklist: 0, mac: 0, rejected: 0 });

/** One account's counters for the day and month last asked about: SQLite plus unflushed counts. */
interface CounterView {
  day: string;
  today: Counts;
  month: string;
  monthByApi: Record<Api, number>;
  /** flushes since the account was last metered; idle views are dropped */
  idleFlushes: number;
}

/** Idle counter views are forgotten after this many flushes (about a minute at the default interval). */
const VIEW_IDLE_FLUSHES = 60;

export class SqliteMeter implements Meter {
  private readonly rateWindow = new SlidingRateWindow(1000);
  private readonly views = new Map<string, CounterView>();
  /** counts not yet in SQLite, by account and day */
  private readonly pending = new Map<string, Map<string, Counts>>();
  private readonly sql: ReturnType<typeof prepareStatements>;
  private lastFlushFailed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly guard: Guard,
  ) {
    this.sql = prepareStatements(db);
  }

  readonly immediate = {
    admit: (request: AdmitRequest) => this.admitNow(request),
  };

  async admit(request: AdmitRequest): Promise<AdmitDecision> {
    return this.admitNow(request);
  }

  private admitNow(request: AdmitRequest): AdmitDecision {
    const { account_id: accountId, api, cost, now } = request;
    if (!apis.includes(api)) throw new RangeError(`unknown api ${String(api)}`);
    if (!Number.isInteger(cost) || cost < 0) throw new RangeError('cost must be a non-negative integer');
    const view = this.guard('read usage', () => this.counterView(accountId, now));
    if (!this.rateWindow.tryAdmit(accountId, request.rate_limit_per_second, now.getTime()))
      return this.decide(request, view, 'rate_limited');
    if (!request.consume) return this.decide(request, view, 'refused');
    if (this.quotaUsed(view, request) + cost > request.quota.limit) return this.decide(request, view, 'quota_exceeded');
    return this.decide(request, view, 'admitted');
  }

  /** Counts the decided request and reports the quota and window after it. */
  private decide(request: AdmitRequest, view: CounterView, outcome: AdmitOutcome): AdmitDecision {
    const { account_id: accountId, quota: rule, now } = request;
    // A probe counts nothing; any other request counts its cost when admitted, else one rejection.
    if (!request.probe) {
      if (outcome === 'admitted') this.count(view, accountId, request.api, request.cost);
      else this.count(view, accountId, 'rejected', 1);
    }
    const used = this.quotaUsed(view, request);
    const rate = this.rateWindow.stateOf(accountId, request.rate_limit_per_second, now.getTime());
    return {
      outcome,
      quota: {
        limit: rule.limit,
        used,
        remaining: Math.max(0, rule.limit - used),
        period: rule.period,
        resets_at: nextReset(rule.period, now),
      },
      rate: { remaining: rate.remaining, resets_at: new Date(rate.resetMs) },
    };
  }

  async refund(request: AdmitRequest): Promise<void> {
    const view = this.guard('read usage', () => this.counterView(request.account_id, request.now));
    this.count(view, request.account_id, request.api, -request.cost);
    this.count(view, request.account_id, 'rejected', 1);
  }

  async countRejected(accountId: string, now: Date): Promise<void> {
    const view = this.guard('read usage', () => this.counterView(accountId, now));
    this.count(view, accountId, 'rejected', 1);
  }

  async usage(accountId: string, now: Date): Promise<UsageCounts> {
    const view = this.guard('read usage', () => this.counterView(accountId, now));
    const { ip, blacklist, mac } = view.monthByApi;
    return { today: { ...view.today }, month_used: ip + blacklist + mac };
  }

  async usageHistory(accountId: string, days: number, now: Date): Promise<DailyUsage[]> {
    const dates = historyDayKeys(days, now);
    const today = dates[dates.length - 1];
    return this.guard('read usage history', () => {
      // Days past: SQLite plus their unflushed counts; today: the view `usage` answers from.
      const byDay = new Map(dates.slice(0, -1).map((date) => [date, zeroCounts()]));
      if (byDay.size > 0) {
        for (const row of this.sql.daysUsage.all(accountId, dates[0], dates[dates.length - 2])) byDay.get(row.day)![row.api] += row.count;
        for (const [day, unflushed] of this.pending.get(accountId) ?? []) {
          const counts = byDay.get(day);
          if (counts) for (const name of counterNames) counts[name] += unflushed[name];
        }
      }
      byDay.set(today, { ...this.counterView(accountId, now).today });
      return dates.map((date) => ({ date, ...byDay.get(date)! }));
    });
  }

  /** The last flush failed: its counts are still pending (SqliteStore reports itself unhealthy). */
  get flushFailed(): boolean {
    return this.lastFlushFailed;
  }

  /** Writes the pending counts in one transaction; on failure they stay pending for the next try. */
  flush(): void {
    for (const [id, view] of this.views) {
      if (++view.idleFlushes > VIEW_IDLE_FLUSHES && !this.pending.has(id)) this.views.delete(id);
    }
    if (this.pending.size === 0) return;
    this.guard('write usage', () => {
      try {
        this.db
          .transaction(() => {
            for (const [accountId, days] of this.pending) {
              for (const [day, counts] of days) {
                // A refund's negative count too: it takes back an admission flushed before.
                for (const name of counterNames) if (counts[name] !== 0) this.sql.addUsage.run(accountId, day, name, counts[name]);
              }
            }
          })
          .immediate();
        this.lastFlushFailed = false;
      } catch (e) {
        this.lastFlushFailed = true;
        throw e;
      }
    });
    this.pending.clear();
  }

  // Internals

  /** The account's counters for `now`'s day and month, read back from SQLite when first needed. */
  private counterView(accountId: string, now: Date): CounterView {
    const day = dayKey(now);
    const month = monthKey(now);
    const view = this.views.get(accountId);
    if (view !== undefined && view.day === day && view.month === month) {
      view.idleFlushes = 0;
      return view;
    }
    const today = view?.day === day ? view.today : this.readDay(accountId, day);
    const monthByApi = view?.month === month ? view.monthByApi : this.readMonth(accountId, month);
    const next: CounterView = { day, today, month, monthByApi, idleFlushes: 0 };
    this.views.set(accountId, next);
    return next;
  }

  private readDay(accountId: string, day: string): Counts {
    const counts = zeroCounts();
    for (const row of this.sql.dayUsage.all(accountId, day)) counts[row.api] += row.count;
    const unflushed = this.pending.get(accountId)?.get(day);
    if (unflushed) for (const name of counterNames) counts[name] += unflushed[name];
    return counts;
  }

  private readMonth(accountId: string, month: string): Record<Api, number> {
    const counts = { ip: 0, blacklist: 0, mac: 0 };
    const { first, last } = monthDayRange(month);
    for (const row of this.sql.monthUsage.all(accountId, first, last)) counts[row.api] += row.n;
    for (const [day, unflushed] of this.pending.get(accountId) ?? []) {
      if (day.startsWith(`${month}-`)) for (const api of apis) counts[api] += unflushed[api];
    }
    return counts;
  }

  private count(view: CounterView, accountId: string, name: CounterName, n: number): void {
    view.today[name] += n;
    if (name !== 'rejected') view.monthByApi[name] += n;
    let days = this.pending.get(accountId);
    if (days === undefined) this.pending.set(accountId, (days = new Map()));
    let counts = days.get(view.day);
    if (counts === undefined) days.set(view.day, (counts = zeroCounts()));
    counts[name] += n;
  }

  /** Day quotas count today, month quotas this month; per API unless pooled across the APIs. */
  private quotaUsed(view: CounterView, request: AdmitRequest): number {
    const counts = request.quota.period === 'day' ? view.today : view.monthByApi;
    return request.quota.pooled ? counts.ip + counts.blacklist + counts.mac : counts[request.api];
  }
}

/** Statements prepared once: the usage reads run on an account's first request of a day. */
function prepareStatements(db: Database.Database) {
  return {
    dayUsage: db.prepare<[string, string], { api: CounterName; count: number }>(
      'SELECT api, count FROM usage WHERE account_id = ? AND day = ?',
    ),
    monthUsage: db.prepare<[string, string, string], { api: Api; n: number }>(
      "SELECT api, SUM(count) AS n FROM usage WHERE account_id = ? AND day BETWEEN ? AND ? AND api <> 'rejected' GROUP BY api",
    ),
    daysUsage: db.prepare<[string, string, string], { day: string; api: CounterName; count: number }>(
      'SELECT day, api, count FROM usage WHERE account_id = ? AND day BETWEEN ? AND ?',
    ),
    addUsage: db.prepare(
      'INSERT INTO usage (account_id, day, api, count) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, day, api) DO UPDATE SET count = count + excluded.count',
    ),
  };
}
