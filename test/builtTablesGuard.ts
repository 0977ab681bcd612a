/**
 * The unit project's promise: its tests run in seconds because none reads the built tables
 * (data/tables: hundreds of MB; data/compact). Once applied, opening or reading a file under
 * either folder, or under NETLOOKUP_TABLES / NETLOOKUP_COMPACT_TABLES, throws; a test that needs
 * them belongs to the data project (vitest.config.ts), one that needs some table uses
 * test/tables/tinyTables.ts. Applied by the unit project's setup (test/unit.setup.ts).
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The folders of built tables, resolved (and their real paths, where a link leads elsewhere). */
function builtTableFolders(): string[] {
  const folders = [
    path.join(root, 'data', 'tables'),
    path.join(root, 'data', 'compact'),
    process.env.NETLOOKUP_TABLES,
    process.env.NETLOOKUP_COMPACT_TABLES,
  ].flatMap((folder) => (folder === undefined ? [] : [path.resolve(folder)]));
  const real = folders.flatMap((folder) => (fs.existsSync(folder) ? [fs.realpathSync(folder)] : []));
  return [...new Set([...folders, ...real])];
}

const APPLIED = Symbol.for('netlookup.builtTablesGuard');

type Guarded = Record<string, (...args: unknown[]) => unknown> & { [APPLIED]?: true };

/** Makes every way a test reads a file refuse the built tables. Applying it twice changes nothing. */
export function guardBuiltTables(): void {
  const promises = fs.promises as unknown as Guarded;
  const sync = fs as unknown as Guarded;
  if (sync[APPLIED]) return;
  const folders = builtTableFolders();
  const refuse = (file: unknown): void => {
    if (typeof file !== 'string' && !(file instanceof URL) && !Buffer.isBuffer(file)) return; // a descriptor: checked when opened
    const full = path.resolve(file instanceof URL ? fileURLToPath(file) : file.toString());
    const folder = folders.find((f) => full === f || full.startsWith(f + path.sep));
    if (folder === undefined) return;
    throw new Error(
      `${full}: a unit test read the built tables (${folder}); put the test in the data project (DATA in vitest.config.ts) or use small tables (test/tables/tinyTables.ts)`,
    );
  };
  const wrap = (target: Guarded, name: string, rejects: boolean): void => {
    const original = target[name];
    target[name] = function (this: unknown, ...args: unknown[]) {
      try {
        refuse(args[0]);
      } catch (error) {
        if (rejects) return Promise.reject(error);
        throw error;
      }
      return original.apply(this, args);
    };
  };
  for (const name of ['openSync', 'readFileSync', 'open', 'readFile', 'createReadStream', 'openAsBlob']) wrap(sync, name, false);
  for (const name of ['open', 'readFile']) wrap(promises, name, true);
  sync[APPLIED] = true;
  // named imports of node:fs and node:fs/promises see the wrapped functions too
  syncBuiltinESMExports();
}
