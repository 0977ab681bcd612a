/**
 * The shared store (ARCHITECTURE "Stores"): Redis through ioredis, selected by `REDIS_URL`, shared
 * by any number of instances and cluster workers. Authentications are cached in the process and
 * invalidated everywhere, acknowledged, before a change answers (src/store/redisKeyCache.ts), so a
 * roll, deletion or suspension made through any instance holds on the next request everywhere; the
 * addresses with reports are known the same way (src/store/redisListedAddresses.ts). Both copies
 * learn of changes through one change feed (src/store/redisChangeFeed.ts).
 *
 * Key layout (all under `prefix`, default `nl:`; `{acct:<id>}` is a Redis Cluster hash tag, so
 * every key one script touches lives in one slot):
 *   {acct:<id>}:account           JSON of the account
 *   {acct:<id>}:keys              list of the account's key ids, in creation order
 *   {acct:<id>}:key:<keyId>       JSON of the key, with its SHA-256 hash (never the secret)
 *   {acct:<id>}:rate              sorted set: instants admitted by the rate window (TTL window + 10 s)
 *   {acct:<id>}:day:<YYYY-MM-DD>  hash ip/blacklist/mac/rejected (TTL: end of the day + 2 days)
 *   {acct:<id>}:month:<YYYY-MM>   hash ip/blacklist/mac (TTL: end of the month + 7 days)
 *   accounts                      set of account ids (countAccounts)
 *   keyacct:<keyId>               the account id of a key
 *   secret:<sha256 hex>           "<accountId> <keyId>" of a key's current secret
 *   changes, acks:<change>        the cache invalidation channel and its acknowledgements
 *   first-start                   set by the one process that created the first account
 * The indexes (keyacct, secret) live outside the account's slot, so they are written before and
 * removed after the account's records; authentication always checks the key record's own hash,
 * so an index that outlives its key (a crash between two writes) admits nothing.
 *
 * Metering is one Lua script (`admit`, defined once with defineCommand): the sliding one-second
 * window, the quota and the counters in one atomic step, so instances never let more than the limit
 * through together. An account's requests that arrive in one turn of the event loop go to it as one
 * batch (src/store/admissionBatches.ts), decided one by one in order. The window runs on the Redis server's clock (`TIME`) unless the
 * store is opened with `rateClock: 'request'`, which takes the request's `now` instead (the
 * conformance suite injects clocks). Quota periods (which day, which month) always follow the
 * request's `now`, like the embedded store, and their TTLs are relative to it.
 */
import crypto from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import { apis } from '../plans/plans.js';
import type { UsageCounts } from '../plans/quota.js';
import { hashSecretHex, isWellFormedSecret, newId, newSecret, sameHashHex } from './apiKeySecret.js';
import { checkedName, checkedPlan, newAccountWithKey, normalizeWebsites, planAndExpiry, StoreInputError } from './keyWebsites.js';
import { dayKey, monthKey, nextDayReset, nextMonthReset, nextReset } from './quotaPeriod.js';
import {
  KeyLimitError,
  StoreUnavailableError,
  type Account,
  type AccountPatch,
  type AdmitDecision,
  type AdmitOutcome,
  type AdmitRequest,
  type ApiKey,
  type KeyPatch,
  type KeyWithSecret,
  type NewAccount,
  type Store,
} from './store.js';
import { AdmissionBatches } from './admissionBatches.js';
import { RedisBlacklist, type RedisBlacklistOptions } from './redisBlacklist.js';
import { OutageFallback, type CommandReceipt } from './redisFallback.js';
import { ChangeFeed } from './redisChangeFeed.js';
import { KeyCache } from './redisKeyCache.js';
import { connectRedis, execResult, isRedisOutage, neverSent, unavailable, type StoreRedis } from './redisScripts.js';

const DAY_MS = 86_400_000;
/** How long a day's and a month's counters outlive their period (usage of yesterday stays readable). */
export const DAY_COUNTER_GRACE_MS = 2 * DAY_MS;
export const MONTH_COUNTER_GRACE_MS = 7 * DAY_MS;
const RATE_WINDOW_MS = 1000;
const WRITE_BACK_INTERVAL_MS = 1000;
/** Compare-and-set retries of a record changed concurrently by another instance. */
const CAS_ATTEMPTS = 20;

