/**
 * How current the data is, for /health, /v1 and the metrics: the table set in force, the feed set
 * in force with each feed's date, size and freshness, and what the last `netlookup update` did
 * with each source (src/tables/tableSets.ts, written by src/update).
 */
import { defaultTablesDir } from '../../engine/node.js';
import type { FeedSet, FeedStatus } from '../../feeds/feedSet.js';
import { readUpdateStatus, setNameOfTables, type UpdateStatus } from '../../tables/tableSets.js';

export interface DataStatus {
  /** the table set the server answers from: `installed` (built by npm install) or an update's set */
  set: string | null;
  /** null until `netlookup update` first runs */
  update: Pick<UpdateStatus, 'last_attempt' | 'last_success'> | null;
  sources: (UpdateStatus['sources'][string] & { id: string })[];
  /** the feed set the server answers from (null: none built yet) and its feeds */
  feed_set: string | null;
  feeds: FeedStatus[];
}

/** What the status needs of the service (not ServiceDeps itself, which the metrics it feeds are part of). */
interface LoadedTables {
  config: { tablesDir: string | undefined };
  engine: { engine: { tables(): readonly { file: string }[] } };
  feeds: { current: FeedSet };
  now: () => Date;
}

export function dataStatus(deps: LoadedTables): DataStatus {
  const root = deps.config.tablesDir ?? defaultTablesDir();
  let status: UpdateStatus | null = null;
  try {
    status = readUpdateStatus(root);
  } catch {
    // an unreadable status file says nothing about the tables, which keep answering
  }
  return {
    set: setNameOfTables(root, deps.engine.engine.tables()),
    update: status ? { last_attempt: status.last_attempt, last_success: status.last_success } : null,
    sources: Object.entries(status?.sources ?? {}).map(([id, source]) => ({ id, ...source })),
    feed_set: deps.feeds.current.name,
    feeds: deps.feeds.current.status(deps.now().getTime()),
  };
}
