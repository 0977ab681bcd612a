/**
 * The deployment of docs/shared-deployments.md "Behind nginx": a real nginx running
 * contrib/nginx/netlookup.conf as shipped (only its instance addresses and listen line replaced) in
 * front of two `netlookup serve` processes on one Redis, with NETLOOKUP_TRUST_PROXY naming nginx.
 * Through nginx: the client address the service sees is the client's (a spoofed X-Forwarded-For is
 * not believed), requests spread over both instances on kept-alive connections, quotas and the
 * per-second limit hold exactly across them, the spec's headers, errors and CORS preflights arrive
 * as the instances sent them, refusals of large bodies take no instance out, the dashboard's origin
 * check sees the Host the browser sent, a POST is never retried on another instance while a GET
 * is, and a stopped instance is routed around.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, redisTestPrefix, REDIS_TEST_URL, removeKeys } from '../store/redisTestServer.js';
import { until, untilValue } from '../until.js';
import { ADMIN_TOKEN, expectError, projectRoot, request, TEST_PLANS, tempDir, type Reply } from './harness.js';
import { expectPerSecondLimitHeld } from './perSecondLimit.js';
import { killChildren, serve, type Child } from './serveProcess.js';

const CONTRIB = path.join(projectRoot, 'contrib/nginx/netlookup.conf');
const LEGACY_MAC_DAILY = 5;
const UNKNOWN_KEY = 'nlk_0000000000000000000000000000000000000000';
const PLANS = {
  ...TEST_PLANS,
  free: { ...TEST_PLANS.free, quota: { period: 'day', per_api: { ip: 40, blacklist: 40, mac: 40 } }, rate_limit_per_second: 1000 },
  starter: { ...TEST_PLANS.starter, quota: { period: 'month', pooled: 1_000_000 }, rate_limit_per_second: 5 },
};

const nginxBinary = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const prefix = redisTestPrefix('nginx');
const dir = tempDir('netlookup-nginx-');
const nginxes: ChildProcess[] = [];
let a: Child;
let b: Child;
let front: string;

/** nginx's argument list: the contrib file with `upstreams` and `port` in it, everything else under `home`. */
function nginxPrefix(home: string, upstreams: string[], port: number): string[] {
  const shipped = fs.readFileSync(CONTRIB, 'utf8');
  const serverLine = /^\s*server\s+\d[^;]*;\n/gm;
  const servers = shipped.match(serverLine) ?? [];
  expect(servers.length).toBeGreaterThanOrEqual(2);
  // The upstream's server lines give way to the instances (options kept), the listen line to the port.
  const [options] = /(?<= )max_fails[^;]*/.exec(servers[0] ?? '') ?? [''];
  let first = true;
  const site = shipped
    .replace(serverLine, () => {
      if (!first) return '';
      first = false;
      return upstreams.map((u) => `    server ${u} ${options};\n`).join('');
    })
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`);
  expect(site).toContain(`listen 127.0.0.1:${port};`);
  for (const t of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.mkdirSync(path.join(home, 'tmp', t), { recursive: true });
  fs.writeFileSync(path.join(home, 'netlookup.conf'), site);
  const main = [
    // A master started as root would hand its workers to "nobody", who cannot use this prefix.
    ...(process.getuid?.() === 0 ? [`user ${os.userInfo().username};`] : []),
    'daemon off;',
    'worker_processes 1;',
    `pid ${home}/nginx.pid;`,
    `error_log ${home}/error.log info;`,
    'events { worker_connections 1024; }',
    'http {',
    `  access_log ${home}/access.log;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${home}/tmp/${t === 'client_body' ? 'body' : t};`),
    `  include ${home}/netlookup.conf;`,
    '}',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(home, 'nginx.conf'), main);
  return ['-p', home, '-c', path.join(home, 'nginx.conf'), '-e', path.join(home, 'error.log')];
}

/** Starts nginx in the foreground on a free port in front of `upstreams`; its URL once it listens. */
async function startNginx(name: string, upstreams: string[]): Promise<string> {
  if (nginxBinary === undefined) throw new Error('nginx is not installed (Debian: apt-get install -y nginx; .ci/run installs it)');
  const home = path.join(dir, name);
  const port = await freePort();
  const args = nginxPrefix(home, upstreams, port);
  const check = spawnSync(nginxBinary, ['-t', ...args], { encoding: 'utf8' });
  expect(check.status, check.stderr).toBe(0);
  const child = spawn(nginxBinary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  nginxes.push(child);
  const url = `http://127.0.0.1:${port}`;
  // Its port taking connections, not a request through it: the first request a test makes is the first nginx sends on.
  await until(`nginx listening on ${url}`, () => child.exitCode === null && accepts(port), 20_000, 50);
  return url;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const admin = (method: string, p: string, json?: unknown) =>
  request(a.url, p, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json === undefined ? {} : { json }) });

