/**
 * `netlookup update`: fetch each source from its publisher, check it, build a new table set beside
 * the one in force, load it as the server would, and swap it in by replacing the `current` pointer
 * (src/tables/tableSets.ts). Servers follow the pointer and reload without a restart.
 *
 * Each source is optional: one that cannot be fetched, or fails its checks, keeps the file in
 * force (or the npm-installed data, before any fetch). A crash at any moment leaves the set in
 * force untouched: the new set is built in a staging folder that only a rename makes a set, and
 * the next run removes what a dead run left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadEngine } from '../engine/node.js';
import { buildTables } from '../tables/build/buildTables.js';
import type { PublisherInputs } from '../tables/build/publisherFiles.js';
import type { SourceCredit } from '../tables/format/tableMeta.js';
import {
  CURRENT_POINTER,
  INSTALLED_SET,
  PREVIOUS_POINTER,
  SETS_FOLDER,
  SOURCES_FOLDER,
  UPDATE_STATUS_FILE,
  isSetName,
  readPointer,
  readUpdateStatus,
  replaceFile,
  setFolder,
  writePointer,
  type SourceStatus,
  type UpdateStatus,
} from '../tables/tableSets.js';
import { download, downloadText, DownloadError, mirroredUrl, publisherFileName } from './download.js';
import { SOURCES, type SourceDefinition, type SourceId } from './sourceCatalog.js';
import { takeUpdateLock } from './updateLock.js';

/** The file of each source a set was built from, kept beside the set as `inputs.json`. */
const INPUTS_FILE = 'inputs.json';

/**
 * A source whose rows fall by more than this share against the file in force is refused (unless
 * forced): a publisher's truncated or partial file is the likeliest bad update, and no real source
 * loses a fifth of its rows between two releases.
 */
const SHRINK_LIMIT = 0.2;
/** The same rule for the built tables against the set in force: ranges or MAC blocks fewer by this share refuse the set. */
const TABLE_SHRINK_LIMIT = 0.2;

interface SourceInput {
  id: SourceId;
  url: string;
  /** `<sha256 prefix>/<publisher's file name>` inside <tables>/sources/<id>/ */
  file: string;
  sha256: string;
  bytes: number;
  rows: number;
  date: string | null;
  fetched_at: string;
  last_modified: string | null;
  etag: string | null;
}

export interface UpdateOptions {
  tablesDir: string;
  curatedDir: string;
  registryDir: string;
  /** take every source from `<mirror>/<host>/<path>` */
  mirror?: string | null;
  /** accept a source or set that shrank, and fetch sources younger than their cadence */
  force?: boolean;
  /** only these sources (default all), fetched whatever their cadence */
  only?: readonly SourceId[];
  /** fetch PeeringDB's files too (its terms limit its use: docs/tables.md "PeeringDB"); a set built without it drops its data */
  peeringDb?: boolean;
  /** the longest wait for a publisher's answer and between its bytes */
  idleTimeoutMs?: number;
  now?: () => Date;
  progress?: (phase: string, done: number, total: number) => void;
  log?: (line: string) => void;
}

export interface UpdateResult {
  outcome: 'updated' | 'unchanged' | 'failed';
  set: string;
  message: string | null;
  /** the sources this run looked at (update-status.json keeps every source's last attempt) */
  sources: Record<string, SourceStatus>;
}

const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

function readInputs(tablesDir: string, set: string): Partial<Record<SourceId, SourceInput>> {
  if (set === INSTALLED_SET) return {};
  try {
    return JSON.parse(fs.readFileSync(path.join(setFolder(tablesDir, set), INPUTS_FILE), 'utf8'));
  } catch {
    return {};
  }
}

/** Set names are the UTC build time to the second; a second update within the same second gets a suffix. */
function newSetName(tablesDir: string, now: Date): string {
  const base = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  let name = base;
  for (let n = 2; fs.existsSync(path.join(tablesDir, SETS_FOLDER, name)); n++) name = `${base}-${n}`;
  return name;
}

