/**
 * How current the data is, for /health, /v1 and the metrics: the table set in force and what the
 * last `netlookup update` did with each source (src/tables/tableSets.ts, written by src/update).
 */
import { defaultTablesDir } from '../engine/node.js';
import { readUpdateStatus, setNameOfTables, type UpdateStatus } from '../tables/tableSets.js';
import type { ServiceDeps } from './serviceDeps.js';

export interface DataStatus {
  /** the table set the server answers from: `installed` (built by npm install) or an update's set */
  set: string | null;
  /** null until `netlookup update` first runs */
  update: Pick<UpdateStatus, 'last_attempt' | 'last_success'> | null;
  sources: (UpdateStatus['sources'][string] & { id: string })[];
}

export function tablesRootOf(deps: Pick<ServiceDeps, 'config'>): string {
  return deps.config.tablesDir ?? defaultTablesDir();
}

export function dataStatus(deps: Pick<ServiceDeps, 'config' | 'engine'>): DataStatus {
  const root = tablesRootOf(deps);
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
  };
}
