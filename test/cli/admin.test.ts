/**
 * The admin command line (`netlookup account …`, `netlookup key …`) run as a child process on a
 * temporary data directory, as an operator would; and its effect on a server running on the same
 * store at that moment (PRAGMA data_version: no restart, no delay).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/http/server.js';
import { defaultPlans } from '../../src/plans/plans.js';
import { writeIpTable } from '../../src/tables/format/ipTable.js';
import { writeMacTable } from '../../src/tables/format/macTable.js';
import { TABLE_FILES } from '../../src/tables/tableFiles.js';
import { DATABASE_FILE, SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { redisTestPrefix, REDIS_TEST_URL, removeKeys } from '../store/redisTestServer.js';
import { tinyIp4, tinyIp6, tinyMac } from '../tables/tinyTables.js';
import { runCli, type CliRun } from './cliProcess.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'netlookup-cli-admin-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let dirCount = 0;
function newDataDir(): string {
  return path.join(root, `data-${++dirCount}`);
}

/** `netlookup ARGS` in a child process, NETLOOKUP_DATA_DIR set to `dataDir`. */
function cli(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NETLOOKUP_DATA_DIR: dataDir, ...env };
  if (!('NETLOOKUP_PLANS' in env)) delete childEnv.NETLOOKUP_PLANS;
  return runCli(args, childEnv);
}

