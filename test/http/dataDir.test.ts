/**
 * The embedded store's data directory as operators run it: one `netlookup serve` per directory (a
 * second refuses to start; `kill -9` of the first frees it) and the admin commands beside a running
 * server.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLock, DataDirLockedError, LOCK_FILE } from '../../src/store/dataDirLock.js';
import { DATABASE_FILE, SqliteStore } from '../../src/store/sqliteStore.js';
import { projectRoot, request, TEST_PLANS, tempDir } from './harness.js';
import { killChildren, serve } from './serveProcess.js';

const dir = tempDir('netlookup-data-dir-');
const plansFile = path.join(dir, 'plans.json');
fs.writeFileSync(plansFile, JSON.stringify(TEST_PLANS));

afterAll(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `netlookup ARGS --json` in a child process on `dataDir`. */
function cli(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_DATA_DIR: dataDir, NETLOOKUP_PLANS: plansFile };
    delete env.REDIS_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--json'], { cwd: projectRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('one netlookup serve per data directory', () => {
  it('a second serve refuses to start and names the directory; admin commands work beside the first; kill -9 of the first frees the directory', async () => {
    const dataDir = path.join(dir, 'shared');
    const first = await serve(dataDir, plansFile);
    try {
      const second = await serve(dataDir, plansFile).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(second).toMatch(/serve exited \(2\) before listening/);
      expect(second).toContain(`netlookup: another netlookup serve is using the data directory ${dataDir}`);

      // the admin commands open the database without the lock, and the server sees their change
      const created = await cli(dataDir, ['account', 'create', '--plan', 'pro']);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const secret = JSON.parse(created.stdout).key.secret as string;
      expect((await request(first.url, '/v1/ip/8.8.8.8', { key: secret })).status).toBe(200);
      expect((await cli(dataDir, ['key', 'list', JSON.parse(created.stdout).account.id])).code).toBe(0);

      first.process.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      const third = await serve(dataDir, plansFile);
      try {
        expect((await request(third.url, '/v1/ip/8.8.8.8', { key: secret })).status).toBe(200);
      } finally {
        third.process.kill('SIGTERM');
        expect((await third.exited).code).toBe(0);
      }
      // a graceful stop frees it too
      const fourth = await serve(dataDir, plansFile);
      fourth.process.kill('SIGKILL');
    } finally {
      first.process.kill('SIGKILL');
    }
  }, 120_000);

  it('in one process: the lock is refused while held and free once released or the store closed', async () => {
    const dataDir = path.join(dir, 'in-process');
    const store = SqliteStore.open(dataDir, { writer: true });
    expect(() => DataDirLock.acquire(dataDir)).toThrow(DataDirLockedError);
    expect(() => SqliteStore.open(dataDir, { writer: true })).toThrow(DataDirLockedError);
    // a store without the lock (the admin commands') opens beside it
    const admin = SqliteStore.open(dataDir);
    await admin.close();
    await store.close();
    DataDirLock.acquire(dataDir).release();
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, DATABASE_FILE))).toBe(true);
  });
});
