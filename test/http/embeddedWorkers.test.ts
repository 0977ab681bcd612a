/**
 * `netlookup serve --workers N` on the embedded store (src/store/workers/storeCalls.ts): the
 * primary counts for every worker, so quotas and per-second limits hold as with one process; a
 * change made through one worker reaches the others on the next request; a worker that dies is
 * replaced and what it counted is kept; SIGHUP and SIGTERM reach every worker, and a stop writes
 * every count.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { ADMIN_TOKEN, expectError, request, TEST_PLANS, tempDir } from './harness.js';
import { expectPerSecondLimitHeld } from './perSecondLimit.js';
import { getAlone, killChildren, serve, type Child } from './serveProcess.js';
import { until, untilValue } from '../until.js';

const PLANS = {
  ...TEST_PLANS,
  free: { ...TEST_PLANS.free, quota: { period: 'day', per_api: { ip: 100, blacklist: 100, mac: 100 } }, rate_limit_per_second: 1000 },
  starter: { ...TEST_PLANS.starter, quota: { period: 'month', pooled: 1_000_000 }, rate_limit_per_second: 5 },
};

const dir = tempDir('netlookup-workers-');
const plansFile = path.join(dir, 'plans.json');
const dataDir = path.join(dir, 'data');
let workers: Child;

const admin = (method: string, p: string, json?: unknown) =>
  request(workers.url, p, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json === undefined ? {} : { json }) });

async function newKey(plan: 'free' | 'starter' | 'pro'): Promise<{ id: string; secret: string; account_id: string }> {
  const reply = await admin('POST', '/admin/accounts', { plan });
  expect(reply.status).toBe(201);
  return reply.body.key;
}

/** The worker processes of the primary, by pid. */
const workerPids = (): number[] =>
  execFileSync('pgrep', ['-P', String(workers.process.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);

/** The workers that logged `message` (their `"worker"` numbers). */
const workersThatLogged = (message: string): Set<string> =>
  new Set([...workers.output().matchAll(new RegExp(`"worker":(\\d+)[^\\n]*"msg":"${message}"`, 'g'))].map((m) => m[1]));

beforeAll(async () => {
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  workers = await serve(dataDir, plansFile, { LOG_LEVEL: 'debug', NETLOOKUP_LEGACY_CHECK_DAILY: '3' }, ['--workers', '2']);
});

afterAll(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('serve --workers 2 on the embedded store', () => {
  it('says so, shows the embedded store in /health, and holds the data directory against a second server', async () => {
    expect(workers.output()).toContain('2 workers on the embedded store (sqlite), counted in the primary');
    expect((await request(workers.url, '/health')).body.store).toEqual({ kind: 'sqlite', healthy: true });
    await expect(serve(dataDir, plansFile)).rejects.toThrow(/another netlookup serve is using the data directory/);
  });

  it('hundreds of concurrent requests against a quota of 100: exactly 100 succeed, through both workers', async () => {
    const key = await newKey('free');
    const replies = await Promise.all(Array.from({ length: 250 }, () => request(workers.url, '/v1/ip/8.8.8.8', { key: key.secret })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(100);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 'quota_exceeded');
    const usage = await request(workers.url, '/v1/usage', { key: key.secret });
    expect(usage.body.today).toMatchObject({ ip: 100, rejected: 150 });
    const answeredBy = new Set([...workers.output().matchAll(/"worker":(\d+)[^\n]*"url":"\/v1\/ip\/8\.8\.8\.8"/g)].map((m) => m[1]));
    expect(answeredBy.size).toBe(2);
  });

  it('a limit of 5/s: never more than 5 admitted in any one-second window across both', async () => {
    const key = await newKey('starter');
    // four clients, a connection per request: the cluster hands them to the workers in turn
    await expectPerSecondLimitHeld(() => getAlone(workers.url, '/v1/ip/8.8.8.8', key.secret), 4, 5);
  });

  it("a keyless client's daily allowance is counted once across both workers", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await getAlone(workers.url, '/api/check?ip=8.8.8.8')).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.slice(3)).toEqual([429, 429, 429]);
  });

  it('a key rolled and an address reported through one worker: every worker answers accordingly on the next request', async () => {
    const key = await newKey('pro');
    // both workers have the key in their caches, and have loaded their blacklist index
    for (let i = 0; i < 4; i++)
      expect((await getAlone(workers.url, '/v1/ip/45.33.32.157', key.secret)).body.security.is_threat).toBe(false);
    const reported = await request(workers.url, '/v1/blacklist/report', {
      method: 'POST',
      key: key.secret,
      json: { ip: '45.33.32.157', threat_type: 'scanner' },
    });
    expect(reported.status, reported.text).toBe(201);
    for (let i = 0; i < 4; i++) {
      expect((await getAlone(workers.url, '/v1/ip/45.33.32.157', key.secret)).body.security).toMatchObject({
        is_threat: true,
        threat_type: 'scanner',
      });
    }
    const rolled = await admin('POST', `/admin/keys/${key.id}/roll`);
    expect(rolled.status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await getAlone(workers.url, '/v1/ip/8.8.8.8', key.secret)).body.error.code).toBe('invalid_key');
    for (let i = 0; i < 4; i++) expect((await getAlone(workers.url, '/v1/ip/8.8.8.8', rolled.body.key.secret)).status).toBe(200);
  });

  it('a worker killed with SIGKILL is replaced; what it counted and the reports it acknowledged are kept', async () => {
    const key = await newKey('free');
    for (let i = 0; i < 10; i++) expect((await getAlone(workers.url, '/v1/mac/00:00:0c:12:34:56', key.secret)).status).toBe(200);
    const reporter = await newKey('pro');
    const reported = await request(workers.url, '/v1/blacklist/report', {
      method: 'POST',
      key: reporter.secret,
      json: { ip: '45.33.32.158', threat_type: 'brute-force' },
    });
    expect(reported.status, reported.text).toBe(201);
    const [victim, survivor] = workerPids();
    process.kill(victim, 'SIGKILL');
    await until('a worker started in place of the killed one', () => {
      const pids = workerPids();
      const said = new RegExp(`worker ${victim} exited \\(SIGKILL\\); starting another`).test(workers.output());
      return said && pids.length === 2 && !pids.includes(victim) && pids.includes(survivor);
    });
    // the new worker answers once it listens; every answer counts the ten lookups made before
    const usage = await untilValue(
      'usage through both workers',
      async () => Promise.all([getAlone(workers.url, '/v1/usage', key.secret), getAlone(workers.url, '/v1/usage', key.secret)]),
      (replies) => replies.every((r) => r.status === 200),
      10_000,
      50,
    );
    for (const reply of usage) expect(reply.body.today).toMatchObject({ mac: 10, rejected: 0 });
    for (let i = 0; i < 2; i++) {
      expect((await getAlone(workers.url, '/v1/blacklist/45.33.32.158', reporter.secret)).body).toMatchObject({
        listed: true,
        threat_type: 'brute-force',
      });
    }
  });

  it('SIGHUP reloads the tables in every worker', async () => {
    const before = workersThatLogged('tables reloaded').size;
    expect(before).toBe(0);
    workers.process.kill('SIGHUP');
    await until('two workers to reload', () => workersThatLogged('tables reloaded').size === 2, 20_000, 50).catch((error: Error) => {
      throw new Error(
        `${error.message}\n${workers
          .output()
          .split('\n')
          .filter((line) => !line.includes('"msg":"request"'))
          .join('\n')}`,
      );
    });
  });

  it('SIGTERM: every worker finishes, the primary writes every count, and the next start reads them', async () => {
    const key = await newKey('free');
    for (let i = 0; i < 7; i++) expect((await getAlone(workers.url, '/v1/ip/1.1.1.1', key.secret)).status).toBe(200);
    workers.process.kill('SIGTERM');
    expect(await workers.exited).toEqual({ code: 0, signal: null });
    const store = SqliteStore.open(dataDir);
    try {
      expect((await store.meter.usage(key.account_id, new Date())).today).toMatchObject({ ip: 7, rejected: 0 });
    } finally {
      await store.close();
    }
  });

  it('--workers auto starts one worker per core', async () => {
    const auto = await serve(path.join(dir, 'auto'), plansFile, {}, ['--workers', 'auto']);
    const cores = os.availableParallelism();
    if (cores > 1) expect(auto.output()).toContain(`${cores} workers on the embedded store`);
    else expect(auto.output()).not.toContain('workers on the');
    auto.process.kill('SIGTERM');
    expect(await auto.exited).toEqual({ code: 0, signal: null });
  });
});
