/**
 * docs/api.md "Administration": every admin route, its 201/200 shapes, the
 * token, validation, the plan's key limit, and the first-start account.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ADMIN_TOKEN, expectError, Harness, KEY_PATTERN, request, TEST_PLANS } from './harness.js';
import { expectRawError, rawExchange } from './rawClient.js';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});

afterAll(async () => {
  await h?.stop();
});

function expectAccount(account: Record<string, unknown>, plan: string): void {
  expect(account).toMatchObject({ id: expect.any(String), plan, suspended: false });
  expect(account).toHaveProperty('expires_at');
  expect(account.expires_at === null || typeof account.expires_at === 'string').toBe(true);
}

function expectKey(key: Record<string, unknown>, withSecret: boolean): void {
  expect(key).toMatchObject({ id: expect.any(String), name: expect.any(String), websites: expect.any(Array) });
  if (withSecret) expect(key.secret).toMatch(KEY_PATTERN);
  else expect(key).not.toHaveProperty('secret');
  expect(key).not.toHaveProperty('hash');
}

describe('POST /admin/accounts', () => {
  it('201 {account: {id, plan, expires_at, suspended, ...}, key: {id, name, websites, secret}}', async () => {
    const r = await h.admin('POST', '/admin/accounts', { plan: 'starter', expires_at: '2027-01-01T00:00:00Z', email: 'ops@example.com' });
    expect(r.status).toBe(201);
    expect(r.contentType).toMatch(/^application\/json/);
    expect(Object.keys(r.body).sort()).toEqual(['account', 'key']);
    expectAccount(r.body.account, 'starter');
    expect(Date.parse(r.body.account.expires_at)).toBe(Date.parse('2027-01-01T00:00:00Z'));
    expect(r.body.account.email).toBe('ops@example.com');
    expectKey(r.body.key, true);
    expect(r.body.key.websites).toEqual([]);
    // the first key works at once with the account's plan
    const use = await h.call('/v1/ip/8.8.8.8', { key: r.body.key.secret });
    expect(use.status).toBe(200);
    expect(use.body.meta.plan).toBe('starter');
  });

  it('each plan code; expires_at defaults to null', async () => {
    for (const plan of ['free', 'starter', 'pro', 'business'] as const) {
      const r = await h.admin('POST', '/admin/accounts', { plan });
      expect(r.status).toBe(201);
      expectAccount(r.body.account, plan);
      expect(r.body.account.expires_at).toBeNull();
    }
  });

  it('validation: unknown plan, bad expires_at, expiry on free, body not an object: 400 invalid_input', async () => {
    expectError(await h.admin('POST', '/admin/accounts', { plan: 'gold' }), 'invalid_input', 400);
    expectError(await h.admin('POST', '/admin/accounts', { plan: 42 }), 'invalid_input', 400);
    expectError(await h.admin('POST', '/admin/accounts', { plan: 'pro', expires_at: 'next tuesday' }), 'invalid_input', 400);
    expectError(await h.admin('POST', '/admin/accounts', { plan: 'pro', expires_at: 12 }), 'invalid_input', 400);
    expectError(await h.admin('POST', '/admin/accounts', { plan: 'free', expires_at: '2027-01-01T00:00:00Z' }), 'invalid_input', 400);
    expectError(await h.admin('POST', '/admin/accounts', ['pro']), 'invalid_input', 400);
  });

  it('malformed JSON: 400 invalid_body (not 500)', async () => {
    const r = await request(h.url, '/admin/accounts', {
      method: 'POST',
      body: '{"plan": ',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    });
    expectError(r, 'invalid_body', 400);
  });

  it('a body that is not JSON is refused (415), not silently read as {} (which would create a free account)', async () => {
    const r = await request(h.url, '/admin/accounts', {
      method: 'POST',
      body: '{"plan":"business"}',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
    });
    expectError(r, 'unsupported_media_type', 415);
  });

  it('a JSON Content-Type with parameters is parsed, never skipped (which would create a free account)', async () => {
    for (const type of ['application/json;x=text/plain', 'application/json; charset=utf-8; x=a/b']) {
      const r = await request(h.url, '/admin/accounts', {
        method: 'POST',
        body: '{"plan":"business"}',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type },
      });
      expect(r.status, type).toBe(201);
      expect(r.body.account.plan, type).toBe('business');
    }
  });

  it('a body that does not decode as its Content-Encoding says: 400 invalid_body (not 500); an unknown one: 415', async () => {
    const json = JSON.stringify({ plan: 'pro' });
    const got: Record<string, string> = {};
    for (const [encoding, body] of [
      ['br', Buffer.from('garbage body here')],
      ['br', brotliCompressSync(json).subarray(0, 4)],
      ['gzip', Buffer.from(json)],
      ['gzip', gzipSync(json).subarray(0, 12)],
      ['deflate', Buffer.from(json)],
      ['x-nope', Buffer.from(json)],
    ] as const) {
      const r = await request(h.url, '/admin/accounts', {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-encoding': encoding },
      });
      got[`${encoding} ${body.length}`] = `${r.status} ${r.body?.error?.code}`;
    }
    expect(Object.values(got)).toEqual([...Array(5).fill('400 invalid_body'), '415 unsupported_media_type']);
  });
});

describe('GET /admin/accounts/:id', () => {
  it('the account and its keys, without secrets', async () => {
    const { account, key } = await h.createAccount('pro');
    const second = await h.createKey(account.id, 'second', ['example.com']);
    const r = await h.admin('GET', `/admin/accounts/${account.id}`);
    expect(r.status).toBe(200);
    expect(r.body.account).toEqual(account);
    expect(r.body.keys.map((k: { id: string }) => k.id)).toEqual([key.id, second.id]);
    for (const k of r.body.keys) expectKey(k, false);
    expect(r.body.keys[1]).toMatchObject({ name: 'second', websites: ['example.com'] });
  });

  it('unknown account: 404 not_found', async () => {
    expectError(await h.admin('GET', '/admin/accounts/acc_0000000000000000'), 'not_found', 404);
  });
});

describe('PATCH /admin/accounts/:id', () => {
  it('changes plan, expires_at and suspended, and the change applies to the next request', async () => {
    const { account, key } = await h.createAccount('free');
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret })).body.meta.plan).toBe('free');

    const upgraded = await h.admin('PATCH', `/admin/accounts/${account.id}`, { plan: 'business', expires_at: '2027-03-01T00:00:00Z' });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.account).toMatchObject({ id: account.id, plan: 'business', suspended: false });
    expect(Date.parse(upgraded.body.account.expires_at)).toBe(Date.parse('2027-03-01T00:00:00Z'));
    const use = await h.call('/v1/ip/8.8.8.8', { key: key.secret });
    expect(use.body.meta).toMatchObject({ plan: 'business', fields: 'full' });

    const suspended = await h.admin('PATCH', `/admin/accounts/${account.id}`, { suspended: true });
    expect(suspended.body.account.suspended).toBe(true);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret }), 'account_suspended', 403);
    await h.patchAccount(account.id, { suspended: false });

    const noExpiry = await h.admin('PATCH', `/admin/accounts/${account.id}`, { expires_at: null });
    expect(noExpiry.body.account.expires_at).toBeNull();
    const shown = await h.admin('GET', `/admin/accounts/${account.id}`);
    expect(shown.body.account).toMatchObject({ plan: 'business', expires_at: null, suspended: false });
  });

  it('validation: 400 invalid_input', async () => {
    const { account } = await h.createAccount('pro');
    expectError(await h.admin('PATCH', `/admin/accounts/${account.id}`, { plan: 'platinum' }), 'invalid_input', 400);
    expectError(await h.admin('PATCH', `/admin/accounts/${account.id}`, { suspended: 'yes' }), 'invalid_input', 400);
    expectError(await h.admin('PATCH', `/admin/accounts/${account.id}`, { expires_at: 'soon' }), 'invalid_input', 400);
    expectError(
      await h.admin('PATCH', `/admin/accounts/${account.id}`, { plan: 'free', expires_at: '2030-01-01T00:00:00Z' }),
      'invalid_input',
      400,
    );
    // nothing changed
    expect((await h.admin('GET', `/admin/accounts/${account.id}`)).body.account).toEqual(account);
  });

  it('a JSON body that is not an object (a string): 400 in the envelope (not 500)', async () => {
    const { account } = await h.createAccount('pro');
    const r = await h.admin('PATCH', `/admin/accounts/${account.id}`, 'pro');
    expect(r.status).toBe(400);
    expect(['invalid_input', 'invalid_body']).toContain(r.body?.error?.code);
  });

  it('unknown account: 404 not_found', async () => {
    expectError(await h.admin('PATCH', '/admin/accounts/acc_0000000000000000', { suspended: true }), 'not_found', 404);
  });
});

describe('POST /admin/accounts/:id/keys', () => {
  it('201 {key: {id, name, websites, secret}}; the new key works', async () => {
    const { account } = await h.createAccount('pro');
    const r = await h.admin('POST', `/admin/accounts/${account.id}/keys`, { name: 'website', websites: ['Example.com', '*.example.org'] });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual(['key']);
    expectKey(r.body.key, true);
    expect(r.body.key).toMatchObject({ name: 'website', websites: ['example.com', '*.example.org'] });
    expect((await h.call('/v1/ip/8.8.8.8', { key: r.body.key.secret, headers: { origin: 'https://a.example.org' } })).status).toBe(200);
  });

  it("the plan's key limit: 409 key_limit beyond it (free 1, starter 2 in the test plans)", async () => {
    const free = await h.createAccount('free');
    expectError(await h.admin('POST', `/admin/accounts/${free.account.id}/keys`, { name: 'more' }), 'key_limit', 409);
    const starter = await h.createAccount('starter');
    expect(TEST_PLANS.starter.max_keys).toBe(2);
    expect((await h.admin('POST', `/admin/accounts/${starter.account.id}/keys`, { name: 'two' })).status).toBe(201);
    expectError(await h.admin('POST', `/admin/accounts/${starter.account.id}/keys`, { name: 'three' }), 'key_limit', 409);
    // deleting a key frees a place
    expect((await h.admin('DELETE', `/admin/keys/${starter.key.id}`)).status).toBe(200);
    expect((await h.admin('POST', `/admin/accounts/${starter.account.id}/keys`, { name: 'three' })).status).toBe(201);
  });

  it('validation: websites that are not hosts, empty names: 400 invalid_input', async () => {
    const { account } = await h.createAccount('business');
    for (const websites of [
      ['https://example.com'],
      ['example.com/path'],
      ['example.com:8080'],
      ['*'],
      ['exa mple.com'],
      'example.com',
      [42],
    ]) {
      expectError(await h.admin('POST', `/admin/accounts/${account.id}/keys`, { name: 'k', websites }), 'invalid_input', 400);
    }
    expectError(await h.admin('POST', `/admin/accounts/${account.id}/keys`, { name: '' }), 'invalid_input', 400);
    expectError(await h.admin('POST', `/admin/accounts/${account.id}/keys`, { name: 42 }), 'invalid_input', 400);
    expectError(await h.admin('POST', `/admin/accounts/${account.id}/keys`, { name: 'x'.repeat(101) }), 'invalid_input', 400);
    expect((await h.admin('GET', `/admin/accounts/${account.id}`)).body.keys).toHaveLength(1);
  });

  it('unknown account: 404 not_found', async () => {
    expectError(await h.admin('POST', '/admin/accounts/acc_0000000000000000/keys', { name: 'x' }), 'not_found', 404);
  });
});

describe('PATCH /admin/keys/:id', () => {
  it('changes name and websites; the secret stays the same', async () => {
    const { key } = await h.createAccount('pro');
    const r = await h.patchKey(key.id, { name: 'renamed', websites: ['example.net'] });
    expect(r.status).toBe(200);
    expectKey(r.body.key, false);
    expect(r.body.key).toMatchObject({ id: key.id, name: 'renamed', websites: ['example.net'] });
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers: { origin: 'https://example.net' } })).status).toBe(200);
  });

  it('validation and unknown key', async () => {
    const { key } = await h.createAccount('pro');
    expectError(await h.patchKey(key.id, { name: '  ' }), 'invalid_input', 400);
    expectError(await h.patchKey(key.id, { websites: ['http://x.com'] }), 'invalid_input', 400);
    expectError(await h.patchKey(key.id, { websites: 'x.com' }), 'invalid_input', 400);
    expectError(await h.patchKey('key_0000000000000000', { name: 'x' }), 'not_found', 404);
  });
});

describe('POST /admin/keys/:id/roll', () => {
  it('{key} with the new secret; name and websites kept', async () => {
    const { account } = await h.createAccount('pro');
    const key = await h.createKey(account.id, 'rolling', ['example.com']);
    const r = await h.admin('POST', `/admin/keys/${key.id}/roll`);
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(300);
    expect(Object.keys(r.body)).toEqual(['key']);
    expectKey(r.body.key, true);
    expect(r.body.key).toMatchObject({ id: key.id, name: 'rolling', websites: ['example.com'] });
    expect(r.body.key.secret).not.toBe(key.secret);
  });

  it('unknown key: 404 not_found', async () => {
    expectError(await h.admin('POST', '/admin/keys/key_0000000000000000/roll'), 'not_found', 404);
  });
});

describe('DELETE /admin/keys/:id', () => {
  it('deletes the key (its secret is refused at once); a second delete is 404', async () => {
    const { key } = await h.createAccount('pro');
    const r = await h.admin('DELETE', `/admin/keys/${key.id}`);
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret }), 'invalid_key', 401);
    expectError(await h.admin('DELETE', `/admin/keys/${key.id}`), 'not_found', 404);
  });
});

describe('the admin token', () => {
  // Failed authentications are throttled per address (10, then one a second): each test starts refilled.
  beforeEach(() => h.clock.advance(60_000));
  const routes: [string, string, unknown][] = [
    ['POST', '/admin/accounts', { plan: 'pro' }],
    ['GET', '/admin/accounts/acc_x', undefined],
    ['PATCH', '/admin/accounts/acc_x', { suspended: true }],
    ['POST', '/admin/accounts/acc_x/keys', { name: 'x' }],
    ['PATCH', '/admin/keys/key_x', { name: 'x' }],
    ['POST', '/admin/keys/key_x/roll', undefined],
    ['DELETE', '/admin/keys/key_x', undefined],
  ];
  for (const [method, path, body] of routes) {
    it(`${method} ${path}: wrong or missing token is 401 admin_unauthorized`, async () => {
      expectError(await h.admin(method, path, body, 'wrong-token'), 'admin_unauthorized', 401);
      expectError(await request(h.url, path, { method, ...(body === undefined ? {} : { json: body }) }), 'admin_unauthorized', 401);
      expectError(
        await request(h.url, path, { method, headers: { 'x-api-key': ADMIN_TOKEN }, ...(body === undefined ? {} : { json: body }) }),
        'admin_unauthorized',
        401,
      );
    });
  }

  it('an API key is not an admin token', async () => {
    const key = await h.newKey('business');
    expectError(await h.admin('POST', '/admin/accounts', { plan: 'pro' }, key), 'admin_unauthorized', 401);
  });

  it('a call without the right token is answered 401 at once, its body unread, and its connection closed', async () => {
    const host = new URL(h.url).host;
    const head = (auth: string) =>
      `POST /admin/accounts HTTP/1.1\r\nHost: ${host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{`;
    for (const auth of ['', 'Authorization: Bearer wrong-token\r\n']) {
      const answer = await rawExchange(h.url, head(auth));
      expect(answer.ms).toBeLessThan(2000);
      expectRawError(answer.text, 401, 'admin_unauthorized');
    }
  });

  it('counts the failures of an IPv6 client by its /64, of an IPv4 client by its address', async () => {
    const proxied = await Harness.start({ trustProxy: '127.0.0.1/32' });
    try {
      const attempt = (client: string, token = 'wrong-token') =>
        request(proxied.url, '/admin/accounts/acc_x', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client } });
      for (let i = 0; i < 10; i++) expectError(await attempt(`2001:db8:5:6:${i.toString(16)}::1`), 'admin_unauthorized');
      expectError(await attempt('2001:db8:5:6:ffff:ffff:ffff:fffe', ADMIN_TOKEN), 'admin_throttled');
      expectError(await attempt('2001:db8:5:7::1', ADMIN_TOKEN), 'not_found');
      for (let i = 0; i < 10; i++) expectError(await attempt('192.0.2.1'), 'admin_unauthorized');
      expectError(await attempt('192.0.2.1', ADMIN_TOKEN), 'admin_throttled');
      expectError(await attempt('::ffff:192.0.2.1', ADMIN_TOKEN), 'admin_throttled');
      expectError(await attempt('192.0.2.2', ADMIN_TOKEN), 'not_found');
    } finally {
      await proxied.stop();
    }
  });

  it('a refused admin call changes nothing', async () => {
    const { account } = await h.createAccount('pro');
    await h.admin('PATCH', `/admin/accounts/${account.id}`, { suspended: true }, 'wrong');
    expect((await h.admin('GET', `/admin/accounts/${account.id}`)).body.account.suspended).toBe(false);
  });
});

describe('first start', () => {
  it('creates one free account and hands out its key; a second start on the same data dir does not', async () => {
    const first = await Harness.start();
    let second: Harness | undefined;
    try {
      expect(first.service.firstKey).not.toBeNull();
      const { account, secret } = first.service.firstKey!;
      expect(secret).toMatch(KEY_PATTERN);
      const usage = await first.usage(secret);
      expect(usage.plan.code).toBe('free');
      const shown = await first.admin('GET', `/admin/accounts/${account}`);
      expect(shown.body.account).toMatchObject({ id: account, plan: 'free', expires_at: null, suspended: false });
      expect(shown.body.keys).toHaveLength(1);
      const count = await first.service.deps.store.accounts.countAccounts();
      expect(count).toBe(1);
      await first.service.stop();

      second = await Harness.start({ dataDir: first.dataDir, adminToken: null });
      expect(second.service.firstKey).toBeNull();
      expect(await second.service.deps.store.accounts.countAccounts()).toBe(1);
      // the first key still works after the restart
      expect((await second.call('/v1/ip/8.8.8.8', { key: secret })).status).toBe(200);
      // without NETLOOKUP_ADMIN_TOKEN the admin API is not mounted
      expectError(await second.admin('POST', '/admin/accounts', { plan: 'pro' }), 'not_found', 404);
      expectError(await second.admin('GET', `/admin/accounts/${account}`), 'not_found', 404);
    } finally {
      await second?.stop();
      await first.stop();
    }
  });
});
