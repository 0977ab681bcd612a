/**
 * The dashboard's JSON endpoints (docs/dashboard.md) through a running server, on each store:
 * sign-in and its cookie, sign-out, expiry, throttled failures; a roll, a deletion, a website list
 * or a suspension ends the sessions made with the key; the cap on each account's (and the
 * operator's) sessions; the numbers equal /v1/usage; keys, reports and the operator's endpoints;
 * and what must never work: a key restricted to websites signing in, a session calling /v1, a
 * cross-site request, a change without proof of its origin, a form body, an account session
 * calling the operator's endpoints. Then, on their own servers: sign-ins throttled per key and per
 * client (an IPv6 client by its /64), and hostile bodies: a request without a session answered
 * before its body is read, a JSON type with parameters, bodies that do not decode.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisStore } from '../../src/store/redis/redisStore.js';
import type { Store } from '../../src/store/store.js';
import { redisTestPrefix, REDIS_TEST_URL, removeKeys } from '../store/redisTestServer.js';
import fs from 'node:fs';
import { brotliCompressSync } from 'node:zlib';
import { parseAnswer, rawExchange } from './rawClient.js';
import { ADMIN_TOKEN, expectError, Harness, request, tempDir, type CallOptions, type Reply } from './harness.js';

const HOUR = 3_600_000;
const prefix = redisTestPrefix('dashboard');
const stores: [string, () => Promise<Store | undefined>, () => Promise<void>][] = [
  ['sqlite', async () => undefined, async () => undefined],
  ['redis', async () => RedisStore.open(REDIS_TEST_URL, { prefix, rateClock: 'request' }), () => removeKeys(prefix)],
];

/** A browser on the dashboard's own origin: keeps the session cookie and sends the page's headers. */
class Browser {
  cookie: string | null = null;
  lastSetCookie: string | null = null;

  constructor(private readonly h: Harness) {}

  async call(method: string, path: string, json?: unknown, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { origin: this.h.url, ...(options.headers ?? {}) };
    if (this.cookie) headers.cookie = `nl_dashboard=${this.cookie}`;
    const reply = await request(this.h.url, path, { ...options, method, headers, ...(json === undefined ? {} : { json }), tick: 0 });
    const set = reply.headers.get('set-cookie');
    if (set) {
      this.lastSetCookie = set;
      const value = /^nl_dashboard=([^;]*)/.exec(set)?.[1] ?? '';
      this.cookie = value === '' ? null : value;
    }
    return reply;
  }

  signIn(body: Record<string, unknown>, options: CallOptions = {}): Promise<Reply> {
    return this.call('POST', '/dashboard/api/session', body, options);
  }
}

