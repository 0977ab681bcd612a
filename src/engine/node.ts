/**
 * The Node adapter of the engine: reads the WASM module and the table files from disk, straight
 * into WASM memory (no second copy of a 100 MB table).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LookupEngine } from './lookupEngine.js';
import type { TableSource, TableSources } from './wasmEngine.js';
import { TABLE_FILES, type TableFileKind } from '../tables/tableFiles.js';
import { setFolder, setInForce } from '../tables/tableSets.js';

/** The repository root: src/engine and dist/engine both sit two folders below it. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Read size per call: big enough to be cheap, small enough to spread over libuv's threads. */
const READ_CHUNK = 16 << 20;

/** The tables `npm install` builds, inside the package. */
export const PACKAGE_TABLES_DIR = path.join(packageRoot, 'data', 'tables');

export function defaultTablesDir(): string {
  return process.env.NETLOOKUP_TABLES ?? PACKAGE_TABLES_DIR;
}

/** The compact sets (browsers, edge): $NETLOOKUP_COMPACT_TABLES or data/compact. */
export function defaultCompactDir(): string {
  return process.env.NETLOOKUP_COMPACT_TABLES ?? path.join(packageRoot, 'data', 'compact');
}

export function defaultWasmPath(debug = false): string {
  return path.join(packageRoot, 'build', debug ? 'netlookup.debug.wasm' : 'netlookup.wasm');
}

/** A table file read in the background (libuv's threads) straight into its destination. */
function fileSource(file: string): TableSource {
  const byteLength = fs.statSync(file).size;
  return {
    name: file,
    byteLength,
    async fill(destination: Uint8Array) {
      const handle = await fs.promises.open(file, 'r');
      try {
        let done = 0;
        while (done < byteLength) {
          const { bytesRead } = await handle.read(destination, done, Math.min(READ_CHUNK, byteLength - done), done);
          if (bytesRead === 0) throw new Error(`${file}: shorter than when it was opened (${done} of ${byteLength} bytes)`);
          done += bytesRead;
        }
      } finally {
        await handle.close();
      }
    },
  };
}

export interface LoadOptions {
  /** the tables folder (NETLOOKUP_TABLES); the set in force in it is loaded (src/tables/tableSets.ts) */
  tablesDir?: string;
  /** a set of the folder by name instead of the one in force */
  set?: string;
  wasmPath?: string;
  /** which tables to load; all three by default */
  kinds?: TableFileKind[];
}

/** Loads the engine with the tables of a folder; a missing or bad file throws, naming the file. */
export async function loadEngine(options: LoadOptions = {}): Promise<LookupEngine> {
  const root = options.tablesDir ?? defaultTablesDir();
  const dir = options.set === undefined ? setInForce(root) : setFolder(root, options.set);
  const wasm = fs.readFileSync(options.wasmPath ?? defaultWasmPath());
  const sources: TableSources = {};
  for (const kind of options.kinds ?? (['ip4', 'ip6', 'mac'] as const)) {
    const file = path.join(dir, TABLE_FILES[kind]);
    if (!fs.existsSync(file)) throw new Error(`${file}: table file missing (run \`npm run build:tables\`)`);
    sources[kind] = fileSource(file);
  }
  return LookupEngine.create(wasm, sources);
}
