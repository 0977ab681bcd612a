/**
 * The conformance suite every Store passes (ARCHITECTURE "Stores"): only the Store interface and
 * injected `now` values, nothing of one implementation. Each test makes its own accounts, so the
 * tests share one opened store.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../src/plans/plans.js';
import {
  KeyLimitError,
  type AdmitDecision,
  type AdmitRequest,
  type QuotaRule,
  type Store,
} from '../../src/store/store.js';

const secretFormat = /^nlk_[0-9a-f]{40}$/;
const unknownSecret = `nlk_${'0123456789'.repeat(4)}`;

const dayQuota = (limit: number): QuotaRule => ({ period: 'day', limit, pooled: false });
const monthQuota = (limit: number): QuotaRule => ({ period: 'month', limit, pooled: true });
const at = (iso: string) => new Date(iso);
const plus = (date: Date, ms: number) => new Date(date.getTime() + ms);

export function storeConformance(name: string, open: () => Promise<Store>, cleanup?: () => Promise<void>): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await open();
    });

    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    const newAccount = async (plan: 'free' | 'starter' = 'free') => (await store.createAccount({ plan })).account.id;

    /** A request with a high rate limit and quota unless the test says otherwise. */
    const admit = (accountId: string, now: Date, over: Partial<AdmitRequest> = {}): Promise<AdmitDecision> =>
      store.admit({
        account_id: accountId,
        api: 'ip',
        cost: 1,
        rate_limit_per_second: 1000,
        quota: dayQuota(1_000_000),
        consume: true,
        now,
        ...over,
      });

    describe('accounts', () => {
      it('creates, reads and counts accounts', async () => {
        const before = await store.countAccounts();
        const { account } = await store.createAccount({ plan: 'starter', expires_at: '2031-06-30T00:00:00.000Z', email: 'ops@example.com' });
        expect(account.id).toMatch(/^acc_[0-9a-z]+$/);
        expect(account).toMatchObject({ plan: 'starter', expires_at: '2031-06-30T00:00:00.000Z', suspended: false, email: 'ops@example.com' });
        expect(Number.isNaN(Date.parse(account.created_at))).toBe(false);
        expect(await store.getAccount(account.id)).toEqual(account);
        expect(await store.countAccounts()).toBe(before + 1);
        expect(await store.getAccount('acc_does_not_exist')).toBeNull();
      });

      it('gives a free account no expiry and no email by default', async () => {
        const { account } = await store.createAccount({ plan: 'free' });
        expect(account).toMatchObject({ plan: 'free', expires_at: null, suspended: false, email: null });
        await expect(store.createAccount({ plan: 'free', expires_at: '2031-01-01T00:00:00.000Z' })).rejects.toThrow(/paid/);
      });

      it('ids are not counters', async () => {
        const a = await newAccount();
        const b = await newAccount();
        expect(a).not.toBe(b);
        expect(a.replace(/^acc_/, '')).toMatch(/[0-9a-z]{8,}/);
      });

      it('updates plan, expiry, suspension and email', async () => {
        const id = await newAccount();
        const paid = await store.updateAccount(id, { plan: 'pro', expires_at: '2032-02-29T12:00:00.000Z' });
        expect(paid).toMatchObject({ id, plan: 'pro', expires_at: '2032-02-29T12:00:00.000Z', suspended: false });
        const suspended = await store.updateAccount(id, { suspended: true, email: 'a@b.example' });
        expect(suspended).toMatchObject({ plan: 'pro', expires_at: '2032-02-29T12:00:00.000Z', suspended: true, email: 'a@b.example' });
        expect(await store.getAccount(id)).toEqual(suspended);
        const back = await store.updateAccount(id, { plan: 'free', suspended: false });
        expect(back).toMatchObject({ plan: 'free', expires_at: null, suspended: false });
        expect(await store.updateAccount('acc_does_not_exist', { suspended: true })).toBeNull();
      });

      it('refuses an unknown plan', async () => {
        const id = await newAccount();
        await expect(store.updateAccount(id, { plan: 'gold' as never })).rejects.toThrow(/plan/);
        expect((await store.getAccount(id))?.plan).toBe('free');
      });
    });

    describe('keys', () => {
      it('creates the first key with the account (SPEC 5.2)', async () => {
        const { account, key } = await store.createAccount({ plan: 'free' });
        expect(key.secret).toMatch(secretFormat);
        expect(key).toMatchObject({ account_id: account.id, name: 'default', websites: [], rolled_at: null });
        expect(key.id).toMatch(/^key_[0-9a-z]+$/);
        const { secret, ...shown } = key;
        expect(secret).toBeTruthy();
        expect(await store.listKeys(account.id)).toEqual([shown]);
        expect(await store.getKey(key.id)).toEqual(shown);
      });

      it('authenticates the secret to its key and account', async () => {
        const { account, key } = await store.createAccount({ plan: 'free' });
        const found = await store.authenticate(key.secret);
        expect(found?.account).toEqual(account);
        expect(found?.key.id).toBe(key.id);
        expect(await store.authenticate(key.secret)).toEqual(found);
      });

      it('refuses wrong, malformed and unknown secrets', async () => {
        const { key } = await store.createAccount({ plan: 'free' });
        const malformed = [
          '',
          'nlk_',
          key.secret.toUpperCase(),
          key.secret.slice(0, -1),
          `${key.secret}0`,
          key.secret.slice(4),
          ` ${key.secret}`,
          `${key.secret}\n`,
          `xlk_${key.secret.slice(4)}`,
          `nlk_${'g'.repeat(40)}`,
        ];
        for (const text of malformed) expect(await store.authenticate(text)).toBeNull();
        expect(await store.authenticate(unknownSecret)).toBeNull();
        const flipped = key.secret.slice(0, -1) + (key.secret.endsWith('0') ? '1' : '0');
        expect(await store.authenticate(flipped)).toBeNull();
      });

      it("another account's secret authenticates to that account only", async () => {
        const a = await store.createAccount({ plan: 'free' });
        const b = await store.createAccount({ plan: 'free' });
        expect((await store.authenticate(a.key.secret))?.account.id).toBe(a.account.id);
        expect((await store.authenticate(b.key.secret))?.account.id).toBe(b.account.id);
        expect((await store.authenticate(b.key.secret))?.key.id).toBe(b.key.id);
      });

      it('authentication sees account changes at once', async () => {
        const { account, key } = await store.createAccount({ plan: 'free' });
        expect((await store.authenticate(key.secret))?.account.suspended).toBe(false);
        await store.updateAccount(account.id, { suspended: true, plan: 'business', expires_at: '2033-01-01T00:00:00.000Z' });
        expect((await store.authenticate(key.secret))?.account).toMatchObject({ suspended: true, plan: 'business' });
      });

      it('creates keys up to maxKeys, then refuses with KeyLimitError', async () => {
        const { account, key: first } = await store.createAccount({ plan: 'starter' });
        const second = await store.createKey(account.id, { name: 'web', websites: ['example.com'] }, 3);
        const third = await store.createKey(account.id, { name: 'server' }, 3);
        expect(new Set([first.secret, second.secret, third.secret]).size).toBe(3);
        for (const k of [second, third]) expect(k.secret).toMatch(secretFormat);
        expect(second).toMatchObject({ account_id: account.id, name: 'web', websites: ['example.com'], rolled_at: null });
        const refusal = store.createKey(account.id, { name: 'fourth' }, 3);
        await expect(refusal).rejects.toBeInstanceOf(KeyLimitError);
        await expect(refusal).rejects.toMatchObject({ maxKeys: 3 });
        expect((await store.listKeys(account.id)).map((k) => k.id)).toEqual([first.id, second.id, third.id]);
        for (const k of [first, second, third]) expect((await store.authenticate(k.secret))?.key.id).toBe(k.id);
        expect(await store.deleteKey(third.id)).toBe(true);
        await expect(store.createKey(account.id, { name: 'again' }, 3)).resolves.toMatchObject({ name: 'again' });
      });

      it('the free plan limit of one key refuses a second key', async () => {
        const { account } = await store.createAccount({ plan: 'free' });
        await expect(store.createKey(account.id, { name: 'second' }, 1)).rejects.toBeInstanceOf(KeyLimitError);
        expect(await store.listKeys(account.id)).toHaveLength(1);
      });

      it('updates name and websites, normalised to lower case', async () => {
        const { key } = await store.createAccount({ plan: 'free' });
        const renamed = await store.updateKey(key.id, { name: 'shop' });
        expect(renamed).toMatchObject({ id: key.id, name: 'shop', websites: [] });
        const restricted = await store.updateKey(key.id, { websites: ['Example.COM', '*.Shop.Example.com', 'example.com'] });
        expect(restricted).toMatchObject({ name: 'shop', websites: ['example.com', '*.shop.example.com'] });
        expect(await store.getKey(key.id)).toEqual(restricted);
        expect((await store.authenticate(key.secret))?.key).toEqual(restricted);
        expect(await store.updateKey(key.id, { websites: [] })).toMatchObject({ websites: [] });
        expect(await store.updateKey('key_does_not_exist', { name: 'x' })).toBeNull();
      });

      it('refuses websites that are not hosts', async () => {
        const { account, key } = await store.createAccount({ plan: 'starter' });
        const bad = [
          'https://example.com',
          'example.com/path',
          'example.com:8080',
          '*.',
          '*example.com',
          'ex ample.com',
          'exa*mple.com',
          '*.*.example.com',
          'example..com',
          '-example.com',
          '',
        ];
        for (const website of bad) {
          await expect(store.updateKey(key.id, { websites: [website] }), website).rejects.toThrow(/host/);
          await expect(store.createKey(account.id, { name: 'k', websites: [website] }, 10), website).rejects.toThrow(/host/);
        }
        expect(await store.getKey(key.id)).toMatchObject({ websites: [] });
        expect(await store.listKeys(account.id)).toHaveLength(1);
      });

      it('rolls a key: new secret works, old one fails at once, name and websites kept', async () => {
        const { account, key } = await store.createAccount({ plan: 'free' });
        await store.updateKey(key.id, { name: 'site', websites: ['*.example.org'] });
        expect(await store.authenticate(key.secret)).not.toBeNull();
        const rolled = await store.rollKey(key.id);
        expect(rolled?.secret).toMatch(secretFormat);
        expect(rolled?.secret).not.toBe(key.secret);
        expect(rolled).toMatchObject({ id: key.id, account_id: account.id, name: 'site', websites: ['*.example.org'] });
        expect(rolled?.rolled_at).not.toBeNull();
        expect(await store.authenticate(key.secret)).toBeNull();
        expect((await store.authenticate(rolled!.secret))?.key).toMatchObject({ id: key.id, name: 'site' });
        const again = await store.rollKey(key.id);
        expect(await store.authenticate(rolled!.secret)).toBeNull();
        expect((await store.authenticate(again!.secret))?.key.id).toBe(key.id);
        expect(await store.rollKey('key_does_not_exist')).toBeNull();
      });

      it('deletes a key: its secret fails at once', async () => {
        const { account, key } = await store.createAccount({ plan: 'free' });
        expect(await store.authenticate(key.secret)).not.toBeNull();
        expect(await store.deleteKey(key.id)).toBe(true);
        expect(await store.authenticate(key.secret)).toBeNull();
        expect(await store.getKey(key.id)).toBeNull();
        expect(await store.listKeys(account.id)).toEqual([]);
        expect(await store.deleteKey(key.id)).toBe(false);
        expect(await store.getAccount(account.id)).not.toBeNull();
      });

      it('never shows a secret or its hash after creation', async () => {
        const { account, key } = await store.createAccount({ plan: 'starter' });
        const extra = await store.createKey(account.id, { name: 'extra' }, 5);
        const rolled = await store.rollKey(extra.id);
        const shown = JSON.stringify([
          await store.getKey(key.id),
          await store.getKey(extra.id),
          await store.listKeys(account.id),
          await store.authenticate(key.secret),
          await store.authenticate(rolled!.secret),
          await store.getAccount(account.id),
          await store.updateKey(key.id, { name: 'renamed' }),
        ]);
        for (const secret of [key.secret, extra.secret, rolled!.secret]) {
          expect(shown).not.toContain(secret.slice(4));
        }
        expect(shown).not.toMatch(/"(secret|hash)"/);
      });
    });

    describe('quotas', () => {
      it('day quotas are per API: an exhausted ip quota leaves mac alone', async () => {
        const id = await newAccount();
        const now = at('2031-03-10T10:00:00.000Z');
        const quota = dayQuota(3);
        for (let i = 1; i <= 3; i++) {
          const d = await admit(id, plus(now, i * 10), { quota });
          expect(d).toEqual({
            outcome: 'admitted',
            quota: { limit: 3, used: i, remaining: 3 - i, period: 'day', resets_at: at('2031-03-11T00:00:00.000Z') },
          });
        }
        const over = await admit(id, plus(now, 50), { quota });
        expect(over).toMatchObject({ outcome: 'quota_exceeded', quota: { limit: 3, used: 3, remaining: 0 } });
        const mac = await admit(id, plus(now, 60), { quota, api: 'mac' });
        expect(mac).toMatchObject({ outcome: 'admitted', quota: { limit: 3, used: 1, remaining: 2 } });
        expect(await admit(id, plus(now, 70), { quota, api: 'blacklist' })).toMatchObject({ outcome: 'admitted', quota: { used: 1 } });
        expect(await admit(id, plus(now, 80), { quota })).toMatchObject({ outcome: 'quota_exceeded' });
      });

      it('month quotas are pooled across the APIs', async () => {
        const id = await newAccount('starter');
        const now = at('2031-04-15T08:00:00.000Z');
        const quota = monthQuota(5);
        const apisInOrder: Api[] = ['ip', 'ip', 'blacklist', 'blacklist', 'mac'];
        for (const [i, api] of apisInOrder.entries()) {
          expect(await admit(id, plus(now, i), { quota, api })).toEqual({
            outcome: 'admitted',
            quota: { limit: 5, used: i + 1, remaining: 4 - i, period: 'month', resets_at: at('2031-05-01T00:00:00.000Z') },
          });
        }
        for (const api of ['ip', 'blacklist', 'mac'] as const) {
          expect(await admit(id, plus(now, 10), { quota, api })).toMatchObject({ outcome: 'quota_exceeded', quota: { used: 5, remaining: 0 } });
        }
        expect((await store.usage(id, now)).month_used).toBe(5);
      });

      it('a batch of N needs N remaining: refused whole when only N-1 are left', async () => {
        const id = await newAccount('starter');
        const now = at('2031-04-20T08:00:00.000Z');
        const quota = monthQuota(10);
        expect(await admit(id, now, { quota, cost: 7 })).toMatchObject({ outcome: 'admitted', quota: { used: 7, remaining: 3 } });
        expect(await admit(id, plus(now, 1), { quota, cost: 4, api: 'blacklist' })).toMatchObject({
          outcome: 'quota_exceeded',
          quota: { used: 7, remaining: 3 },
        });
        expect(await store.usage(id, now)).toEqual({ today: { ip: 7, blacklist: 0, mac: 0, rejected: 1 }, month_used: 7 });
        expect(await admit(id, plus(now, 2), { quota, cost: 3, api: 'blacklist' })).toMatchObject({
          outcome: 'admitted',
          quota: { used: 10, remaining: 0 },
        });
        expect(await admit(id, plus(now, 3), { quota, cost: 1 })).toMatchObject({ outcome: 'quota_exceeded' });
      });

      it('a day quota resets at 00:00 UTC', async () => {
        const id = await newAccount();
        const quota = dayQuota(2);
        const lastDay = at('2031-03-14T23:59:58.000Z');
        await admit(id, lastDay, { quota });
        await admit(id, plus(lastDay, 1000), { quota });
        const before = await admit(id, at('2031-03-14T23:59:59.999Z'), { quota });
        expect(before).toEqual({
          outcome: 'quota_exceeded',
          quota: { limit: 2, used: 2, remaining: 0, period: 'day', resets_at: at('2031-03-15T00:00:00.000Z') },
        });
        const after = await admit(id, at('2031-03-15T00:00:00.000Z'), { quota });
        expect(after).toEqual({
          outcome: 'admitted',
          quota: { limit: 2, used: 1, remaining: 1, period: 'day', resets_at: at('2031-03-16T00:00:00.000Z') },
        });
        expect((await store.usage(id, at('2031-03-15T12:00:00.000Z'))).today).toEqual({ ip: 1, blacklist: 0, mac: 0, rejected: 0 });
        expect((await store.usage(id, at('2031-03-14T12:00:00.000Z'))).today).toEqual({ ip: 2, blacklist: 0, mac: 0, rejected: 1 });
      });

      it('a month quota resets at 00:00 UTC on the 1st, not at a day boundary', async () => {
        const id = await newAccount('starter');
        const quota = monthQuota(3);
        await admit(id, at('2031-01-30T10:00:00.000Z'), { quota, cost: 2 });
        expect(await admit(id, at('2031-01-31T10:00:00.000Z'), { quota, api: 'mac' })).toMatchObject({
          outcome: 'admitted',
          quota: { used: 3, remaining: 0 },
        });
        expect(await admit(id, at('2031-01-31T23:59:59.999Z'), { quota })).toEqual({
          outcome: 'quota_exceeded',
          quota: { limit: 3, used: 3, remaining: 0, period: 'month', resets_at: at('2031-02-01T00:00:00.000Z') },
        });
        expect(await admit(id, at('2031-02-01T00:00:00.000Z'), { quota })).toEqual({
          outcome: 'admitted',
          quota: { limit: 3, used: 1, remaining: 2, period: 'month', resets_at: at('2031-03-01T00:00:00.000Z') },
        });
        expect((await store.usage(id, at('2031-01-31T12:00:00.000Z'))).month_used).toBe(3);
        expect((await store.usage(id, at('2031-02-01T12:00:00.000Z'))).month_used).toBe(1);
      });

      it('resets_at: next midnight UTC, first of next month, across the year end', async () => {
        const id = await newAccount('starter');
        const cases: [string, QuotaRule, string][] = [
          ['2031-12-31T23:59:59.999Z', dayQuota(100), '2032-01-01T00:00:00.000Z'],
          ['2031-12-31T23:59:59.999Z', monthQuota(100), '2032-01-01T00:00:00.000Z'],
          ['2032-01-01T00:00:00.000Z', dayQuota(100), '2032-01-02T00:00:00.000Z'],
          ['2032-01-01T00:00:00.000Z', monthQuota(100), '2032-02-01T00:00:00.000Z'],
          ['2032-02-28T13:00:00.000Z', dayQuota(100), '2032-02-29T00:00:00.000Z'],
          ['2032-02-29T13:00:00.000Z', monthQuota(100), '2032-03-01T00:00:00.000Z'],
        ];
        for (const [now, quota, reset] of cases) {
          expect((await admit(id, at(now), { quota })).quota.resets_at, `${now} ${quota.period}`).toEqual(at(reset));
        }
      });

      it('refused, rate-limited and quota-exceeded requests count as rejected, never against the quota', async () => {
        const id = await newAccount();
        const now = at('2031-05-05T05:05:05.000Z');
        const quota = dayQuota(2);
        expect(await admit(id, now, { quota, consume: false, cost: 1 })).toEqual({
          outcome: 'refused',
          quota: { limit: 2, used: 0, remaining: 2, period: 'day', resets_at: at('2031-05-06T00:00:00.000Z') },
        });
        expect(await admit(id, plus(now, 1), { quota, rate_limit_per_second: 2 })).toMatchObject({ outcome: 'admitted', quota: { used: 1 } });
        expect(await admit(id, plus(now, 2), { quota, rate_limit_per_second: 2 })).toMatchObject({ outcome: 'rate_limited', quota: { used: 1, remaining: 1 } });
        expect(await admit(id, plus(now, 2000), { quota })).toMatchObject({ outcome: 'admitted', quota: { used: 2 } });
        expect(await admit(id, plus(now, 2001), { quota })).toMatchObject({ outcome: 'quota_exceeded', quota: { used: 2 } });
        expect(await admit(id, plus(now, 2002), { quota, consume: false })).toMatchObject({ outcome: 'refused', quota: { used: 2 } });
        expect(await store.usage(id, now)).toEqual({ today: { ip: 2, blacklist: 0, mac: 0, rejected: 4 }, month_used: 2 });
      });
    });

    describe('rate window', () => {
      it('admits `limit` requests within one second, refuses the next, admits again 1 s after the oldest', async () => {
        const id = await newAccount();
        const t0 = at('2031-06-01T12:00:00.500Z');
        const r = (ms: number) => admit(id, plus(t0, ms), { rate_limit_per_second: 3 }).then((d) => d.outcome);
        expect(await r(0)).toBe('admitted');
        expect(await r(100)).toBe('admitted');
        expect(await r(200)).toBe('admitted');
        expect(await r(300)).toBe('rate_limited');
        expect(await r(999)).toBe('rate_limited');
        // the second boundary (t0 + 500 ms) does not reset anything
        expect(await r(1000)).toBe('admitted');
        expect(await r(1050)).toBe('rate_limited');
        expect(await r(1100)).toBe('admitted');
        expect(await r(1200)).toBe('admitted');
        expect(await r(1201)).toBe('rate_limited');
        expect((await store.usage(id, t0)).today).toEqual({ ip: 6, blacklist: 0, mac: 0, rejected: 4 });
      });

      it('rate-limited requests take no place in the window; requests refused after the rate check do', async () => {
        const id = await newAccount();
        const t0 = at('2031-06-02T12:00:00.000Z');
        const r = (ms: number, consume = true) => admit(id, plus(t0, ms), { rate_limit_per_second: 2, consume }).then((d) => d.outcome);
        expect(await r(0)).toBe('admitted');
        expect(await r(10, false)).toBe('refused');
        for (let ms = 20; ms < 1000; ms += 50) expect(await r(ms)).toBe('rate_limited');
        expect(await r(1000)).toBe('admitted');
        expect(await r(1009)).toBe('rate_limited');
        expect(await r(1010)).toBe('admitted');
      });

      it('is kept per account', async () => {
        const a = await newAccount();
        const b = await newAccount();
        const now = at('2031-06-03T12:00:00.000Z');
        expect((await admit(a, now, { rate_limit_per_second: 1 })).outcome).toBe('admitted');
        expect((await admit(a, plus(now, 1), { rate_limit_per_second: 1 })).outcome).toBe('rate_limited');
        expect((await admit(b, plus(now, 1), { rate_limit_per_second: 1 })).outcome).toBe('admitted');
      });

      it('never more than `limit` in any sliding second, and refuses only when `limit` are in it', async () => {
        const id = await newAccount();
        // Each run starts far after the previous one, so runs never share a window.
        let base = at('2031-07-01T00:00:00.000Z').getTime();
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 1, max: 6 }),
            fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), consume: fc.boolean() }), { minLength: 1, maxLength: 40 }),
            async (limit, arrivals) => {
              base += 1_000_000;
              let t = base;
              const placed: number[] = [];
              for (const { gap, consume } of arrivals) {
                t += gap;
                const { outcome } = await admit(id, new Date(t), { rate_limit_per_second: limit, consume });
                const inWindow = placed.filter((p) => p > t - 1000).length;
                if (outcome === 'rate_limited') {
                  expect(inWindow).toBe(limit);
                } else {
                  expect(inWindow).toBeLessThan(limit);
                  placed.push(t);
                }
              }
              for (const p of placed) expect(placed.filter((q) => q > p - 1000 && q <= p).length).toBeLessThanOrEqual(limit);
            },
          ),
          { numRuns: 150 },
        );
      });
    });

    describe('usage', () => {
      it('counts lookups by API and cost, rejected requests, and the pooled month', async () => {
        const id = await newAccount('starter');
        const yesterday = at('2031-08-14T09:00:00.000Z');
        const today = at('2031-08-15T09:00:00.000Z');
        const quota = monthQuota(1000);
        await admit(id, yesterday, { quota, api: 'mac', cost: 4 });
        await admit(id, today, { quota, api: 'ip', cost: 5 });
        await admit(id, plus(today, 1), { quota, api: 'blacklist' });
        await admit(id, plus(today, 2), { quota, api: 'mac', cost: 2 });
        await admit(id, plus(today, 3), { quota, api: 'ip', consume: false });
        await store.countRejected(id, plus(today, 4));
        expect(await store.usage(id, plus(today, 5))).toEqual({ today: { ip: 5, blacklist: 1, mac: 2, rejected: 2 }, month_used: 12 });
        expect(await store.usage(id, yesterday)).toEqual({ today: { ip: 0, blacklist: 0, mac: 4, rejected: 0 }, month_used: 12 });
        expect(await store.usage(id, at('2031-09-01T00:00:00.000Z'))).toEqual({ today: { ip: 0, blacklist: 0, mac: 0, rejected: 0 }, month_used: 0 });
      });

      it('countRejected counts in today.rejected only, on the day of `now`', async () => {
        const id = await newAccount();
        const now = at('2031-09-09T23:59:59.999Z');
        await store.countRejected(id, now);
        await store.countRejected(id, now);
        await store.countRejected(id, plus(now, 1));
        expect(await store.usage(id, now)).toEqual({ today: { ip: 0, blacklist: 0, mac: 0, rejected: 2 }, month_used: 0 });
        expect(await store.usage(id, plus(now, 1))).toEqual({ today: { ip: 0, blacklist: 0, mac: 0, rejected: 1 }, month_used: 0 });
        expect(await admit(id, now, { quota: dayQuota(1) })).toMatchObject({ outcome: 'admitted', quota: { used: 1, remaining: 0 } });
      });

      it('refund gives back what an admission used, day and month, and counts the request as rejected', async () => {
        const id = await newAccount();
        const now = at('2031-09-10T10:00:00.000Z');
        const request: AdmitRequest = { account_id: id, api: 'blacklist', cost: 3, rate_limit_per_second: 1000, quota: monthQuota(4), consume: true, now };
        expect((await store.admit(request)).outcome).toBe('admitted');
        await store.refund(request);
        expect(await store.usage(id, now)).toEqual({ today: { ip: 0, blacklist: 0, mac: 0, rejected: 1 }, month_used: 0 });
        // The quota given back is usable again.
        expect(await admit(id, plus(now, 1), { api: 'blacklist', cost: 4, quota: monthQuota(4) })).toMatchObject({ outcome: 'admitted', quota: { used: 4, remaining: 0 } });
      });

      it('an account without traffic has zero usage', async () => {
        const id = await newAccount();
        expect(await store.usage(id, at('2031-10-10T10:00:00.000Z'))).toEqual({
          today: { ip: 0, blacklist: 0, mac: 0, rejected: 0 },
          month_used: 0,
        });
      });
    });

    it('is healthy while open', async () => {
      expect(await store.healthy()).toBe(true);
    });
  });
}
