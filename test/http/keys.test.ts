/**
 * SPEC 5 (docs/api.md "Keys"): the three ways to send a key and their order, missing and invalid
 * keys, website restriction (Origin / Referer, exact and wildcard hosts), suspension, roll, and
 * that a secret is shown only at creation and roll, stored hashed and redacted from log URLs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redactedUrl } from '../../src/http/operations/logger.js';
import { expectError, Harness, KEY_PATTERN, type Reply } from './harness.js';

let h: Harness;
let valid: string;
/** well-formed but unknown */
const unknown = `nlk_${'0'.repeat(40)}`;

beforeAll(async () => {
  h = await Harness.start();
  valid = await h.newKey('pro');
});

afterAll(async () => {
  await h?.stop();
});

async function send(headers: Record<string, string>, query = ''): Promise<Reply> {
  return h.call(`/v1/ip/8.8.8.8${query}`, { headers });
}

describe('the three ways', () => {
  it('X-API-Key header', async () => {
    expect((await h.call('/v1/ip/8.8.8.8', { key: valid, via: 'header' })).status).toBe(200);
  });
  it('Authorization: Bearer', async () => {
    expect((await h.call('/v1/ip/8.8.8.8', { key: valid, via: 'bearer' })).status).toBe(200);
    expect((await send({ authorization: `bearer ${valid}` })).status).toBe(200);
  });
  it('?key= query parameter', async () => {
    expect((await h.call('/v1/ip/8.8.8.8', { key: valid, via: 'query' })).status).toBe(200);
  });
});

describe('their order: X-API-Key, then Bearer, then ?key=', () => {
  it('X-API-Key valid, Bearer invalid: accepted (the header wins)', async () => {
    expect((await send({ 'x-api-key': valid, authorization: `Bearer ${unknown}` })).status).toBe(200);
  });
  it('X-API-Key invalid, Bearer valid: 401 invalid_key (the header wins)', async () => {
    expectError(await send({ 'x-api-key': unknown, authorization: `Bearer ${valid}` }), 'invalid_key', 401);
  });
  it('Bearer valid, ?key invalid: accepted', async () => {
    expect((await send({ authorization: `Bearer ${valid}` }, `?key=${unknown}`)).status).toBe(200);
  });
  it('Bearer invalid, ?key valid: 401 invalid_key', async () => {
    expectError(await send({ authorization: `Bearer ${unknown}` }, `?key=${valid}`), 'invalid_key', 401);
  });
  it('X-API-Key valid, ?key invalid: accepted', async () => {
    expect((await send({ 'x-api-key': valid }, `?key=${unknown}`)).status).toBe(200);
  });
  it('X-API-Key invalid, ?key valid: 401 invalid_key', async () => {
    expectError(await send({ 'x-api-key': 'garbage' }, `?key=${valid}`), 'invalid_key', 401);
  });
  it('all three, only the X-API-Key one valid: accepted; only the ?key one valid: refused', async () => {
    expect((await send({ 'x-api-key': valid, authorization: `Bearer ${unknown}` }, `?key=${unknown}`)).status).toBe(200);
    expectError(await send({ 'x-api-key': unknown, authorization: `Bearer ${unknown}` }, `?key=${valid}`), 'invalid_key', 401);
  });
  it('an Authorization header that is not Bearer does not hide ?key=', async () => {
    expect((await send({ authorization: 'Basic dXNlcjpwYXNz' }, `?key=${valid}`)).status).toBe(200);
  });
});

