/**
 * SPEC 2.9, 7 (docs/api.md "Errors"): every row of the error table reached over HTTP in the envelope,
 * body errors (malformed JSON, oversized, unsupported content type) and `unavailable` when the
 * store or a table is not usable.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveEngine } from '../../src/engine/liveEngine.js';
import { loadEngine } from '../../src/engine/node.js';
import { startService } from '../../src/http/server.js';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { StoreUnavailableError, type Store } from '../../src/store/store.js';
import { expectEnvelope, expectError, Harness, projectRoot, tempDir, type CallOptions, type Reply } from './harness.js';

let h: Harness;
let pro: string;
let free: string;
let starter: string;

beforeAll(async () => {
  h = await Harness.start();
  pro = await h.newKey('pro');
  free = await h.newKey('free');
  starter = await h.newKey('starter');
});

afterAll(async () => {
  await h?.stop();
});

describe('every row of SPEC 7', () => {
  // [code, status, how to get it]
  const rows: [string, number, () => Promise<Reply>][] = [
    ['invalid_ip', 400, () => h.call('/v1/ip/1.2.3', { key: pro })],
    ['invalid_ip', 400, () => h.call('/v1/blacklist/1.2.3', { key: pro })],
    ['invalid_mac', 400, () => h.call('/v1/mac/12345', { key: pro })],
    ['invalid_mac', 400, () => h.call('/v1/mac/1234567890abc', { key: pro })],
    ['invalid_query', 400, () => h.call('/v1/mac/search?q=a', { key: pro })],
    ['invalid_query', 400, () => h.call('/v1/mac/search?vendor=%20x%20', { key: pro })],
    ['empty_batch', 400, () => h.call('/v1/ip/batch', { key: pro, json: { ips: [] } })],
    [
      'batch_too_large',
      400,
      () => h.call('/v1/ip/batch', { key: starter, json: ['1.0.0.1', '1.0.0.2', '1.0.0.3', '1.0.0.4', '1.0.0.5', '1.0.0.6'] }),
    ],
    ['missing_key', 401, () => h.call('/v1/ip/8.8.8.8')],
    ['invalid_key', 401, () => h.call('/v1/ip/8.8.8.8', { key: `nlk_${'f'.repeat(40)}` })],
    ['plan_required', 402, () => h.call('/v1/ip/batch', { key: free, json: ['8.8.8.8'] })],
    ['plan_required', 402, () => h.call('/v1/blacklist/batch', { key: free, json: ['8.8.8.8'] })],
    ['plan_required', 402, () => h.call('/v1/mac/search?q=cisco', { key: free })],
    ['not_found', 404, () => h.call('/v1/whatever')],
    ['method_not_allowed', 405, () => h.call('/v1/blacklist/batch', { key: pro, method: 'PUT' })],
  ];
  for (const [code, status, get] of rows) {
    it(`${status} ${code}`, async () => {
      const r = await get();
      expectError(r, code, status);
      if (code === 'method_not_allowed') expect(r.headers.get('allow')).toMatch(/POST/);
    });
  }

  it('403 origin_not_allowed', async () => {
    const { account } = await h.createAccount('pro');
    const key = await h.createKey(account.id, 'web', ['example.com']);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers: { origin: 'https://other.com' } }), 'origin_not_allowed', 403);
  });

  it('403 account_suspended', async () => {
    const { account, key } = await h.createAccount('pro');
    await h.patchAccount(account.id, { suspended: true });
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret }), 'account_suspended', 403);
  });

  it('429 rate_limited with Retry-After: 1', async () => {
    const key = await h.newKey('free');
    h.clock.advance(5000);
    await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
    await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
    const r = await h.call('/v1/ip/8.8.8.8', { key, tick: 0 });
    expectError(r, 'rate_limited', 429);
    expect(r.headers.get('retry-after')).toBe('1');
  });

  it('429 quota_exceeded with X-Quota-Reset', async () => {
    const key = await h.newKey('free');
    for (let i = 0; i < 3; i++) await h.call('/v1/mac/00:00:0c:00:00:01', { key });
    const r = await h.call('/v1/mac/00:00:0c:00:00:01', { key });
    expectError(r, 'quota_exceeded', 429);
    expect(Number(r.headers.get('x-quota-reset'))).toBeGreaterThan(h.clock.ms / 1000);
  });

  it('inside a batch a bad address yields the same error object on that result only', async () => {
    const single = await h.call('/v1/ip/1.2.3', { key: pro });
    const batch = await h.call('/v1/ip/batch', { key: pro, json: ['1.2.3', '8.8.8.8'] });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0]).toEqual({ success: false, input: '1.2.3', ip: '1.2.3', error: single.body.error });
  });
});

describe('request bodies', () => {
  const json = { 'content-type': 'application/json' };

  it('malformed JSON: 400 invalid_body in the envelope (not 500)', async () => {
    for (const body of ['{"ips": [', '{bad json}', '[1,2', 'nul']) {
      expectError(await h.call('/v1/ip/batch', { key: pro, body, headers: json }), 'invalid_body', 400);
    }
  });

  it('JSON that is not an object or array: 400 invalid_body (not 500)', async () => {
    for (const body of ['"8.8.8.8"', '42', 'true', 'null']) {
      expectError(await h.call('/v1/blacklist/batch', { key: pro, body, headers: json }), 'invalid_body', 400);
    }
  });

  it('JSON with __proto__: 400 invalid_body (not 500)', async () => {
    expectError(
      await h.call('/v1/ip/batch', { key: pro, body: '{"__proto__": {"x": 1}, "ips": ["8.8.8.8"]}', headers: json }),
      'invalid_body',
      400,
    );
  });

  it('oversized body (> 1 MB): 413 body_too_large, with and without Content-Length', async () => {
    const big = JSON.stringify({ ips: Array.from({ length: 80_000 }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`) });
    expect(big.length).toBeGreaterThan(1024 * 1024);
    expectError(await h.call('/v1/ip/batch', { key: pro, body: big, headers: json }), 'body_too_large', 413);
    // chunked: no Content-Length, the limit still applies while reading
    const chunked = await new Promise<Reply>((resolve, reject) => {
      const url = new URL(`${h.url}/v1/ip/batch`);
      const req = http.request(
        {
          agent: false,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'x-api-key': pro, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              headers: new Headers(res.headers as Record<string, string>),
              text,
              body: JSON.parse(text),
              contentType: res.headers['content-type'] ?? null,
            }),
          );
        },
      );
      req.on('error', reject);
      for (let i = 0; i < big.length; i += 64 * 1024) req.write(big.slice(i, i + 64 * 1024));
      req.end();
    });
    expectError(chunked, 'body_too_large', 413);
  });

  it('a body just under the limit is read', async () => {
    const ips = Array.from({ length: 100 }, (_, i) => `8.8.${i}.1`);
    const padded = JSON.stringify({ ips, pad: 'x'.repeat(1024 * 1024 - 3000) });
    expect(padded.length).toBeLessThan(1024 * 1024);
    const r = await h.call('/v1/ip/batch', { key: pro, body: padded, headers: json });
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(100);
  });

  it('unsupported content type (text/plain, XML, multipart): 415 unsupported_media_type', async () => {
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']) {
      expectError(
        await h.call('/v1/ip/batch', { key: pro, body: '8.8.8.8', headers: { 'content-type': type } }),
        'unsupported_media_type',
        415,
      );
    }
  });

  it('a gzip-compressed JSON body is read', async () => {
    const body = gzipSync(JSON.stringify({ ips: ['8.8.8.8', '1.1.1.1'] }));
    const r = await h.call('/v1/ip/batch', { key: pro, body, headers: { ...json, 'content-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(2);
  });

  it('a body that claims Content-Encoding gzip/deflate/br but is not: 400 invalid_body (not 500)', async () => {
    const got: Record<string, string> = {};
    for (const encoding of ['gzip', 'deflate', 'br']) {
      for (const body of ['[]', JSON.stringify({ ips: ['8.8.8.8'] })]) {
        const r = await h.call('/v1/ip/batch', { key: pro, body, headers: { ...json, 'content-encoding': encoding } });
        got[`${encoding} ${body}`] = `${r.status} ${r.body?.error?.code}`;
      }
    }
    expect(got).toEqual(Object.fromEntries(Object.keys(got).map((k) => [k, '400 invalid_body'])));
  });

  it('an unknown Content-Encoding: 415 unsupported_media_type', async () => {
    expectError(
      await h.call('/v1/ip/batch', { key: pro, body: '[]', headers: { ...json, 'content-encoding': 'x-nope' } }),
      'unsupported_media_type',
      415,
    );
  });

  it('a batch entry that is a deeply nested JSON value fails alone (or the body is refused), never 500', async () => {
    for (const depth of [100, 5_000, 100_000]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      for (const body of [`{"ips": ["8.8.8.8", ${nested}]}`, `["8.8.8.8", ${nested}]`]) {
        const r = await h.call('/v1/ip/batch', { key: pro, body, headers: json });
        expect({ depth, status: r.status, text: r.text.slice(0, 120) }).toEqual({
          depth,
          status: r.status < 500 ? r.status : 'not 5xx',
          text: expect.any(String),
        });
        if (r.status === 200) expect(r.body.results[1]).toMatchObject({ success: false, error: { code: 'invalid_ip' } });
        else expectEnvelope(r);
      }
    }
  });

  it('after a refused body, the kept-alive connection answers the next request', async () => {
    const cases: [string, Record<string, string>, Buffer, boolean][] = [
      [
        'chunked body over the limit',
        { 'content-type': 'application/json' },
        Buffer.from(JSON.stringify({ ips: ['1'.repeat(1_500_000)] })),
        true,
      ],
      [
        'Content-Length over the limit',
        { 'content-type': 'application/json' },
        Buffer.from(JSON.stringify({ ips: ['1'.repeat(1_500_000)] })),
        false,
      ],
      [
        'gzip that is not gzip',
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        Buffer.from(JSON.stringify({ ips: ['x'.repeat(300_000)] })),
        false,
      ],
      ['malformed JSON', { 'content-type': 'application/json' }, Buffer.from(`{bad json${' '.repeat(300_000)}`), false],
    ];
    const outcomes: Record<string, string> = {};
    for (const [label, headers, body, chunked] of cases) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await rawOn(
          agent,
          'POST',
          '/v1/ip/batch',
          { ...headers, 'x-api-key': pro, ...(chunked ? {} : { 'content-length': String(body.length) }) },
          body,
          chunked,
        );
        const second = await rawOn(agent, 'GET', '/health', {}, undefined, false);
        outcomes[label] = `${first} then ${second}`;
      } finally {
        agent.destroy();
      }
    }
    const expected = Object.fromEntries(
      Object.entries(outcomes).map(([label, got]) => [label, /^4\d\d then 200$/.test(got) ? got : '4xx then 200']),
    );
    expect(outcomes).toEqual(expected);
  });

  it('a body refusal of a known key counts as rejected and never against the quota', async () => {
    const key = await h.newKey('pro');
    expectError(await h.call('/v1/ip/batch', { key, json: { ips: 5 } }), 'invalid_body', 400);
    expectError(await h.call('/v1/ip/batch', { key, body: 'x', headers: { 'content-type': 'text/plain' } }), 'unsupported_media_type', 415);
    const usage = await h.usage(key);
    expect(usage.monthly_quota.used).toBe(0);
    expect(usage.today.rejected).toBe(2);
  });
});

/** One request on `agent`; answers "status" or "no answer" after 2 s. */
function rawOn(
  agent: http.Agent,
  method: string,
  p: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  chunked: boolean,
): Promise<string> {
  const url = new URL(h.url);
  return new Promise((resolve) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, method, path: p, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.on('error', (e) => resolve(`error ${e.message}`));
    req.setTimeout(2_000, () => {
      req.destroy();
      resolve('no answer within 2 s');
    });
    if (body && chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** A store that forwards to a real one until `broken` is set, then throws StoreUnavailableError. */
function breakableStore(inner: Store): Store & { broken: boolean } {
  const state = { broken: false };
  const unless =
    <A extends unknown[], R>(work: (...args: A) => R) =>
    (...args: A): R => {
      if (state.broken) throw new StoreUnavailableError('test: store down');
      return work(...args);
    };
  /** The part's methods reject while broken; its at-once answers throw where they would (synchronously). */
  const breakable = <T extends object>(part: T): T =>
    new Proxy(part, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop === 'immediate' && value) {
          return Object.fromEntries(
            Object.entries(value as Record<string, (...a: unknown[]) => unknown>).map(([name, work]) => [name, unless(work)]),
          );
        }
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (state.broken) return Promise.reject(new StoreUnavailableError('test: store down'));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const accounts = breakable(inner.accounts);
  const meter = breakable(inner.meter);
  return new Proxy(inner as Store & { broken: boolean }, {
    get(target, prop, receiver) {
      if (prop === 'broken') return state.broken;
      if (prop === 'accounts') return accounts;
      if (prop === 'meter') return meter;
      if (prop === 'healthy') return () => (state.broken ? Promise.resolve(false) : target.healthy());
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(_target, prop, value) {
      if (prop === 'broken') {
        state.broken = value;
        return true;
      }
      return false;
    },
  });
}

describe('unavailable: the store is not usable', () => {
  let s: Harness;
  let store: Store & { broken: boolean };
  let key: string;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir('netlookup-broken-');
    store = breakableStore(SqliteStore.open(path.join(dir, 'data')));
    s = await Harness.start({ store });
    key = await s.newKey('pro');
  });

  afterAll(async () => {
    store.broken = false;
    await s?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every keyed endpoint answers 400 unavailable in the envelope (never 500) while the store throws', async () => {
    store.broken = true;
    try {
      const requests: [string, CallOptions][] = [
        ['/v1/ip/8.8.8.8', { key }],
        ['/v1/blacklist/8.8.8.8', { key }],
        ['/v1/mac/00:00:0c:12:34:56', { key }],
        ['/v1/mac/search?q=cisco', { key }],
        ['/v1/usage', { key }],
        ['/v1/ip/batch', { key, json: ['8.8.8.8'] }],
        ['/v1/blacklist/batch', { key, json: ['8.8.8.8'] }],
        ['/v1', { key }],
      ];
      for (const [p, o] of requests) expectError(await s.call(p, o), 'unavailable', 400);
    } finally {
      store.broken = false;
    }
  });

  it('/health reports the store unreachable (503, store.healthy false)', async () => {
    store.broken = true;
    try {
      const r = await s.call('/health');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ success: false, store: { healthy: false } });
    } finally {
      store.broken = false;
    }
  });

  it('the admin API answers unavailable too', async () => {
    store.broken = true;
    try {
      expectError(await s.admin('POST', '/admin/accounts', { plan: 'pro' }), 'unavailable', 400);
    } finally {
      store.broken = false;
    }
  });

  it('back to normal when the store recovers', async () => {
    expect((await s.call('/v1/ip/8.8.8.8', { key })).status).toBe(200);
    expect((await s.call('/health')).status).toBe(200);
  });
});

