/**
 * The publishers' files an update keeps under `<tables>/sources/<id>/`, and the sets built from
 * them: fetching one source's file (bounded, conditional, checked), the record of which files a
 * set was built from (`inputs.json` beside the set), and the pruning that keeps only the sets the
 * pointers name and their files. Table sets (`<tables>/sets/`) and feed sets
 * (`<tables>/feeds/sets/`, src/update/runFeeds.ts) share all of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FEEDS_FOLDER } from '../feeds/feedSet.js';
import type { SourceCredit } from '../tables/format/tableMeta.js';
import {
  CURRENT_POINTER,
  INSTALLED_SET,
  PREVIOUS_POINTER,
  SETS_FOLDER,
  SOURCES_FOLDER,
  readPointer,
  setFolder,
  type SourceStatus,
} from '../tables/tableSets.js';
import { mirroredUrl } from '../config/mirror.js';
import { download, downloadText, DownloadError, publisherFileName } from './download.js';
import type { PublishedSource } from './sourceCatalog.js';

/** The file of each source a set was built from, kept beside the set as `inputs.json`. */
export const INPUTS_FILE = 'inputs.json';

/**
 * A source whose rows fall by more than this share against the file in force is refused (unless
 * forced): a publisher's truncated or partial file is the likeliest bad update, and no real source
 * loses a fifth of its rows between two releases.
 */
const SHRINK_LIMIT = 0.2;

export interface SourceInput {
  /** a table source's or a feed's id */
  id: string;
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

export type SourceInputs = Partial<Record<string, SourceInput>>;

export interface FetchOptions {
  tablesDir: string;
  /** take every source from `<mirror>/<host>/<path>` */
  mirror?: string | null;
  /** accept a source that shrank, and fetch sources younger than their cadence */
  force?: boolean;
  /** only these sources, fetched whatever their cadence */
  only?: readonly string[];
  /** the longest wait for a publisher's answer and between its bytes */
  idleTimeoutMs?: number;
  progress?: (phase: string, done: number, total: number) => void;
}

const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** The inputs of set `set` under `setsRoot` (the tables folder, or its feeds folder); none for the installed set. */
export function readInputs(setsRoot: string, set: string): SourceInputs {
  if (set === INSTALLED_SET) return {};
  try {
    return JSON.parse(fs.readFileSync(path.join(setFolder(setsRoot, set), INPUTS_FILE), 'utf8'));
  } catch {
    return {};
  }
}

/** The path of a kept source file. */
export function sourceFile(tablesDir: string, input: SourceInput): string {
  return path.join(tablesDir, SOURCES_FOLDER, input.id, input.file);
}

/** Set names are the UTC build time to the second; a second set within the same second gets a suffix. */
export function newSetName(setsRoot: string, now: Date): string {
  const base = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  let name = base;
  for (let n = 2; fs.existsSync(path.join(setsRoot, SETS_FOLDER, name)); n++) name = `${base}-${n}`;
  return name;
}

/** The sets the pointers of `setsRoot` name. */
function keptSets(setsRoot: string): string[] {
  return [readPointer(setsRoot, CURRENT_POINTER), readPointer(setsRoot, PREVIOUS_POINTER)].filter((n): n is string => n !== null);
}

/**
 * Keeps the table sets and feed sets the pointers name and the source files those sets were
 * built from; removes the rest.
 */
export function prune(tablesDir: string): void {
  const feedsDir = path.join(tablesDir, FEEDS_FOLDER);
  const used = new Set<string>();
  for (const root of [tablesDir, feedsDir]) {
    const kept = keptSets(root);
    const sets = path.join(root, SETS_FOLDER);
    for (const name of fs.existsSync(sets) ? fs.readdirSync(sets) : []) {
      if (!kept.includes(name)) fs.rmSync(path.join(sets, name), { recursive: true, force: true });
    }
    for (const set of kept) for (const input of Object.values(readInputs(root, set))) used.add(`${input!.id}/${input!.file.split('/')[0]}`);
  }
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
  /** the publisher answered that the file in force is its newest (a feed stays fresh from this run) */
  confirmed?: boolean;
}

export async function fetchSource(
  source: PublishedSource,
  inForce: SourceInput | undefined,
  options: FetchOptions,
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
    if (!fetched.changed)
      return { status: status('unchanged', 'the publisher has no newer file', url, inForce), input: null, confirmed: true };
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
        return { status: status('unchanged', 'the same file as in force', url, inForce), input: null, confirmed: true };
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

export function creditOf(source: PublishedSource, input: SourceInput): SourceCredit {
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