function writeStatus(tablesDir: string, status: UpdateStatus): void {
  replaceFile(path.join(tablesDir, UPDATE_STATUS_FILE), JSON.stringify(status, null, 2) + '\n');
}

/** What a dead run left: staging folders and partial downloads (the lock is held, so nothing else is writing). */
function removeLeftovers(tablesDir: string): void {
  const sets = path.join(tablesDir, SETS_FOLDER);
  for (const name of fs.existsSync(sets) ? fs.readdirSync(sets) : []) {
    if (!isSetName(name)) fs.rmSync(path.join(sets, name), { recursive: true, force: true });
  }
  const sources = path.join(tablesDir, SOURCES_FOLDER);
  for (const id of fs.existsSync(sources) ? fs.readdirSync(sources) : []) {
    const folder = path.join(sources, id);
    if (!fs.statSync(folder).isDirectory()) continue;
    for (const name of fs.readdirSync(folder)) {
      if (name.endsWith('.part') || name.endsWith('.download') || name.endsWith('.tmp'))
        fs.rmSync(path.join(folder, name), { force: true });
    }
  }
}

/** Keeps the sets the pointers name and the source files those sets were built from. */
function prune(tablesDir: string): void {
  const kept = [readPointer(tablesDir, CURRENT_POINTER), readPointer(tablesDir, PREVIOUS_POINTER)].filter((n): n is string => n !== null);
  const sets = path.join(tablesDir, SETS_FOLDER);
  for (const name of fs.existsSync(sets) ? fs.readdirSync(sets) : []) {
    if (!kept.includes(name)) fs.rmSync(path.join(sets, name), { recursive: true, force: true });
  }
  const used = new Set(
    kept.flatMap((set) => Object.values(readInputs(tablesDir, set)).map((input) => `${input!.id}/${input!.file.split('/')[0]}`)),
  );
  const sources = path.join(tablesDir, SOURCES_FOLDER);
  for (const id of fs.existsSync(sources) ? fs.readdirSync(sources) : []) {
    for (const name of fs.readdirSync(path.join(sources, id))) {
      if (!used.has(`${id}/${name}`)) fs.rmSync(path.join(sources, id, name), { recursive: true, force: true });
    }
  }
}

interface Fetched {
  status: SourceStatus;
  /** a new file, checked; null when the source keeps the one in force */
  input: SourceInput | null;
}

