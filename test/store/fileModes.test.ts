/**
 * The data directory's file modes: created 0600, narrowed to 0600 when wider, and a file that is
 * not there (a -wal SQLite removed) neither created nor an error.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { narrowIfPresent, ownerOnlyFile } from '../../src/store/fileModes.js';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('data directory file modes', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-file-modes-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates a missing file 0600 and narrows an existing wider one', () => {
    const created = path.join(dir, 'created');
    ownerOnlyFile(created);
    expect(mode(created)).toBe(0o600);
    const wide = path.join(dir, 'wide');
    fs.writeFileSync(wide, 'kept');
    fs.chmodSync(wide, 0o644);
    ownerOnlyFile(wide);
    expect(mode(wide)).toBe(0o600);
    expect(fs.readFileSync(wide, 'utf8')).toBe('kept');
  });

  it('narrows a file that is there, and leaves a missing one missing without an error', () => {
    const wal = path.join(dir, 'netlookup.sqlite-wal');
    narrowIfPresent(wal);
    expect(fs.existsSync(wal)).toBe(false);
    fs.writeFileSync(wal, '');
    fs.chmodSync(wal, 0o664);
    narrowIfPresent(wal);
    expect(mode(wal)).toBe(0o600);
  });

  it('while another process creates and deletes the file, never fails', async () => {
    const wal = path.join(dir, 'netlookup.sqlite-wal');
    const flipper = spawn(process.execPath, [
      '-e',
      `const fs = require('node:fs'); const end = Date.now() + 1500;
       while (Date.now() < end) { fs.writeFileSync(${JSON.stringify(wal)}, ''); fs.rmSync(${JSON.stringify(wal)}, { force: true }); }`,
    ]);
    const exited = new Promise((resolve) => flipper.once('exit', resolve));
    let calls = 0;
    while (flipper.exitCode === null) {
      narrowIfPresent(wal);
      calls++;
      if (calls % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await exited;
    expect(calls).toBeGreaterThan(1000);
  });
});