describe('missing and invalid keys', () => {
  it('no key at all: 401 missing_key', async () => {
    expectError(await send({}), 'missing_key', 401);
  });
  it('empty forms count as no key: 401 missing_key', async () => {
    expectError(await send({}, '?key='), 'missing_key', 401);
    expectError(await send({ authorization: 'Basic abc' }), 'missing_key', 401);
    expectError(await send({ authorization: 'Bearer' }), 'missing_key', 401);
  });
  it('missing_key on every v1 endpoint', async () => {
    for (const p of [
      '/v1/ip',
      '/v1/blacklist/8.8.8.8',
      '/v1/mac/00:00:0c:12:34:56',
      '/v1/mac/search?q=cisco',
      '/v1/usage',
      '/v1',
      '/v1/ip/batch?ips=8.8.8.8',
    ]) {
      expectError(await h.call(p), 'missing_key', 401);
    }
    // A GET batch without addresses is the wrong method, whoever asks (SPEC 4.3), like any 405.
    expectError(await h.call('/v1/ip/batch'), 'method_not_allowed', 405);
    expectError(await h.call('/v1/ip/batch', { json: ['8.8.8.8'] }), 'missing_key', 401);
    expectError(await h.call('/v1/blacklist/batch', { json: ['8.8.8.8'] }), 'missing_key', 401);
  });
  it('malformed keys: 401 invalid_key', async () => {
    for (const bad of [
      'abc',
      'nlk_',
      `nlk_${'a'.repeat(39)}`,
      `nlk_${'a'.repeat(41)}`,
      `NLK_${'a'.repeat(40)}`,
      `nlk_${'A'.repeat(40)}`,
      `xyz_${'a'.repeat(40)}`,
      `nlk_${'g'.repeat(40)}`,
    ]) {
      expectError(await send({ 'x-api-key': bad }), 'invalid_key', 401);
    }
  });
  it('a well-formed unknown key: 401 invalid_key', async () => {
    expectError(await send({ 'x-api-key': unknown }), 'invalid_key', 401);
  });
  it("a deleted key: 401 invalid_key at once; the account's other key keeps working", async () => {
    const { account, key } = await h.createAccount('pro');
    const second = await h.createKey(account.id, 'second');
    expect((await send({ 'x-api-key': key.secret })).status).toBe(200);
    expect((await h.admin('DELETE', `/admin/keys/${key.id}`)).status).toBe(200);
    expectError(await send({ 'x-api-key': key.secret }), 'invalid_key', 401);
    expectError(await h.call('/v1/usage', { key: key.secret }), 'invalid_key', 401);
    expect((await send({ 'x-api-key': second.secret })).status).toBe(200);
  });
  it('the secret format of created keys is nlk_ + 40 lowercase hex', async () => {
    expect(valid).toMatch(KEY_PATTERN);
  });
});

