import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEngine, packageRoot } from '../src/engine/node.js';
import { guardBuiltTables } from './builtTablesGuard.js';

// the unit project's setup applied it already; applying it again must change nothing
guardBuiltTables();

const REFUSED = /a unit test read the built tables/;
const tables = path.join(packageRoot, 'data', 'tables');
const compact = path.join(packageRoot, 'data', 'compact');

describe('the unit project reads no built tables', () => {
  it('refuses the table files by every way of reading, whether the file exists or not', async () => {
    for (const file of [path.join(tables, 'ip4.nlt'), path.join(tables, 'manifest.json'), path.join(compact, 'macc.nlt.gz'), tables]) {
      expect(() => fs.readFileSync(file)).toThrow(REFUSED);
      expect(() => fs.openSync(file, 'r')).toThrow(REFUSED);
      expect(() => fs.createReadStream(file)).toThrow(REFUSED);
      expect(() => fs.readFile(file, () => undefined)).toThrow(REFUSED);
      await expect(fs.promises.open(file, 'r')).rejects.toThrow(REFUSED);
      await expect(readFile(file)).rejects.toThrow(REFUSED);
    }
    // relative paths and file URLs name the same files
    expect(() => fs.readFileSync(path.relative(process.cwd(), path.join(tables, 'ip4.nlt')))).toThrow(REFUSED);
    expect(() => fs.readFileSync(new URL(`file://${tables}/ip6.nlt`))).toThrow(REFUSED);
  });

  it('refuses the engine over the installed tables', async () => {
    await expect(loadEngine({ kinds: ['mac'] })).rejects.toThrow(REFUSED);
  });

  it('leaves every other file alone, the neighbours of the tables folders too', () => {
    expect(JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8'))).toHaveProperty('name', 'netlookup');
    expect(fs.readdirSync(path.join(packageRoot, 'data', 'curated')).length).toBeGreaterThan(0);
    expect(() => fs.readFileSync(`${tables}-elsewhere/ip4.nlt`)).toThrow(/ENOENT/);
  });
});
