/**
 * The feeds part of `netlookup update`: each feed (Tor exits, VPN servers, open proxies, relays,
 * validated ROAs, registry dumps with abuse mailboxes, IANA's RDAP bootstrap) is fetched like a table source (bounded,
 * conditional, checked by its strict reader, held to the shrink rule), then the feed tables are
 * built from the files in force into a new feed set `<tables>/feeds/sets/<UTC>/`, loaded as a
 * server would load it, and put in force by replacing the pointer `<tables>/feeds/current`.
 * Servers follow that pointer (src/http/server.ts) without a restart, as they follow table sets.
 *
 * Feed sets are built in seconds and apart from the table sets, so that the hourly feeds (Tor)
 * never wait for a table build. The RPKI table validates the routes of the table set in force
 * (its RIS file): without fetched routes there is no RPKI table.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  disjointTableRanges,
  securityTableRanges,
  smallestRangesTable,
  unroutableSpace,
  type SecurityFeedInput,
  type ValuedRange,
} from '../feeds/build/feedTables.js';
import { FEED_FILES, FEEDS_FOLDER, FRESHNESS_FILE, FeedSet } from '../feeds/feedSet.js';
import { writeFeedTable, type FeedKind, type FeedState, type FeedTableParts } from '../feeds/format/feedTable.js';
import { loadAnycastPrefixes } from '../tables/sources/anycastPrefixes.js';
import {
  CURRENT_POINTER,
  PREVIOUS_POINTER,
  SETS_FOLDER,
  readPointer,
  replaceFile,
  writePointer,
  type SourceStatus,
} from '../tables/tableSets.js';
import { FEED_SOURCES, type FeedSourceDefinition } from './feedCatalog.js';
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

export interface FeedUpdateOptions extends FetchOptions {
  curatedDir: string;
  /** the RIS IPv4 file of the table set in force, whose routes RPKI validates; null: none fetched */
  routes: string | null;
  log?: (line: string) => void;
}

interface FeedOutcome {
  outcome: 'updated' | 'unchanged' | 'failed';
  message: string | null;
  /** the feed set in force afterwards */
  set: string | null;
}

/**
 * When a feed stops answering: a multiple of its cadence after the publisher last gave or
 * confirmed the file (a fetch, or an answer that the file in force is still its newest). The
 * publisher's own date is shown beside it: a list its publisher stopped changing still answers
 * while the publisher serves it.
 */
function staleAfter(source: FeedSourceDefinition, confirmedAt: string): string {
  return new Date(Date.parse(confirmedAt) + source.staleAfterMs).toISOString();
}

function feedState(source: FeedSourceDefinition, inputs: SourceInputs, confirmedAt: ReadonlyMap<string, string>): FeedState {
  const input = inputs[source.id]!;
  return {
    ...creditOf(source, input),
    id: source.id,
    says: source.says,
    rows: input.rows,
    fetched_at: input.fetched_at,
    stale_after: staleAfter(source, confirmedAt.get(source.id) ?? input.fetched_at),
  };
}

/** The freshness of a set's feeds, rewritten when the publishers confirm their files without a rebuild. */
function writeFreshness(folder: string, inputs: SourceInputs, confirmedAt: ReadonlyMap<string, string>): void {
  const freshness = Object.fromEntries(
    FEED_SOURCES.filter((source) => inputs[source.id]).map((source) => [
      source.id,
      staleAfter(source, confirmedAt.get(source.id) ?? inputs[source.id]!.fetched_at),
    ]),
  );
  replaceFile(path.join(folder, FRESHNESS_FILE), JSON.stringify(freshness, null, 2) + '\n');
}

/** When the publishers last gave or confirmed each file of a set: its freshness file, read back. */
function readConfirmations(feedsDir: string, set: string, inputs: SourceInputs): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, input] of Object.entries(inputs)) if (input) out.set(id, input.fetched_at);
  try {
    const freshness = JSON.parse(fs.readFileSync(path.join(feedsDir, SETS_FOLDER, set, FRESHNESS_FILE), 'utf8')) as Record<string, string>;
    for (const source of FEED_SOURCES) {
      const until = freshness[source.id];
      if (typeof until === 'string' && Number.isFinite(Date.parse(until)) && inputs[source.id]) {
        out.set(source.id, new Date(Date.parse(until) - source.staleAfterMs).toISOString());
      }
    }
  } catch {
    // a set without the file: the fetch times stand
  }
  return out;
}