/** One request waiting in an admission batch. */
interface AdmissionItem {
  request: AdmitRequest;
  rateLimit: number;
}

/** The key record as stored: the shown key plus its hash. */
interface KeyRecord extends ApiKey {
  hash: string;
}

const outcomes: AdmitOutcome[] = ['admitted', 'rate_limited', 'quota_exceeded', 'refused'];
const counterNames = [...apis, 'rejected'] as const;

export interface RedisStoreOptions {
  /** prefix of every key (default `nl:`); tests give each run its own */
  prefix?: string;
  /** `redis` (default): the rate window runs on the Redis server's clock; `request`: on AdmitRequest.now */
  rateClock?: 'redis' | 'request';
  blacklist?: RedisBlacklistOptions;
  redisOptions?: RedisOptions;
  /**
   * false: no change feed, so no in-process copies (the authentication cache and the listed-address
   * set): every request reads its key, and every paid lookup its threat facts, from Redis
   */
  localCopies?: boolean;
}

const shownKey = ({ hash: _hash, ...key }: KeyRecord): ApiKey => ({ ...key, websites: [...key.websites] });

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  /** The blacklist (src/store/redisBlacklist.ts) on the same connection. */
  readonly blacklist: RedisBlacklist;
  private readonly rateClock: 'redis' | 'request';
  /** unique among instances: the members of the rate window's sorted sets */
  private readonly instance = crypto.randomBytes(6).toString('hex');
  private sequence = 0;
  /** connections made so far: a receipt names its connection, whose commands Redis runs in order */
  private generation = 0;
  private closed = false;
  private readonly fallback = new OutageFallback();
  private readonly admissions = new AdmissionBatches((batches: AdmissionItem[][]) => this.admitBatches(batches));
  private writingBack = false;
  private readonly timer: NodeJS.Timeout;

  private readonly keyCache: KeyCache | null;

  private constructor(readonly redis: StoreRedis, private readonly feed: ChangeFeed | null, private readonly prefix: string, options: RedisStoreOptions) {
    this.rateClock = options.rateClock ?? 'redis';
    this.keyCache = feed && new KeyCache(feed);
    this.blacklist = new RedisBlacklist(redis, this.prefix, (what, work) => this.guard(what, work), feed, options.blacklist ?? {});
    // A receipt names its connection: the next connection gets a field of its own as soon as this
    // one is lost. Not on 'ready': ioredis emits status events a tick late, and a command sent on the
    // new connection meanwhile would write the old field, so that commands lost with the old
    // connection would read as counted.
    redis.on('close', () => {
      this.generation++;
    });
    // Counts made while Redis was away go back as soon as it answers, and are retried every second.
    redis.on('ready', () => void this.writeBack());
    this.timer = setInterval(() => void this.writeBack(), WRITE_BACK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Connects to `url` and opens the store on it. */
  static async open(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const prefix = options.prefix ?? 'nl:';
    if (/[{}]/.test(prefix)) throw new RangeError('the Redis key prefix must not contain braces (they are hash tags)');
    const redis = await connectRedis(url, options.redisOptions);
    let feed: ChangeFeed | null = null;
    try {
      if (options.localCopies !== false) feed = await ChangeFeed.open(redis, prefix);
      return new RedisStore(redis, feed, prefix, options);
    } catch (e) {
      await feed?.close();
      redis.disconnect();
      throw e;
    }
  }

  async healthy(): Promise<boolean> {
    if (this.closed || this.redis.status !== 'ready') return false;
    try {
      return (await this.redis.ping()) === 'PONG' && !this.owesCounts();
    } catch {
      return false;
    }
  }

  async claimFirstStart(): Promise<boolean> {
    return this.guard('claim first start', async () => (await this.redis.set(`${this.prefix}first-start`, this.instance, 'NX')) === 'OK');
  }

  /** Redis is away (or counts of its absence are still owed to it): lookups are answered from the fallback. */
  degraded(): boolean {
    return !this.closed && (this.redis.status !== 'ready' || this.owesCounts());
  }

  /**
   * Counts of an outage not yet in Redis: still held here, or taken for a write-back that has not
   * finished (until it has, usage read from Redis may lack them).
   */
  private owesCounts(): boolean {
    return this.fallback.owesCounts || this.writingBack;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    await this.writeBack();
    this.closed = true;
    this.blacklist.close();
    await this.feed?.close();
    await this.redis.quit().catch(() => this.redis.disconnect());
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
            sent.receipt, sent.seq,
            4, this.dayTtl(entry.at), 'ip', ip, 'blacklist', blacklist, 'mac', mac, 'rejected', rejected,
            3, this.monthTtl(entry.at), 'ip', ip, 'blacklist', blacklist, 'mac', mac,
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

  private accountKey = (id: string) => `${this.prefix}{acct:${id}}:account`;
  private keysKey = (id: string) => `${this.prefix}{acct:${id}}:keys`;
  private keyRecordKey = (accountId: string, keyId: string) => `${this.prefix}{acct:${accountId}}:key:${keyId}`;
  private rateKey = (id: string) => `${this.prefix}{acct:${id}}:rate`;
  private dayKey = (id: string, day: string) => `${this.prefix}{acct:${id}}:day:${day}`;
  private monthKey = (id: string, month: string) => `${this.prefix}{acct:${id}}:month:${month}`;
  private keyAccountKey = (keyId: string) => `${this.prefix}keyacct:${keyId}`;
  private secretKey = (hex: string) => `${this.prefix}secret:${hex}`;
  private accountsKey = () => `${this.prefix}accounts`;

  // Accounts

  async createAccount(input: NewAccount): Promise<{ account: Account; key: KeyWithSecret }> {
    const created = newAccountWithKey(input);
    const { account, secret } = created;
    const key: KeyRecord = { ...created.key, hash: hashSecretHex(secret) };
    await this.guard('create account', async () => {
      await this.redis.set(this.keyAccountKey(key.id), account.id);
      await this.redis.set(this.secretKey(key.hash), `${account.id} ${key.id}`);
      await this.redis
        .multi()
        .set(this.keyRecordKey(account.id, key.id), JSON.stringify(key))
        .rpush(this.keysKey(account.id), key.id)
        .set(this.accountKey(account.id), JSON.stringify(account))
        .exec()
        .then(execResult);
      await this.redis.sadd(this.accountsKey(), account.id);
    });
    return { account: { ...account }, key: { ...shownKey(key), secret } };
  }

  async getAccount(id: string): Promise<Account | null> {
    const json = await this.guard('read account', () => this.redis.get(this.accountKey(id)));
    return json === null ? null : (JSON.parse(json) as Account);
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    if (patch.suspended !== undefined && typeof patch.suspended !== 'boolean') throw new StoreInputError('suspended must be true or false');
    return this.changed('update account', () =>
      this.compareAndSet(this.accountKey(id), (json) => {
        const current = JSON.parse(json) as Account;
        const plan = patch.plan === undefined ? current.plan : checkedPlan(patch.plan);
        return {
          ...current,
          plan,
          expires_at: planAndExpiry(plan, patch.expires_at, current.expires_at),
          suspended: patch.suspended ?? current.suspended,
          email: patch.email === undefined ? current.email : patch.email,
        };
      }),
    );
  }

  async countAccounts(): Promise<number> {
    return this.guard('count accounts', () => this.redis.scard(this.accountsKey()));
  }

  // Keys

  async listKeys(accountId: string): Promise<ApiKey[]> {
    return this.guard('list keys', async () => {
      const ids = await this.redis.lrange(this.keysKey(accountId), 0, -1);
      if (ids.length === 0) return [];
      const records = await this.redis.mget(ids.map((id) => this.keyRecordKey(accountId, id)));
      return records.filter((r): r is string => r !== null).map((r) => shownKey(JSON.parse(r) as KeyRecord));
    });
  }

  async getKey(id: string): Promise<ApiKey | null> {
    return this.guard('read key', async () => {
      const found = await this.keyRecord(id);
      return found && shownKey(found.record);
    });
  }

  async createKey(accountId: string, input: { name: string; websites?: string[] }, maxKeys: number): Promise<KeyWithSecret> {
    const name = checkedName(input.name);
    const websites = normalizeWebsites(input.websites ?? []);
    const secret = newSecret();
    const key: KeyRecord = {
      id: newId('key'),
      account_id: accountId,
      name,
      websites,
      created_at: new Date().toISOString(),
      rolled_at: null,
      hash: hashSecretHex(secret),
    };
    await this.guard('create key', async () => {
      await this.redis.set(this.keyAccountKey(key.id), accountId);
      await this.redis.set(this.secretKey(key.hash), `${accountId} ${key.id}`);
      const added = await this.redis.netlookupAddKey(
        this.accountKey(accountId),
        this.keysKey(accountId),
        this.keyRecordKey(accountId, key.id),
        maxKeys,
        key.id,
        JSON.stringify(key),
      );
      if (added !== 1) {
        await this.deleteIndexes(this.keyAccountKey(key.id), this.secretKey(key.hash));
        if (added === -1) throw new StoreInputError(`no account ${accountId}`);
        throw new KeyLimitError(maxKeys);
      }
    });
    return { ...shownKey(key), secret };
  }

  async updateKey(id: string, patch: KeyPatch): Promise<ApiKey | null> {
    const name = patch.name === undefined ? undefined : checkedName(patch.name);
    const websites = patch.websites === undefined ? undefined : normalizeWebsites(patch.websites);
    return this.changed('update key', async () => {
      const accountId = await this.redis.get(this.keyAccountKey(id));
      if (accountId === null) return null;
      const next = await this.compareAndSet(this.keyRecordKey(accountId, id), (json) => {
        const current = JSON.parse(json) as KeyRecord;
        return { ...current, name: name ?? current.name, websites: websites ?? current.websites };
      });
      return next && shownKey(next);
    });
  }

  async rollKey(id: string): Promise<KeyWithSecret | null> {
    const secret = newSecret();
    const hash = hashSecretHex(secret);
    return this.changed('roll key', async () => {
      const accountId = await this.redis.get(this.keyAccountKey(id));
      if (accountId === null) return null;
      await this.redis.set(this.secretKey(hash), `${accountId} ${id}`);
      let oldHash: string | null = null;
      const next = await this.compareAndSet(this.keyRecordKey(accountId, id), (json) => {
        const current = JSON.parse(json) as KeyRecord;
        oldHash = current.hash;
        return { ...current, hash, rolled_at: new Date().toISOString() };
      });
      if (next === null) {
        await this.redis.del(this.secretKey(hash));
        return null;
      }
      // The record holds the new hash already, so the old secret fails from here on; the index goes for space.
      if (oldHash !== null) await this.redis.del(this.secretKey(oldHash));
      return { ...shownKey(next), secret };
    });
  }

  async deleteKey(id: string): Promise<boolean> {
    return this.changed('delete key', async () => {
      const accountId = await this.redis.get(this.keyAccountKey(id));
      if (accountId === null) return false;
      const recordKey = this.keyRecordKey(accountId, id);
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const json = await this.redis.get(recordKey);
        if (json === null) break;
        const deleted = await this.redis.netlookupCas(recordKey, this.keysKey(accountId), json, '', id);
        if (deleted === 1) {
          const { hash } = JSON.parse(json) as KeyRecord;
          await this.deleteIndexes(this.secretKey(hash), this.keyAccountKey(id));
          return true;
        }
      }
      await this.redis.del(this.keyAccountKey(id));
      return false;
    });
  }

  async authenticate(secret: string): Promise<{ key: ApiKey; account: Account } | null> {
    if (!isWellFormedSecret(secret)) return null;
    const hex = hashSecretHex(secret);
    const cached = this.keyCache?.get(hex);
    if (cached !== undefined) return cached;
    const epoch = this.keyCache?.begin() ?? 0;
    let found: { key: ApiKey; account: Account } | null;
    try {
      found = await this.guard('authenticate', () => this.readAuthentication(hex));
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      // Redis is away: the last answer it gave for this secret, else unavailable (retryable).
      const remembered = this.fallback.authenticate(hex);
      if (remembered === null) throw e;
      return remembered;
    }
    this.fallback.rememberAuthentication(hex, found);
    if (found !== null) this.keyCache?.set(hex, found, epoch);
    return found;
  }

  private async readAuthentication(hex: string): Promise<{ key: ApiKey; account: Account } | null> {
    const ids = await this.redis.get(this.secretKey(hex));
    if (ids === null) return null;
    const [accountId, keyId] = ids.split(' ');
    const [accountJson, keyJson] = await this.redis.mget(this.accountKey(accountId), this.keyRecordKey(accountId, keyId));
    if (accountJson === null || keyJson === null) return null;
    const record = JSON.parse(keyJson) as KeyRecord;
    // The record is the authority: an index left behind by a roll or deletion matches no record.
    if (!sameHashHex(record.hash, hex)) return null;
    // Frozen: a cached answer is handed to every request that presents the secret.
    const key = shownKey(record);
    Object.freeze(key.websites);
    return { key: Object.freeze(key), account: Object.freeze(JSON.parse(accountJson) as Account) };
  }

  // Metering

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
   * connection is corked meanwhile, so that they leave in one write. Not an ioredis pipeline: under
   * load its objects outlive young-generation collections, which then copy megabytes each (measured
   * in the README's performance section).
   */
  private admitBatches(batches: AdmissionItem[][]): Promise<AdmitDecision[]>[] {
    const connection = this.redis.stream;
    connection?.cork();
    try {
      return batches.map((batch) => this.admitBatch(batch));
    } finally {
      connection?.uncork();
    }
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
    for (const { request } of batch) args.push(request.api, request.cost, request.consume ? '1' : '0');
    return args;
  }

  private decisionsOf(batch: AdmissionItem[], reply: number[]): AdmitDecision[] {
    const { quota: rule, now } = batch[0].request;
    const resetsAt = nextReset(rule.period, now);
    return batch.map(({ request }, i) => {
      const used = reply[2 * i + 1];
      const decision: AdmitDecision = {
        outcome: outcomes[reply[2 * i]],
        quota: { limit: rule.limit, used, remaining: Math.max(0, rule.limit - used), period: rule.period, resets_at: resetsAt },
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
          sent.receipt, sent.seq,
          2, this.dayTtl(now), api, -cost, 'rejected', 1,
          1, this.monthTtl(now), api, -cost,
        ),
      );
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      // Owed to Redis like the counts of an outage: an admission counted here nets out, one counted in Redis is given back there.
      for (const [name, n] of [[api, -cost], ['rejected', 1]] as const) {
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

  // Internals

  /** TTLs relative to `now`, so a test's injected clock never sets an expiry in the past. */
  private dayTtl(now: Date): number {
    return nextDayReset(now).getTime() - now.getTime() + DAY_COUNTER_GRACE_MS;
  }

  private monthTtl(now: Date): number {
    return nextMonthReset(now).getTime() - now.getTime() + MONTH_COUNTER_GRACE_MS;
  }

  private async keyRecord(id: string): Promise<{ accountId: string; record: KeyRecord } | null> {
    const accountId = await this.redis.get(this.keyAccountKey(id));
    if (accountId === null) return null;
    const json = await this.redis.get(this.keyRecordKey(accountId, id));
    return json === null ? null : { accountId, record: JSON.parse(json) as KeyRecord };
  }

  /** Read, change, write back only if unchanged meanwhile (another instance may write the same record). */
  private async compareAndSet<T>(key: string, change: (json: string) => T): Promise<T | null> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const json = await this.redis.get(key);
      if (json === null) return null;
      const next = change(json);
      if ((await this.redis.netlookupCas(key, key, json, JSON.stringify(next), '')) === 1) return next;
    }
    throw new StoreUnavailableError(`redis store: ${key} kept changing during ${CAS_ATTEMPTS} attempts`);
  }

  /** Deletes index keys of different Cluster slots: one DEL each, as one DEL of several keys must stay in one slot. */
  private async deleteIndexes(...keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.redis.del(key)));
  }

  /** A counting command's identity: this connection's receipt field and the next sequence number. */
  private nextCommand(): CommandReceipt {
    return { receipt: `seq:${this.instance}:${this.generation}`, seq: this.sequence++ };
  }

  /** An account or key change: no answer remembered for outages survives it. */
  private async changed<T>(what: string, work: () => Promise<T>): Promise<T> {
    const result = await this.guard(what, work);
    this.fallback.forgetAuthentications();
    this.keyCache?.invalidate();
    // Every instance drops its cache before this change's caller has its answer.
    if (result !== null && result !== false) await this.guard(what, () => ChangeFeed.announce(this.redis, this.prefix, 'keys'));
    return result;
  }

  /** Runs Redis work; a failure of Redis becomes StoreUnavailableError. */
  async guard<T>(what: string, work: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError(`redis store: ${what}: the store is closed`);
    try {
      return await work();
    } catch (e) {
      if (e instanceof KeyLimitError || e instanceof StoreInputError || e instanceof StoreUnavailableError || e instanceof RangeError) throw e;
      throw unavailable(`redis store: ${what} failed`, e);
    }
  }
}

