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
  fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
  const stat = fs.statSync(file);
  if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fs.chmodSync(file, 0o600);
}

/** Narrows an existing file this process owns to 0600 (a -wal or -shm left by an earlier version). */
export function narrowIfPresent(file: string): void {
  if (fs.existsSync(file)) ownerOnlyFile(file);
}
