import fc from 'fast-check';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { hashSecret, hashSecretHex, isWellFormedSecret, newId, newSecret, sameHashHex } from '../../src/store/apiKeySecret.js';
import { dayKey, monthKey, nextDayReset, nextMonthReset } from '../../src/store/quotaPeriod.js';
import { SlidingRateWindow } from '../../src/store/rateWindow.js';
import { latestVersion, migrate, migrations, schemaVersion, type Migration } from '../../src/store/sqlite/sqliteMigrations.js';
import { DATABASE_FILE, SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { StoreUnavailableError, type AdmitRequest } from '../../src/store/store.js';
import { perPart, storeConformance } from './storeConformance.js';
import { parseBlacklistAddress } from '../../src/blacklist/address.js';
import { elapse, until, untilValue } from '../until.js';

/** What `stored` reads from the file once the store's interval flush (40 ms here; 1 s by default) has written `expected`. */
const flushed = <T>(stored: () => T, expected: T) => untilValue('the flush', stored, (value) => isDeepStrictEqual(value, expected), 500);

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const storeModule = pathToFileURL(path.join(projectRoot, 'src/store/sqlite/sqliteStore.ts')).href;

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-store-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const conformanceDirs = perPart((part) => fs.mkdtempSync(path.join(os.tmpdir(), `netlookup-${part}-`)));
storeConformance(
  'sqlite',
  async (part) => SqliteStore.open(path.join(conformanceDirs[part], 'data')),
  async (part) => fs.rmSync(conformanceDirs[part], { recursive: true, force: true }),
);

const request = (accountId: string, now: Date, over: Partial<AdmitRequest> = {}): AdmitRequest => ({
  account_id: accountId,
  api: 'ip',
  cost: 1,
  rate_limit_per_second: 1000,
  quota: { period: 'month', limit: 1000, pooled: true },
  consume: true,
  now,
  ...over,
});

/** All bytes SQLite keeps for the store: the file and its WAL. */
function databaseBytes(dir: string): Buffer {
  return Buffer.concat(
    fs
      .readdirSync(dir)
      .filter((f) => f.startsWith(DATABASE_FILE))
      .map((f) => fs.readFileSync(path.join(dir, f))),
  );
}

describe('sqlite store: migrations', () => {
  it('creates a new file at the latest schema version, in WAL mode', async () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    const store = SqliteStore.open(dir);
    await store.close();
    const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(schemaVersion(db)).toBe(latestVersion);
    expect(latestVersion).toBe(migrations.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual([
      'accounts',
      'api_keys',
      'blacklist_addresses',
      'blacklist_reports',
      'blacklist_state',
      'daily_counters',
      'dashboard_sessions',
      'usage',
    ]);
    db.close();
  });

  it('migrates a file of an older version, keeping its accounts and keys', async () => {
    const dir = tempDir();
    const secret = newSecret();
    const old = new Database(path.join(dir, DATABASE_FILE));
    expect(migrate(old, migrations, 1)).toEqual({ from: 0, to: 1 });
    old.prepare("INSERT INTO accounts (id, plan, suspended, created_at) VALUES ('acc_old', 'free', 0, '2030-01-01T00:00:00.000Z')").run();
    old
      .prepare(
        "INSERT INTO api_keys (id, account_id, name, hash, created_at) VALUES ('key_old', 'acc_old', 'default', ?, '2030-01-01T00:00:00.000Z')",
      )
      .run(hashSecret(secret));
    old.close();

    const store = SqliteStore.open(dir);
    const found = await store.accounts.authenticate(secret);
    expect(found?.account).toMatchObject({ id: 'acc_old', plan: 'free', suspended: false, expires_at: null });
    expect(found?.key).toMatchObject({ id: 'key_old', websites: [] });
    expect((await store.meter.admit(request('acc_old', new Date('2031-01-01T00:00:00Z')))).outcome).toBe('admitted');
    await store.close();
    const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(schemaVersion(db)).toBe(latestVersion);
    expect(db.prepare('SELECT count FROM usage').pluck().get()).toBe(1);
    db.close();
  });

  it('applies each migration in a transaction: a failing one leaves the previous version', () => {
    const db = new Database(path.join(tempDir(), DATABASE_FILE));
    const failing: Migration = {
      version: 2,
      description: 'fails half way',
      up(d) {
        d.exec('CREATE TABLE half_done (x)');
        throw new Error('boom');
      },
    };
    expect(() => migrate(db, [migrations[0], failing])).toThrow('boom');
    expect(schemaVersion(db)).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeUndefined();
    db.close();
  });

  it('refuses a file from a newer version of the program', () => {
    const dir = tempDir();
    const db = new Database(path.join(dir, DATABASE_FILE));
    db.pragma(`user_version = ${latestVersion + 1}`);
    db.close();
    expect(() => SqliteStore.open(dir)).toThrow(StoreUnavailableError);
    expect(() => SqliteStore.open(dir)).toThrow(/newer/);
  });
});

describe('sqlite store: durability', () => {
  it('reopening keeps accounts, keys and counters', async () => {
    const dir = tempDir();
    const now = new Date('2031-02-10T10:00:00.000Z');
    let store = SqliteStore.open(dir);
    const { account, key } = await store.accounts.createAccount({ plan: 'starter', expires_at: '2031-12-31T00:00:00.000Z' });
    const extra = await store.accounts.createKey(account.id, { name: 'web', websites: ['*.Example.com'] }, 3);
    const rolled = await store.accounts.rollKey(key.id);
    await store.accounts.updateAccount(account.id, { suspended: true });
    await store.meter.admit(request(account.id, now, { cost: 3 }));
    await store.meter.admit(request(account.id, new Date('2031-02-09T10:00:00.000Z'), { api: 'mac', cost: 2 }));
    await store.meter.admit(request(account.id, now, { consume: false }));
    const usage = await store.meter.usage(account.id, now);
    expect(usage).toEqual({ today: { ip: 3, blacklist: 0, mac: 0, rejected: 1 }, month_used: 5 });
    const keys = await store.accounts.listKeys(account.id);
    await store.close();

    store = SqliteStore.open(dir);
    expect(await store.accounts.countAccounts()).toBe(1);
    expect(await store.accounts.getAccount(account.id)).toMatchObject({
      plan: 'starter',
      expires_at: '2031-12-31T00:00:00.000Z',
      suspended: true,
    });
    expect(await store.accounts.listKeys(account.id)).toEqual(keys);
    expect(await store.accounts.authenticate(key.secret)).toBeNull();
    expect((await store.accounts.authenticate(rolled!.secret))?.key.id).toBe(key.id);
    expect((await store.accounts.authenticate(extra.secret))?.key.websites).toEqual(['*.example.com']);
    expect(await store.meter.usage(account.id, now)).toEqual(usage);
    const next = await store.meter.admit(request(account.id, now));
    expect(next.quota).toMatchObject({ used: 6, remaining: 994 });
    await store.close();
  });

  it('flushes counters on its interval, adding to what SQLite holds', async () => {
    const dir = tempDir();
    const now = new Date('2031-03-03T03:00:00.000Z');
    const store = SqliteStore.open(dir, { flushIntervalMs: 40 });
    const { account } = await store.accounts.createAccount({ plan: 'free' });
    const reader = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    const stored = () =>
      Object.fromEntries(
        reader
          .prepare<[string], { api: string; count: number }>('SELECT api, count FROM usage WHERE account_id = ?')
          .all(account.id)
          .map((r) => [r.api, r.count]),
      );
    await store.meter.admit(request(account.id, now, { cost: 2 }));
    await flushed(stored, { ip: 2 });
    await store.meter.admit(request(account.id, now, { api: 'blacklist' }));
    await store.meter.countRejected(account.id, now);
    await flushed(stored, { ip: 2, blacklist: 1, rejected: 1 });
    await store.close();
    // nothing added twice by the flushes since, or by the last at close
    expect(stored()).toEqual({ ip: 2, blacklist: 1, rejected: 1 });
    reader.close();
  });

  it('the usage history counts what is not yet flushed, and reads the same after the flush and after reopening', async () => {
    const dir = tempDir();
    // An hour's interval: nothing is flushed unless the test says so.
    let store = SqliteStore.open(dir, { flushIntervalMs: 3_600_000 });
    const id = 'acc_history';
    const yesterday = new Date('2031-02-10T23:00:00.000Z');
    const now = new Date('2031-02-11T10:00:00.000Z');
    await store.meter.admit(request(id, yesterday, { cost: 2 }));
    await store.meter.countRejected(id, yesterday);
    await store.meter.admit(request(id, now, { api: 'mac' }));
    const expected = [
      { date: '2031-02-09', ip: 0, blacklist: 0, mac: 0, rejected: 0 },
      { date: '2031-02-10', ip: 2, blacklist: 0, mac: 0, rejected: 1 },
      { date: '2031-02-11', ip: 0, blacklist: 0, mac: 1, rejected: 0 },
    ];
    expect(await store.meter.usageHistory(id, 3, now)).toEqual(expected);
    store.meter.flush();
    expect(await store.meter.usageHistory(id, 3, now)).toEqual(expected);
    // A refund of an admission already flushed takes it out of SQLite too.
    const refunded = request(id, yesterday, { api: 'blacklist', cost: 3 });
    await store.meter.admit(refunded);
    store.meter.flush();
    await store.meter.refund(refunded);
    expected[1].rejected = 2;
    expect(await store.meter.usageHistory(id, 3, now)).toEqual(expected);
    await store.close();

    store = SqliteStore.open(dir);
    expect(await store.meter.usageHistory(id, 3, now)).toEqual(expected);
    expect(await store.meter.usage(id, yesterday)).toEqual({ today: { ip: 2, blacklist: 0, mac: 0, rejected: 2 }, month_used: 3 });
    await store.close();
  });

  it("writes the keys' last use on its flush interval, each to its latest minute", async () => {
    const dir = tempDir();
    const store = SqliteStore.open(dir, { flushIntervalMs: 40 });
    const { account, key } = await store.accounts.createAccount({ plan: 'starter' });
    const other = await store.accounts.createKey(account.id, { name: 'other' }, 3);
    const reader = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    const stored = () =>
      Object.fromEntries(
        reader
          .prepare<[string], { id: string; last_used_at: string | null }>('SELECT id, last_used_at FROM api_keys WHERE account_id = ?')
          .all(account.id)
          .map((r) => [r.id, r.last_used_at]),
      );
    store.accounts.noteKeyUse(key.id, new Date('2031-03-03T03:04:05.000Z'));
    await flushed(stored, { [key.id]: '2031-03-03T03:04:00.000Z', [other.id]: null });
    store.accounts.noteKeyUse(key.id, new Date('2031-03-03T03:05:00.000Z'));
    store.accounts.noteKeyUse(other.id, new Date('2031-03-03T03:04:59.999Z'));
    await flushed(stored, { [key.id]: '2031-03-03T03:05:00.000Z', [other.id]: '2031-03-03T03:04:00.000Z' });
    await store.close();
    reader.close();
  });

  it('purges expired dashboard sessions a hundred at a time, at sign-ins, never a live one', async () => {
    const dir = tempDir();
    const store = SqliteStore.open(dir);
    const hash = (i: number) => crypto.createHash('sha256').update(`session ${i}`).digest('hex');
    const session = (createdAt: string, hours: number) => ({
      kind: 'operator' as const,
      account_id: null,
      key_id: null,
      credential_stamp: null,
      created_at: createdAt,
      expires_at: new Date(Date.parse(createdAt) + hours * 3_600_000).toISOString(),
    });
    // kept far past the cap a sign-in sets: this is about the purge of expired rows
    const keep = 1000;
    for (let i = 0; i < 150; i++) await store.sessions.create(hash(i), session('2030-01-01T00:00:00.000Z', 8), keep);
    const live = session('2030-01-01T10:00:00.000Z', 8);
    await store.sessions.create(hash(1000), live, keep);
    const reader = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    const rows = () => reader.prepare('SELECT COUNT(*) FROM dashboard_sessions').pluck().get();
    expect(rows()).toBe(51);
    await store.sessions.create(hash(1001), session('2030-01-01T10:00:01.000Z', 8), keep);
    expect(rows()).toBe(2);
    expect(await store.sessions.get(hash(1000), new Date('2030-01-01T11:00:00.000Z'))).toEqual(live);
    reader.close();
    await store.close();
  });

  it('an acknowledged account and key change survives kill -9', async () => {
    const dir = tempDir();
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `
        const { SqliteStore } = await import(process.env.STORE_MODULE);
        const store = SqliteStore.open(process.env.STORE_DIR);
        const { account, key } = await store.accounts.createAccount({ plan: 'pro', expires_at: '2031-05-01T00:00:00.000Z' });
        const extra = await store.accounts.createKey(account.id, { name: 'second', websites: ['example.com'] }, 5);
        const rolled = await store.accounts.rollKey(key.id);
        process.stdout.write(JSON.stringify({ id: account.id, old: key.secret, rolled: rolled.secret, extra: extra.secret }) + '\\n');
        setInterval(() => {}, 60_000);
        `,
      ],
      { cwd: projectRoot, env: { ...process.env, STORE_MODULE: storeModule, STORE_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.on('exit', () => reject(new Error(`child exited before answering: ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const printed = JSON.parse(line) as { id: string; old: string; rolled: string; extra: string };
    const store = SqliteStore.open(dir);
    expect(await store.accounts.getAccount(printed.id)).toMatchObject({ plan: 'pro', expires_at: '2031-05-01T00:00:00.000Z' });
    expect((await store.accounts.authenticate(printed.rolled))?.account.id).toBe(printed.id);
    expect((await store.accounts.authenticate(printed.extra))?.key).toMatchObject({ name: 'second', websites: ['example.com'] });
    expect(await store.accounts.authenticate(printed.old)).toBeNull();
    await store.close();
  });

  it('a key rolled or an account changed by another process (the CLI) takes effect within a millisecond', async () => {
    // The server's store asks SQLite whether another connection wrote at most once per millisecond:
    // time to pass (the check's own interval), then the change must be in effect, with no polling.
    const settle = () => elapse(2);
    const dir = tempDir();
    const server = SqliteStore.open(dir);
    const { account, key } = await server.accounts.createAccount({ plan: 'free' });
    expect(await server.accounts.authenticate(key.secret)).not.toBeNull();
    const cli = SqliteStore.open(dir);
    const rolled = await cli.accounts.rollKey(key.id);
    await cli.accounts.updateAccount(account.id, { suspended: true });
    await settle();
    expect(await server.accounts.authenticate(key.secret)).toBeNull();
    expect((await server.accounts.authenticate(rolled!.secret))?.account.suspended).toBe(true);
    await cli.accounts.deleteKey(key.id);
    await settle();
    expect(await server.accounts.authenticate(rolled!.secret)).toBeNull();
    await cli.close();
    await server.close();
  });

  it('keeps only the hash of a secret: the secret text is nowhere in the file', async () => {
    const dir = tempDir();
    const store = SqliteStore.open(dir);
    const { account, key } = await store.accounts.createAccount({ plan: 'starter' });
    const extra = await store.accounts.createKey(account.id, { name: 'k' }, 3);
    const rolled = await store.accounts.rollKey(extra.id);
    const whileOpen = databaseBytes(dir);
    await store.close();
    for (const bytes of [whileOpen, databaseBytes(dir)]) {
      for (const secret of [key.secret, extra.secret, rolled!.secret]) {
        expect(bytes.includes(secret.slice(4))).toBe(false);
        expect(bytes.includes(Buffer.from(secret.slice(4), 'hex'))).toBe(false);
      }
    }
    // the check reads the right bytes: the live hashes are there
    expect(databaseBytes(dir).includes(hashSecret(rolled!.secret))).toBe(true);
    expect(databaseBytes(dir).includes(hashSecret(key.secret))).toBe(true);
  });
});

describe('sqlite store: failures surface as StoreUnavailableError', () => {
  it('after close: every call refuses, a malformed secret is refused without the database', async () => {
    const store = SqliteStore.open(tempDir());
    const { account, key } = await store.accounts.createAccount({ plan: 'free' });
    await store.close();
    await store.close();
    expect(await store.healthy()).toBe(false);
    const now = new Date('2031-01-01T00:00:00Z');
    await expect(store.accounts.createAccount({ plan: 'free' })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.accounts.getAccount(account.id)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.accounts.authenticate(key.secret)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.meter.admit(request(account.id, now))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.meter.usage(account.id, now)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.meter.countRejected(account.id, now)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.accounts.authenticate('not-a-key')).toBeNull();
  });

  it('a broken database: SQLite errors become StoreUnavailableError, and a failed flush keeps its counts', async () => {
    const dir = tempDir();
    const store = SqliteStore.open(dir, { flushIntervalMs: 60_000 });
    const { account } = await store.accounts.createAccount({ plan: 'free' });
    const now = new Date('2031-04-04T04:00:00Z');
    await store.meter.admit(request(account.id, now));
    const other = new Database(path.join(dir, DATABASE_FILE));
    other.exec('ALTER TABLE usage RENAME TO usage_away; DROP TABLE api_keys');
    await expect(store.accounts.listKeys(account.id)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.accounts.createKey(account.id, { name: 'x' }, 5)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => store.meter.flush()).toThrow(StoreUnavailableError);
    expect(await store.healthy()).toBe(false);
    // counts stay in memory and are written once the table is back
    await store.meter.admit(request(account.id, now));
    other.exec('ALTER TABLE usage_away RENAME TO usage');
    store.meter.flush();
    expect(await store.healthy()).toBe(true);
    expect(other.prepare('SELECT count FROM usage WHERE account_id = ?').pluck().get(account.id)).toBe(2);
    await store.close();
    other.close();
  });

  it("a failed write of the keys' last use keeps them for the next flush", async () => {
    const dir = tempDir();
    const store = SqliteStore.open(dir, { flushIntervalMs: 60_000 });
    const { key } = await store.accounts.createAccount({ plan: 'free' });
    const other = new Database(path.join(dir, DATABASE_FILE));
    other.exec('ALTER TABLE api_keys RENAME TO api_keys_away');
    store.accounts.noteKeyUse(key.id, new Date('2031-04-04T04:04:04.000Z'));
    expect(() => store.accounts.flushKeyUse()).toThrow(StoreUnavailableError);
    other.exec('ALTER TABLE api_keys_away RENAME TO api_keys');
    store.accounts.flushKeyUse();
    expect(other.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').pluck().get(key.id)).toBe('2031-04-04T04:04:00.000Z');
    await store.close();
    other.close();
  });

  it('a file that is not a database cannot be opened', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, DATABASE_FILE), Buffer.alloc(8192, 7));
    expect(() => SqliteStore.open(dir)).toThrow(StoreUnavailableError);
  });
});

describe('sqlite store: the blacklist index', () => {
  const input = (ip: string, reporter: string, at: Date) => ({
    ip,
    reporter,
    threat_type: 'spam' as const,
    message: null,
    source: 'test',
    at,
    country_code: null,
    isp: null,
  });
  const address = (ip: string) => parseBlacklistAddress(ip)!;

  it('reopening loads every listed address into the index; reports are kept', async () => {
    const dir = tempDir();
    const at = new Date('2026-05-01T00:00:00Z');
    const first = SqliteStore.open(dir);
    await first.blacklist.reportMany(
      ['45.140.0.1', '45.140.0.2', '2a01:4f8::140'].map((ip) => input(ip, 'r', at)),
      at,
    );
    await first.blacklist.report(input('45.140.0.1', 'other', at), at);
    await first.close();
    const second = SqliteStore.open(dir);
    expect(second.blacklist.index.size).toBe(3);
    expect(second.blacklist.threatFacts(address('45.140.0.1'), at)).toMatchObject({
      is_threat: true,
      threat_reports: 2,
      threat_confidence: 63,
    });
    expect(second.blacklist.threatFacts(address('2a01:4f8::140'), at).is_threat).toBe(true);
    expect((await second.blacklist.listing(address('45.140.0.1'), at, 20))!.distinct_reporters).toBe(2);
    await second.close();
  });

  it("another connection's reports and deletions reach the index by the next lookup a millisecond on, and at once before a write", async () => {
    const dir = tempDir();
    const at = new Date('2026-05-01T00:00:00Z');
    const server = SqliteStore.open(dir);
    const cli = SqliteStore.open(dir);
    expect(server.blacklist.threatFacts(address('45.140.1.1'), at).is_threat).toBe(false);
    await cli.blacklist.report(input('45.140.1.1', 'cli', at), at);
    // the hot path asks SQLite at most once per millisecond (the timer's second is not waited for)
    await until('the report in the index', () => server.blacklist.threatFacts(address('45.140.1.1'), at).is_threat, 50, 2);
    await cli.blacklist.deleteAddress(address('45.140.1.1'), at);
    await cli.blacklist.report(input('45.140.1.2', 'cli', at), at);
    await server.blacklist.report(input('45.140.1.3', 'server', at), at);
    expect(server.blacklist.threatFacts(address('45.140.1.1'), at).is_threat).toBe(false);
    expect(server.blacklist.threatFacts(address('45.140.1.2'), at).is_threat).toBe(true);
    await cli.close();
    await server.close();
  });

  it("the retention window is the store's option", async () => {
    const store = SqliteStore.open(tempDir(), { blacklist: { retentionDays: 1 } });
    const at = new Date('2026-05-01T00:00:00Z');
    await store.blacklist.report(input('45.140.2.1', 'r', at), at);
    expect(store.blacklist.policy.retentionMs).toBe(86_400_000);
    expect(store.blacklist.threatFacts(address('45.140.2.1'), new Date(at.getTime() + 86_400_001)).is_threat).toBe(false);
    await store.close();
    expect(() => SqliteStore.open(tempDir(), { blacklist: { retentionDays: 0 } })).toThrow(/retention/);
  });

  it('after close, blacklist writes and reads of SQLite refuse with StoreUnavailableError', async () => {
    const store = SqliteStore.open(tempDir());
    await store.close();
    const at = new Date();
    await expect(store.blacklist.report(input('45.140.3.1', 'r', at), at)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.blacklist.listing(address('45.140.3.1'), at, 20)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('key secrets, period keys and the rate window', () => {
  it('secrets, hashes and ids', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^nlk_[0-9a-f]{40}$/);
    expect(isWellFormedSecret(secret)).toBe(true);
    expect(isWellFormedSecret(secret.toUpperCase())).toBe(false);
    expect(isWellFormedSecret(42)).toBe(false);
    const hash = hashSecret(secret);
    expect(hash).toHaveLength(32);
    const hex = hashSecretHex(secret);
    expect(hex).toBe(hash.toString('hex'));
    expect(sameHashHex(hex, hashSecretHex(secret))).toBe(true);
    expect(sameHashHex(hex, hashSecretHex(newSecret()))).toBe(false);
    expect(sameHashHex(hex, hex.slice(1))).toBe(false);
    expect(sameHashHex(hex, `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`)).toBe(false);
    expect(newId('acc')).toMatch(/^acc_[0-9a-f]{16}$/);
    expect(newId('key')).not.toBe(newId('key'));
  });

  it('UTC day and month keys and resets', () => {
    const t = new Date('2031-12-31T23:59:59.999Z');
    expect(dayKey(t)).toBe('2031-12-31');
    expect(monthKey(t)).toBe('2031-12');
    expect(nextDayReset(t)).toEqual(new Date('2032-01-01T00:00:00.000Z'));
    expect(nextMonthReset(t)).toEqual(new Date('2032-01-01T00:00:00.000Z'));
    const midnight = new Date('2032-03-01T00:00:00.000Z');
    expect(dayKey(midnight)).toBe('2032-03-01');
    expect(nextDayReset(midnight)).toEqual(new Date('2032-03-02T00:00:00.000Z'));
    expect(nextMonthReset(new Date('2032-01-31T12:00:00Z'))).toEqual(new Date('2032-02-01T00:00:00.000Z'));
    expect(() => dayKey(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('UTC day and month keys and resets agree with the calendar for any instant, in any order of asking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2200, 0, 1) }), { minLength: 1, maxLength: 20 }),
        (instants) => {
          for (const ms of instants) {
            const t = new Date(ms);
            const iso = t.toISOString();
            expect(dayKey(t)).toBe(iso.slice(0, 10));
            expect(monthKey(t)).toBe(iso.slice(0, 7));
            expect(nextDayReset(t).getTime()).toBe(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + 1));
            expect(nextMonthReset(t).getTime()).toBe(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1));
          }
        },
      ),
    );
  });

  it('the rate window forgets accounts with nothing left in their window', () => {
    const window = new SlidingRateWindow(1000);
    for (let i = 0; i < 1000; i++) expect(window.tryAdmit(`acc_${i}`, 2, 10_000 + i)).toBe(true);
    expect(window.accounts).toBe(1000);
    window.tryAdmit('acc_late', 2, 12_000);
    expect(window.accounts).toBe(1);
  });

  it('the rate window decides as a count of the admissions in the last window would (property)', () => {
    fc.assert(
      fc.property(
        // each account's own limit (a limit that changes has its own rule, the test below)
        fc.array(fc.constantFrom(1, 2, 3, 17, 40), { minLength: 3, maxLength: 3 }),
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 400 }), account: fc.integer({ min: 0, max: 2 }) }), { maxLength: 400 }),
        (limits, steps) => {
          const window = new SlidingRateWindow(1000);
          const admitted: number[][] = [[], [], []];
          let now = 0;
          for (const { dt, account } of steps) {
            now += dt;
            const inWindow = admitted[account].filter((t) => t > now - 1000).length;
            const expected = inWindow < limits[account];
            expect(window.tryAdmit(`a${account}`, limits[account], now)).toBe(expected);
            if (expected) admitted[account].push(now);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the rate window's memory follows the admissions of the last second, not the limit", () => {
    const window = new SlidingRateWindow(1000);
    // 10 s of 50 requests a second on a limit of a million
    for (let i = 0; i < 500; i++) expect(window.tryAdmit('a', 1_000_000, i * 20)).toBe(true);
    expect(window.slots).toBeLessThanOrEqual(128);
    // a burst fills what the limit allows, and no more
    for (let i = 0; i < 10; i++) expect(window.tryAdmit('b', 10, 20_000)).toBe(true);
    expect(window.tryAdmit('b', 10, 20_500)).toBe(false);
    expect(window.tryAdmit('b', 10, 21_000)).toBe(true);
  });

  it('the rate window keeps the most recent instants when the limit changes', () => {
    const window = new SlidingRateWindow(1000);
    for (const t of [0, 100, 200, 300]) expect(window.tryAdmit('a', 5, t)).toBe(true);
    expect(window.tryAdmit('a', 2, 400)).toBe(false);
    expect(window.tryAdmit('a', 2, 1200)).toBe(true);
    expect(window.tryAdmit('a', 2, 1250)).toBe(false);
    expect(window.tryAdmit('a', 2, 1300)).toBe(true);
  });
});