describe('website restriction', () => {
  let restricted: string;
  let accountId: string;

  beforeAll(async () => {
    const { account } = await h.createAccount('pro');
    accountId = account.id;
    restricted = (await h.createKey(account.id, 'web', ['example.com', '*.example.org'])).secret;
  });

  const allowed: Record<string, string>[] = [
    { origin: 'https://example.com' },
    { origin: 'http://example.com:8080' },
    { origin: 'https://EXAMPLE.com' },
    { origin: 'https://www.example.org' },
    { origin: 'https://a.b.example.org' },
    { referer: 'https://example.com/some/page?x=1' },
    { referer: 'https://shop.example.org/' },
  ];
  for (const headers of allowed) {
    it(`accepted from ${JSON.stringify(headers)}`, async () => {
      expect((await h.call('/v1/ip/8.8.8.8', { key: restricted, headers })).status).toBe(200);
    });
  }

  const refused: Record<string, string>[] = [
    { origin: 'https://evil.com' },
    { origin: 'https://example.org' }, // *.example.org does not match the bare domain
    { origin: 'https://www.example.com' }, // exact host only
    { origin: 'https://notexample.com' },
    { origin: 'https://example.com.evil.com' },
    { origin: 'https://evilexample.org' },
    { referer: 'https://evil.com/?ref=example.com' },
    { referer: 'not a url' },
  ];
  for (const headers of refused) {
    it(`403 origin_not_allowed from ${JSON.stringify(headers)}`, async () => {
      expectError(await h.call('/v1/ip/8.8.8.8', { key: restricted, headers }), 'origin_not_allowed', 403);
    });
  }

  it('a restricted key without Origin or Referer: 403 origin_not_allowed', async () => {
    expectError(await h.call('/v1/ip/8.8.8.8', { key: restricted }), 'origin_not_allowed', 403);
    expectError(await h.call('/v1/usage', { key: restricted }), 'origin_not_allowed', 403);
  });

  it('the restriction applies whatever way the key is sent', async () => {
    expectError(
      await h.call('/v1/ip/8.8.8.8', { key: restricted, via: 'query', headers: { origin: 'https://evil.com' } }),
      'origin_not_allowed',
      403,
    );
    expect((await h.call('/v1/ip/8.8.8.8', { key: restricted, via: 'bearer', headers: { origin: 'https://example.com' } })).status).toBe(
      200,
    );
  });

  it('a key without a list works from anywhere', async () => {
    expect((await h.call('/v1/ip/8.8.8.8', { key: valid, headers: { origin: 'https://anything.test' } })).status).toBe(200);
  });

  it('refusals count as rejected, never against the quota', async () => {
    const before = (await h.call('/v1/usage', { key: restricted, headers: { origin: 'https://example.com' } })).body;
    expectError(await h.call('/v1/ip/8.8.8.8', { key: restricted, headers: { origin: 'https://evil.com' } }), 'origin_not_allowed', 403);
    const after = (await h.call('/v1/usage', { key: restricted, headers: { origin: 'https://example.com' } })).body;
    expect(after.today.rejected).toBe(before.today.rejected + 1);
    expect(after.today.ip).toBe(before.today.ip);
    expect(after.monthly_quota.used).toBe(before.monthly_quota.used);
    void accountId;
  });

  it('changing the list (PATCH /admin/keys/:id) applies at once', async () => {
    const { account } = await h.createAccount('pro');
    const key = await h.createKey(account.id, 'web', ['example.com']);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers: { origin: 'https://other.net' } }), 'origin_not_allowed', 403);
    expect((await h.patchKey(key.id, { websites: ['other.net'] })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers: { origin: 'https://other.net' } })).status).toBe(200);
    expect((await h.patchKey(key.id, { websites: [] })).status).toBe(200);
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret })).status).toBe(200);
  });
});

describe('suspended accounts', () => {
  it('403 account_suspended on every endpoint while suspended, back when lifted', async () => {
    const { account, key } = await h.createAccount('pro');
    await h.patchAccount(account.id, { suspended: true });
    for (const p of [
      '/v1/ip/8.8.8.8',
      '/v1/ip',
      '/v1/blacklist/8.8.8.8',
      '/v1/mac/00:00:0c:12:34:56',
      '/v1/mac/search?q=cisco',
      '/v1/usage',
      '/v1',
    ]) {
      expectError(await h.call(p, { key: key.secret }), 'account_suspended', 403);
    }
    expectError(await h.call('/v1/ip/batch', { key: key.secret, json: ['8.8.8.8'] }), 'account_suspended', 403);
    await h.patchAccount(account.id, { suspended: false });
    const usage = await h.usage(key.secret);
    expect(usage.today.ip).toBe(0);
    expect(usage.monthly_quota.used).toBe(0);
    expect(usage.today.rejected).toBeGreaterThanOrEqual(7);
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret })).status).toBe(200);
  });

  it('the website check comes before the suspension check; a bad key before both', async () => {
    const { account } = await h.createAccount('pro');
    const key = await h.createKey(account.id, 'web', ['example.com']);
    await h.patchAccount(account.id, { suspended: true });
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers: { origin: 'https://evil.com' } }), 'origin_not_allowed', 403);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers: { origin: 'https://example.com' } }), 'account_suspended', 403);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: unknown, headers: { origin: 'https://evil.com' } }), 'invalid_key', 401);
  });
});