/** Builds every feed table the files in force allow into `folder`; returns the kinds built. */
async function buildFeedTables(
  options: FeedUpdateOptions,
  inputs: SourceInputs,
  confirmedAt: ReadonlyMap<string, string>,
  folder: string,
  now: Date,
): Promise<FeedKind[]> {
  const { tablesDir } = options;
  const builtAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const built: FeedKind[] = [];
  const write = <V>(kind: FeedKind, sources: FeedSourceDefinition[], parts: Omit<FeedTableParts<V>, 'meta' | 'builtAt'>) => {
    const bytes = writeFeedTable<V>({
      meta: { feed_kind: kind, built_at: builtAt.toISOString(), feeds: sources.map((source) => feedState(source, inputs, confirmedAt)) },
      builtAt,
      ...parts,
    });
    replaceFile(path.join(folder, FEED_FILES[kind]), bytes);
    built.push(kind);
  };

  const security = FEED_SOURCES.filter((source) => source.table === 'security' && inputs[source.id]);
  if (security.length > 0) {
    options.progress?.('feeds: security', 0, security.length);
    const listings: SecurityFeedInput[] = [];
    for (const source of security) {
      const input = inputs[source.id]!;
      listings.push({
        says: source.says as SecurityFeedInput['says'],
        listing: await source.listing!(sourceFile(tablesDir, input), input.url),
      });
      options.progress?.('feeds: security', listings.length, security.length);
    }
    const anycast = loadAnycastPrefixes(path.join(options.curatedDir, 'anycast-prefixes.csv'));
    const { rows, ...parts } = securityTableRanges(listings, { everywhere: unroutableSpace(), proxies: [...anycast[4], ...anycast[6]] });
    options.log?.(`security feeds: ${security.map((source, i) => `${source.id} ${rows[i]} ranges`).join(', ')}`);
    write('security', security, parts);
  }

  const rpki = FEED_SOURCES.find((source) => source.table === 'rpki' && inputs[source.id]);
  if (rpki && options.routes !== null) {
    options.progress?.('feeds: rpki', 0, 1);
    const input = inputs[rpki.id]!;
    const ranges = await rpki.ranges!(sourceFile(tablesDir, input), input.url, { routes: options.routes });
    write('rpki', [rpki], disjointTableRanges(ranges));
    options.progress?.('feeds: rpki', 1, 1);
  }

  // abuse: every registry whose dump files are all in hand, its files read together once
  const groups = new Map<string, FeedSourceDefinition[]>();
  for (const source of FEED_SOURCES.filter((s) => s.table === 'abuse'))
    groups.set(source.group!, [...(groups.get(source.group!) ?? []), source]);
  const complete = [...groups.values()].filter((members) => members.every((member) => inputs[member.id]));
  if (complete.length > 0) {
    options.progress?.('feeds: abuse', 0, complete.length);
    const ranges: ValuedRange<string>[] = [];
    for (const [done, members] of complete.entries()) {
      const files = Object.fromEntries(members.map((member) => [member.part!, sourceFile(tablesDir, inputs[member.id]!)]));
      const first = inputs[members[0].id]!;
      ranges.push(...(await members[0].ranges!(sourceFile(tablesDir, first), first.url, { files })));
      options.progress?.('feeds: abuse', done + 1, complete.length);
    }
    // the RIRs' databases hold objects for space another RIR manages: the smallest range decides, as within one
    write('abuse', complete.flat(), smallestRangesTable(ranges));
  }

  const rdap = FEED_SOURCES.filter((source) => source.table === 'rdap' && inputs[source.id]);
  if (rdap.length > 0) {
    const ranges: ValuedRange<string>[] = [];
    for (const source of rdap) {
      const input = inputs[source.id]!;
      ranges.push(...(await source.ranges!(sourceFile(tablesDir, input), input.url, {})));
    }
    // RFC 9224 5.1: the longest matching block's service answers
    write('rdap', rdap, smallestRangesTable(ranges));
  }
  return built;
}

export async function updateFeeds(
  options: FeedUpdateOptions,
  now: Date,
  note: (id: string, status: SourceStatus) => void,
  routesChanged: boolean,
): Promise<FeedOutcome> {
  const { tablesDir } = options;
  const feedsDir = path.join(tablesDir, FEEDS_FOLDER);
  fs.mkdirSync(path.join(feedsDir, SETS_FOLDER), { recursive: true });
  const inForceSet = fs.existsSync(path.join(feedsDir, CURRENT_POINTER)) ? readPointer(feedsDir, CURRENT_POINTER) : null;
  const inForce = inForceSet === null ? {} : readInputs(feedsDir, inForceSet);
  const next: SourceInputs = { ...inForce };
  const confirmedAt = inForceSet === null ? new Map<string, string>() : readConfirmations(feedsDir, inForceSet, inForce);
  let changed = routesChanged && FEED_SOURCES.some((source) => source.table === 'rpki' && inForce[source.id]);
  let confirmed = false;
  for (const source of FEED_SOURCES.filter((s) => !options.only || options.only.includes(s.id))) {
    const fetched = await fetchSource(source, inForce[source.id], options, now);
    note(source.id, fetched.status);
    if (fetched.input) {
      next[source.id] = fetched.input;
      confirmedAt.set(source.id, fetched.input.fetched_at);
      changed = true;
    } else if (fetched.confirmed) {
      confirmedAt.set(source.id, now.toISOString());
      confirmed = true;
    }
  }
  if (!changed && !(options.force && Object.keys(next).length > 0)) {
    // Nothing new, but publishers confirmed their files: the set in force stays fresh longer, and
    // servers re-read it when its pointer is rewritten.
    if (confirmed && inForceSet !== null) {
      writeFreshness(path.join(feedsDir, SETS_FOLDER, inForceSet), inForce, confirmedAt);
      writePointer(feedsDir, CURRENT_POINTER, inForceSet);
    }
    return { outcome: 'unchanged', message: null, set: inForceSet };
  }
  const name = newSetName(feedsDir, now);
  const staging = path.join(feedsDir, SETS_FOLDER, `.staging-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  try {
    const built = await buildFeedTables(options, next, confirmedAt, staging, now);
    if (built.length === 0) return { outcome: 'unchanged', message: null, set: inForceSet };
    replaceFile(path.join(staging, INPUTS_FILE), JSON.stringify(next, null, 2) + '\n');
    writeFreshness(staging, next, confirmedAt);
    // loaded as a server loads it before any server is pointed at it
    FeedSet.loadFolder(staging, name);
    fs.renameSync(staging, path.join(feedsDir, SETS_FOLDER, name));
  } catch (error) {
    prune(tablesDir);
    return { outcome: 'failed', message: `the new feed set was not built: ${(error as Error).message}`, set: inForceSet };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  if (inForceSet !== null) writePointer(feedsDir, PREVIOUS_POINTER, inForceSet);
  writePointer(feedsDir, CURRENT_POINTER, name);
  prune(tablesDir);
  options.log?.(`feed set ${name} is in force`);
  return { outcome: 'updated', message: null, set: name };
}
