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
import { FEEDS_FOLDER } from '../feeds/feedSet.js';
import { COMPACT_SECURITY_FILE, publishCompactSecurity } from './compactSecurity.js';
import { updateFeeds } from './runFeeds.js';
import { SOURCES, type SourceDefinition, type SourceId } from './sourceCatalog.js';
import {
  creditOf,
  fetchSource,
  INPUTS_FILE,
  newSetName,
  prune,
  readInputs,
  sourceFile,
  type FetchOptions,
  type SourceInputs,
} from './sourceFiles.js';
import { takeUpdateLock } from './updateLock.js';

/** The same rule for the built tables against the set in force: ranges or MAC blocks fewer by this share refuse the set. */
const TABLE_SHRINK_LIMIT = 0.2;

export interface UpdateOptions extends FetchOptions {
  curatedDir: string;
  registryDir: string;
  /** only the feeds (Tor, VPN, proxy, RPKI, abuse), not the table sources */
  feedsOnly?: boolean;
  /** only the table sources, not the feeds */
  tablesOnly?: boolean;
  /** fetch PeeringDB's files too (its terms limit its use: docs/tables.md "PeeringDB"); a set built without it drops its data */
  peeringDb?: boolean;
  /** the compact sets' folder, given the feed set's security table after each feed update (compactSecurity.ts); null: none */
  compactDir?: string | null;
  now?: () => Date;
  log?: (line: string) => void;
}

export interface UpdateResult {
  outcome: 'updated' | 'unchanged' | 'failed';
  set: string;
  /** the feed set in force after the run; null while none was built */
  feedSet: string | null;
  message: string | null;
  /** the sources this run looked at (update-status.json keeps every source's last attempt) */
  sources: Record<string, SourceStatus>;
}

function writeStatus(tablesDir: string, status: UpdateStatus): void {
  replaceFile(path.join(tablesDir, UPDATE_STATUS_FILE), JSON.stringify(status, null, 2) + '\n');
}