describe('roll', () => {
  it('replaces the secret at once: old refused, new accepted; name and websites kept', async () => {
    const { account } = await h.createAccount('pro');
    const key = await h.createKey(account.id, 'website key', ['example.com', '*.example.net']);
    const headers = { origin: 'https://example.com' };
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers })).status).toBe(200);

    const rolled = await h.admin('POST', `/admin/keys/${key.id}/roll`);
    expect(rolled.status).toBe(200);
    const next = rolled.body.key;
    expect(next.secret).toMatch(KEY_PATTERN);
    expect(next.secret).not.toBe(key.secret);
    expect(next).toMatchObject({ id: key.id, name: 'website key', websites: ['example.com', '*.example.net'] });

    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret, headers }), 'invalid_key', 401);
    expect((await h.call('/v1/ip/8.8.8.8', { key: next.secret, headers })).status).toBe(200);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: next.secret, headers: { origin: 'https://evil.com' } }), 'origin_not_allowed', 403);

    const shown = await h.admin('GET', `/admin/accounts/${account.id}`);
    const listed = shown.body.keys.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ name: 'website key', websites: ['example.com', '*.example.net'] });
  });

  it('rolling twice: only the newest secret works; the key keeps its usage account', async () => {
    const { key } = await h.createAccount('pro');
    expect((await h.call('/v1/ip/8.8.8.8', { key: key.secret })).status).toBe(200);
    const s2 = (await h.admin('POST', `/admin/keys/${key.id}/roll`)).body.key.secret;
    const s3 = (await h.admin('POST', `/admin/keys/${key.id}/roll`)).body.key.secret;
    expectError(await h.call('/v1/usage', { key: key.secret }), 'invalid_key', 401);
    expectError(await h.call('/v1/usage', { key: s2 }), 'invalid_key', 401);
    const usage = await h.usage(s3);
    expect(usage.today.ip).toBe(1);
  });
});

describe('secrets are shown only when created', () => {
  it('no response other than admin create/roll contains a secret, in headers or body', async () => {
    const { account, key } = await h.createAccount('pro');
    const second = await h.createKey(account.id, 'b', ['example.com']);
    const secrets = [key.secret, second.secret];
    const replies: Reply[] = [];
    for (const via of ['header', 'bearer', 'query'] as const) {
      replies.push(await h.call('/v1/ip/8.8.8.8?pretty', { key: key.secret, via }));
      replies.push(await h.call('/v1/ip/nope', { key: key.secret, via }));
      replies.push(await h.call('/v1/usage', { key: key.secret, via }));
      replies.push(await h.call('/v1', { key: key.secret, via }));
      replies.push(await h.call('/v1/ip/batch', { key: key.secret, via, json: ['8.8.8.8', 'x'] }));
      replies.push(await h.call('/v1/ip/8.8.8.8', { key: second.secret, via, headers: { origin: 'https://evil.com' } }));
      replies.push(await h.call('/v1/mac/zz', { key: second.secret, via, headers: { origin: 'https://example.com' } }));
    }
    replies.push(await h.admin('GET', `/admin/accounts/${account.id}`));
    replies.push(await h.patchKey(second.id, { name: 'renamed' }));
    replies.push(await h.call('/health'));
    replies.push(await h.call('/metrics'));
    for (const reply of replies) {
      for (const secret of secrets) {
        expect(reply.text).not.toContain(secret);
        expect(reply.text).not.toContain(secret.slice(4));
        reply.headers.forEach((value, name) => expect(`${name}: ${value}`).not.toContain(secret.slice(4)));
      }
    }
  });

  it('GET /admin/accounts/:id lists keys without secret or hash', async () => {
    const { account } = await h.createAccount('pro');
    const r = await h.admin('GET', `/admin/accounts/${account.id}`);
    expect(r.status).toBe(200);
    for (const k of r.body.keys) {
      expect(k).not.toHaveProperty('secret');
      expect(k).not.toHaveProperty('hash');
    }
  });

  it('the store holds no secret in clear (SQLite file and WAL)', async () => {
    const { key } = await h.createAccount('pro');
    const rolled = (await h.admin('POST', `/admin/keys/${key.id}/roll`)).body.key.secret;
    const files = fs.readdirSync(h.dataDir).map((f) => fs.readFileSync(path.join(h.dataDir, f)));
    expect(files.length).toBeGreaterThan(0);
    for (const bytes of files) {
      for (const secret of [key.secret, rolled]) {
        expect(bytes.includes(Buffer.from(secret))).toBe(false);
        expect(bytes.includes(Buffer.from(secret.slice(4)))).toBe(false);
      }
    }
  });
});