async function fetchSource(
  source: SourceDefinition,
  inForce: SourceInput | undefined,
  options: UpdateOptions,
  now: Date,
): Promise<Fetched> {
  const mirror = options.mirror ?? null;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const folder = path.join(options.tablesDir, SOURCES_FOLDER, source.id);
  fs.mkdirSync(folder, { recursive: true });
  const status = (
    outcome: SourceStatus['outcome'],
    message: string | null,
    url: string,
    input: SourceInput | undefined | null,
  ): SourceStatus => ({
    name: source.name,
    url,
    outcome,
    message,
    attempted_at: now.toISOString(),
    date: input?.date ?? null,
    fetched_at: input?.fetched_at ?? null,
    rows: input?.rows ?? null,
  });
  // A source named with --only is fetched now, whatever its cadence: the operator asked for it.
  if (!options.force && !options.only && inForce && now.getTime() - Date.parse(inForce.fetched_at) < source.cadenceMs) {
    return {
      status: status('skipped', `fetched ${inForce.fetched_at}, within the publisher's cadence`, inForce.url, inForce),
      input: null,
    };
  }
  let urls = source.urls(now);
  if (source.index) {
    try {
      const indexUrl = mirroredUrl(source.index.url, mirror);
      const html = await downloadText(indexUrl, { maxBytes: 4 * 1024 * 1024, idleTimeoutMs }, path.join(folder, 'index.download'));
      urls = [source.index.pick(html, source.index.url)];
    } catch (error) {
      return { status: status('failed', (error as Error).message, source.index.url, inForce), input: null };
    }
  }
  const problems: string[] = [];
  for (const url of urls) {
    const target = path.join(folder, 'file.download');
    const sameFile = inForce?.url === url;
    let fetched;
    try {
      fetched = await download(mirroredUrl(url, mirror), target, {
        maxBytes: source.maxBytes,
        idleTimeoutMs,
        ifModifiedSince: sameFile ? inForce.last_modified : null,
        ifNoneMatch: sameFile ? inForce.etag : null,
        progress: (received, total) => options.progress?.(`${source.id}: downloading`, received, total ?? received + 1),
      });
    } catch (error) {
      problems.push((error as Error).message);
      // A month's DB-IP file that is not out yet answers 404: the next name is last month's.
      if (error instanceof DownloadError && error.status === 404) continue;
      break;
    }
    if (!fetched.changed) return { status: status('unchanged', 'the publisher has no newer file', url, inForce), input: null };
    try {
      if (source.checksum) {
        const checksumUrl = source.checksum.url(url);
        const text = await downloadText(
          mirroredUrl(checksumUrl, mirror),
          { maxBytes: 64 * 1024, idleTimeoutMs },
          path.join(folder, 'checksum.download'),
        );
        const stated = source.checksum.md5(text, publisherFileName(url), checksumUrl);
        if (stated.toLowerCase() !== fetched.md5) throw new Error(`MD5 ${fetched.md5} differs from the ${stated} the publisher states`);
      }
      if (inForce && fetched.sha256 === inForce.sha256) {
        return { status: status('unchanged', 'the same file as in force', url, inForce), input: null };
      }
      options.progress?.(`${source.id}: checking`, 0, 1);
      // The floors guard a first fetch; later ones are held to the file in force by the shrink rule.
      const checked = await source.check(target, url);
      options.progress?.(`${source.id}: checking`, 1, 1);
      if (checked.rows === 0) throw new Error('no rows');
      if (!options.force && !inForce && checked.rows < source.minRows) {
        throw new Error(
          `${checked.rows} rows, fewer than the ${source.minRows} of a whole file (a partial download? run with --force to accept)`,
        );
      }
      if (inForce && !options.force && checked.rows < inForce.rows * (1 - SHRINK_LIMIT)) {
        const message = `${checked.rows} rows against ${inForce.rows} in force: more than ${SHRINK_LIMIT * 100}% fewer (run with --force to accept)`;
        return { status: status('refused', message, url, inForce), input: null };
      }
      // each version in a folder of its own, under the publisher's file name (some name the data's date)
      const file = `${fetched.sha256.slice(0, 16)}/${publisherFileName(url)}`;
      fs.mkdirSync(path.join(folder, path.dirname(file)), { recursive: true });
      fs.renameSync(target, path.join(folder, file));
      const input: SourceInput = {
        id: source.id,
        url,
        file,
        sha256: fetched.sha256,
        bytes: fetched.bytes,
        rows: checked.rows,
        date: checked.date ?? (fetched.lastModified ? new Date(fetched.lastModified).toISOString() : null),
        fetched_at: now.toISOString(),
        last_modified: fetched.lastModified,
        etag: fetched.etag,
      };
      return { status: status('fetched', null, url, input), input };
    } catch (error) {
      return { status: status('refused', (error as Error).message, url, inForce), input: null };
    } finally {
      fs.rmSync(target, { force: true });
    }
  }
  return { status: status('failed', problems.join('; ') || 'no URL to fetch', urls[0] ?? '', inForce), input: null };
}

function creditOf(source: SourceDefinition, input: SourceInput): SourceCredit {
  return {
    name: source.name,
    origin: input.url,
    version: input.sha256.slice(0, 16),
    date: input.date,
    licence: source.licence,
    attribution: source.attribution,
    url: source.about,
  };
}