describe.each(stores)('dashboard endpoints (%s store)', (_, openStore, cleanup) => {
  let h: Harness;

  beforeAll(async () => {
    await cleanup();
    const store = await openStore();
    // Every test signs in from 127.0.0.1: the per-client sign-ins are tested on their own below.
    h = await Harness.start({ clockStart: '2026-05-20T10:00:00.000Z', dashboard: { signInsPerClient: 1000 }, ...(store ? { store } : {}) });
  });

  afterAll(async () => {
    await h?.stop();
    await cleanup();
  });

  it('serves the page under its Content-Security-Policy, never framed, and sends /dashboard to /dashboard/', async () => {
    const page = await request(h.url, '/dashboard/');
    expect(page.status).toBe(200);
    expect(page.contentType).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    const script = await request(h.url, '/dashboard/dashboard.js');
    expect(script.contentType).toBe('text/javascript; charset=utf-8');
    const bare = await request(h.url, '/dashboard');
    expect([bare.status, bare.headers.get('location')]).toEqual([302, '/dashboard/']);
    expectError(await request(h.url, '/dashboard/..%2Fpackage.json'), 'not_found');
    expectError(await request(h.url, '/dashboard/api/nothing'), 'not_found');
  });

  it('signs in with a key: an HttpOnly SameSite=Strict cookie scoped to /dashboard, the session, no CORS', async () => {
    const { account, key } = await h.createAccount('pro');
    const b = new Browser(h);
    const reply = await b.signIn({ key: key.secret });
    expect(reply.status).toBe(200);
    expect(reply.body.session).toMatchObject({ kind: 'account', account_id: account.id, key_id: key.id });
    expect(Object.keys(reply.body.session).sort()).toEqual(['account_id', 'expires_at', 'key_id', 'kind']);
    expect(b.lastSetCookie).toMatch(/^nl_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=28800; HttpOnly; SameSite=Strict$/);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.text).not.toContain(key.secret);
    expect((await b.call('GET', '/dashboard/api/session')).body.session.account_id).toBe(account.id);
  });

  it('marks the cookie Secure behind a trusted TLS proxy only', async () => {
    const trusted = await Harness.start({ trustProxy: '127.0.0.1/32' });
    try {
      const key = await trusted.newKey('pro');
      const b = new Browser(trusted);
      await b.signIn({ key }, { headers: { origin: trusted.url, 'x-forwarded-proto': 'https' } });
      expect(b.lastSetCookie).toMatch(/; Secure$/);
      const plain = new Browser(trusted);
      await plain.signIn({ key });
      expect(plain.lastSetCookie).not.toMatch(/Secure/);
    } finally {
      await trusted.stop();
    }
    const b = new Browser(h);
    await b.signIn({ key: await h.newKey('pro') }, { headers: { origin: h.url, 'x-forwarded-proto': 'https' } });
    expect(b.lastSetCookie).not.toMatch(/Secure/);
  });

  it('refuses bad sign-ins with the error table, then throttles the address', async () => {
    const throttled = await Harness.start();
    try {
      const b = new Browser(throttled);
      expectError(await b.signIn({}), 'invalid_input');
      expectError(await b.signIn({ key: '' }), 'missing_key');
      expectError(await b.signIn({ key: 'nlk_' + '0'.repeat(40) }), 'invalid_key');
      expectError(await b.signIn({ key: 42 }), 'missing_key');
      expectError(await b.signIn({ admin_token: 'wrong' }), 'admin_unauthorized');
      expectError(
        await b.call('POST', '/dashboard/api/session', undefined, { body: '{"key":', headers: { 'content-type': 'application/json' } }),
        'invalid_body',
      );
      for (let i = 0; i < 6; i++) await b.signIn({ key: 'nlk_' + 'f'.repeat(40) });
      const good = await throttled.newKey('pro');
      const refused = await b.signIn({ key: good });
      expectError(refused, 'sign_in_throttled');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(b.cookie).toBeNull();
      throttled.clock.advance(5_000);
      expect((await b.signIn({ key: good })).status).toBe(200);
    } finally {
      await throttled.stop();
    }
  });

  it("limits a session's requests: 40 at once, then 10 a second", async () => {
    const b = new Browser(h);
    await b.signIn({ key: await h.newKey('pro') });
    for (let i = 0; i < 40; i++) expect((await b.call('GET', '/dashboard/api/session')).status).toBe(200);
    const refused = await b.call('GET', '/dashboard/api/account');
    expectError(refused, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBe('1');
    const other = new Browser(h);
    await other.signIn({ key: await h.newKey('pro') });
    expect((await other.call('GET', '/dashboard/api/account')).status).toBe(200);
    h.clock.advance(1000);
    for (let i = 0; i < 10; i++) expect((await b.call('GET', '/dashboard/api/session')).status).toBe(200);
    expectError(await b.call('GET', '/dashboard/api/session'), 'rate_limited');
  });

  it('ends a session at sign-out and after 8 hours', async () => {
    const key = await h.newKey('pro');
    const b = new Browser(h);
    await b.signIn({ key });
    const cookie = b.cookie;
    expect((await b.call('DELETE', '/dashboard/api/session')).status).toBe(200);
    expect(b.lastSetCookie).toMatch(/^nl_dashboard=; Path=\/dashboard; Max-Age=0/);
    b.cookie = cookie;
    expectError(await b.call('GET', '/dashboard/api/session'), 'session_required');

    const later = new Browser(h);
    await later.signIn({ key });
    h.clock.advance(8 * HOUR - 1000);
    expect((await later.call('GET', '/dashboard/api/account')).status).toBe(200);
    h.clock.advance(1000);
    expectError(await later.call('GET', '/dashboard/api/account'), 'session_required');
    expectError(await new Browser(h).call('GET', '/dashboard/api/account'), 'session_required');
  });

  it('shows the numbers of /v1/usage and a 90-day history whose today is the same', async () => {
    const { account, key } = await h.createAccount('pro');
    for (const path of ['/v1/ip/8.8.8.8', '/v1/ip/1.1.1.1', '/v1/mac/00:00:0c:12:34:56', '/v1/asn/AS15169'])
      await h.call(path, { key: key.secret });
    await h.call('/v1/ip/8.8.8.8', { key: 'nlk_' + '1'.repeat(40) });
    await h.call('/v1/ip/not-an-ip', { key: key.secret });
    const b = new Browser(h);
    await b.signIn({ key: key.secret });
    const page = await b.call('GET', '/dashboard/api/account');
    const usage = await h.usage(key.secret);
    expect(page.body.usage).toEqual(usage);
    expect(usage.today.ip).toBeGreaterThanOrEqual(2);
    expect(usage.today.rejected).toBe(1);
    expect(page.body.account).toMatchObject({ id: account.id, suspended: false });
    expect(page.body.plan).toMatchObject({
      code: 'pro',
      max_keys: expect.any(Number),
      monthly_quota: { limit: usage.monthly_quota.limit },
    });
    expect(page.body.attribution).toEqual({ required: false });

    const history = await b.call('GET', '/dashboard/api/usage/history');
    expect(history.body.days).toHaveLength(90);
    const today = history.body.days[89];
    expect(today.date).toBe(h.clock.now().toISOString().slice(0, 10));
    expect({ ip: today.ip, blacklist: today.blacklist, mac: today.mac, rejected: today.rejected }).toEqual(usage.today);
    expect(history.body.days.slice(0, 89).every((d: Record<string, number>) => d.ip + d.blacklist + d.mac + d.rejected === 0)).toBe(true);
    expect((await b.call('GET', '/dashboard/api/usage/history?days=7')).body.days).toHaveLength(7);
    expectError(await b.call('GET', '/dashboard/api/usage/history?days=91'), 'invalid_input');
    expectError(await b.call('GET', '/dashboard/api/usage/history?days=x'), 'invalid_input');
  });

  it('gives the free plan its attribution snippet with the data credits', async () => {
    const b = new Browser(h);
    await b.signIn({ key: await h.newKey('free') });
    const { attribution, plan } = (await b.call('GET', '/dashboard/api/account')).body;
    expect(plan.daily_quota).toEqual(expect.objectContaining({ ip: expect.any(Number) }));
    expect(attribution.required).toBe(true);
    expect(attribution.html).toContain(`<a href="${h.url}/">netlookup</a>`);
    expect(attribution.text).toContain('DB-IP');
  });

  it('manages keys: create within the plan, edit websites (then the API refuses other origins), roll, delete', async () => {
    const { account, key } = await h.createAccount('pro');
    const b = new Browser(h);
    await b.signIn({ key: key.secret });
    const listed = await b.call('GET', '/dashboard/api/keys');
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(listed.body.keys[0]).toMatchObject({ name: key.name, websites: [], last_used_at: null });
    await h.call('/v1/ip/8.8.8.8', { key: key.secret });
    // Written in bulk: on the store's next flush (SQLite: a second; Redis: five seconds).
    await expect
      .poll(
        async () => {
          h.clock.advance(250);
          return (await b.call('GET', '/dashboard/api/keys')).body.keys[0].last_used_at;
        },
        { timeout: 8000, interval: 250 },
      )
      .toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    expect(JSON.stringify(listed.body)).not.toContain(key.secret);

    const created = await b.call('POST', '/dashboard/api/keys', { name: 'site', websites: ['example.com'] });
    expect(created.status).toBe(201);
    expect(created.body.key.secret).toMatch(/^nlk_[0-9a-f]{40}$/);
    const site = created.body.key;
    expect((await h.call('/v1/ip/8.8.8.8', { key: site.secret, headers: { origin: 'https://example.com' } })).status).toBe(200);

    const edited = await b.call('PATCH', `/dashboard/api/keys/${site.id}`, { websites: ['*.example.org'] });
    expect(edited.body.key.websites).toEqual(['*.example.org']);
    expectError(await h.call('/v1/ip/8.8.8.8', { key: site.secret, headers: { origin: 'https://example.com' } }), 'origin_not_allowed');
    expect((await h.call('/v1/ip/8.8.8.8', { key: site.secret, headers: { origin: 'https://a.example.org' } })).status).toBe(200);
    expectError(await b.call('PATCH', `/dashboard/api/keys/${site.id}`, { websites: ['not a host!'] }), 'invalid_input');

    const rolled = await b.call('POST', `/dashboard/api/keys/${site.id}/roll`);
    expect(rolled.body.key.secret).not.toBe(site.secret);
    const fromSite = { origin: 'https://a.example.org' };
    expectError(await h.call('/v1/usage', { key: site.secret, headers: fromSite }), 'invalid_key');
    expect((await h.call('/v1/usage', { key: rolled.body.key.secret, headers: fromSite })).status).toBe(200);
    expect((await b.call('GET', '/dashboard/api/session')).status).toBe(200);

    const other = await h.createAccount('pro');
    expectError(await b.call('POST', `/dashboard/api/keys/${other.key.id}/roll`), 'not_found');
    expectError(await b.call('DELETE', `/dashboard/api/keys/${other.key.id}`), 'not_found');
    expect((await h.call('/v1/usage', { key: other.key.secret })).status).toBe(200);

    expect((await b.call('DELETE', `/dashboard/api/keys/${site.id}`)).body.deleted).toBe(site.id);
    expectError(await h.call('/v1/usage', { key: rolled.body.key.secret, headers: fromSite }), 'invalid_key');
    const limited = await h.createAccount('free');
    const free = new Browser(h);
    await free.signIn({ key: limited.key.secret });
    expectError(await free.call('POST', '/dashboard/api/keys', { name: 'two' }), 'key_limit');
    expect(account.id).not.toBe(limited.account.id);
  });

  it('ends the session when its own key is rolled (the old secret refused at once) or deleted', async () => {
    const { key } = await h.createAccount('pro');
    const b = new Browser(h);
    await b.signIn({ key: key.secret });
    const rolled = await b.call('POST', `/dashboard/api/keys/${key.id}/roll`);
    expect(rolled.status).toBe(200);
    expectError(await h.call('/v1/usage', { key: key.secret }), 'invalid_key');
    expectError(await b.call('GET', '/dashboard/api/account'), 'session_required');

    const second = new Browser(h);
    await second.signIn({ key: rolled.body.key.secret });
    const third = new Browser(h);
    await third.signIn({ key: rolled.body.key.secret });
    await h.admin('POST', `/admin/keys/${key.id}/roll`);
    expectError(await second.call('GET', '/dashboard/api/account'), 'session_required');
    expectError(await third.call('GET', '/dashboard/api/keys'), 'session_required');

    const { key: doomed } = await h.createAccount('pro');
    const d = new Browser(h);
    await d.signIn({ key: doomed.secret });
    await h.admin('DELETE', `/admin/keys/${doomed.id}`);
    expectError(await d.call('GET', '/dashboard/api/session'), 'session_required');
  });

  it('ends the sessions of a suspended account and refuses its sign-in', async () => {
    const { account, key } = await h.createAccount('pro');
    const b = new Browser(h);
    await b.signIn({ key: key.secret });
    await h.patchAccount(account.id, { suspended: true });
    expectError(await b.call('GET', '/dashboard/api/account'), 'session_required');
    expectError(await new Browser(h).signIn({ key: key.secret }), 'account_suspended');
  });

  it('refuses a key restricted to websites (public in a web page), and ends a session whose key is given websites', async () => {
    const { account, key } = await h.createAccount('pro', { email: 'private@example.net' });
    const restricted = await h.createKey(account.id, 'web', ['example.com']);
    const b = new Browser(h);
    const refused = await b.signIn({ key: restricted.secret });
    expectError(refused, 'origin_not_allowed');
    expect(refused.body.error.message).toMatch(/restricted to websites.*cannot sign in to the dashboard/);
    expect(refused.text).not.toContain('private@example.net');
    expect([b.lastSetCookie, b.cookie]).toEqual([null, null]);
    expectError(await b.call('GET', '/dashboard/api/account'), 'session_required');

    const holder = new Browser(h);
    await holder.signIn({ key: key.secret });
    expect((await holder.call('GET', '/dashboard/api/keys')).status).toBe(200);
    expect((await h.patchKey(key.id, { websites: ['example.org'] })).status).toBe(200);
    expectError(await holder.call('GET', '/dashboard/api/keys'), 'session_required');
    expectError(await new Browser(h).signIn({ key: key.secret }), 'origin_not_allowed');
  });

  it("caps each account's sessions at 20, a new sign-in ending the oldest; the operator's too", async () => {
    const { account, key } = await h.createAccount('pro');
    const second = await h.createKey(account.id, 'second');
    const other = new Browser(h);
    await other.signIn({ key: await h.newKey('pro') });
    const sessions: Browser[] = [];
    const signIn = async (secret: string) => {
      const b = new Browser(h);
      h.clock.advance(6_000);
      expect((await b.signIn({ key: secret })).status).toBe(200);
      sessions.push(b);
    };
    // ten with each key: a key signs in 10 times a minute at most
    for (let i = 0; i < 20; i++) await signIn(i % 2 ? second.secret : key.secret);
    const live = async (browsers: Browser[]) =>
      Promise.all(browsers.map(async (b) => (await b.call('GET', '/dashboard/api/session')).status));
    expect(await live(sessions)).toEqual(Array(20).fill(200));
    await signIn(key.secret);
    expect(await live(sessions)).toEqual([401, ...Array(20).fill(200)]);
    // signing out frees a place: the next sign-in ends nothing
    expect((await sessions[5].call('DELETE', '/dashboard/api/session')).status).toBe(200);
    await signIn(second.secret);
    expect((await live(sessions)).filter((status) => status === 200)).toHaveLength(20);
    expect((await other.call('GET', '/dashboard/api/session')).status).toBe(200);

    const operators: Browser[] = [];
    for (let i = 0; i < 21; i++) {
      const op = new Browser(h);
      h.clock.advance(6_000);
      expect((await op.signIn({ admin_token: ADMIN_TOKEN })).status).toBe(200);
      operators.push(op);
    }
    expect(await live(operators)).toEqual([401, ...Array(20).fill(200)]);
  });

  it('lists and withdraws the account’s own blacklist reports', async () => {
    const { account, key } = await h.createAccount('pro');
    const other = await h.createAccount('pro');
    const address = '45.95.147.236';
    for (const secret of [key.secret, other.key.secret])
      expect(
        (await h.call('/v1/blacklist/report', { key: secret, json: { ip: address, threat_type: 'scanner', comment: 'probe' } })).status,
      ).toBe(201);
    const b = new Browser(h);
    await b.signIn({ key: key.secret });
    const listed = await b.call('GET', '/dashboard/api/reports');
    expect(listed.body.total).toBe(1);
    expect(listed.body.reports[0]).toMatchObject({ ip: address, threat_type: 'scanner', message: 'probe', count: 1 });
    const before = (await h.call(`/v1/blacklist/${address}`, { key: key.secret })).body;
    expect(before).toMatchObject({ listed: true, total_reports: 2, distinct_reporters: 2 });

    expect((await b.call('DELETE', `/dashboard/api/reports/${encodeURIComponent(listed.body.reports[0].id)}`)).status).toBe(200);
    expect((await b.call('GET', '/dashboard/api/reports')).body.total).toBe(0);
    const after = (await h.call(`/v1/blacklist/${address}`, { key: key.secret })).body;
    expect(after).toMatchObject({ listed: true, total_reports: 1, distinct_reporters: 1 });
    expectError(await b.call('DELETE', `/dashboard/api/reports/${encodeURIComponent(listed.body.reports[0].id)}`), 'not_found');
    const theirs = new Browser(h);
    await theirs.signIn({ key: other.key.secret });
    const theirReport = (await theirs.call('GET', '/dashboard/api/reports')).body.reports[0];
    expectError(await b.call('DELETE', `/dashboard/api/reports/${encodeURIComponent(theirReport.id)}`), 'not_found');
    expect((await theirs.call('DELETE', `/dashboard/api/reports/${encodeURIComponent(theirReport.id)}`)).status).toBe(200);
    expect((await h.call(`/v1/blacklist/${address}`, { key: key.secret })).body.listed).toBe(false);
    expect(account.id).not.toBe(other.account.id);
  });

  it('never lets a session call /v1, a cross-site page act, or a form body through', async () => {
    const { key } = await h.createAccount('pro');
    const b = new Browser(h);
    await b.signIn({ key: key.secret });
    expectError(await request(h.url, '/v1/usage', { headers: { cookie: `nl_dashboard=${b.cookie}` } }), 'missing_key');
    expectError(await request(h.url, '/v1/ip/8.8.8.8', { headers: { cookie: `nl_dashboard=${b.cookie}` } }), 'missing_key');

    const evil = { origin: 'https://evil.example' };
    expectError(await b.call('POST', '/dashboard/api/keys', { name: 'x' }, { headers: evil }), 'origin_not_allowed');
    expectError(await b.call('GET', '/dashboard/api/account', undefined, { headers: evil }), 'origin_not_allowed');
    expectError(await b.signIn({ key: key.secret }, { headers: evil }), 'origin_not_allowed');
    const noOrigin = { origin: '', 'sec-fetch-site': 'cross-site' };
    expectError(await b.call('DELETE', '/dashboard/api/session', undefined, { headers: noOrigin }), 'origin_not_allowed');
    expectError(
      await b.call('POST', '/dashboard/api/keys', undefined, {
        body: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
      }),
      'unsupported_media_type',
    );
    expectError(
      await b.call('POST', '/dashboard/api/keys', undefined, {
        body: '{"name":"x"}',
        headers: { 'content-type': 'text/plain', origin: h.url },
      }),
      'unsupported_media_type',
    );
    const preflight = await request(h.url, '/dashboard/api/keys', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect((await b.call('GET', '/dashboard/api/keys')).body.keys).toHaveLength(1);
  });

  it('keeps the operator’s endpoints for the admin token’s sessions', async () => {
    const { account, key } = await h.createAccount('starter', { email: 'Ops.Person@Example.net' });
    const holder = new Browser(h);
    await holder.signIn({ key: key.secret });
    expectError(await holder.call('GET', '/dashboard/api/admin/accounts'), 'session_forbidden');

    const op = new Browser(h);
    const signed = await op.signIn({ admin_token: ADMIN_TOKEN });
    expect(signed.body.session).toMatchObject({ kind: 'operator', account_id: null });
    expectError(await op.call('GET', '/dashboard/api/account'), 'session_forbidden');

    const found = await op.call('GET', '/dashboard/api/admin/accounts?search=ops.person');
    expect(found.body.accounts.map((a: { id: string }) => a.id)).toEqual([account.id]);
    const page = await op.call('GET', '/dashboard/api/admin/accounts?limit=2&offset=0');
    expect(page.body.accounts).toHaveLength(2);
    expect(page.body.total).toBeGreaterThan(2);
    expectError(await op.call('GET', '/dashboard/api/admin/accounts?limit=0'), 'invalid_input');

    await h.call('/v1/ip/8.8.8.8', { key: key.secret });
    const detail = await op.call('GET', `/dashboard/api/admin/accounts/${account.id}`);
    expect(detail.body.usage).toEqual(await h.usage(key.secret));
    expect(detail.body.keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(detail.body.days).toHaveLength(90);

    const patched = await op.call('PATCH', `/dashboard/api/admin/accounts/${account.id}`, {
      plan: 'business',
      expires_at: '2027-01-01T00:00:00Z',
    });
    expect(patched.body.account).toMatchObject({ plan: 'business', expires_at: '2027-01-01T00:00:00.000Z' });
    expect((await h.usage(key.secret)).plan.code).toBe('business');
    await op.call('PATCH', `/dashboard/api/admin/accounts/${account.id}`, { suspended: true });
    expectError(await h.call('/v1/ip/8.8.8.8', { key: key.secret }), 'account_suspended');
    expectError(await holder.call('GET', '/dashboard/api/account'), 'session_required');
    await op.call('PATCH', `/dashboard/api/admin/accounts/${account.id}`, { suspended: false });

    const rolled = await op.call('POST', `/dashboard/api/admin/keys/${key.id}/roll`);
    expectError(await h.call('/v1/usage', { key: key.secret }), 'invalid_key');
    expect((await h.call('/v1/usage', { key: rolled.body.key.secret })).status).toBe(200);

    const address = '45.95.147.237';
    await h.call('/v1/blacklist/report', { key: rolled.body.key.secret, json: { ip: address, threat_type: 'spam' } });
    const removed = await op.call('DELETE', `/dashboard/api/admin/blacklist/${address}`);
    expect(removed.body).toMatchObject({ success: true, ip: address, deleted_reports: 1 });
    expectError(await op.call('DELETE', `/dashboard/api/admin/blacklist/${address}`), 'not_found');
    expectError(await op.call('DELETE', '/dashboard/api/admin/blacklist/not-an-ip'), 'invalid_ip');
  });

  it('writes the audit lines the admin API writes, naming the dashboard and who asked, never a secret', async () => {
    const { account, key } = await h.createAccount('pro');
    const address = '45.95.147.239';
    await h.call('/v1/blacklist/report', { key: key.secret, json: { ip: address, threat_type: 'spam' } });
    const info = vi.spyOn(h.service.deps.logger, 'info');
    try {
      const holder = new Browser(h);
      await holder.signIn({ key: key.secret });
      const created = await holder.call('POST', '/dashboard/api/keys', { name: 'audited' });
      const op = new Browser(h);
      await op.signIn({ admin_token: ADMIN_TOKEN });
      await op.call('PATCH', `/dashboard/api/admin/accounts/${account.id}`, { plan: 'business' });
      await op.call('POST', `/dashboard/api/admin/keys/${created.body.key.id}/roll`);
      await op.call('DELETE', `/dashboard/api/admin/blacklist/${address}`);
      await h.admin('DELETE', `/admin/keys/${created.body.key.id}`);
      const lines: Record<string, unknown>[] = info.mock.calls.map(([fields, message]) => ({ message, ...(fields as object) }));
      const by = (message: string) => lines.filter((l) => l.message === message);
      expect(by('key created')).toEqual([
        expect.objectContaining({ via: 'dashboard', by: `${account.id}/${key.id}`, key: created.body.key.id }),
      ]);
      expect(by('account changed')).toEqual([
        expect.objectContaining({ via: 'dashboard', by: 'operator', account: account.id, changed: ['plan'] }),
      ]);
      expect(by('key rolled')).toEqual([expect.objectContaining({ via: 'dashboard', by: 'operator', key: created.body.key.id })]);
      expect(by('blacklist address deleted')).toEqual([
        expect.objectContaining({ via: 'dashboard', by: 'operator', ip: address, reports: 1 }),
      ]);
      expect(by('key deleted')).toEqual([expect.objectContaining({ via: 'admin-api', by: 'operator', key: created.body.key.id })]);
      expect(by('dashboard sign-in').map((l) => l.kind)).toEqual(['account', 'operator']);
      const written = JSON.stringify(lines);
      expect(written).not.toContain(key.secret);
      expect(written).not.toContain(ADMIN_TOKEN);
      expect(written).not.toContain(created.body.key.secret);
    } finally {
      info.mockRestore();
    }
  });

  it('offers no operator sign-in without an admin token', async () => {
    const bare = await Harness.start({ adminToken: null });
    try {
      expectError(await new Browser(bare).signIn({ admin_token: ADMIN_TOKEN }), 'admin_unauthorized');
    } finally {
      await bare.stop();
    }
  });
});

describe('sign-in throttles', () => {
  let h: Harness;
  beforeAll(async () => {
    // a trusted proxy names the clients, so that one test can be many addresses
    h = await Harness.start({ trustProxy: '127.0.0.1/32', dashboard: { signInsPerKey: 3, signInsPerClient: 5 } });
  });
  afterAll(async () => h?.stop());

  const from = (client: string): CallOptions => ({ headers: { origin: h.url, 'x-forwarded-for': client } });

  it('counts successful sign-ins per key, whatever the client', async () => {
    const key = await h.newKey('pro');
    for (const client of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
      expect((await new Browser(h).signIn({ key }, from(client))).status).toBe(200);
    const refused = await new Browser(h).signIn({ key }, from('198.51.100.4'));
    expectError(refused, 'sign_in_throttled');
    expect(refused.body.error.message).toMatch(/with this key/);
    expect(Number(refused.headers.get('retry-after'))).toBe(20);
    expect((await new Browser(h).signIn({ key: await h.newKey('pro') }, from('198.51.100.4'))).status).toBe(200);
    h.clock.advance(20_000);
    expect((await new Browser(h).signIn({ key }, from('198.51.100.4'))).status).toBe(200);
    const op = from('198.51.100.9');
    for (let i = 0; i < 3; i++) expect((await new Browser(h).signIn({ admin_token: ADMIN_TOKEN }, op)).status).toBe(200);
    expectError(await new Browser(h).signIn({ admin_token: ADMIN_TOKEN }, op), 'sign_in_throttled');
  });

  it('counts every sign-in per client: an IPv4 address, an IPv6 /64 (any address in it)', async () => {
    const keys = await Promise.all(Array.from({ length: 7 }, () => h.newKey('pro')));
    for (let i = 0; i < 4; i++) expect((await new Browser(h).signIn({ key: keys[i] }, from(`2001:db8:1:2::${i + 1}`))).status).toBe(200);
    expectError(await new Browser(h).signIn({ key: 'nlk_' + '0'.repeat(40) }, from('2001:db8:1:2:ffff::1')), 'invalid_key');
    const refused = await new Browser(h).signIn({ key: keys[4] }, from('2001:db8:1:2:abcd::7'));
    expectError(refused, 'sign_in_throttled');
    expect(refused.body.error.message).toMatch(/from this address/);
    expect(Number(refused.headers.get('retry-after'))).toBe(12);
    expect((await new Browser(h).signIn({ key: keys[4] }, from('2001:db8:1:3::1'))).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await new Browser(h).signIn({ key: keys[5] }, from('203.0.113.1'))).status).toBe(i < 3 ? 200 : 429);
    expect((await new Browser(h).signIn({ key: keys[6] }, from('203.0.113.2'))).status).toBe(200);
  });

  it('counts failed sign-ins of an IPv6 client by its /64', async () => {
    const throttled = await Harness.start({ trustProxy: '127.0.0.1/32' });
    try {
      const at = (i: number): CallOptions => ({
        headers: { origin: throttled.url, 'x-forwarded-for': `2001:db8:77:1:${i.toString(16)}::1` },
      });
      for (let i = 0; i < 10; i++) expectError(await new Browser(throttled).signIn({ key: 'nlk_' + 'e'.repeat(40) }, at(i)), 'invalid_key');
      const key = await throttled.newKey('pro');
      expectError(await new Browser(throttled).signIn({ key }, at(10)), 'sign_in_throttled');
      expect(
        (await new Browser(throttled).signIn({ key }, { headers: { origin: throttled.url, 'x-forwarded-for': '2001:db8:77:2::1' } }))
          .status,
      ).toBe(200);
    } finally {
      await throttled.stop();
    }
  });
});

describe('hostile requests', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(async () => h?.stop());

  it('answers a request without a session 401 at once, its body unread, and closes the connection', async () => {
    const host = new URL(h.url).host;
    for (const [method, path] of [
      ['POST', '/dashboard/api/keys'],
      ['PATCH', '/dashboard/api/keys/key_x'],
      ['PATCH', '/dashboard/api/admin/accounts/acc_x'],
      ['DELETE', '/dashboard/api/reports/r'],
    ]) {
      const head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${h.url}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{`;
      const answer = await rawExchange(h.url, head);
      expect(answer.ms, path).toBeLessThan(2000);
      const parsed = parseAnswer(answer.text);
      expect([parsed.status, parsed.body.error.code, parsed.headers.includes('connection: close')], path).toEqual([
        401,
        'session_required',
        true,
      ]);
    }
  });

  it('answers a signed-in request whose body is left unread, and the next request on the connection as itself', async () => {
    const b = new Browser(h);
    await b.signIn({ key: await h.newKey('pro') });
    const host = new URL(h.url).host;
    // a body that looks like a request: it must be skipped as a body, never answered
    const smuggled = `GET /dashboard/api/account HTTP/1.1\r\nHost: ${host}\r\nCookie: nl_dashboard=${b.cookie}\r\n\r\n`;
    const head = (extra: string, length: number) =>
      `${extra}\r\nHost: ${host}\r\nOrigin: ${h.url}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n`;
    const exchange =
      `${head('GET /dashboard/api/session HTTP/1.1', smuggled.length)}Cookie: nl_dashboard=${b.cookie}\r\n\r\n${smuggled}` +
      `${head('POST /dashboard/api/keys HTTP/1.1', smuggled.length)}\r\n${smuggled}` +
      `GET /dashboard/api/session HTTP/1.1\r\nHost: ${host}\r\nCookie: nl_dashboard=${b.cookie}\r\nConnection: close\r\n\r\n`;
    const answer = await rawExchange(h.url, exchange);
    const statuses = [...answer.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    // node:http alone (NETLOOKUP_DIRECT_CONNECTIONS=off) may close after the refusal, the body still
    // unread; the next request is then not answered at all, which is as safe
    if (statuses.length === 2)
      expect(parseAnswer(answer.text.slice(answer.text.lastIndexOf('HTTP/1.1 '))).headers).toContain('connection: close');
    else expect(statuses).toEqual([200, 401, 200]);
    expect(statuses.slice(0, 2)).toEqual([200, 401]);
    expect(answer.text).not.toContain('"account":');
  });

  it('requires proof of the same origin for every change, sign-in and sign-out included', async () => {
    const key = await h.newKey('pro');
    const bare = { origin: '' };
    expectError(await new Browser(h).signIn({ key }, { headers: bare }), 'origin_not_allowed');
    expectError(await new Browser(h).signIn({ key }, { headers: { ...bare, 'sec-fetch-site': 'none' } }), 'origin_not_allowed');
    const b = new Browser(h);
    expect((await b.signIn({ key }, { headers: { ...bare, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    // reads need no proof (SameSite=Strict and no CORS keep other sites from them)
    expect((await b.call('GET', '/dashboard/api/keys', undefined, { headers: bare })).status).toBe(200);
    const refused = await b.call('POST', '/dashboard/api/keys', undefined, { headers: bare });
    expectError(refused, 'origin_not_allowed');
    expect(refused.body.error.message).toMatch(/Origin/);
    const keys = (await b.call('GET', '/dashboard/api/keys')).body.keys;
    expectError(await b.call('POST', `/dashboard/api/keys/${keys[0].id}/roll`, undefined, { headers: bare }), 'origin_not_allowed');
    expectError(await b.call('DELETE', '/dashboard/api/session', undefined, { headers: bare }), 'origin_not_allowed');
    expect((await b.call('GET', '/dashboard/api/session')).status).toBe(200);
    expect(
      (await b.call('DELETE', '/dashboard/api/session', undefined, { headers: { ...bare, 'sec-fetch-site': 'same-origin' } })).status,
    ).toBe(200);
    expectError(await b.call('GET', '/dashboard/api/session'), 'session_required');
  });

  it('keeps the sign-in body small: 4 KB', async () => {
    const key = await h.newKey('pro');
    expectError(await new Browser(h).signIn({ key, padding: 'x'.repeat(4096) }), 'body_too_large');
    expect((await new Browser(h).signIn({ key, padding: 'x'.repeat(3000) })).status).toBe(200);
  });

  it('parses every body the JSON check lets through (Content-Type parameters included)', async () => {
    const b = new Browser(h);
    await b.signIn({ key: await h.newKey('pro') }, { headers: { origin: h.url, 'content-type': 'application/json;x=text/plain' } });
    expect(b.cookie).not.toBeNull();
    const created = await b.call('POST', '/dashboard/api/keys', undefined, {
      body: JSON.stringify({ name: 'site', websites: ['example.com'] }),
      headers: { origin: h.url, 'content-type': 'application/json; x=text/plain' },
    });
    expect(created.status).toBe(201);
    expect(created.body.key.websites).toEqual(['example.com']);
  });

  it('refuses a body that does not decode as its Content-Encoding says (400), or an unknown one (415)', async () => {
    const b = new Browser(h);
    await b.signIn({ key: await h.newKey('pro') });
    const json = JSON.stringify({ name: 'x' });
    const got: Record<string, string> = {};
    for (const [encoding, body] of [
      ['br', Buffer.from('garbage body here')],
      ['br', brotliCompressSync(json).subarray(0, 4)],
      ['gzip', Buffer.from(json)],
      ['deflate', Buffer.from(json)],
      ['x-nope', Buffer.from(json)],
    ] as const) {
      for (const path of ['/dashboard/api/keys', '/dashboard/api/session']) {
        const reply = await b.call('POST', path, undefined, {
          body,
          headers: { origin: h.url, 'content-type': 'application/json', 'content-encoding': encoding },
        });
        got[`${encoding} ${body.length} ${path}`] = `${reply.status} ${reply.body?.error?.code}`;
      }
    }
    expect(Object.values(got)).toEqual([...Array(8).fill('400 invalid_body'), ...Array(2).fill('415 unsupported_media_type')]);
  });
});

describe("the operator's sessions", () => {
  it('outlive a restart with the same admin token and end with a new one', async () => {
    const dataDir = tempDir();
    const run = async (adminToken: string, cookie: string | null, act: (b: Browser) => Promise<void>): Promise<string | null> => {
      const h = await Harness.start({ dataDir, adminToken });
      try {
        const b = new Browser(h);
        b.cookie = cookie;
        await act(b);
        return b.cookie;
      } finally {
        await h.stop();
      }
    };
    const first = 'first-admin-token-0123456789abcdef0123';
    try {
      const cookie = await run(first, null, async (b) => {
        expect((await b.signIn({ admin_token: first })).status).toBe(200);
      });
      await run(first, cookie, async (b) => {
        expect((await b.call('GET', '/dashboard/api/admin/accounts')).status).toBe(200);
      });
      await run('second-admin-token-0123456789abcdef012', cookie, async (b) => {
        expectError(await b.call('GET', '/dashboard/api/admin/accounts'), 'session_required');
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
