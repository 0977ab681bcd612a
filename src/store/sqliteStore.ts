/**
 * The embedded store (ARCHITECTURE "Stores"): one SQLite file `netlookup.sqlite` under the data
 * directory, through better-sqlite3, for one serving process (another connection, such as the CLI,
 * may change accounts and keys meanwhile: the caches notice through `PRAGMA data_version`, asked at
 * most once per millisecond).
 *
 * Durability: WAL with `synchronous = FULL`, and every account or key change is its own committed
 * transaction before its method resolves, so an acknowledged change survives `kill -9`.
 *
 * Metering is answered from memory: the rate window lives only in memory, and usage counters are
 * kept in memory and flushed to SQLite in one transaction every `flushIntervalMs` and on close().
 * A crash therefore loses at most the counts of the last flush interval, nothing else. An account's
 * counters of the current day and month are read back from SQLite at its first request.
 *
 * Every SQLite failure surfaces as StoreUnavailableError, so the HTTP layer can answer `unavailable`.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { apis, type Api, type PlanCode } from '../plans/plans.js';
import type { QuotaState, UsageCounts } from '../plans/quota.js';
import { hashSecret, hashSecretHex, isWellFormedSecret, newId, newSecret, sameHashHex } from './apiKeySecret.js';
import { dayKey, monthDayRange, monthKey, nextReset } from './quotaPeriod.js';
import { SlidingRateWindow } from './rateWindow.js';
import { DataDirLock } from './dataDirLock.js';
import { narrowIfPresent, ownerOnlyDirectory, ownerOnlyFile } from './fileModes.js';
import { migrate } from './sqliteMigrations.js';
import { SqliteBlacklist, type SqliteBlacklistOptions } from './sqliteBlacklist.js';
import {
  KeyLimitError,
  StoreUnavailableError,
  type Account,
  type AccountPatch,
  type AdmitDecision,
  type AdmitRequest,
  type ApiKey,
  type KeyPatch,
  type KeyWithSecret,
  type NewAccount,
  type Store,
} from './store.js';
import { checkedName, checkedPlan, newAccountWithKey, normalizeWebsites, planAndExpiry, StoreInputError } from './keyWebsites.js';

export { normalizeWebsites, StoreInputError };

export const DATABASE_FILE = 'netlookup.sqlite';
const DATA_VERSION_INTERVAL_MS = 1;

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

interface AccountRow {
  id: string;
  plan: PlanCode;
  expires_at: string | null;
  suspended: number;
  email: string | null;
  created_at: string;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  websites: string;
  hash: Buffer;
  created_at: string;
  rolled_at: string | null;
}

interface CachedKey {
  key: ApiKey;
  /** the stored hash, hex */
  hash: string;
}

/** Idle counter views are forgotten after this many flushes (about a minute at the default interval). */
const VIEW_IDLE_FLUSHES = 60;
/** The caches are cleared wholesale past this size, which bounds memory without bookkeeping. */
const CACHE_LIMIT = 100_000;

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  plan: row.plan,
  expires_at: row.expires_at,
  suspended: row.suspended !== 0,
  email: row.email,
  created_at: row.created_at,
});

const toKey = (row: KeyRow): ApiKey => ({
  id: row.id,
  account_id: row.account_id,
  name: row.name,
  websites: JSON.parse(row.websites) as string[],
  created_at: row.created_at,
  rolled_at: row.rolled_at,
});

