/** The update's parts on their own: mirrors, bounded downloads, the lock, the table-set pointers. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALLED_SET, readPointer, setFolder, setInForce, setNameOfTables, writePointer } from '../../src/tables/tableSets.js';
import { mirroredUrl } from '../../src/config/mirror.js';
import { download, DownloadError } from '../../src/update/download.js';
import { takeUpdateLock, UpdateLockedError } from '../../src/update/updateLock.js';

const folders: string[] = [];
const folder = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-update-parts-'));
  folders.push(dir);
  return dir;
};

let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/big') {
      res.writeHead(200); // no length: the bound is counted as the body streams
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let i = 0; i < 20; i++) res.write(chunk);
      res.end();
    } else if (req.url === '/liar') {
      res.writeHead(200, { 'content-length': '100' });
      res.end(Buffer.alloc(50));
    } else if (req.url === '/announced-big') {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.flushHeaders();
    } else if (req.url === '/ok') {
      res.writeHead(200, { 'last-modified': 'Sat, 28 Nov 2026 00:00:00 GMT', etag: '"v1"' });
      res.end('hello\n');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

describe('mirroredUrl', () => {
  it('takes <mirror>/<host>/<path> of the publisher URL', () => {
    const url = 'https://download.db-ip.com/free/dbip-city-lite-2026-11.csv.gz';
    expect(mirroredUrl(url, null)).toBe(url);
    expect(mirroredUrl(url, 'http://mirror.local/data/')).toBe(
      'http://mirror.local/data/download.db-ip.com/free/dbip-city-lite-2026-11.csv.gz',
    );
    expect(mirroredUrl('https://ftp.ripe.net:8443/a/b', 'http://m')).toBe('http://m/ftp.ripe.net:8443/a/b');
  });
});

describe('download', () => {
  const options = { maxBytes: 1024 * 1024, idleTimeoutMs: 2000 };

  it('writes the file, its digests and the validators', async () => {
    const file = path.join(folder(), 'ok');
    const got = await download(`${base}/ok`, file, options);
    expect(fs.readFileSync(file, 'utf8')).toBe('hello\n');
    expect(got).toMatchObject({ changed: true, bytes: 6, etag: '"v1"', md5: 'b1946ac92492d2347c6235b4d2611184' });
  });

  it('cuts a body past the bound, whatever the server announced, and leaves no file', async () => {
    const dir = folder();
    await expect(download(`${base}/big`, path.join(dir, 'big'), options)).rejects.toThrow(/more than the bound/);
    await expect(download(`${base}/announced-big`, path.join(dir, 'big'), options)).rejects.toThrow(/announced, more than the bound/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses a body shorter than announced, a 404 with its status, and an unreachable host', async () => {
    const dir = folder();
    await expect(download(`${base}/liar`, path.join(dir, 'x'), options)).rejects.toThrow(DownloadError);
    const missing = await download(`${base}/missing`, path.join(dir, 'x'), options).catch((e: DownloadError) => e);
    expect(missing).toBeInstanceOf(DownloadError);
    expect((missing as DownloadError).status).toBe(404);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(download(`http://127.0.0.1:${port}/x`, path.join(dir, 'x'), options)).rejects.toThrow(/not reachable \(ECONNREFUSED\)/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('the update lock', () => {
  it('is held by one; a dead holder is taken over', () => {
    const tables = folder();
    const lock = takeUpdateLock(tables);
    expect(() => takeUpdateLock(tables)).toThrow(UpdateLockedError);
    lock.release();
    // a holder that died: a process that has exited
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(tables, 'update.lock'), JSON.stringify({ pid: Number(dead.stdout), host: os.hostname(), since: 'then' }));
    const taken = takeUpdateLock(tables);
    expect(taken.tookOver).toBe(true);
    taken.release();
    expect(fs.existsSync(path.join(tables, 'update.lock'))).toBe(false);
    // a lock file cut short by a crash between create and write
    fs.writeFileSync(path.join(tables, 'update.lock'), '');
    takeUpdateLock(tables).release();
  });
});

describe('table sets', () => {
  it('the installed set stands until a pointer names another', () => {
    const tables = folder();
    expect(readPointer(tables, 'current')).toBe(INSTALLED_SET);
    expect(readPointer(tables, 'previous')).toBeNull();
    expect(setInForce(tables)).toBe(tables);
    writePointer(tables, 'current', '20261128T120000Z');
    expect(setInForce(tables)).toBe(path.join(tables, 'sets', '20261128T120000Z'));
    expect(setNameOfTables(tables, [{ file: path.join(tables, 'sets', '20261128T120000Z', 'ip4.nlt') }])).toBe('20261128T120000Z');
    expect(setNameOfTables(tables, [{ file: path.join(tables, 'ip4.nlt') }])).toBe(INSTALLED_SET);
    expect(setNameOfTables(tables, [{ file: '/elsewhere/ip4.nlt' }])).toBeNull();
  });

  it('a pointer that names no set is refused, not followed', () => {
    const tables = folder();
    fs.writeFileSync(path.join(tables, 'current'), '../../etc\n');
    expect(() => setInForce(tables)).toThrow(/not a table set name/);
    expect(() => setFolder(tables, 'sets/../x')).toThrow(/not a table set name/);
    expect(() => writePointer(tables, 'current', 'x y')).toThrow();
  });
});
