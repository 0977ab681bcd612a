/**
 * The shared store's meter (the `Meter` of RedisStore, on its connection; key layout in
 * redisStore.ts). Metering is one Lua script (`admit`, defined once with defineCommand): the
 * sliding one-second window, the quota and the counters in one atomic step, so instances never let
 * more than the limit through together. An account's requests that arrive in one turn of the event
 * loop go to it as one batch (src/store/admissionBatches.ts), decided one by one in order. The
 * window runs on the Redis server's clock (`TIME`) unless the store is opened with
 * `rateClock: 'request'`, which takes the request's `now` instead (the conformance suite injects
 * clocks). Quota periods (which day, which month) always follow the request's `now`, like the
 * embedded store, and their TTLs are relative to it.
 *
 * While Redis is away the meter answers from the outage fallback (src/store/redis/redisFallback.ts) and
 * writes back what it counted meanwhile once Redis answers again.
 */
import { Cluster } from 'ioredis';
import { apis } from '../../plans/plans.js';
import { AdmissionBatches } from '../admissionBatches.js';
import { dayKey, historyDayKeys, monthKey, nextDayReset, nextMonthReset, nextReset } from '../quotaPeriod.js';
import type { CommandReceipt, OutageFallback } from './redisFallback.js';
import { execResult, isRedisOutage, neverSent, unavailable, type RedisGuard } from './redisFailures.js';
import type { StoreRedis } from './redisScripts.js';
import { inOneWrite } from './redisConnection.js';
import { USAGE_HISTORY_DAYS, type AdmitDecision, type AdmitOutcome, type AdmitRequest, type DailyUsage, type Meter } from '../store.js';
import type { UsageCounts } from '../../plans/quota.js';

const DAY_MS = 86_400_000;
/**
 * How long a day's and a month's counters outlive their period: a day's stay readable in the usage
 * history of the USAGE_HISTORY_DAYS - 1 days after it, and a day more for grace.
 */
export const DAY_COUNTER_GRACE_MS = USAGE_HISTORY_DAYS * DAY_MS;
const MONTH_COUNTER_GRACE_MS = 7 * DAY_MS;
const RATE_WINDOW_MS = 1000;
const WRITE_BACK_INTERVAL_MS = 1000;

/** One request waiting in an admission batch. */
interface AdmissionItem {
  request: AdmitRequest;
  rateLimit: number;
}

const outcomes: AdmitOutcome[] = ['admitted', 'rate_limited', 'quota_exceeded', 'refused'];
const counterNames = [...apis, 'rejected'] as const;

export class RedisMeter implements Meter {
  private sequence = 0;
  /** connections made so far: a receipt names its connection, whose commands Redis runs in order */
  private generation = 0;
  private readonly admissions = new AdmissionBatches((batches: AdmissionItem[][]) => this.admitBatches(batches));
  private writingBack = false;
  private readonly timer: NodeJS.Timeout;

