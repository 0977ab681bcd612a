/**
 * The tables folder (NETLOOKUP_TABLES) holds table sets: the one `npm install` builds at the top of
 * the folder ("installed") and the ones `netlookup update` builds under `sets/<name>/`. One-line
 * pointer files say which set is in force and which came before it; a pointer is replaced by a
 * rename, so a reader sees the old set or the new one, never a mix. A set's folder is complete
 * before any pointer names it.
 *
 *   <tables>/ip4.nlt ip6.nlt mac.nlt manifest.json   the installed set
 *   <tables>/sets/<name>/…                            sets built by `netlookup update`
 *   <tables>/current, <tables>/previous               pointers (absent: the installed set)
 *   <tables>/sources/<source>/…                       the publishers' files the sets were built from
 *   <tables>/update-status.json                       the last update's outcome, per source
 *   <tables>/update.lock                              held by the update that runs
 */
import fs from 'node:fs';
import path from 'node:path';

export const INSTALLED_SET = 'installed';
export const SETS_FOLDER = 'sets';
export const SOURCES_FOLDER = 'sources';
export const CURRENT_POINTER = 'current';
export const PREVIOUS_POINTER = 'previous';
export const UPDATE_STATUS_FILE = 'update-status.json';
export const UPDATE_LOCK_FILE = 'update.lock';

/** Set names are made by the updater (a UTC time stamp); anything else in a pointer is refused, not followed. */
const SET_NAME = /^(installed|\d{8}T\d{6}Z(-\d+)?)$/;

export function isSetName(name: string): boolean {
  return SET_NAME.test(name);
}

export function setFolder(tablesDir: string, name: string): string {
  if (!isSetName(name)) throw new Error(`"${name}" is not a table set name`);
  return name === INSTALLED_SET ? tablesDir : path.join(tablesDir, SETS_FOLDER, name);
}

/** The set a pointer names; the installed set when the pointer is absent. */
export function readPointer(tablesDir: string, pointer: typeof CURRENT_POINTER | typeof PREVIOUS_POINTER): string | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(tablesDir, pointer), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return pointer === CURRENT_POINTER ? INSTALLED_SET : null;
    throw error;
  }
  const name = text.trim();
  if (!isSetName(name)) throw new Error(`${path.join(tablesDir, pointer)}: "${name.slice(0, 40)}" is not a table set name`);
  return name;
}

/** The folder of the set in force. */
export function setInForce(tablesDir: string): string {
  return setFolder(tablesDir, readPointer(tablesDir, CURRENT_POINTER)!);
}

/** The name of the set loaded tables come from, by their files' folder; null for a folder outside the tables folder. */
export function setNameOfTables(tablesDir: string, tables: readonly { file: string }[]): string | null {
  if (tables.length === 0) return null;
  const folder = path.resolve(path.dirname(tables[0].file));
  if (folder === path.resolve(tablesDir)) return INSTALLED_SET;
  const name = path.basename(folder);
  return path.dirname(folder) === path.resolve(tablesDir, SETS_FOLDER) && isSetName(name) ? name : null;
}

/** Replaces a file by a rename of a complete copy beside it: readers (a running server, a loader) see the old bytes or the new ones. */
export function replaceFile(file: string, bytes: string | Uint8Array): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'w');
  try {
    fs.writeSync(fd, typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
}

export function writePointer(tablesDir: string, pointer: typeof CURRENT_POINTER | typeof PREVIOUS_POINTER, name: string): void {
  if (!isSetName(name)) throw new Error(`"${name}" is not a table set name`);
  replaceFile(path.join(tablesDir, pointer), `${name}\n`);
}

/** What the last `netlookup update` did, overall and per source (written by src/update, read by /health, /v1 and the metrics). */
export interface UpdateStatus {
  last_attempt: {
    started_at: string;
    finished_at: string | null;
    outcome: 'running' | 'updated' | 'unchanged' | 'failed' | 'rolled_back';
    message: string | null;
    set: string | null;
  };
  last_success: string | null;
  sources: Record<string, SourceStatus>;
}

export interface SourceStatus {
  name: string;
  url: string;
  /** what the last attempt did with this source */
  outcome: 'fetched' | 'unchanged' | 'failed' | 'refused' | 'skipped';
  message: string | null;
  attempted_at: string;
  /** the publisher's date of the file in force (its header, file name or Last-Modified) */
  date: string | null;
  /** when the file in force was fetched; null while the npm-installed data is in force */
  fetched_at: string | null;
  rows: number | null;
}

export function readUpdateStatus(tablesDir: string): UpdateStatus | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(tablesDir, UPDATE_STATUS_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const status = JSON.parse(text) as UpdateStatus;
    return typeof status === 'object' && status !== null && typeof status.last_attempt === 'object' ? status : null;
  } catch {
    return null;
  }
}
