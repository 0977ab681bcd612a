/**
 * Two `netlookup serve` instances on a real Redis Cluster (NETLOOKUP_REDIS_CLUSTER) and on a real
 * Sentinel set-up (NETLOOKUP_REDIS_SENTINELS): quotas exact across both, the admin commands on the
 * same store, and a master killed
 * (`kill -9`) under lookups and reports through both: lookups are answered throughout (the outage
 * fallback stands in while the slots have no master), reports are refused (`unavailable`, with
 * Retry-After) only within the failover's window, never a 5xx, and every report acknowledged (2xx)
 * is listed afterwards (docs/shared-deployments.md "Failover").
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import { client, RedisClusterSetup, RedisSentinelSetup, SENTINEL_NAME } from '../store/redisTopologies.js';
import { elapse, until } from '../until.js';
import { ADMIN_TOKEN, expectError, request, TEST_PLANS, tempDir } from './harness.js';
import { killChildren, serve, type Child } from './serveProcess.js';
import { runCli } from '../cli/cliProcess.js';

const PLANS = {
  ...TEST_PLANS,
  free: { ...TEST_PLANS.free, quota: { period: 'day', per_api: { ip: 100, blacklist: 100, mac: 100 } }, rate_limit_per_second: 1000 },
  // the load of a failover test: above any per-second limit
  pro: { ...TEST_PLANS.pro, rate_limit_per_second: 1_000_000 },
};

const dir = tempDir('netlookup-failover-');
const plansFile = path.join(dir, 'plans.json');
fs.writeFileSync(plansFile, JSON.stringify(PLANS));

afterAll(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Two instances on one shared store, after an account exists (neither creates a first-start account). */
async function instances(store: () => Promise<RedisStore>, env: Record<string, string>): Promise<[Child, Child]> {
  const opened = await store();
  await opened.accounts.createAccount({ plan: 'free' });
  await opened.close();
  const both = { ...env, LOG_LEVEL: 'warn', NETLOOKUP_REPORTS_PER_MINUTE: '1000000' };
  return Promise.all([serve(path.join(dir, 'a'), plansFile, both), serve(path.join(dir, 'b'), plansFile, both)]);
}

async function newAccount(url: string, plan: 'free' | 'pro'): Promise<{ account: { id: string }; key: { id: string; secret: string } }> {
  const reply = await request(url, '/admin/accounts', {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    json: { plan },
  });
  expect(reply.status).toBe(201);
  return reply.body;
}

async function quotaExactAcrossInstances(a: Child, b: Child): Promise<void> {
  const { key } = await newAccount(a.url, 'free');
  const replies = await Promise.all(
    Array.from({ length: 300 }, (_, i) => request(i % 2 ? a.url : b.url, '/v1/ip/8.8.8.8', { key: key.secret })),
  );
  expect(replies.filter((r) => r.status === 200)).toHaveLength(100);
  for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 'quota_exceeded');
  expect((await request(b.url, '/v1/usage', { key: key.secret })).body.today).toMatchObject({ ip: 100, rejected: 200 });
}

/** `netlookup account create` and `netlookup key roll` on the instances' store: the instances see both at once. */
async function adminCommandsWork(env: Record<string, string>, a: Child): Promise<void> {
  const cliDir = path.join(dir, 'cli');
  const run = async (args: string[]) => {
    const done = await runCli([...args, '--json'], {
      PATH: process.env.PATH,
      NETLOOKUP_DATA_DIR: cliDir,
      NETLOOKUP_PLANS: plansFile,
      ...env,
    });
    expect(done.stderr, args.join(' ')).toBe('');
    expect(done.code).toBe(0);
    return JSON.parse(done.stdout);
  };
  const created = await run(['account', 'create', '--plan', 'pro']);
  expect((await request(a.url, '/v1/ip/8.8.8.8', { key: created.key.secret })).status).toBe(200);
  const rolled = await run(['key', 'roll', created.key.id]);
  expectError(await request(a.url, '/v1/ip/8.8.8.8', { key: created.key.secret }), 'invalid_key');
  expect((await request(a.url, '/v1/ip/8.8.8.8', { key: rolled.key.secret })).status).toBe(200);
  // no embedded store was written
  expect(fs.existsSync(cliDir)).toBe(false);
}