const copyKey = (key: ApiKey): ApiKey => ({ ...key, websites: [...key.websites] });
const frozenKey = (key: ApiKey): ApiKey => Object.freeze({ ...key, websites: Object.freeze([...key.websites]) as string[] });

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;

  private readonly rateWindow = new SlidingRateWindow(1000);
  private readonly views = new Map<string, CounterView>();
  /** counts not yet in SQLite, by account and day */
  private readonly pending = new Map<string, Map<string, Counts>>();
  private readonly keysByHash = new Map<string, CachedKey>();
  private readonly hashByKeyId = new Map<string, string>();
  private readonly accounts = new Map<string, Account>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** the data directory's lock, held by the serving process */
  private lock: DataDirLock | undefined;
  /** SQLite's count of commits by other connections, as last seen by the caches */
  private seenDataVersion = -1;
  private dataVersionCheckedAt = -Infinity;
  private lastFlushFailed = false;
  private readonly sql: ReturnType<typeof prepareStatements>;
  /** The blacklist (src/store/sqliteBlacklist.ts) on the same connection. */
  readonly blacklist: SqliteBlacklist;

  private constructor(private readonly db: Database.Database, flushIntervalMs: number, blacklist: SqliteBlacklistOptions) {
    this.sql = prepareStatements(db);
    this.blacklist = new SqliteBlacklist(db, (what, work) => this.guard(what, work), blacklist);
    this.timer = setInterval(() => {
      try {
        this.flush();
      } catch {
        // The counts stay pending for the next flush; healthy() reports the failure meanwhile.
      }
    }, flushIntervalMs);
    this.timer.unref();
  }

  /**
   * Opens (creating the directory 0700 and the file 0600 if needed) and migrates
   * `dir/netlookup.sqlite`. `writer`: the serving process, which first takes the directory's lock
   * (src/store/dataDirLock.ts) and holds it until close(); the admin commands open without it.
   */
  static open(dir: string, options: { flushIntervalMs?: number; blacklist?: SqliteBlacklistOptions; writer?: boolean } = {}): SqliteStore {
    const flushIntervalMs = options.flushIntervalMs ?? 1000;
    if (!(flushIntervalMs > 0)) throw new RangeError('flushIntervalMs must be positive');
    const lock = options.writer ? DataDirLock.acquire(dir) : undefined;
    let db: Database.Database | undefined;
    try {
      const file = path.join(dir, DATABASE_FILE);
      ownerOnlyDirectory(dir);
      ownerOnlyFile(file);
      for (const suffix of ['-wal', '-shm']) narrowIfPresent(file + suffix);
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      // FULL syncs the WAL at every commit: an acknowledged change survives power loss, not just kill -9.
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrate(db);
      const store = new SqliteStore(db, flushIntervalMs, options.blacklist ?? {});
      store.lock = lock;
      return store;
    } catch (e) {
      db?.close();
      lock?.release();
      throw unavailable(`cannot open ${path.join(dir, DATABASE_FILE)}`, e);
    }
  }

  async healthy(): Promise<boolean> {
    if (this.closed || this.lastFlushFailed) return false;
    try {
      this.sql.ping.get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    try {
      this.blacklist.close();
      this.flush();
    } finally {
      this.closed = true;
      this.db.close();
      this.lock?.release();
    }
  }

  // Accounts

  async createAccount(input: NewAccount): Promise<{ account: Account; key: KeyWithSecret }> {
    const { account, key, secret } = newAccountWithKey(input);
    this.guard('create account', () =>
      this.db
        .transaction(() => {
          this.sql.insertAccount.run({ ...account, suspended: 0 });
          this.sql.insertKey.run({ ...key, websites: '[]', hash: hashSecret(secret) });
        })
        .immediate(),
    );
    return { account: { ...account }, key: { ...copyKey(key), secret } };
  }

  async getAccount(id: string): Promise<Account | null> {
    const account = this.guard('read account', () => {
      this.dropCachesIfChangedElsewhere();
      return this.loadAccount(id);
    });
    return account && { ...account };
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    return this.guard('update account', () => {
      this.accounts.delete(id);
      const row = this.sql.account.get(id);
      if (!row) return null;
      const current = toAccount(row);
      const plan = patch.plan === undefined ? current.plan : checkedPlan(patch.plan);
      if (patch.suspended !== undefined && typeof patch.suspended !== 'boolean') throw new StoreInputError('suspended must be true or false');
      const next: Account = {
        ...current,
        plan,
        expires_at: planAndExpiry(plan, patch.expires_at, current.expires_at),
        suspended: patch.suspended ?? current.suspended,
        email: patch.email === undefined ? current.email : patch.email,
      };
      this.sql.updateAccount.run({ ...next, suspended: next.suspended ? 1 : 0 });
      return { ...next };
    });
  }

  async countAccounts(): Promise<number> {
    return this.guard('count accounts', () => this.sql.countAccounts.get()!.n);
  }

  // Keys

  async listKeys(accountId: string): Promise<ApiKey[]> {
    return this.guard('list keys', () => this.sql.keysOfAccount.all(accountId).map(toKey));
  }

  async getKey(id: string): Promise<ApiKey | null> {
    return this.guard('read key', () => {
      const row = this.sql.key.get(id);
      return row ? toKey(row) : null;
    });
  }

  async createKey(accountId: string, input: { name: string; websites?: string[] }, maxKeys: number): Promise<KeyWithSecret> {
    const name = checkedName(input.name);
    const websites = normalizeWebsites(input.websites ?? []);
    const secret = newSecret();
    const key: ApiKey = { id: newId('key'), account_id: accountId, name, websites, created_at: new Date().toISOString(), rolled_at: null };
    this.guard('create key', () =>
      this.db
        .transaction(() => {
          if (!this.sql.account.get(accountId)) throw new StoreInputError(`no account ${accountId}`);
          if (this.sql.countKeys.get(accountId)!.n >= maxKeys) throw new KeyLimitError(maxKeys);
          this.sql.insertKey.run({ ...key, websites: JSON.stringify(websites), hash: hashSecret(secret) });
        })
        .immediate(),
    );
    return { ...copyKey(key), secret };
  }

  async updateKey(id: string, patch: KeyPatch): Promise<ApiKey | null> {
    const name = patch.name === undefined ? undefined : checkedName(patch.name);
    const websites = patch.websites === undefined ? undefined : normalizeWebsites(patch.websites);
    return this.guard('update key', () => {
      this.forgetKey(id);
      const row = this.sql.key.get(id);
      if (!row) return null;
      const next: ApiKey = { ...toKey(row), name: name ?? row.name };
      if (websites !== undefined) next.websites = websites;
      this.sql.updateKey.run({ id, name: next.name, websites: JSON.stringify(next.websites) });
      return next;
    });
  }

  async rollKey(id: string): Promise<KeyWithSecret | null> {
    const secret = newSecret();
    return this.guard('roll key', () => {
      this.forgetKey(id);
      const row = this.sql.key.get(id);
      if (!row) return null;
      const rolledAt = new Date().toISOString();
      this.sql.rollKey.run({ id, hash: hashSecret(secret), rolled_at: rolledAt });
      return { ...toKey(row), rolled_at: rolledAt, secret };
    });
  }

  async deleteKey(id: string): Promise<boolean> {
    return this.guard('delete key', () => {
      this.forgetKey(id);
      return this.sql.deleteKey.run(id).changes > 0;
    });
  }

  readonly immediate = {
    authenticate: (secret: string) => this.authenticateNow(secret),
    admit: (request: AdmitRequest) => this.admitNow(request),
  };

  async authenticate(secret: string): Promise<{ key: ApiKey; account: Account } | null> {
    return this.authenticateNow(secret);
  }

  /** Answers from frozen cached objects: this runs on every request, copies would cost. */
  private authenticateNow(secret: string): { key: ApiKey; account: Account } | null {
    if (!isWellFormedSecret(secret)) return null;
    const hex = hashSecretHex(secret);
    return this.guard('authenticate', () => {
      this.dropCachesIfChangedElsewhere();
      let cached = this.keysByHash.get(hex);
      if (cached === undefined) {
        const row = this.sql.keyByHash.get(Buffer.from(hex, 'hex'));
        if (!row) return null;
        cached = { key: frozenKey(toKey(row)), hash: Buffer.from(row.hash).toString('hex') };
        if (this.keysByHash.size >= CACHE_LIMIT) this.clearKeyCache();
        this.keysByHash.set(hex, cached);
        this.hashByKeyId.set(cached.key.id, hex);
      }
      if (!sameHashHex(cached.hash, hex)) return null;
      const account = this.loadAccount(cached.key.account_id);
      return account && { key: cached.key, account };
    });
  }

  // Metering

  async admit(request: AdmitRequest): Promise<AdmitDecision> {
    return this.admitNow(request);
  }

  private admitNow(request: AdmitRequest): AdmitDecision {
    const { account_id: accountId, api, cost, quota: rule, now } = request;
    if (!apis.includes(api)) throw new RangeError(`unknown api ${String(api)}`);
    if (!Number.isInteger(cost) || cost < 0) throw new RangeError('cost must be a non-negative integer');
    const view = this.guard('read usage', () => this.counterView(accountId, now));
    const state = (): QuotaState => {
      const used = this.quotaUsed(view, request);
      return { limit: rule.limit, used, remaining: Math.max(0, rule.limit - used), period: rule.period, resets_at: nextReset(rule.period, now) };
    };
    if (!this.rateWindow.tryAdmit(accountId, request.rate_limit_per_second, now.getTime())) {
      this.count(view, accountId, 'rejected', 1);
      return { outcome: 'rate_limited', quota: state() };
    }
    if (!request.consume) {
      this.count(view, accountId, 'rejected', 1);
      return { outcome: 'refused', quota: state() };
    }
    if (this.quotaUsed(view, request) + cost > rule.limit) {
      this.count(view, accountId, 'rejected', 1);
      return { outcome: 'quota_exceeded', quota: state() };
    }
    this.count(view, accountId, api, cost);
    return { outcome: 'admitted', quota: state() };
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

  /** Writes the pending counts in one transaction; on failure they stay pending for the next try. */
  flush(): void {
    for (const [id, view] of this.views) {
      if (++view.idleFlushes > VIEW_IDLE_FLUSHES && !this.pending.has(id)) this.views.delete(id);
    }
    if (this.pending.size === 0) return;
    this.guard('write usage', () => {
      try {
        this.db.transaction(() => {
          for (const [accountId, days] of this.pending) {
            for (const [day, counts] of days) {
              for (const name of counterNames) if (counts[name] > 0) this.sql.addUsage.run(accountId, day, name, counts[name]);
            }
          }
        }).immediate();
        this.lastFlushFailed = false;
      } catch (e) {
        this.lastFlushFailed = true;
        throw e;
      }
    });
    this.pending.clear();
  }

  // Internals

  /** Runs SQLite work; any failure of the database becomes StoreUnavailableError. */
  private guard<T>(what: string, work: () => T): T {
    if (this.closed) throw new StoreUnavailableError(`sqlite store: ${what}: the store is closed`);
    try {
      return work();
    } catch (e) {
      if (e instanceof KeyLimitError || e instanceof StoreInputError) throw e;
      throw unavailable(`sqlite store: ${what} failed`, e);
    }
  }

  private loadAccount(id: string): Account | null {
    const cached = this.accounts.get(id);
    if (cached) return cached;
    const row = this.sql.account.get(id);
    if (!row) return null;
    if (this.accounts.size >= CACHE_LIMIT) this.accounts.clear();
    const account = Object.freeze(toAccount(row));
    this.accounts.set(id, account);
    return account;
  }

  /** Drops a key from the authentication cache, so a changed, rolled or deleted key is read afresh. */
  private forgetKey(id: string): void {
    const hex = this.hashByKeyId.get(id);
    if (hex === undefined) return;
    this.hashByKeyId.delete(id);
    this.keysByHash.delete(hex);
  }

  /**
   * The caches are only valid while this process is the only writer. Another connection (say the
   * CLI rolling a key while the server runs) changes `PRAGMA data_version`, so a rolled or deleted
   * key's old secret still fails at once.
   */
  private dropCachesIfChangedElsewhere(): void {
    // Asking SQLite costs microseconds; once per millisecond is as soon as another process can act.
    const at = performance.now();
    if (at - this.dataVersionCheckedAt < DATA_VERSION_INTERVAL_MS) return;
    this.dataVersionCheckedAt = at;
    const version = this.sql.dataVersion.get()!;
    if (version === this.seenDataVersion) return;
    this.seenDataVersion = version;
    this.clearKeyCache();
    this.accounts.clear();
  }

  private clearKeyCache(): void {
    this.keysByHash.clear();
    this.hashByKeyId.clear();
  }

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

/** Statements prepared once: the hot ones (authenticate, usage reads) must not re-parse SQL. */
function prepareStatements(db: Database.Database) {
  return {
    insertAccount: db.prepare(
      'INSERT INTO accounts (id, plan, expires_at, suspended, email, created_at) VALUES (@id, @plan, @expires_at, @suspended, @email, @created_at)',
    ),
    account: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    updateAccount: db.prepare(
      'UPDATE accounts SET plan = @plan, expires_at = @expires_at, suspended = @suspended, email = @email WHERE id = @id',
    ),
    countAccounts: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM accounts'),
    insertKey: db.prepare(
      'INSERT INTO api_keys (id, account_id, name, websites, hash, created_at, rolled_at) VALUES (@id, @account_id, @name, @websites, @hash, @created_at, NULL)',
    ),
    key: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?'),
    keyByHash: db.prepare<[Buffer], KeyRow>('SELECT * FROM api_keys WHERE hash = ?'),
    keysOfAccount: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY rowid'),
    countKeys: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?'),
    updateKey: db.prepare('UPDATE api_keys SET name = @name, websites = @websites WHERE id = @id'),
    rollKey: db.prepare('UPDATE api_keys SET hash = @hash, rolled_at = @rolled_at WHERE id = @id'),
    deleteKey: db.prepare('DELETE FROM api_keys WHERE id = ?'),
    dayUsage: db.prepare<[string, string], { api: CounterName; count: number }>(
      'SELECT api, count FROM usage WHERE account_id = ? AND day = ?',
    ),
    monthUsage: db.prepare<[string, string, string], { api: Api; n: number }>(
      "SELECT api, SUM(count) AS n FROM usage WHERE account_id = ? AND day BETWEEN ? AND ? AND api <> 'rejected' GROUP BY api",
    ),
    addUsage: db.prepare(
      'INSERT INTO usage (account_id, day, api, count) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, day, api) DO UPDATE SET count = count + excluded.count',
    ),
    ping: db.prepare('SELECT 1'),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  };
}

function unavailable(message: string, cause: unknown): StoreUnavailableError {
  const error = new StoreUnavailableError(`${message}: ${cause instanceof Error ? cause.message : String(cause)}`);
  error.cause = cause;
  return error;
}