/** The builder's inputs: every group of sources whose files are all in hand; the npm-installed data for the rest. */
function publisherInputs(tablesDir: string, inputs: Partial<Record<SourceId, SourceInput>>): PublisherInputs {
  const fileOf = (id: SourceId) => {
    const input = inputs[id];
    if (!input) return null;
    const source = SOURCES.find((s) => s.id === id)!;
    return { file: path.join(tablesDir, SOURCES_FOLDER, id, input.file), credit: creditOf(source, input) };
  };
  const all = <K extends string>(ids: Record<K, SourceId>) => {
    const files = Object.fromEntries(Object.entries(ids).map(([key, id]) => [key, fileOf(id as SourceId)]));
    return Object.values(files).every((f) => f !== null) ? (files as Record<K, { file: string; credit: SourceCredit }>) : null;
  };
  return {
    dbipCity: fileOf('dbip-city'),
    routing: all({ ipv4: 'ris-ipv4', ipv6: 'ris-ipv6', asOrganizations: 'caida-as2org' }),
    registrations: all({ afrinic: 'rir-afrinic', apnic: 'rir-apnic', arin: 'rir-arin', lacnic: 'rir-lacnic', ripencc: 'rir-ripencc' }),
    ieee: all({ 'MA-L': 'ieee-ma-l', 'MA-M': 'ieee-ma-m', 'MA-S': 'ieee-ma-s', IAB: 'ieee-iab' }),
    peeringDb: all({ networks: 'peeringdb-net', organisations: 'peeringdb-org' }),
  };
}

/** Counts the new set must keep against the set in force, by table and count name. */
const GUARDED_COUNTS: Record<string, string[]> = { ip4: ['ranges'], ip6: ['ranges'], mac: ['blocks'] };

function shrunkTables(tablesDir: string, inForce: string, staging: string): string[] {
  const countsOf = (folder: string) => {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8'));
      return manifest.tables as Record<string, { counts: Record<string, number> }>;
    } catch {
      return null;
    }
  };
  const before = countsOf(setFolder(tablesDir, inForce));
  const after = countsOf(staging);
  if (!before || !after) return [];
  const problems: string[] = [];
  for (const [table, names] of Object.entries(GUARDED_COUNTS)) {
    for (const name of names) {
      const was = before[table]?.counts[name];
      const now = after[table]?.counts[name];
      if (typeof was === 'number' && typeof now === 'number' && now < was * (1 - TABLE_SHRINK_LIMIT)) {
        problems.push(`${table} ${name}: ${now} against ${was} in force`);
      }
    }
  }
  return problems;
}

