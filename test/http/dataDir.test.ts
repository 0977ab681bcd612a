/**
 * The embedded store's data directory as operators run it: one `netlookup serve` per directory (a
 * second refuses to start; `kill -9` of the first frees it), the admin commands beside a running
 * server, and files readable by their owner only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../until.js';
import { DataDirLock, DataDirLockedError, LOCK_FILE } from '../../src/store/dataDirLock.js';
import { DATABASE_FILE, SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { ADMIN_TOKEN, request, TEST_PLANS, tempDir } from './harness.js';
import { runCli } from '../cli/cliProcess.js';
import { killChildren, serve } from './serveProcess.js';

const dir = tempDir('netlookup-data-dir-');
const plansFile = path.join(dir, 'plans.json');
fs.writeFileSync(plansFile, JSON.stringify(TEST_PLANS));

afterAll(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `netlookup ARGS --json` on `dataDir`, embedded store. */
function cli(dataDir: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_DATA_DIR: dataDir, NETLOOKUP_PLANS: plansFile };
  delete env.REDIS_URL;
  return runCli([...args, '--json'], env);
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

describe('secrets stay off the disk', () => {
  it('LOG_LEVEL=debug logs no API key and no admin token, however sent; the data files are owner-only', async () => {
    const dataDir = path.join(dir, 'secrets');
    const child = await serve(dataDir, plansFile);
    try {
      const created = await request(child.url, '/admin/accounts', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        json: { plan: 'pro' },
      });
      expect(created.status).toBe(201);
      const key = created.body.key.secret as string;
      const encoded = [...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
      const twice = encoded.replace(/%/g, '%25');
      const targets = [
        `/v1/ip/8.8.8.8?key=${key}`,
        `/v1/ip/8.8.8.8?KEY=${key}`,
        `/v1/ip/8.8.8.8?key%00=${key}`,
        `/v1/ip/8.8.8.8?key[]=${key}`,
        `/v1/ip/8.8.8.8?key%5B%5D=${key}`,
        `/v1/ip/8.8.8.8?%6Bey=${key}`,
        `/v1/ip/8.8.8.8?api_key=${key}`,
        `/v1/ip/8.8.8.8?key=${encoded}`,
        `/v1/ip/8.8.8.8?key=${twice}`,
        `/v1/ip/8.8.8.8?fields=country,${key}`,
        `/v1/ip/8.8.8.8?fields=${encoded}`,
        `/v1/ip/8.8.8.8?${key}`,
        `/v1/ip/8.8.8.8?a=1;key=${key}`,
        `/v1/ip/${key}`,
        `/v1/ip/${encoded}`,
        `/v1/${key}/8.8.8.8`,
        `/${key}`,
        `/v1/ip/8.8.8.8?key=${key.toUpperCase()}`,
        `/v1/ip/8.8.8.8?key=${key.slice(4)}`,
        `/admin/accounts?token=${ADMIN_TOKEN}`,
        `/admin/accounts?token%00=${ADMIN_TOKEN}`,
        `/admin/accounts?x=${encodeURIComponent(ADMIN_TOKEN)}`,
        `/admin/accounts?x=${[...ADMIN_TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`,
        `/admin/${ADMIN_TOKEN}`,
        `/v1/ip/8.8.8.8?${ADMIN_TOKEN}`,
      ];
      for (const target of targets) await request(child.url, target, { headers: { 'x-api-key': key } });
      await request(child.url, '/admin/accounts/acc_x', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

      // every request was logged (a line may follow its answer by a moment), none with a secret
      const requestLines = () =>
        child
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line))
          .filter((line) => line.msg === 'request');
      await until('every request logged', () => requestLines().length >= targets.length + 2, 2000, 50);
      const logged = requestLines();
      const output = child.output();
      for (const secret of [key.slice(4), key.slice(4).toUpperCase(), encoded.slice(12), ADMIN_TOKEN, ADMIN_TOKEN.slice(-20)])
        expect(output).not.toContain(secret);
      expect(logged.length).toBeGreaterThanOrEqual(targets.length + 2);
      expect(output).toContain('[redacted]');

      const mode = (file: string) => fs.statSync(path.join(dataDir, file)).mode & 0o777;
      expect(mode('.')).toBe(0o700);
      for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, LOCK_FILE]) expect(mode(file), file).toBe(0o600);
    } finally {
      child.process.kill('SIGKILL');
    }
  }, 60_000);

  it('an existing world-readable database is narrowed to 0600 when opened', async () => {
    const dataDir = path.join(dir, 'narrowed');
    await SqliteStore.open(dataDir).close();
    fs.chmodSync(path.join(dataDir, DATABASE_FILE), 0o644);
    const store = SqliteStore.open(dataDir);
    expect(fs.statSync(path.join(dataDir, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    await store.close();
  });
});