  /**
   * `fallback`: the store's answers for outages; `instance`: this instance's unique name (the
   * members of the rate window's sorted sets); `rateClock`: whose clock the rate window runs on.
   */
  constructor(
    private readonly redis: StoreRedis,
    private readonly prefix: string,
    private readonly guard: RedisGuard,
    private readonly fallback: OutageFallback,
    private readonly instance: string,
    private readonly rateClock: 'redis' | 'request',
  ) {
    // A receipt names its connection: the next connection gets a field of its own as soon as this
    // one is lost. Not on 'ready': ioredis emits status events a tick late, and a command sent on the
    // new connection meanwhile would write the old field, so that commands lost with the old
    // connection would read as counted.
    const nextGeneration = () => {
      this.generation++;
    };
    redis.on('close', nextGeneration);
    // On a Cluster, a node's connection is lost alone (its node fell or a failover moved its slots).
    if (redis instanceof Cluster) redis.on('-node', nextGeneration);
    // Counts made while Redis was away go back as soon as it answers, and are retried every second.
    redis.on('ready', () => void this.writeBack());
    this.timer = setInterval(() => void this.writeBack(), WRITE_BACK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the write-back timer and writes back what is owed, as far as Redis takes it. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.writeBack();
  }

  /**
   * Counts of an outage not yet in Redis: still held here, or taken for a write-back that has not
   * finished (until it has, usage read from Redis may lack them).
   */
  get owesCounts(): boolean {
    return this.fallback.owesCounts || this.writingBack;
  }

  /** Writes the counts made while Redis was away; those it cannot write stay owed for the next try. */
  async writeBack(): Promise<void> {
    if (this.writingBack || !this.fallback.owesCounts || this.redis.status !== 'ready') return;
    this.writingBack = true;
    try {
      await this.settleUncertain();
      for (const entry of this.fallback.takeOwed()) {
        const { ip, blacklist, mac, rejected } = entry.counts;
        const sent = this.nextCommand();
        try {
          await this.redis.netlookupAddCounts(
            2,
            this.dayKey(entry.accountId, entry.day),
            this.monthKey(entry.accountId, entry.month),
            sent.receipt,
            sent.seq,
            4,
            this.dayTtl(entry.at),
            'ip',
            ip,
            'blacklist',
            blacklist,
            'mac',
            mac,
            'rejected',
            rejected,
            3,
            this.monthTtl(entry.at),
            'ip',
            ip,
            'blacklist',
            blacklist,
            'mac',
            mac,
          );
        } catch (e) {
          if (neverSent(unavailable('write back', e))) this.fallback.giveBack(entry);
          else this.fallback.uncertainWriteBack(entry, sent);
        }
      }
    } finally {
      this.writingBack = false;
    }
  }

  /**
   * Commands whose answer was lost: Redis counted one iff its connection's receipt in its account's
   * day holds its sequence number or a later one (one connection's commands run in order; later
   * connections write receipts of their own). Those Redis did not count become owed counts.
   */
  private async settleUncertain(): Promise<void> {
    const uncertain = this.fallback.takeUncertain();
    if (uncertain.length === 0) return;
    let receipts: (string | null)[];
    try {
      receipts = await Promise.all(uncertain.map((u) => this.redis.hget(this.dayKey(u.accountId, u.day), u.receipt)));
    } catch {
      this.fallback.keepUncertain(uncertain);
      return;
    }
    uncertain.forEach((entry, i) => {
      if (receipts[i] !== null && Number(receipts[i]) >= entry.seq) return;
      this.fallback.giveBack(entry);
    });
  }

  // Keys of the layout

  private rateKey = (id: string) => `${this.prefix}{acct:${id}}:rate`;
  private dayKey = (id: string, day: string) => `${this.prefix}{acct:${id}}:day:${day}`;
  private monthKey = (id: string, month: string) => `${this.prefix}{acct:${id}}:month:${month}`;

  admit(request: AdmitRequest): Promise<AdmitDecision> {
    const { account_id: accountId, api, cost, quota: rule, now } = request;
    if (!apis.includes(api)) return Promise.reject(new RangeError(`unknown api ${String(api)}`));
    if (!Number.isInteger(cost) || cost < 0) return Promise.reject(new RangeError('cost must be a non-negative integer'));
    const rateLimit = Number.isFinite(request.rate_limit_per_second) ? Math.floor(request.rate_limit_per_second) : Number.MAX_SAFE_INTEGER;
    // One batch: one account's requests under one rule, one day and month (and, on the requests'
    // clocks, one instant); everything the script takes once for all of them.
    const group = `${accountId} ${dayKey(now)} ${rule.period} ${rule.pooled ? 1 : 0} ${rule.limit} ${rateLimit} ${this.rateClock === 'redis' ? '' : now.getTime()}`;
    return this.admissions.add(group, { request, rateLimit });
  }

  /**
   * The admit script's runs for the batches of one turn (admissionBatches.ts), one per batch,
   * written at once in the order of their sequence numbers (not left to auto-pipelining, which
   * would send them a turn later, possibly after a counting command with a later number). The
   * connection is corked meanwhile, so that they leave in one write (on a Cluster, each master's
   * connection: each gets its slots' batches in one write). Not an ioredis pipeline: under load its
   * objects outlive young-generation collections, which then copy megabytes each.
   */
  private admitBatches(batches: AdmissionItem[][]): Promise<AdmitDecision[]>[] {
    return inOneWrite(this.redis, () => batches.map((batch) => this.admitBatch(batch)));
  }

  private async admitBatch(batch: AdmissionItem[]): Promise<AdmitDecision[]> {
    const sent = this.nextCommand();
    let reply: number[];
    try {
      reply = await this.guard('admit', () => this.redis.netlookupAdmit(...this.admitArguments(batch, sent)));
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      return batch.map(({ request, rateLimit }) => this.fallback.admit(request, rateLimit, neverSent(e) ? null : sent));
    }
    return this.decisionsOf(batch, reply);
  }

  /** The admit script's keys and arguments for one batch (the script's header in redisScripts.ts). */
  private admitArguments(batch: AdmissionItem[], sent: CommandReceipt): (string | number)[] {
    const { account_id: accountId, quota: rule, now } = batch[0].request;
    const nowMs = now.getTime();
    const args: (string | number)[] = [
      this.rateKey(accountId),
      this.dayKey(accountId, dayKey(now)),
      this.monthKey(accountId, monthKey(now)),
      this.rateClock === 'redis' ? '' : nowMs,
      RATE_WINDOW_MS,
      batch[0].rateLimit,
      rule.period,
      rule.pooled ? '1' : '0',
      rule.limit,
      this.dayTtl(now),
      this.monthTtl(now),
      sent.receipt,
      sent.seq,
      `${nowMs}:${this.instance}:${sent.seq}`,
    ];
    for (const { request } of batch) args.push(request.api, request.cost, (request.consume ? 1 : 0) + (request.probe ? 2 : 0));
    return args;
  }

  private decisionsOf(batch: AdmissionItem[], reply: number[]): AdmitDecision[] {
    const { quota: rule, now } = batch[0].request;
    const resetsAt = nextReset(rule.period, now);
    return batch.map(({ request }, i) => {
      const [outcome, used, rateRemaining, rateResetInMs] = reply.slice(4 * i, 4 * i + 4);
      const decision: AdmitDecision = {
        outcome: outcomes[outcome],
        quota: { limit: rule.limit, used, remaining: Math.max(0, rule.limit - used), period: rule.period, resets_at: resetsAt },
        // On the request's clock, whichever clock the window runs on.
        rate: { remaining: rateRemaining, resets_at: new Date(now.getTime() + rateResetInMs) },
      };
      this.fallback.rememberDecision(request, decision);
      return decision;
    });
  }

  async refund(request: AdmitRequest): Promise<void> {
    const { account_id: accountId, api, cost, now } = request;
    const sent = this.nextCommand();
    try {
      await this.guard('refund', () =>
        this.redis.netlookupAddCounts(
          2,
          this.dayKey(accountId, dayKey(now)),
          this.monthKey(accountId, monthKey(now)),
          sent.receipt,
          sent.seq,
          2,
          this.dayTtl(now),
          api,
          -cost,
          'rejected',
          1,
          1,
          this.monthTtl(now),
          api,
          -cost,
        ),
      );
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      // Owed to Redis like the counts of an outage: an admission counted here nets out, one counted in Redis is given back there.
      for (const [name, n] of [
        [api, -cost],
        ['rejected', 1],
      ] as const) {
        if (neverSent(e)) this.fallback.count(accountId, now, name, n);
        else this.fallback.countUncertain(accountId, now, sent, name, n);
      }
    }
  }

  async countRejected(accountId: string, now: Date): Promise<void> {
    const sent = this.nextCommand();
    try {
      await this.guard('count rejected', () =>
        this.redis.netlookupAddCounts(1, this.dayKey(accountId, dayKey(now)), sent.receipt, sent.seq, 1, this.dayTtl(now), 'rejected', 1),
      );
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      if (neverSent(e)) this.fallback.count(accountId, now, 'rejected', 1);
      else this.fallback.countUncertain(accountId, now, sent, 'rejected', 1);
    }
  }

  async usage(accountId: string, now: Date): Promise<UsageCounts> {
    const [today, month] = await this.guard('read usage', () =>
      Promise.all([this.redis.hgetall(this.dayKey(accountId, dayKey(now))), this.redis.hgetall(this.monthKey(accountId, monthKey(now)))]),
    );
    const counts = Object.fromEntries(counterNames.map((name) => [name, Number(today[name] ?? 0)])) as UsageCounts['today'];
    const monthUsed = apis.reduce((sum, api) => sum + Number(month[api] ?? 0), 0);
    return this.fallback.addPending(accountId, now, { today: counts, month_used: monthUsed });
  }

  async usageHistory(accountId: string, days: number, now: Date): Promise<DailyUsage[]> {
    const dates = historyDayKeys(days, now);
    const replies = await this.guard('read usage history', async () => {
      const pipeline = this.redis.pipeline();
      for (const date of dates) pipeline.hmget(this.dayKey(accountId, date), ...counterNames);
      return execResult(await pipeline.exec()) as (string | null)[][];
    });
    return dates.map((date, i) => {
      const pending = this.fallback.pendingCounts(accountId, date);
      // With the counts of an outage not yet written back, as `usage` adds them to today's.
      const [ip, blacklist, mac, rejected] = counterNames.map((name, n) => Number(replies[i][n] ?? 0) + (pending?.[name] ?? 0));
      return { date, ip, blacklist, mac, rejected };
    });
  }

  // Internals

  /** TTLs relative to `now`, so a test's injected clock never sets an expiry in the past. */
  private dayTtl(now: Date): number {
    return nextDayReset(now).getTime() - now.getTime() + DAY_COUNTER_GRACE_MS;
  }

  private monthTtl(now: Date): number {
    return nextMonthReset(now).getTime() - now.getTime() + MONTH_COUNTER_GRACE_MS;
  }

  /** A counting command's identity: this connection's receipt field and the next sequence number. */
  private nextCommand(): CommandReceipt {
    return { receipt: `seq:${this.instance}:${this.generation}`, seq: this.sequence++ };
  }
}
