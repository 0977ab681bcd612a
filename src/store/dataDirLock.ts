/**
 * One serving process per data directory. The embedded store keeps per-second windows and usage
 * counters in its process's memory, so two servers on one directory would each let the full limits
 * through. The server holds `netlookup.lock`, a SQLite database of its own opened in exclusive
 * locking mode: SQLite takes an OS advisory lock (fcntl on Linux and macOS, LockFileEx on Windows)
 * that the kernel drops when the process ends, `kill -9` included, so a crash leaves no stale lock.
 * The admin commands open only `netlookup.sqlite` and keep working beside a running server.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { ownerOnlyDirectory, ownerOnlyFile } from './fileModes.js';

export const LOCK_FILE = 'netlookup.lock';

export class DataDirLockedError extends Error {
  constructor(readonly dir: string) {
    super(
      `another netlookup serve is using the data directory ${dir} (it holds ${LOCK_FILE}). ` +
        'Stop it first; for several processes on one store, set REDIS_URL. The account and key commands work beside it.',
    );
    this.name = 'DataDirLockedError';
  }
}

export class DataDirLock {
  private constructor(private readonly db: Database.Database) {}

  /** Takes the directory's lock (creating the directory and file if needed) or throws DataDirLockedError. */
  static acquire(dir: string): DataDirLock {
    ownerOnlyDirectory(dir);
    const file = path.join(dir, LOCK_FILE);
    ownerOnlyFile(file);
    const db = new Database(file, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      // The first write takes the exclusive lock; in this locking mode it is kept until close.
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
      db.transaction(() => {
        db.exec('DELETE FROM holder');
        db.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
      }).exclusive();
      return new DataDirLock(db);
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new DataDirLockedError(dir);
      throw error;
    }
  }

  release(): void {
    if (this.db.open) this.db.close();
  }
}