/** What a dead run left: staging folders of table and feed sets and partial downloads (the lock is held, so nothing else is writing). */
function removeLeftovers(tablesDir: string): void {
  for (const sets of [path.join(tablesDir, SETS_FOLDER), path.join(tablesDir, FEEDS_FOLDER, SETS_FOLDER)]) {
    for (const name of fs.existsSync(sets) ? fs.readdirSync(sets) : []) {
      if (!isSetName(name)) fs.rmSync(path.join(sets, name), { recursive: true, force: true });
    }
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

/** The builder's inputs: every group of sources whose files are all in hand; the npm-installed data for the rest. */
function publisherInputs(tablesDir: string, inputs: SourceInputs): PublisherInputs {
  const fileOf = (id: SourceId) => {
    const input = inputs[id];
    if (!input) return null;
    const source = SOURCES.find((s) => s.id === id)!;
    return { file: sourceFile(tablesDir, input), credit: creditOf(source, input) };
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
    peeringDbFacilities: all({ facilities: 'peeringdb-fac', presences: 'peeringdb-netfac' }),
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
    const attempted: Record<string, SourceStatus> = {};
    const note = (id: string, fetched: SourceStatus) => {
      status.sources[id] = fetched;
      attempted[id] = fetched;
      log(`${id}: ${fetched.outcome}${fetched.message ? ` (${fetched.message})` : ''}`);
    };
    const tables = options.feedsOnly ? null : await updateTables(options, now, note);
    const routes = routesInForce(tablesDir);
    const feeds = options.tablesOnly ? null : await updateFeeds({ ...options, routes }, now, note, tables?.routesChanged ?? false);
    if (feeds !== null && options.compactDir) {
      const copy = path.join(options.compactDir, COMPACT_SECURITY_FILE);
      if (feeds.outcome === 'updated' || !fs.existsSync(copy)) {
        // the feed set is in force whatever becomes of the copy for browsers
        try {
          if (publishCompactSecurity(tablesDir, options.compactDir) === 'copied') options.log?.(`the security table is copied to ${copy}`);
        } catch (error) {
          options.log?.(`the security table was not copied to ${copy}: ${(error as Error).message}`);
        }
      }
    }
    const outcome: UpdateResult['outcome'] =
      tables?.outcome === 'failed' || feeds?.outcome === 'failed'
        ? 'failed'
        : tables?.outcome === 'updated' || feeds?.outcome === 'updated'
          ? 'updated'
          : 'unchanged';
    const message = [tables?.message, feeds?.message].filter((m): m is string => Boolean(m)).join('; ') || null;
    const set = readPointer(tablesDir, CURRENT_POINTER)!;
    status.last_attempt = { ...status.last_attempt, finished_at: new Date().toISOString(), outcome, message, set };
    if (outcome !== 'failed') status.last_success = status.last_attempt.finished_at;
    writeStatus(tablesDir, status);
    return { outcome, set, feedSet: feeds?.set ?? null, message, sources: attempted };
  } finally {
    lock.release();
  }
}

/** The ris-ipv4 file of the table set in force (RPKI validates its routes); null while the npm-installed data is in force. */
function routesInForce(tablesDir: string): string | null {
  const input = readInputs(tablesDir, readPointer(tablesDir, CURRENT_POINTER)!)['ris-ipv4'];
  return input ? sourceFile(tablesDir, input) : null;
}

interface PartOutcome {
  outcome: 'updated' | 'unchanged' | 'failed';
  message: string | null;
}

/** The table sources: fetched, checked, built into a new table set and swapped in. */
async function updateTables(
  options: UpdateOptions,
  now: Date,
  note: (id: string, status: SourceStatus) => void,
): Promise<PartOutcome & { routesChanged: boolean }> {
  const { tablesDir } = options;
  const log = options.log ?? (() => undefined);
  const inForceSet = readPointer(tablesDir, CURRENT_POINTER)!;
  const inForce = readInputs(tablesDir, inForceSet);
  const next: SourceInputs = { ...inForce };
  let changed = false;
  // An opt-in source not turned on is neither fetched nor kept: the next set is built without it.
  const turnedOn = (source: SourceDefinition) => source.optIn === undefined || (source.optIn === 'peeringdb' && options.peeringDb === true);
  for (const source of SOURCES.filter((s) => !turnedOn(s))) {
    if (next[source.id]) {
      delete next[source.id];
      changed = true;
      log(`${source.id}: left out (not turned on)`);
    }
  }
  for (const source of SOURCES.filter((s) => turnedOn(s) && (!options.only || options.only.includes(s.id)))) {
    const fetched = await fetchSource(source, inForce[source.id], options, now);
    note(source.id, fetched.status);
    if (fetched.input) {
      next[source.id] = fetched.input;
      changed = true;
    }
  }
  if (!changed && !options.force) return { outcome: 'unchanged', message: null, routesChanged: false };
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
      return {
        outcome: 'failed',
        message: `the new tables are more than ${TABLE_SHRINK_LIMIT * 100}% smaller than the set in force (${shrunk.join('; ')}); run with --force to accept`,
        routesChanged: false,
      };
    }
    fs.renameSync(staging, path.join(tablesDir, SETS_FOLDER, name));
  } catch (error) {
    // the files fetched for a set that was not built are not kept
    prune(tablesDir);
    return { outcome: 'failed', message: `the new set was not built: ${(error as Error).message}`, routesChanged: false };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  writePointer(tablesDir, PREVIOUS_POINTER, inForceSet);
  writePointer(tablesDir, CURRENT_POINTER, name);
  prune(tablesDir);
  return { outcome: 'updated', message: null, routesChanged: next['ris-ipv4']?.sha256 !== inForce['ris-ipv4']?.sha256 };
}

/**
 * `netlookup update --rollback`: the table set before the one in force comes back, and the one in
 * force becomes the previous; with `feeds`, the same for the feed sets (`--rollback --feeds-only`).
 */
export function rollback(tablesDir: string, now: Date = new Date(), part: 'tables' | 'feeds' = 'tables'): { from: string; to: string } {
  const lock = takeUpdateLock(tablesDir);
  try {
    const root = part === 'feeds' ? path.join(tablesDir, FEEDS_FOLDER) : tablesDir;
    const kind = part === 'feeds' ? 'feed set' : 'table set';
    const current = fs.existsSync(path.join(root, CURRENT_POINTER)) || part === 'tables' ? readPointer(root, CURRENT_POINTER)! : null;
    const previous = readPointer(root, PREVIOUS_POINTER);
    if (previous === null || current === null) throw new Error(`there is no earlier ${kind} to return to`);
    // a table set is complete with its manifest, a feed set with its inputs (both written last)
    if (!fs.existsSync(path.join(setFolder(root, previous), part === 'feeds' ? INPUTS_FILE : 'manifest.json')))
      throw new Error(`the earlier ${kind} ${previous} is not complete`);
    writePointer(root, PREVIOUS_POINTER, current);
    writePointer(root, CURRENT_POINTER, previous);
    const status = readUpdateStatus(tablesDir);
    if (status) {
      status.last_attempt = {
        started_at: now.toISOString(),
        finished_at: now.toISOString(),
        outcome: 'rolled_back',
        message: `${kind} from ${current} to ${previous}`,
        set: part === 'feeds' ? readPointer(tablesDir, CURRENT_POINTER) : previous,
      };
      writeStatus(tablesDir, status);
    }
    return { from: current, to: previous };
  } finally {
    lock.release();
  }
}
