/**
 * The dashboard's JSON endpoints (docs/dashboard.md) through a running server, on each store:
 * sign-in and its cookie, sign-out, expiry, throttled failures; a roll, a deletion or a suspension
 * ends the sessions made with the key; the numbers equal /v1/usage; keys, reports and the
 * operator's endpoints; and what must never work: a session calling /v1, a cross-site request, a
 * form body, a read-only session changing something, an account session calling the operator's
 * endpoints.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisStore } from '../../src/store/redisStore.js';
import type { Store } from '../../src/store/store.js';
import { redisTestPrefix, REDIS_TEST_URL, removeKeys } from '../store/redisTestServer.js';
import fs from 'node:fs';
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
    const reply = await request(this.h.url, path, { method, headers, ...(json === undefined ? {} : { json }), ...options, tick: 0 });
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
    h = await Harness.start({ clockStart: '2026-05-20T10:00:00.000Z', ...(store ? { store } : {}) });
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
    expect(reply.body.session).toMatchObject({ kind: 'account', account_id: account.id, key_id: key.id, can_manage: true });
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

  it('lets a key restricted to websites read only', async () => {
    const { account } = await h.createAccount('pro');
    const restricted = await h.createKey(account.id, 'web', ['example.com']);
    const b = new Browser(h);
    const reply = await b.signIn({ key: restricted.secret });
    expect(reply.body.session.can_manage).toBe(false);
    expect((await b.call('GET', '/dashboard/api/keys')).status).toBe(200);
    expectError(await b.call('POST', '/dashboard/api/keys', { name: 'x' }), 'session_forbidden');
    expectError(await b.call('POST', `/dashboard/api/keys/${restricted.id}/roll`), 'session_forbidden');
    expectError(await b.call('PATCH', `/dashboard/api/keys/${restricted.id}`, { websites: [] }), 'session_forbidden');
    expectError(await b.call('DELETE', '/dashboard/api/reports/1'), 'session_forbidden');
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
    expect(signed.body.session).toMatchObject({ kind: 'operator', account_id: null, can_manage: true });
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