async function newKey(plan: 'free' | 'starter' | 'pro'): Promise<string> {
  const reply = await admin('POST', '/admin/accounts', { plan });
  expect(reply.status).toBe(201);
  return reply.body.key.secret;
}

/** A GET from `localAddress` (any of 127.0.0.0/8 on Linux), so that the client is not where nginx connects from. */
function getFrom(localAddress: string, url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress, headers, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
          resolve({ status: res.statusCode ?? 0, headers, text, body: JSON.parse(text), contentType: headers.get('content-type') });
        });
      })
      .on('error', reject);
  });
}

/** How many requests for `url` an instance has logged (debug logs: one line per answered request). */
const answered = (instance: Child, url: string) => instance.output().split(`"url":"${url}"`).length - 1;

/** Both instances' counts once they have logged `total` requests for `url` between them. */
async function answeredBy(url: string, total: number): Promise<[number, number]> {
  const counts = await untilValue(
    `${total} logged requests for ${url}`,
    () => [answered(a, url), answered(b, url)] as [number, number],
    ([x, y]) => x + y >= total,
  );
  expect(counts[0] + counts[1]).toBe(total);
  return counts;
}

/** The client-side ports of this host's TCP connections to `port` (/proc/net/tcp: either end's entry). */
function connectionsTo(port: number): Set<number> {
  const ports = new Set<number>();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, remote, state] = line.trim().split(/\s+/);
    if (local === undefined || state === '0A') continue;
    const [localPort, remotePort] = [local, remote].map((end) => parseInt(end.split(':')[1], 16));
    if (localPort === port) ports.add(remotePort);
    else if (remotePort === port) ports.add(localPort);
  }
  return ports;
}

/**
 * A reply's headers but those each hop sets for itself (Date, Server, Connection and framing); the
 * rate window's, which move with every request and second, as whole numbers only.
 */
function endToEndHeaders(reply: Reply): Record<string, string> {
  const hopByHop = new Set(['date', 'server', 'connection', 'keep-alive', 'transfer-encoding']);
  const moving = new Set(['x-ratelimit-remaining', 'x-ratelimit-reset']);
  return Object.fromEntries(
    [...reply.headers]
      .filter(([name]) => !hopByHop.has(name))
      .map(([name, value]) => [name, moving.has(name) ? value.replace(/^\d+$/, '<whole number>') : value]),
  );
}

beforeAll(async () => {
  if (nginxBinary === undefined) throw new Error('nginx is not installed (Debian: apt-get install -y nginx; .ci/run installs it)');
  const plansFile = path.join(dir, 'plans.json');
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  const env = {
    REDIS_URL: REDIS_TEST_URL,
    NETLOOKUP_REDIS_PREFIX: prefix,
    NETLOOKUP_TRUST_PROXY: '127.0.0.1',
    NETLOOKUP_LEGACY_MAC_DAILY: String(LEGACY_MAC_DAILY),
    LOG_LEVEL: 'debug',
  };
  [a, b] = await Promise.all([serve(path.join(dir, 'a'), plansFile, env), serve(path.join(dir, 'b'), plansFile, env)]);
  front = await startNginx(
    'front',
    [a.url, b.url].map((u) => new URL(u).host),
  );
});

