/**
 * The data directory holds hashed keys, account emails and usage: readable by its owner only.
 * SQLite gives a database's -wal and -shm files the mode of the database file itself, so creating
 * the file 0600 before SQLite opens it covers all three.
 */
import fs from 'node:fs';

/** Creates `dir` (and missing parents) as 0700; an existing directory is left as the operator set it. */
export function ownerOnlyDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Creates `file` as 0600 if missing, and narrows an existing one this process owns to 0600. */
export function ownerOnlyFile(file: string): void {
  narrowOpened(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
}

/**
 * Narrows an existing file this process owns to 0600 (a -wal or -shm left by an earlier version);
 * a missing one stays missing. Through one descriptor: another process may delete the file at any
 * moment (SQLite removes the -wal as its last connection closes), and a name looked up twice could
 * find it gone, or a new one, in between.
 */
export function narrowIfPresent(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDWR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  narrowOpened(fd);
}

/** Narrows the open file `fd` to 0600 when this process owns it and others may read it; closes `fd`. */
function narrowOpened(fd: number): void {
  try {
    const stat = fs.fstatSync(fd);
    if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}