export async function runUpdate(options: UpdateOptions): Promise<UpdateResult> {
  const { tablesDir } = options;
  const now = (options.now ?? (() => new Date()))();
  const log = options.log ?? (() => undefined);
  fs.mkdirSync(path.join(tablesDir, SETS_FOLDER), { recursive: true });
  const lock = takeUpdateLock(tablesDir);
  try {
    if (lock.tookOver) log('an earlier update had stopped without finishing; its leftovers are removed');
    removeLeftovers(tablesDir);
    const earlier = readUpdateStatus(tablesDir);
    const status: UpdateStatus = {
      last_attempt: { started_at: now.toISOString(), finished_at: null, outcome: 'running', message: null, set: null },
      last_success: earlier?.last_success ?? null,
      sources: { ...earlier?.sources },
    };
    writeStatus(tablesDir, status);
    const inForceSet = readPointer(tablesDir, CURRENT_POINTER)!;
    const inForce = readInputs(tablesDir, inForceSet);
    const next: Partial<Record<SourceId, SourceInput>> = { ...inForce };
    let changed = false;
    const attempted: Record<string, SourceStatus> = {};
    // An opt-in source not turned on is neither fetched nor kept: the next set is built without it.
    const turnedOn = (source: SourceDefinition) =>
      source.optIn === undefined || (source.optIn === 'peeringdb' && options.peeringDb === true);
    for (const source of SOURCES.filter((s) => !turnedOn(s))) {
      if (next[source.id]) {
        delete next[source.id];
        changed = true;
        log(`${source.id}: left out (not turned on)`);
      }
    }
    for (const source of SOURCES.filter((s) => turnedOn(s) && (!options.only || options.only.includes(s.id)))) {
      const fetched = await fetchSource(source, inForce[source.id], options, now);
      status.sources[source.id] = fetched.status;
      attempted[source.id] = fetched.status;
      log(`${source.id}: ${fetched.status.outcome}${fetched.status.message ? ` (${fetched.status.message})` : ''}`);
      if (fetched.input) {
        next[source.id] = fetched.input;
        changed = true;
      }
    }
    const finish = (outcome: UpdateResult['outcome'], set: string, message: string | null): UpdateResult => {
      status.last_attempt = { ...status.last_attempt, finished_at: new Date().toISOString(), outcome, message, set };
      if (outcome !== 'failed') status.last_success = status.last_attempt.finished_at;
      writeStatus(tablesDir, status);
      return { outcome, set, message, sources: attempted };
    };
    if (!changed && !options.force) return finish('unchanged', inForceSet, 'no source has a newer file that passed its checks');
    const name = newSetName(tablesDir, now);
    const staging = path.join(tablesDir, SETS_FOLDER, `.staging-${process.pid}`);
    fs.rmSync(staging, { recursive: true, force: true });
    try {
      await buildTables({
        outDir: staging,
        builtAt: new Date(Math.floor(now.getTime() / 1000) * 1000),
        curatedDir: options.curatedDir,
        registryDir: options.registryDir,
        publishers: publisherInputs(tablesDir, next),
        progress: options.progress ?? (() => undefined),
      });
      replaceFile(path.join(staging, INPUTS_FILE), JSON.stringify(next, null, 2) + '\n');
      options.progress?.('loading the new set', 0, 1);
      // The server's own loader validates every table (checksums, layouts) before the swap.
      await loadEngine({ tablesDir: staging, set: INSTALLED_SET });
      options.progress?.('loading the new set', 1, 1);
      // The installed set comes from other sources (the npm packages): a first update's tables are
      // held to the per-source floors instead of to it.
      const shrunk = options.force || inForceSet === INSTALLED_SET ? [] : shrunkTables(tablesDir, inForceSet, staging);
      if (shrunk.length > 0) {
        return finish(
          'failed',
          inForceSet,
          `the new tables are more than ${TABLE_SHRINK_LIMIT * 100}% smaller than the set in force (${shrunk.join('; ')}); run with --force to accept`,
        );
      }
      fs.renameSync(staging, path.join(tablesDir, SETS_FOLDER, name));
    } catch (error) {
      // the files fetched for a set that was not built are not kept
      prune(tablesDir);
      return finish('failed', inForceSet, `the new set was not built: ${(error as Error).message}`);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    writePointer(tablesDir, PREVIOUS_POINTER, inForceSet);
    writePointer(tablesDir, CURRENT_POINTER, name);
    prune(tablesDir);
    return finish('updated', name, null);
  } finally {
    lock.release();
  }
}

/** `netlookup update --rollback`: the set before the one in force comes back, and the one in force becomes the previous. */
export function rollback(tablesDir: string, now: Date = new Date()): { from: string; to: string } {
  const lock = takeUpdateLock(tablesDir);
  try {
    const current = readPointer(tablesDir, CURRENT_POINTER)!;
    const previous = readPointer(tablesDir, PREVIOUS_POINTER);
    if (previous === null) throw new Error('there is no earlier table set to return to');
    if (!fs.existsSync(path.join(setFolder(tablesDir, previous), 'manifest.json')))
      throw new Error(`the earlier set ${previous} is not complete`);
    writePointer(tablesDir, PREVIOUS_POINTER, current);
    writePointer(tablesDir, CURRENT_POINTER, previous);
    const status = readUpdateStatus(tablesDir);
    if (status) {
      status.last_attempt = {
        started_at: now.toISOString(),
        finished_at: now.toISOString(),
        outcome: 'rolled_back',
        message: `from ${current} to ${previous}`,
        set: previous,
      };
      writeStatus(tablesDir, status);
    }
    return { from: current, to: previous };
  } finally {
    lock.release();
  }
}