describe('unavailable: the SQLite store closed under a running service', () => {
  it('answers 400 unavailable, never 500', async () => {
    const s = await Harness.start();
    try {
      const key = await s.newKey('pro');
      expect((await s.call('/v1/ip/8.8.8.8', { key })).status).toBe(200);
      await s.service.deps.store.close();
      expectError(await s.call('/v1/ip/8.8.8.8', { key }), 'unavailable', 400);
      expectError(await s.call('/v1/blacklist/8.8.8.8', { key }), 'unavailable', 400);
      expectError(await s.call('/v1/usage', { key }), 'unavailable', 400);
      const health = await s.call('/health');
      expect(health.status).toBe(503);
      expectEnvelopeOrHealth(health);
    } finally {
      await s.stop();
    }
  });
});

function expectEnvelopeOrHealth(r: Reply): void {
  expect(r.contentType).toMatch(/^application\/json/);
  expect(r.body.success).toBe(false);
}

describe('unavailable: a table is not loaded', () => {
  // startService cannot start without all three tables (loadEngine refuses a missing file), so the
  // running service's engine is swapped for one loaded with some tables only, as a failed or
  // partial load would leave it.
  let s: Harness;
  let key: string;

  beforeAll(async () => {
    s = await Harness.start();
    key = await s.newKey('pro');
  });

  afterAll(async () => {
    await s?.stop();
  });

  it('startService refuses to start when a table file is missing (names the file)', async () => {
    const dir = tempDir('netlookup-tables-');
    try {
      for (const f of ['ip4.nlt', 'ip6.nlt']) fs.symlinkSync(path.join(projectRoot, 'data', 'tables', f), path.join(dir, f));
      await expect(startService({ ...s.config, tablesDir: dir, dataDir: path.join(dir, 'data') })).rejects.toThrow(/mac\.nlt/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without the MAC table: GET /v1/mac/{mac} is 400 unavailable, not counted against the quota', async () => {
    const original = s.service.deps.engine;
    s.service.deps.engine = new LiveEngine(await loadEngine({ kinds: ['ip4'] }), () => loadEngine({ kinds: ['ip4'] }));
    try {
      const before = await s.usage(key);
      expectError(await s.call('/v1/mac/00:00:0c:12:34:56', { key }), 'unavailable', 400);
      const after = await s.usage(key);
      expect(after.monthly_quota.used).toBe(before.monthly_quota.used);
      expect(after.today.rejected).toBe(before.today.rejected + 1);
    } finally {
      s.service.deps.engine = original;
    }
  });

  it('without the MAC table: GET /v1/mac/search is 400 unavailable (not an empty result)', async () => {
    const original = s.service.deps.engine;
    s.service.deps.engine = new LiveEngine(await loadEngine({ kinds: ['ip4'] }), () => loadEngine({ kinds: ['ip4'] }));
    try {
      expectError(await s.call('/v1/mac/search?q=cisco', { key }), 'unavailable', 400);
    } finally {
      s.service.deps.engine = original;
    }
  });

  it('without the IP tables: GET /v1/ip/{ip} is 400 unavailable, not counted against the quota; reserved space still answers', async () => {
    const original = s.service.deps.engine;
    s.service.deps.engine = new LiveEngine(await loadEngine({ kinds: ['mac'] }), () => loadEngine({ kinds: ['mac'] }));
    try {
      const before = await s.usage(key);
      expectError(await s.call('/v1/ip/8.8.8.8', { key }), 'unavailable', 400);
      expectError(await s.call('/v1/ip/2a00:1450::1', { key }), 'unavailable', 400);
      const after = await s.usage(key);
      expect(after.monthly_quota.used).toBe(before.monthly_quota.used);
      expect(after.today.rejected).toBe(before.today.rejected + 2);
      expect((await s.call('/v1/ip/10.0.0.1', { key })).status).toBe(200);
    } finally {
      s.service.deps.engine = original;
    }
  });

  it('without the IP tables: a batch answers 400 unavailable in the envelope, never 500', async () => {
    const original = s.service.deps.engine;
    s.service.deps.engine = new LiveEngine(await loadEngine({ kinds: ['mac'] }), () => loadEngine({ kinds: ['mac'] }));
    try {
      const r = await s.call('/v1/ip/batch', { key, json: ['8.8.8.8', '1.1.1.1'] });
      expect(r.status).not.toBe(500);
      expectEnvelope(r);
    } finally {
      s.service.deps.engine = original;
    }
  });
});