interface Answer {
  kind: 'lookup' | 'report';
  status: number;
  at: number;
  /** how long the answer took */
  ms: number;
  retryAfter: string | null;
  ip?: string;
  body?: unknown;
}

/**
 * Lookups (two loops per instance) and reports of distinct addresses (one loop per instance)
 * until `kill` has run, its failover is over (`promoted`), and two seconds have passed without a
 * refusal; every answer with its time.
 */
async function underLoad(
  [a, b]: [Child, Child],
  kill: () => Promise<void>,
  promoted: () => Promise<boolean>,
): Promise<{ answers: Answer[]; killedAt: number; key: string }> {
  const { key } = await newAccount(a.url, 'pro');
  const answers: Answer[] = [];
  let running = true;
  let n = 0;
  const lookups = async (url: string) => {
    while (running) {
      const at = performance.now();
      const reply = await request(url, '/v1/ip/8.8.8.8', { key: key.secret });
      answers.push({ kind: 'lookup', status: reply.status, at, ms: performance.now() - at, retryAfter: reply.headers.get('retry-after') });
    }
  };
  const reports = async (url: string) => {
    while (running) {
      const i = n++;
      const ip = `45.${33 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
      const at = performance.now();
      const reply = await request(url, '/v1/blacklist/report', { method: 'POST', key: key.secret, json: { ip, threat_type: 'scanner' } });
      answers.push({
        kind: 'report',
        status: reply.status,
        at,
        ms: performance.now() - at,
        retryAfter: reply.headers.get('retry-after'),
        ip,
        body: reply.body,
      });
      // a refused report is retried as its Retry-After asks, sooner
      if (reply.status >= 300) await elapse(50);
    }
  };
  const loops = [lookups(a.url), lookups(a.url), lookups(b.url), lookups(b.url), reports(a.url), reports(b.url)];
  try {
    await until(
      'reports acknowledged before the kill',
      () => answers.filter((x) => x.kind === 'report' && x.status < 300).length > 30,
      20_000,
    );
    const killedAt = performance.now();
    await kill();
    await until('the failover', promoted, 30_000, 50);
    await until(
      'two seconds without a refusal, after the failover',
      () => {
        const last = answers.findLast((x) => x.status >= 300);
        return performance.now() - Math.max(last?.at ?? 0, killedAt) > 2000;
      },
      30_000,
      50,
    ).catch((e: Error) => {
      const refused = answers.filter((x) => x.status >= 300).slice(-3);
      throw new Error(`${e.message}; the last refusals: ${JSON.stringify(refused.map((x) => ({ ...x, at: x.at - killedAt })))}`);
    });
    return { answers, killedAt, key: key.secret };
  } finally {
    running = false;
    await Promise.all(loops);
  }
}

/** Checks the answers of `underLoad` and says what the failover cost. */
async function expectFailoverHeld(
  what: string,
  [a, b]: [Child, Child],
  { answers, killedAt, key }: Awaited<ReturnType<typeof underLoad>>,
  nodesLog: () => string,
) {
  const lookups = answers.filter((x) => x.kind === 'lookup');
  const reports = answers.filter((x) => x.kind === 'report');
  const refused = reports.filter((x) => x.status >= 300);
  const window = refused.length === 0 ? 0 : Math.max(...refused.map((x) => x.at)) - killedAt;
  console.log(
    `${what}: ${lookups.length} lookups, ${lookups.filter((x) => x.status !== 200).length} not 200, the slowest ${Math.round(Math.max(...lookups.map((x) => x.ms)))} ms; ` +
      `${reports.length} reports, ` +
      `${refused.length} refused (unavailable) from ${refused.length ? Math.round(Math.min(...refused.map((x) => x.at)) - killedAt) : 0} ms to ${Math.round(window)} ms after the kill`,
  );
  // lookups are answered throughout
  expect(lookups.filter((x) => x.status !== 200)).toEqual([]);
  // reports: acknowledged, or refused as unavailable (SPEC 7: 400) with Retry-After within the failover's window; never a 5xx
  for (const x of refused) {
    expect(x, JSON.stringify(x)).toMatchObject({ status: 400, retryAfter: '1', body: { error: { code: 'unavailable' } } });
    // past the window: what the nodes logged says where the failover lingered
    if (x.at - killedAt >= 10_000) expect.fail(`refused ${Math.round(x.at - killedAt)} ms after the kill; the nodes' logs:\n${nodesLog()}`);
  }
  // every acknowledged report is listed, read through the other instance
  const acknowledged = reports.filter((x) => x.status < 300);
  expect(acknowledged.length).toBeGreaterThan(30);
  const missing: string[] = [];
  for (const [i, x] of acknowledged.entries()) {
    const reply = await request(i % 2 ? a.url : b.url, `/v1/blacklist/${x.ip}`, { key });
    if (reply.status !== 200 || reply.body.listed !== true) missing.push(`${x.ip}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  expect(missing).toEqual([]);
}

describe('on a Redis Cluster', () => {
  let cluster: RedisClusterSetup;
  let both: [Child, Child];
  let env: Record<string, string>;

  beforeAll(async () => {
    cluster = await RedisClusterSetup.start();
    env = { NETLOOKUP_REDIS_CLUSTER: cluster.seedList };
    both = await instances(() => RedisStore.open({ kind: 'cluster', nodes: cluster.seeds, auth: { tls: false } }), env);
  });

  afterAll(async () => {
    for (const child of both ?? []) child.process.kill('SIGKILL');
    await cluster?.stop();
  });

  it('hundreds of concurrent requests through two instances against a quota of 100: exactly 100 admitted', async () => {
    await quotaExactAcrossInstances(...both);
  });

  it('the admin commands change the store the instances use', async () => {
    await adminCommandsWork(env, both[0]);
  });

  it('a master killed under load: lookups answered throughout, reports refused only within the window, none acknowledged lost', async () => {
    let master = 0;
    let replica = 0;
    const result = await underLoad(
      both,
      async () => {
        [master] = (await cluster.roles()).masters;
        replica = await replicaOf(cluster, master);
        await cluster.crash(master);
      },
      // promoted, then the killed node started again as its replica (until then the promoted master has none to confirm writes)
      async () => {
        if (!(await cluster.roles()).masters.includes(replica)) return false;
        await cluster.restart(master);
        return true;
      },
    );
    await expectFailoverHeld('cluster failover over HTTP', both, result, () => cluster.log());
  });
});

describe('on a Redis Sentinel set-up', () => {
  let sentinel: RedisSentinelSetup;
  let both: [Child, Child];
  let env: Record<string, string>;

  beforeAll(async () => {
    sentinel = await RedisSentinelSetup.start();
    env = { NETLOOKUP_REDIS_SENTINELS: sentinel.sentinelList, NETLOOKUP_REDIS_SENTINEL_NAME: SENTINEL_NAME };
    both = await instances(
      () => RedisStore.open({ kind: 'sentinel', sentinels: sentinel.sentinelNodes, name: SENTINEL_NAME, auth: { tls: false } }),
      env,
    );
  });

  afterAll(async () => {
    for (const child of both ?? []) child.process.kill('SIGKILL');
    await sentinel?.stop();
  });

  it('hundreds of concurrent requests through two instances against a quota of 100: exactly 100 admitted', async () => {
    await quotaExactAcrossInstances(...both);
  });

  it('the admin commands change the store the instances use', async () => {
    await adminCommandsWork(env, both[0]);
  });

  it('the master killed under load: lookups answered throughout, reports refused only within the window, none acknowledged lost', async () => {
    let master = 0;
    const result = await underLoad(
      both,
      async () => {
        master = await sentinel.master();
        await sentinel.crash(master);
      },
      async () => (await sentinel.master()) !== master,
    );
    await expectFailoverHeld('sentinel failover over HTTP', both, result, () => sentinel.log());
  });
});

/** The replica of `master`, which takes its place when it fails. */
async function replicaOf(cluster: RedisClusterSetup, master: number): Promise<number> {
  for (const replica of (await cluster.roles()).replicas) {
    const redis = client(replica);
    try {
      if ((await redis.info('replication')).includes(`master_port:${master}`)) return replica;
    } finally {
      redis.disconnect();
    }
  }
  throw new Error(`no replica of ${master}`);
}
