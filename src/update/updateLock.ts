/**
 * One update at a time per tables folder: a lock file created exclusively, naming the holder's
 * process. A holder killed with -9 leaves its file behind; the next update finds that process gone
 * and takes the lock over, so a crash never blocks updates for good.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UPDATE_LOCK_FILE } from '../tables/tableSets.js';

export class UpdateLockedError extends Error {
  constructor(readonly holder: LockHolder) {
    super(`another update is running (process ${holder.pid} on ${holder.host}, since ${holder.since})`);
    this.name = 'UpdateLockedError';
  }
}

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

export interface UpdateLock {
  /** true when the lock was taken over from a holder that had died */
  tookOver: boolean;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | null {
  try {
    const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : null;
  } catch {
    return null;
  }
}

export function takeUpdateLock(tablesDir: string): UpdateLock {
  const file = path.join(tablesDir, UPDATE_LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  let tookOver = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
      return {
        tookOver,
        release: () => {
          if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    // A holder on another host cannot be checked: its lock stands until removed by hand.
    if (holder && (holder.host !== me.host || alive(holder.pid))) throw new UpdateLockedError(holder);
    // Dead holder, or a file cut short by a crash between create and write: take it over. The rename
    // lets one of two racing takers win: the other finds the file gone and meets the winner's lock.
    const stale = `${file}.${process.pid}.stale`;
    try {
      fs.renameSync(file, stale);
      const moved = readHolder(stale);
      if (moved && moved.pid !== holder?.pid && alive(moved.pid)) {
        // Another taker won between our read and our rename: its lock goes back.
        fs.renameSync(stale, file);
        throw new UpdateLockedError(moved);
      }
      fs.rmSync(stale, { force: true });
      tookOver = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new UpdateLockedError(readHolder(file) ?? { pid: 0, host: 'unknown', since: 'unknown' });
}
