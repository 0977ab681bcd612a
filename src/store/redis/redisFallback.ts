/**
 * What the Redis store does while Redis is unreachable (docs/shared-deployments.md):
 * lookups keep being answered from this process alone.
 *   - Authentication: the last answer Redis gave for the same secret, kept only for this and used
 *     only while Redis is away (a secret this process never saw is answered `unavailable`).
 *   - Per-second limit: a per-process insurance limiter (the embedded SlidingRateWindow), so each
 *     instance lets at most the plan's rate through on its own.
 *   - Quota: the last `used` Redis answered for the account's period plus what this process
 *     counted since; an account never seen before the outage is admitted up to its limit counted
 *     from zero here.
 *   - Usage: counted here and written back (HINCRBY, so added to what other instances counted)
 *     when Redis answers again; nothing counted is dropped.
 */
import type { Api } from '../../plans/plans.js';
import type { UsageCounts } from '../../plans/quota.js';
import { dayKey, monthKey, nextReset } from '../quotaPeriod.js';
import { SlidingRateWindow } from '../rateWindow.js';
import type { Account, AdmitDecision, AdmitRequest, ApiKey } from '../store.js';

type CounterName = Api | 'rejected';
type Counts = Record<CounterName, number>;
const zeroCounts = (): Counts => ({ ip: 0, blacklist: 0, mac: 0, rejected: 0 });

/** Counts of one account and UTC day not yet in Redis, with the instant they were first counted at. */
export interface PendingCounts {
  accountId: string;
  day: string;
  month: string;
  at: Date;
  counts: Counts;
}

/** Which command: its receipt field (instance and connection) and sequence number. */
export interface CommandReceipt {
  receipt: string;
  seq: number;
}

/**
 * Counts of a command whose answer was lost as the connection fell: Redis may have counted them.
 * Its receipt in the day's hash decides once Redis is back.
 */
export interface UncertainCounts extends PendingCounts, CommandReceipt {}

/** Past this many entries a map is cleared wholesale: memory stays bounded without bookkeeping. */
const LIMIT = 100_000;

export class OutageFallback {
  private readonly insurance = new SlidingRateWindow(1000);
  /** `used` of the last decision Redis made, by account, rule and period */
  private readonly lastUsed = new Map<string, number>();
  private readonly lastAuthentication = new Map<string, { key: ApiKey; account: Account }>();
  /** by account, then by UTC day */
  private readonly pending = new Map<string, Map<string, PendingCounts>>();
  private uncertain: UncertainCounts[] = [];

  // While Redis answers

  /** Redis's answer for a secret's hash; a refusal forgets any earlier answer. */
  rememberAuthentication(hashHex: string, found: { key: ApiKey; account: Account } | null): void {
    if (found === null) {
      this.lastAuthentication.delete(hashHex);
      return;
    }
    if (this.lastAuthentication.size >= LIMIT) this.lastAuthentication.clear();
    this.lastAuthentication.set(hashHex, found);
  }

  /** A change through this process (roll, deletion, suspension): no remembered answer survives it. */
  forgetAuthentications(): void {
    this.lastAuthentication.clear();
  }

  rememberDecision(request: AdmitRequest, decision: AdmitDecision): void {
    if (this.lastUsed.size >= LIMIT) this.lastUsed.clear();
    this.lastUsed.set(ruleKey(request), decision.quota.used);
  }

  // While Redis is away

  authenticate(hashHex: string): { key: ApiKey; account: Account } | null {
    return this.lastAuthentication.get(hashHex) ?? null;
  }

  /**
   * The decision of this process alone. `sent`: the command that may have reached Redis before
   * the connection fell (its counts are then uncertain), or null.
   */
  admit(request: AdmitRequest, rateLimit: number, sent: CommandReceipt | null): AdmitDecision {
    const { account_id: accountId, api, cost, quota: rule, now } = request;
    const count = (name: CounterName, n: number) =>
      sent === null ? this.count(accountId, now, name, n) : this.countUncertain(accountId, now, sent, name, n);
    const used = () => (this.lastUsed.get(ruleKey(request)) ?? 0) + this.localUsed(request);
    const decide = (outcome: AdmitDecision['outcome']): AdmitDecision => {
      // A probe counts nothing; any other request counts its cost when admitted, else one rejection.
      if (!request.probe) {
        if (outcome === 'admitted') count(api, cost);
        else count('rejected', 1);
      }
      const u = used();
      const rate = this.insurance.stateOf(accountId, rateLimit, now.getTime());
      return {
        outcome,
        quota: {
          limit: rule.limit,
          used: u,
          remaining: Math.max(0, rule.limit - u),
          period: rule.period,
          resets_at: nextReset(rule.period, now),
        },
        rate: { remaining: rate.remaining, resets_at: new Date(rate.resetMs) },
      };
    };
    if (!this.insurance.tryAdmit(accountId, rateLimit, now.getTime())) return decide('rate_limited');
    if (!request.consume) return decide('refused');
    if (used() + cost > rule.limit) return decide('quota_exceeded');
    return decide('admitted');
  }