afterAll(async () => {
  await Promise.all(
    nginxes.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
  await removeKeys(prefix);
});

describe('the client address behind nginx', () => {
  it("GET /v1/ip looks up the client's address, not nginx's nor a spoofed X-Forwarded-For", async () => {
    const key = await newKey('pro');
    for (const client of ['127.0.0.2', '127.0.0.3']) {
      const reply = await getFrom(client, `${front}/v1/ip`, {
        'x-api-key': key,
        'x-forwarded-for': '203.0.113.9, 198.51.100.7',
        'x-real-ip': '203.0.113.9',
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ success: true, ip: client, reserved: true, reserved_type: 'loopback' });
    }
  });

  it('the keyless legacy allowance counts per client address, across both instances', async () => {
    const lookup = `${front}/lookup.php?mac=00:1A:2B:3C:4D:5E`;
    const replies: Reply[] = [];
    for (let i = 0; i < LEGACY_MAC_DAILY + 2; i++)
      replies.push(await getFrom('127.0.0.4', lookup, { 'x-forwarded-for': `198.51.100.${i}` }));
    expect(replies.map((r) => r.status)).toEqual([...Array<number>(LEGACY_MAC_DAILY).fill(200), 429, 429]);
    expect(replies.map((r) => r.headers.get('x-quota-remaining'))).toEqual(['4', '3', '2', '1', '0', '0', '0']);
    for (const refused of replies.slice(LEGACY_MAC_DAILY)) expectError(refused, 'quota_exceeded');
    // Another client, claiming to be the first one, has its own allowance.
    const other = await getFrom('127.0.0.5', lookup, { 'x-forwarded-for': '127.0.0.4' });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-quota-remaining')).toBe(String(LEGACY_MAC_DAILY - 1));
    // both instances answered the first client
    const [byA, byB] = await answeredBy('/lookup.php?mac=00:1A:2B:3C:4D:5E', LEGACY_MAC_DAILY + 3);
    expect(Math.min(byA, byB)).toBeGreaterThan(0);
  });
});

describe('balancing', () => {
  it('spreads requests over both instances, each answered once, on kept-alive connections', async () => {
    const key = await newKey('pro');
    const ports = [a.url, b.url].map((u) => Number(new URL(u).port));
    const before = ports.map(connectionsTo);
    for (let i = 0; i < 20; i++) expect((await request(front, `/v1/ip/8.8.4.${i}`, { key })).status).toBe(200);
    const counts = [0, 0];
    for (let i = 0; i < 20; i++) {
      const [byA, byB] = await answeredBy(`/v1/ip/8.8.4.${i}`, 1);
      counts[0] += byA;
      counts[1] += byB;
    }
    // nginx's round robin: one request each in turn
    expect(counts).toEqual([10, 10]);
    // Ten requests to each instance, at most two new connections (one kept connection, one more if it idled out).
    const opened = ports.map((port, i) => [...connectionsTo(port)].filter((p) => !before[i].has(p)).length);
    for (const n of opened) expect(n).toBeLessThanOrEqual(2);
  });
});

describe('limits across instances through nginx', () => {
  it('120 concurrent requests against a quota of 40: exactly 40 admitted, the rest quota_exceeded', async () => {
    const key = await newKey('free');
    const replies = await Promise.all(Array.from({ length: 120 }, () => request(front, '/v1/ip/9.9.9.9', { key })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(40);
    for (const reply of replies.filter((r) => r.status !== 200)) {
      expectError(reply, 'quota_exceeded');
      expect(Number(reply.headers.get('x-quota-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
    const usage = await request(front, '/v1/usage', { key });
    expect(usage.body.today).toMatchObject({ ip: 40, rejected: 80 });
    const [byA, byB] = await answeredBy('/v1/ip/9.9.9.9', 120);
    expect(Math.min(byA, byB)).toBeGreaterThan(0);
  });

  it('a limit of 5/s: never more than 5 admitted in any one-second window, rate_limited with Retry-After: 1', async () => {
    const key = await newKey('starter');
    await expectPerSecondLimitHeld(
      async () => {
        const reply = await request(front, '/v1/ip/1.1.1.1', { key });
        if (reply.status === 429) {
          expectError(reply, 'rate_limited');
          expect(reply.headers.get('retry-after')).toBe('1');
        }
        return reply;
      },
      4,
      5,
    );
    await until('both instances answered', () => answered(a, '/v1/ip/1.1.1.1') > 0 && answered(b, '/v1/ip/1.1.1.1') > 0);
  });
});

describe('answers through nginx are the instances’ own', () => {
  it('the quota headers, meta and CORS headers of a lookup', async () => {
    const key = await newKey('pro');
    const headers = { origin: 'https://app.example' };
    const direct = await request(a.url, '/v1/ip/8.8.8.8', { key, headers });
    const proxied = await request(front, '/v1/ip/8.8.8.8', { key, headers });
    expect(proxied.status).toBe(200);
    const remaining = Number(direct.headers.get('x-quota-remaining')) - 1;
    expect(endToEndHeaders(proxied)).toEqual({ ...endToEndHeaders(direct), 'x-quota-remaining': String(remaining) });
    for (const name of [
      'x-plan',
      'x-ratelimit-limit',
      'x-quota-limit',
      'x-quota-remaining',
      'x-quota-reset',
      'access-control-allow-origin',
    ])
      expect(proxied.headers.get(name)).not.toBeNull();
    expect(proxied.headers.get('access-control-expose-headers')).toContain('X-Quota-Remaining');
    expect(proxied.body).toEqual({
      ...direct.body,
      meta: { ...direct.body.meta, quota: { ...direct.body.meta.quota, used: 2, remaining } },
    });
  });

  it('error envelopes and their headers, byte for byte', async () => {
    const spent = await newKey('free');
    await Promise.all(Array.from({ length: 40 }, () => request(a.url, '/v1/mac/00:1A:2B:3C:4D:5E', { key: spent })));
    const cases: [string, { key?: string; method?: string }, string][] = [
      ['/v1/ip/8.8.8.8', {}, 'missing_key'],
      ['/v1/ip/8.8.8.8', { key: UNKNOWN_KEY }, 'invalid_key'],
      ['/v1/nothing-here', { key: spent }, 'not_found'],
      ['/v1/ip/not-an-ip', { key: spent }, 'invalid_ip'],
      ['/v1/mac/00:1A:2B:3C:4D:5E', { key: spent }, 'quota_exceeded'],
    ];
    for (const [p, options, code] of cases) {
      const direct = await request(a.url, p, options);
      const proxied = await request(front, p, options);
      expectError(proxied, code);
      expect({ p, text: proxied.text, headers: endToEndHeaders(proxied) }).toEqual({
        p,
        text: direct.text,
        headers: endToEndHeaders(direct),
      });
    }
  });

  it("refusals answered before their bodies are the service's, and take no instance out of nginx's rotation", async () => {
    const key = await newKey('pro');
    // Over the service's limit (1 MiB), under nginx's: the service refuses it at its head, with a key and without.
    const body = JSON.stringify({ ips: ['1.1.1.1'], pad: 'x'.repeat(1536 * 1024) });
    const send = (url: string, secret: string) =>
      request(url, '/v1/ip/batch', { key: secret, body, headers: { 'content-type': 'application/json' } });
    const [direct, proxied] = [await send(a.url, key), await send(front, key)];
    expectError(proxied, 'body_too_large');
    expect({ text: proxied.text, headers: endToEndHeaders(proxied) }).toEqual({ text: direct.text, headers: endToEndHeaders(direct) });
    for (let i = 0; i < 20; i++) expectError(await send(front, i % 2 ? key : UNKNOWN_KEY), i % 2 ? 'body_too_large' : 'invalid_key');
    expect((await request(front, '/v1/ip/8.8.8.8', { key })).status).toBe(200);
  });

  it("the dashboard signs in from nginx's origin, port included; the client's X-Forwarded-Proto is nginx's", async () => {
    const key = await newKey('pro');
    const reply = await request(front, '/dashboard/api/session', {
      method: 'POST',
      json: { key },
      headers: { origin: front, 'x-forwarded-proto': 'https' },
    });
    expect(reply.status).toBeLessThan(300);
    // nginx took the request over plain HTTP and says so: no Secure cookie for a spoofed https
    expect(reply.headers.get('set-cookie')).toMatch(/^nl_dashboard=[^;]+;/);
    expect(reply.headers.get('set-cookie')).not.toContain('Secure');
  });

  it('CORS preflights are answered as the instances answer them', async () => {
    const headers = {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-api-key, content-type',
    };
    const direct = await request(a.url, '/v1/ip/batch', { method: 'OPTIONS', headers });
    const proxied = await request(front, '/v1/ip/batch', { method: 'OPTIONS', headers });
    expect(proxied.status).toBe(204);
    expect(proxied.headers.get('access-control-allow-methods')).toContain('POST');
    expect(proxied.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
    expect({ status: proxied.status, text: proxied.text, headers: endToEndHeaders(proxied) }).toEqual({
      status: direct.status,
      text: direct.text,
      headers: endToEndHeaders(direct),
    });
  });
});

describe('retries', () => {
  /**
   * An instance that dies with each request: it reads the request's head, then closes the
   * connection without a byte of answer. It is the upstream's first server, so that a fresh nginx
   * sends it the first request.
   */
  async function dyingInstance(): Promise<{ host: string; requests: string[]; close: () => void }> {
    const requests: string[] = [];
    const server = net.createServer((socket) => {
      let head = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        head += chunk;
        if (!head.includes('\r\n\r\n')) return;
        requests.push(head.slice(0, head.indexOf('\r\n')));
        socket.destroy();
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    return { host: `127.0.0.1:${port}`, requests, close: () => server.close() };
  }

  /** `send`'s reply through a fresh nginx whose first instance dies, and the requests that one saw. */
  async function throughDyingFirst(name: string, send: (url: string) => Promise<Reply>): Promise<{ reply: Reply; died: string[] }> {
    const dying = await dyingInstance();
    try {
      const url = await startNginx(name, [dying.host, new URL(a.url).host]);
      return { reply: await send(url), died: dying.requests };
    } finally {
      dying.close();
    }
  }

  it('a POST that reached an instance is not sent to another: a blacklist report is made at most once', async () => {
    const key = await newKey('pro');
    const ip = '45.33.32.201';
    const { reply, died } = await throughDyingFirst('post-retry', (url) =>
      request(url, '/v1/blacklist/report', { method: 'POST', key, json: { ip, threat_type: 'scanner' } }),
    );
    expect(died).toEqual(['POST /v1/blacklist/report HTTP/1.1']);
    expectError(reply, 'unavailable', 400);
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(answered(a, '/v1/blacklist/report')).toBe(0);
    expect((await request(a.url, `/v1/blacklist/${ip}`, { key })).body).toMatchObject({ listed: false });
  });

  it('a GET whose instance died is answered by the next one', async () => {
    const key = await newKey('pro');
    const before = answered(a, '/v1/ip/8.8.4.200');
    const { reply, died } = await throughDyingFirst('get-retry', (url) => request(url, '/v1/ip/8.8.4.200', { key }));
    expect(died).toEqual(['GET /v1/ip/8.8.4.200 HTTP/1.1']);
    expect(reply.status).toBe(200);
    await until('the GET answered by the live instance', () => answered(a, '/v1/ip/8.8.4.200') === before + 1);
  });
});

describe('an instance stopped', () => {
  it('is routed around: no request fails while it stops, then the other answers every one', async () => {
    const key = await newKey('pro');
    const failures: Reply[] = [];
    let sent = 0;
    let running = true;
    const loops = Array.from({ length: 4 }, async () => {
      while (running) {
        const reply = await request(front, '/v1/ip/8.8.8.8', { key });
        sent++;
        if (reply.status !== 200) failures.push(reply);
      }
    });
    await until('requests flowing', () => sent >= 50, 10_000);
    b.process.kill('SIGTERM');
    expect(await b.exited).toEqual({ code: 0, signal: null });
    const atExit = sent;
    await until('100 requests after the stop', () => sent >= atExit + 100, 20_000);
    running = false;
    await Promise.all(loops);
    expect(failures.map((r) => r.text)).toEqual([]);
    const byB = answered(b, '/v1/ip/8.8.4.250');
    for (let i = 0; i < 6; i++) expect((await request(front, '/v1/ip/8.8.4.250', { key })).status).toBe(200);
    expect(answered(b, '/v1/ip/8.8.4.250')).toBe(byB);
    await until('six answered by the live instance', () => answered(a, '/v1/ip/8.8.4.250') === 6);
  });

  it('with no instance left, nginx answers 400 unavailable in the error envelope, with Retry-After: 1', async () => {
    a.process.kill('SIGKILL');
    await a.exited;
    const reply = await request(front, '/v1/ip/8.8.8.8', { key: UNKNOWN_KEY });
    expectError(reply, 'unavailable', 400);
    expect(reply.headers.get('retry-after')).toBe('1');
  });
});