describe("a key's last use", () => {
  const keysOf = async (accountId: string) => (await h.admin('GET', `/admin/accounts/${accountId}`)).body.keys;

  it('a request authenticated with the key sets its last_used_at, to the minute, in the admin answers', async () => {
    const { account, key } = await h.createAccount('pro');
    expect(key.last_used_at).toBeNull();
    const unused = await h.createKey(account.id, 'unused');
    expect(unused.last_used_at).toBeNull();
    expectError(await h.call('/v1/ip/8.8.8.8', { key: `nlk_${'f'.repeat(40)}` }), 'invalid_key', 401);
    expect((await h.call('/v1/mac/00:1A:2B:3C:4D:5E', { key: key.secret })).status).toBe(200);
    const minute = new Date(Math.floor(h.clock.ms / 60_000) * 60_000).toISOString();
    // written in bulk on the store's flush interval
    await vi.waitFor(async () => expect((await keysOf(account.id)).map((k: any) => k.last_used_at)).toEqual([minute, null]), {
      timeout: 5000,
      interval: 100,
    });
    const rolled = await h.admin('POST', `/admin/keys/${key.id}/roll`);
    expect(rolled.body.key).toMatchObject({ id: key.id, last_used_at: minute });
  });
});

describe('redactedUrl (the request log line)', () => {
  it('replaces the value of every key parameter, whatever its case or position', () => {
    const s = `nlk_${'ab'.repeat(20)}`;
    for (const url of [
      `/v1/ip/8.8.8.8?key=${s}`,
      `/v1/ip?pretty&key=${s}`,
      `/v1/ip?KEY=${s}&fields=ip`,
      `/v1/ip?key=${s}#frag`,
      `/v1/ip?key=${s}&key=${s}`,
    ]) {
      const out = redactedUrl(url);
      expect(out).not.toContain(s);
      expect(out).not.toContain(s.slice(4));
    }
    expect(redactedUrl(`/v1/ip?key=${s}&fields=ip`)).toBe('/v1/ip?key=[redacted]&fields=ip');
  });

  it('keeps URLs without a key as they are', () => {
    expect(redactedUrl('/v1/ip/8.8.8.8?fields=ip&pretty')).toBe('/v1/ip/8.8.8.8?fields=ip&pretty');
    expect(redactedUrl('/v1/mac/search?q=monkey')).toBe('/v1/mac/search?q=monkey');
  });

  it('a percent-encoded parameter name (?%6Bey=) is redacted too, since the server accepts it as the key', async () => {
    // Koa's query parser decodes %6Bey to key, so this is a working way to send the key ...
    expect((await h.call(`/v1/ip/8.8.8.8?%6Bey=${valid}`)).status).toBe(200);
    // ... and its log line must not carry the secret either
    expect(redactedUrl(`/v1/ip/8.8.8.8?%6Bey=${valid}`)).not.toContain(valid.slice(4));
  });

  it('a percent-encoded key value is redacted (the server decodes it)', async () => {
    const encoded = valid.replace('nlk_', 'nlk%5F');
    expect((await h.call(`/v1/ip/8.8.8.8?key=${encoded}`)).status).toBe(200);
    expect(redactedUrl(`/v1/ip/8.8.8.8?key=${encoded}`)).toBe('/v1/ip/8.8.8.8?key=[redacted]');
  });
});