  count(accountId: string, now: Date, name: CounterName, n: number): void {
    const day = dayKey(now);
    // Never cleared for size: these are counts owed to Redis.
    let days = this.pending.get(accountId);
    if (days === undefined) this.pending.set(accountId, (days = new Map()));
    let entry = days.get(day);
    if (entry === undefined) days.set(day, (entry = { accountId, day, month: monthKey(now), at: now, counts: zeroCounts() }));
    entry.counts[name] += n;
  }

  /** Adds the counts not yet written back to usage read from Redis (this process's share of it). */
  addPending(accountId: string, now: Date, usage: UsageCounts): UsageCounts {
    const day = dayKey(now);
    const month = monthKey(now);
    const today = { ...usage.today };
    let monthUsed = usage.month_used;
    for (const entry of this.pending.get(accountId)?.values() ?? []) {
      if (entry.month !== month) continue;
      if (entry.day === day) for (const name of Object.keys(today) as CounterName[]) today[name] += entry.counts[name];
      monthUsed += entry.counts.ip + entry.counts.blacklist + entry.counts.mac;
    }
    return { today, month_used: monthUsed };
  }

  /** The counts of one account and UTC day (YYYY-MM-DD) not yet written back, as `addPending` adds them to today's. */
  pendingCounts(accountId: string, day: string): Readonly<Counts> | undefined {
    return this.pending.get(accountId)?.get(day)?.counts;
  }

  countUncertain(accountId: string, now: Date, sent: CommandReceipt, name: CounterName, n: number): void {
    const counts = zeroCounts();
    counts[name] = n;
    this.uncertain.push({ accountId, day: dayKey(now), month: monthKey(now), at: now, counts, ...sent });
  }

  /** Counts written back whose answer was lost: uncertain like a lost request's. */
  uncertainWriteBack(entry: PendingCounts, sent: CommandReceipt): void {
    this.uncertain.push({ ...entry, ...sent });
  }

  /** Takes the uncertain counts, for their receipts to be read; those not settled are given back with `keepUncertain`. */
  takeUncertain(): UncertainCounts[] {
    const taken = this.uncertain;
    this.uncertain = [];
    return taken;
  }

  keepUncertain(entries: UncertainCounts[]): void {
    this.uncertain.push(...entries);
  }

  /** Takes the counts owed to Redis, for writing back; any not written are given back. */
  takeOwed(): PendingCounts[] {
    const owed = [...this.pending.values()].flatMap((days) => [...days.values()]);
    this.pending.clear();
    return owed;
  }

  giveBack(entry: PendingCounts): void {
    for (const name of Object.keys(entry.counts) as CounterName[]) {
      if (entry.counts[name] > 0) this.count(entry.accountId, entry.at, name, entry.counts[name]);
    }
  }

  get owesCounts(): boolean {
    return this.pending.size > 0 || this.uncertain.length > 0;
  }

  /** What this process counted locally for the request's quota period. */
  private localUsed(request: AdmitRequest): number {
    const { account_id: accountId, api, quota: rule, now } = request;
    const day = dayKey(now);
    const month = monthKey(now);
    let used = 0;
    for (const entry of this.pending.get(accountId)?.values() ?? []) {
      if (rule.period === 'day' ? entry.day !== day : entry.month !== month) continue;
      used += rule.pooled ? entry.counts.ip + entry.counts.blacklist + entry.counts.mac : entry.counts[api];
    }
    return used;
  }
}

function ruleKey(request: AdmitRequest): string {
  const { account_id: accountId, api, quota: rule, now } = request;
  const period = rule.period === 'day' ? dayKey(now) : monthKey(now);
  return `${accountId}|${period}|${rule.pooled ? '*' : api}`;
}
