/**
 * Whether other connections to the file have committed: a worker's report, the CLI rolling a key.
 * SQLite bumps `PRAGMA data_version` on this connection for every commit of another. One per
 * connection (SqliteStore's), shared by the parts that keep copies in memory — the accounts' caches,
 * the blacklist's index — so that the hot path asks SQLite once per millisecond, not once per part.
 */
import type Database from 'better-sqlite3';

/** Asking SQLite costs microseconds; once per millisecond is as soon as another process can act. */
const HOT_PATH_INTERVAL_MS = 1;

export class OtherWriters {
  private readonly version: Database.Statement<[], number>;
  private seenVersion: number;
  private changes = 0;
  private askedAt = -Infinity;

  constructor(db: Database.Database) {
    this.version = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.seenVersion = this.version.get()!;
  }

  /**
   * How many times another connection's commits were found so far: a part that holds a copy
   * compares it with the count it last took in. Asks SQLite every time.
   */
  changesNow(): number {
    this.askedAt = performance.now();
    const version = this.version.get()!;
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.changes++;
    }
    return this.changes;
  }

  /** As `changesNow`, for a hot path: within a millisecond of the last question, the count as it was. */
  changesLately(): number {
    return performance.now() - this.askedAt < HOT_PATH_INTERVAL_MS ? this.changes : this.changesNow();
  }
}