/** Runs a command that must succeed with --json and returns its parsed output. */
async function ok<T = any>(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<T> {
  const run = await cli(dataDir, [...args, '--json'], env);
  expect(run.stderr, `${args.join(' ')}: stderr`).toBe('');
  expect(run.code, `${args.join(' ')}: exit code`).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as T;
}

/** Runs a command that must be refused (exit 1) with --json; returns its error from stderr. */
async function refused(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: string; message: string }> {
  const run = await cli(dataDir, [...args, '--json'], env);
  expect(run.code, `${args.join(' ')}: exit code (stderr ${run.stderr})`).toBe(1);
  expect(run.stdout).toBe('');
  const parsed = JSON.parse(run.stderr) as { success: boolean; error: { code: string; message: string } };
  expect(parsed.success).toBe(false);
  expect(parsed.error.message.length).toBeGreaterThan(0);
  return parsed.error;
}

const secretPattern = /^nlk_[0-9a-f]{40}$/;
const isoInstant = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function expectPublicKey(key: Record<string, unknown>, accountId: string): void {
  expect(Object.keys(key).sort()).toEqual(['account_id', 'created_at', 'id', 'last_used_at', 'name', 'rolled_at', 'websites']);
  expect(key.id).toMatch(/^key_/);
  expect(key.account_id).toBe(accountId);
  expect(key.created_at).toMatch(isoInstant);
}

describe('netlookup account', () => {
  const dir = newDataDir();
  let accountId = '';
  let firstSecret = '';

  it('create prints the account and its first key with the secret', async () => {
    const out = await ok(dir, ['account', 'create', '--plan', 'starter', '--expires', '2027-01-01', '--email', 'a@b.example']);
    expect(Object.keys(out).sort()).toEqual(['account', 'key']);
    expect(out.account).toEqual({
      id: expect.stringMatching(/^acc_/),
      plan: 'starter',
      expires_at: '2027-01-01T00:00:00.000Z',
      suspended: false,
      email: 'a@b.example',
      created_at: expect.stringMatching(isoInstant),
    });
    expect(out.key.secret).toMatch(secretPattern);
    const { secret, ...publicKey } = out.key;
    expectPublicKey(publicKey, out.account.id);
    expect(publicKey).toMatchObject({ name: 'default', websites: [], rolled_at: null });
    accountId = out.account.id;
    firstSecret = secret;
    expect(fs.existsSync(path.join(dir, DATABASE_FILE))).toBe(true);
  });

  it('create defaults to the free plan, without expiry', async () => {
    const out = await ok(dir, ['account', 'create']);
    expect(out.account).toMatchObject({ plan: 'free', expires_at: null, suspended: false, email: null });
  });

  it('show prints the account and its keys, never a secret', async () => {
    const run = await cli(dir, ['account', 'show', accountId, '--json']);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(firstSecret);
    expect(run.stdout).not.toContain('secret');
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out).sort()).toEqual(['account', 'keys']);
    expect(out.account).toMatchObject({ id: accountId, plan: 'starter', expires_at: '2027-01-01T00:00:00.000Z' });
    expect(out.keys).toHaveLength(1);
    expectPublicKey(out.keys[0], accountId);
  });

  it('update changes plan, expiry, suspension and email; none clears', async () => {
    let out = await ok(dir, ['account', 'update', accountId, '--plan', 'pro', '--expires', '2028-06-30T12:00:00Z', '--suspend']);
    expect(Object.keys(out)).toEqual(['account']);
    expect(out.account).toMatchObject({
      id: accountId,
      plan: 'pro',
      expires_at: '2028-06-30T12:00:00.000Z',
      suspended: true,
      email: 'a@b.example',
    });
    out = await ok(dir, ['account', 'update', accountId, '--unsuspend', '--expires', 'none', '--email', 'none']);
    expect(out.account).toMatchObject({ plan: 'pro', expires_at: null, suspended: false, email: null });
    out = await ok(dir, ['account', 'update', accountId, '--email', 'ops@example.org']);
    expect(out.account).toMatchObject({ plan: 'pro', suspended: false, email: 'ops@example.org' });
    // the change is in the store, not only in the answer
    expect((await ok(dir, ['account', 'show', accountId])).account).toEqual(out.account);
  });

  it('--data-dir overrides NETLOOKUP_DATA_DIR', async () => {
    const other = newDataDir();
    const created = await ok(dir, ['account', 'create', '--data-dir', other]);
    expect(fs.existsSync(path.join(other, DATABASE_FILE))).toBe(true);
    expect((await ok(other, ['account', 'show', created.account.id])).account.id).toBe(created.account.id);
    expect((await refused(dir, ['account', 'show', created.account.id])).code).toBe('not_found');
  });

  it('text output without --json: the secret on create, none on show', async () => {
    const created = await cli(dir, ['account', 'create', '--plan', 'business']);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    const id = /^account (acc_\S+)$/m.exec(created.stdout)?.[1];
    const secret = /^\s+secret\s+(nlk_[0-9a-f]{40})$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect(secret).toMatch(secretPattern);
    expect(created.stdout).toMatch(/plan\s+business/);
    const shown = await cli(dir, ['account', 'show', id!]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`account ${id}`);
    expect(shown.stdout).not.toContain(secret!);
    expect(shown.stdout).not.toMatch(/secret/);
    const missing = await cli(dir, ['account', 'show', 'acc_0000000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe('netlookup: No such account: acc_0000000000000000.\n');
  });

  it('refuses unknown ids and an expiry of the free plan with exit 1', async () => {
    const [showMissing, updateMissing, freeExpiry, freeUpdateExpiry] = await Promise.all([
      refused(dir, ['account', 'show', 'acc_doesnotexist']),
      refused(dir, ['account', 'update', 'acc_doesnotexist', '--plan', 'pro']),
      refused(dir, ['account', 'create', '--plan', 'free', '--expires', '2027-01-01']),
      refused(dir, ['account', 'update', accountId, '--plan', 'free', '--expires', '2027-01-01']),
    ]);
    expect(showMissing).toEqual({ code: 'not_found', message: 'No such account: acc_doesnotexist.' });
    expect(updateMissing.code).toBe('not_found');
    const freeRefusal = { code: 'invalid_input', message: '--expires applies to paid plans only: the free plan does not end.' };
    expect(freeExpiry).toEqual(freeRefusal);
    expect(freeUpdateExpiry).toEqual(freeRefusal);
    // nothing was changed by the refused update
    expect((await ok(dir, ['account', 'show', accountId])).account.plan).toBe('pro');
  });

  it('refuses values of the wrong form as bad usage (exit 2), naming the option and what it expects', async () => {
    const cases: [string[], RegExp][] = [
      [['account', 'create', '--plan', 'gold'], /--plan <plan>.*'gold' is invalid\. Allowed choices are free, starter, pro, business/],
      [['account', 'update', accountId, '--plan', 'enterprise'], /Allowed choices are free, starter, pro, business/],
      [['account', 'create', '--plan', 'pro', '--expires', '2027-13-45'], /--expires <date>.*'2027-13-45' is invalid\. An ISO 8601 date/],
      // a day that does not exist, a bare year, a local time (another instant on every machine), hour 24
      [['account', 'create', '--plan', 'pro', '--expires', '2027-02-30'], /'2027-02-30' is invalid/],
      [['account', 'create', '--plan', 'pro', '--expires', '2027'], /'2027' is invalid/],
      [['account', 'create', '--plan', 'pro', '--expires', '2027-01-01T12:00:00'], /'2027-01-01T12:00:00' is invalid/],
      [['account', 'update', accountId, '--expires', '2027-01-01T24:00:00Z'], /'2027-01-01T24:00:00Z' is invalid/],
      [['account', 'create', '--email', 'nobody'], /--email <address>.*'nobody' is invalid\. An email address/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(dir, [...args, '--json'])));
    for (const [i, run] of runs.entries()) {
      expect(run.code, cases[i][0].join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(cases[i][1]);
    }
    expect((await ok(dir, ['account', 'show', accountId])).account.plan).toBe('pro');
  });

  it('an expiry with its zone is kept as that instant', async () => {
    const out = await ok(dir, ['account', 'create', '--plan', 'pro', '--expires', '2027-03-01T01:30:00+02:00']);
    expect(out.account.expires_at).toBe('2027-02-28T23:30:00.000Z');
  });

  it('refuses to work on a data directory without a store (exit 1), and creates none', async () => {
    const empty = newDataDir();
    const error = await refused(empty, ['account', 'show', accountId]);
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain(path.join(empty, DATABASE_FILE));
    expect(fs.existsSync(empty)).toBe(false);
  });

  it('bad usage exits with 2', async () => {
    const runs = await Promise.all([
      cli(dir, ['account', 'show']),
      cli(dir, ['account', 'create', '--bogus']),
      cli(dir, ['account', 'update', accountId, '--suspend', '--unsuspend']),
      cli(dir, ['account', 'frobnicate']),
      cli(dir, ['account']),
      cli(dir, ['account', 'update', accountId]),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.length).toBeGreaterThan(0);
    }
    expect(runs[2].stderr).toMatch(/--suspend.*cannot be used with.*--unsuspend/);
    expect(runs[5].stderr).toBe('error: nothing to change: give --plan, --expires, --email, --suspend or --unsuspend\n');
    expect((await ok(dir, ['account', 'show', accountId])).account.suspended).toBe(false);
  });
});

describe('netlookup key', () => {
  const dir = newDataDir();
  let accountId = '';
  let defaultKeyId = '';
  let webKey: Record<string, any> = {};

  beforeAll(async () => {
    const out = await ok(dir, ['account', 'create', '--plan', 'starter']);
    accountId = out.account.id;
    defaultKeyId = out.key.id;
  });

  it('create makes a key with websites and prints its secret', async () => {
    const out = await ok(dir, ['key', 'create', accountId, '--name', 'web', '--website', 'Example.com', '--website', '*.example.org']);
    expect(Object.keys(out)).toEqual(['key']);
    const { secret, ...publicKey } = out.key;
    expect(secret).toMatch(secretPattern);
    expectPublicKey(publicKey, accountId);
    expect(publicKey).toMatchObject({ name: 'web', websites: ['example.com', '*.example.org'], rolled_at: null });
    webKey = out.key;
  });

  it('list shows the account keys, never secrets', async () => {
    const run = await cli(dir, ['key', 'list', accountId, '--json']);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(webKey.secret);
    expect(run.stdout).not.toContain('secret');
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out).sort()).toEqual(['account_id', 'keys']);
    expect(out.account_id).toBe(accountId);
    expect(out.keys.map((k: { id: string }) => k.id).sort()).toEqual([defaultKeyId, webKey.id].sort());
    for (const key of out.keys) expectPublicKey(key, accountId);
  });

  it('list and account show tell when a key was last used, or never', async () => {
    let text = await cli(dir, ['key', 'list', accountId]);
    expect(text.stdout).toMatch(/^ {2}last used +never$/m);
    const store = SqliteStore.open(dir);
    store.accounts.noteKeyUse(defaultKeyId, new Date('2031-02-03T04:05:06.789Z'));
    await store.close();
    const listed = await ok(dir, ['key', 'list', accountId]);
    expect(listed.keys.find((k: { id: string }) => k.id === defaultKeyId).last_used_at).toBe('2031-02-03T04:05:00.000Z');
    expect(listed.keys.find((k: { id: string }) => k.id === webKey.id).last_used_at).toBeNull();
    text = await cli(dir, ['account', 'show', accountId]);
    expect(text.stdout).toMatch(/^ {2}last used +2031-02-03T04:05:00\.000Z$/m);
  });

  it('update renames, replaces and empties the website list', async () => {
    let out = await ok(dir, ['key', 'update', webKey.id, '--name', 'shop', '--website', 'shop.example.net']);
    expect(Object.keys(out)).toEqual(['key']);
    expectPublicKey(out.key, accountId);
    expect(out.key).toMatchObject({ id: webKey.id, name: 'shop', websites: ['shop.example.net'] });
    out = await ok(dir, ['key', 'update', webKey.id, '--no-websites']);
    expect(out.key).toMatchObject({ name: 'shop', websites: [] });
    out = await ok(dir, ['key', 'update', webKey.id, '--website', 'a.example', '--website', '*.b.example']);
    expect(out.key.websites).toEqual(['a.example', '*.b.example']);
    const listed = await ok(dir, ['key', 'list', accountId]);
    expect(listed.keys.find((k: { id: string }) => k.id === webKey.id)).toEqual(out.key);
  });

  it('roll prints a new secret for the same key', async () => {
    const out = await ok(dir, ['key', 'roll', webKey.id]);
    expect(Object.keys(out)).toEqual(['key']);
    expect(out.key.id).toBe(webKey.id);
    expect(out.key.secret).toMatch(secretPattern);
    expect(out.key.secret).not.toBe(webKey.secret);
    expect(out.key.rolled_at).toMatch(isoInstant);
    expect(out.key).toMatchObject({ name: 'shop', websites: ['a.example', '*.b.example'] });
  });

  it("create respects the plan's max_keys (spec table by default)", async () => {
    // starter: 3 keys; two exist
    await ok(dir, ['key', 'create', accountId, '--name', 'third']);
    const error = await refused(dir, ['key', 'create', accountId, '--name', 'fourth']);
    expect(error).toEqual({
      code: 'key_limit',
      message: `The plan allows ${defaultPlans.starter.max_keys} keys; delete one first or change the plan.`,
    });
    const free = await ok(dir, ['account', 'create', '--plan', 'free']);
    expect(await refused(dir, ['key', 'create', free.account.id, '--name', 'second'])).toEqual({
      code: 'key_limit',
      message: 'The plan allows 1 key; delete one first or change the plan.',
    });
  });

  it("create respects NETLOOKUP_PLANS's max_keys", async () => {
    const plansFile = path.join(root, 'plans.json');
    fs.writeFileSync(plansFile, JSON.stringify({ ...defaultPlans, pro: { ...defaultPlans.pro, max_keys: 2 } }));
    const env = { NETLOOKUP_PLANS: plansFile };
    const pro = await ok(dir, ['account', 'create', '--plan', 'pro'], env);
    await ok(dir, ['key', 'create', pro.account.id, '--name', 'second'], env);
    expect(await refused(dir, ['key', 'create', pro.account.id, '--name', 'third'], env)).toEqual({
      code: 'key_limit',
      message: 'The plan allows 2 keys; delete one first or change the plan.',
    });
    // the spec's table (pro: 5 keys) without the file
    await ok(dir, ['key', 'create', pro.account.id, '--name', 'third']);
    // an unusable plan file is a clear error
    fs.writeFileSync(plansFile, '{"free": {}}');
    const broken = await refused(dir, ['key', 'create', pro.account.id, '--name', 'fourth'], env);
    expect(broken.code).toBe('invalid_config');
    expect(broken.message).toContain(plansFile);
  });

  it('delete removes the key', async () => {
    const out = await ok(dir, ['key', 'delete', webKey.id]);
    expect(out).toEqual({ success: true, deleted: webKey.id });
    const listed = await ok(dir, ['key', 'list', accountId]);
    expect(listed.keys.map((k: { id: string }) => k.id)).not.toContain(webKey.id);
    expect(await refused(dir, ['key', 'delete', webKey.id])).toEqual({ code: 'not_found', message: `No such key: ${webKey.id}.` });
  });

  it('refuses unknown ids with exit 1', async () => {
    const errors = await Promise.all([
      refused(dir, ['key', 'create', 'acc_doesnotexist', '--name', 'x']),
      refused(dir, ['key', 'list', 'acc_doesnotexist']),
      refused(dir, ['key', 'update', 'key_doesnotexist', '--name', 'x']),
      refused(dir, ['key', 'roll', 'key_doesnotexist']),
      refused(dir, ['key', 'delete', 'key_doesnotexist']),
    ]);
    for (const error of errors) expect(error.code).toBe('not_found');
  });

  it('refuses websites that are no host and empty names as bad usage (exit 2); none is no host', async () => {
    const pro = await ok(dir, ['account', 'create', '--plan', 'pro']);
    const cases: [string[], RegExp][] = [
      [
        ['key', 'create', pro.account.id, '--name', 'x', '--website', 'https://example.com/'],
        /--website <host>.*is invalid\. Website "https:\/\/example\.com\/" is not a host: give example\.com or \*\.example\.com/,
      ],
      [['key', 'update', defaultKeyId, '--website', 'example.com:8080'], /Website "example\.com:8080" is not a host/],
      [
        ['key', 'create', pro.account.id, '--name', 'x', '--website', 'none'],
        /'none' is invalid\. A host is expected; a key without --website answers any website \(key update: --no-websites empties the list\)/,
      ],
      [['key', 'update', defaultKeyId, '--website', 'ANY'], /'ANY' is invalid\. A host is expected/],
      [['key', 'create', pro.account.id, '--name', '  '], /--name <name>.*is invalid\. A name of 1 to 100 characters is expected/],
      [['key', 'update', defaultKeyId, '--name', 'x'.repeat(101)], /A name of 1 to 100 characters is expected/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(dir, [...args, '--json'])));
    for (const [i, run] of runs.entries()) {
      expect(run.code, cases[i][0].join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(cases[i][1]);
    }
    // refused creations left no key behind, refused updates changed nothing
    expect((await ok(dir, ['key', 'list', pro.account.id])).keys).toHaveLength(1);
    expect((await ok(dir, ['key', 'list', accountId])).keys.find((k: { id: string }) => k.id === defaultKeyId).websites).toEqual([]);
  });

  it('bad usage exits with 2', async () => {
    const runs = await Promise.all([
      cli(dir, ['key', 'create', accountId]),
      cli(dir, ['key', 'roll']),
      cli(dir, ['key', 'update', defaultKeyId, '--website', 'a.example', '--no-websites']),
      cli(dir, ['key', 'delete', defaultKeyId, '--force']),
      cli(dir, ['key']),
      cli(dir, ['key', 'update', defaultKeyId]),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.length).toBeGreaterThan(0);
    }
    expect(runs[0].stderr).toMatch(/--name/);
    expect(runs[5].stderr).toBe('error: nothing to change: give --name, --website or --no-websites\n');
    // the default key is still there
    expect((await ok(dir, ['key', 'list', accountId])).keys.map((k: { id: string }) => k.id)).toContain(defaultKeyId);
  });
});

describe('a running server sees CLI changes at its next request', () => {
  const dir = newDataDir();
  const tablesDir = path.join(root, 'tables');
  let service: RunningService;

  beforeAll(async () => {
    fs.mkdirSync(tablesDir);
    fs.writeFileSync(path.join(tablesDir, TABLE_FILES.ip4), writeIpTable(tinyIp4()));
    fs.writeFileSync(path.join(tablesDir, TABLE_FILES.ip6), writeIpTable(tinyIp6()));
    fs.writeFileSync(path.join(tablesDir, TABLE_FILES.mac), writeMacTable(tinyMac()));
  });

  afterAll(async () => {
    await service?.stop();
  });

  const usage = (secret: string, headers: Record<string, string> = {}) =>
    fetch(`${service.url}/v1/usage`, { headers: { 'X-API-Key': secret, ...headers } }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { success: boolean; error?: { code: string } },
    }));

  it('roll, suspension, website list and deletion take effect at once', async () => {
    const created = await ok(dir, ['account', 'create', '--plan', 'starter']);
    service = await startService(
      configFromEnv({ NETLOOKUP_DATA_DIR: dir, NETLOOKUP_TABLES: tablesDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
    );
    expect(service.firstKey).toBeNull();
    const oldSecret: string = created.key.secret;
    expect((await usage(oldSecret)).status).toBe(200);

    // roll: the server has the old secret cached from the request above; it must stop working now
    const rolled = await ok(dir, ['key', 'roll', created.key.id]);
    const refusedOld = await usage(oldSecret);
    expect(refusedOld.status).toBe(401);
    expect(refusedOld.body.error?.code).toBe('invalid_key');
    const newSecret: string = rolled.key.secret;
    expect((await usage(newSecret)).status).toBe(200);

    // suspension and its lifting
    await ok(dir, ['account', 'update', created.account.id, '--suspend']);
    const suspended = await usage(newSecret);
    expect(suspended.status).toBe(403);
    expect(suspended.body.error?.code).toBe('account_suspended');
    await ok(dir, ['account', 'update', created.account.id, '--unsuspend']);
    expect((await usage(newSecret)).status).toBe(200);

    // a website restriction
    await ok(dir, ['key', 'update', created.key.id, '--website', 'shop.example.com']);
    const otherSite = await usage(newSecret, { Origin: 'https://evil.example.net' });
    expect(otherSite.status).toBe(403);
    expect(otherSite.body.error?.code).toBe('origin_not_allowed');
    expect((await usage(newSecret, { Origin: 'https://shop.example.com' })).status).toBe(200);

    // a key created by the CLI works, a deleted one stops
    const second = await ok(dir, ['key', 'create', created.account.id, '--name', 'second']);
    expect((await usage(second.key.secret)).status).toBe(200);
    await ok(dir, ['key', 'delete', created.key.id]);
    const deleted = await usage(newSecret, { Origin: 'https://shop.example.com' });
    expect(deleted.status).toBe(401);
    expect(deleted.body.error?.code).toBe('invalid_key');
    expect((await usage(second.key.secret)).status).toBe(200);
  });
});

describe('admin commands on Redis (REDIS_URL)', () => {
  const prefix = redisTestPrefix('cli');
  const env = { REDIS_URL: REDIS_TEST_URL, NETLOOKUP_REDIS_PREFIX: prefix };
  afterAll(() => removeKeys(prefix));

  it('create, roll and suspend in the shared store; no embedded file is written', async () => {
    const dir = newDataDir();
    const created = await ok(dir, ['account', 'create', '--plan', 'starter', '--expires', '2031-01-01'], env);
    const store = await RedisStore.open(REDIS_TEST_URL, { prefix });
    try {
      expect(await store.accounts.getAccount(created.account.id)).toMatchObject({
        plan: 'starter',
        expires_at: '2031-01-01T00:00:00.000Z',
      });
      expect((await store.accounts.authenticate(created.key.secret))?.key.id).toBe(created.key.id);
      const rolled = await ok(dir, ['key', 'roll', created.key.id], env);
      expect(await store.accounts.authenticate(created.key.secret)).toBeNull();
      expect((await store.accounts.authenticate(rolled.key.secret))?.key.id).toBe(created.key.id);
      await ok(dir, ['account', 'update', created.account.id, '--suspend'], env);
      expect((await store.accounts.authenticate(rolled.key.secret))?.account.suspended).toBe(true);
      expect((await ok(dir, ['key', 'list', created.account.id], env)).keys).toHaveLength(1);
    } finally {
      await store.close();
    }
    expect(fs.existsSync(dir)).toBe(false);
  });
});
