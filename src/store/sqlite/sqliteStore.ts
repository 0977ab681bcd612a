/**
 * The embedded store: one SQLite file `netlookup.sqlite` under the data
 * directory, through better-sqlite3, for one serving process (another connection, such as the CLI,
 * may change accounts, keys and the blacklist meanwhile; each part notices, see its file). On one
 * connection: the accounts and keys (sqliteAccounts.ts), the meter (sqliteMeter.ts), the
 * blacklist (sqliteBlacklist.ts) and the dashboard's sessions (sqliteSessions.ts).
 *
 * Durability: WAL with `synchronous = FULL`, and every account or key change is its own committed
 * transaction before its method resolves, so an acknowledged change survives `kill -9`, and so is
 * a dashboard session. The meter's counters and the keys' last use are flushed every
 * `flushIntervalMs` and on close().
 *
 * Every SQLite failure surfaces as StoreUnavailableError (sqliteGuard.ts), so the HTTP layer can
 * answer `unavailable`.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { DataDirLock } from '../dataDirLock.js';
import { narrowIfPresent, ownerOnlyDirectory, ownerOnlyFile } from '../fileModes.js';
import { SqliteAccounts } from './sqliteAccounts.js';
import { SqliteBlacklist, type SqliteBlacklistOptions } from './sqliteBlacklist.js';
import { sqliteGuard, unavailable, type Guard } from './sqliteGuard.js';
import { SqliteMeter } from './sqliteMeter.js';
import { migrate } from './sqliteMigrations.js';
import { OtherWriters } from './otherWriters.js';
import { SqliteSessions } from './sqliteSessions.js';
import type { Store } from '../store.js';

export const DATABASE_FILE = 'netlookup.sqlite';

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly accounts: SqliteAccounts;
  readonly meter: SqliteMeter;
  /** The blacklist (src/store/sqlite/sqliteBlacklist.ts) on the same connection. */
  readonly blacklist: SqliteBlacklist;
  readonly sessions: SqliteSessions;

  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** the data directory's lock, held by the serving process */
  private lock: DataDirLock | undefined;
  private readonly guard: Guard = sqliteGuard(() => this.closed);
  private readonly ping: Database.Statement;

  private constructor(
    private readonly db: Database.Database,
    flushIntervalMs: number,
    blacklist: SqliteBlacklistOptions,
  ) {
    this.ping = db.prepare('SELECT 1');
    const otherWriters = new OtherWriters(db);
    this.accounts = new SqliteAccounts(db, this.guard, otherWriters);
    this.meter = new SqliteMeter(db, this.guard);
    this.blacklist = new SqliteBlacklist(db, this.guard, otherWriters, blacklist);
    this.sessions = new SqliteSessions(db, this.guard);
    this.timer = setInterval(() => {
      try {
        this.meter.flush();
      } catch {
        // The counts stay pending for the next flush; healthy() reports the failure meanwhile.
      }
      try {
        this.accounts.flushKeyUse();
      } catch {
        // The uses stay noted for the next flush.
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
    if (this.closed || this.meter.flushFailed) return false;
    try {
      this.ping.get();
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
      this.meter.flush();
      this.accounts.flushKeyUse();
    } finally {
      this.closed = true;
      this.db.close();
      this.lock?.release();
    }
  }
}
