/**
 * The conformance suite of every SessionStore (src/store/store.ts, `Store.sessions`): dashboard
 * sessions by the SHA-256 of their token, through the interface and injected `now` values only.
 * Sessions begin at the real clock (the stores' TTLs and purges run from created_at), and each test
 * takes fresh token hashes, so the tests share one opened store; one reopens it.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StoreInputError } from '../../src/store/storeInput.js';
import { StoreUnavailableError, type DashboardSession, type Store } from '../../src/store/store.js';
import { sharedStore } from './sharedStore.js';

const HOUR_MS = 3_600_000;
/** the cap of the tests that are not about it */
const KEEP = 20;
const tokenHash = () => crypto.createHash('sha256').update(crypto.randomBytes(32)).digest('hex');

/** A session begun now (the real clock, to the millisecond) for `hours`, of a new account or of `accountId`. */
function accountSession(hours = 8, accountId = `acc_${crypto.randomBytes(8).toString('hex')}`): DashboardSession {
  const createdAt = new Date();
  return {
    kind: 'account',
    account_id: accountId,
    key_id: `key_${crypto.randomBytes(8).toString('hex')}`,
    credential_stamp: '2026-01-02T03:04:05.678Z',
    created_at: createdAt.toISOString(),
    expires_at: new Date(createdAt.getTime() + hours * HOUR_MS).toISOString(),
  };
}

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms);

export function sessionsConformance(name: string, open: () => Promise<Store>, cleanup?: () => Promise<void>): void {
  describe(`SessionStore conformance: ${name}`, () => {
    const shared = sharedStore(open, cleanup);
    const sessions = () => shared.store.sessions;

    it('creates, reads and deletes a session', async () => {
      const hash = tokenHash();
      const session = accountSession();
      const now = plus(session.created_at, 1000);
      expect(await sessions().get(hash, now)).toBeNull();
      await sessions().create(hash, session, KEEP);
      expect(await sessions().get(hash, now)).toEqual(session);
      await sessions().delete(hash);
      expect(await sessions().get(hash, now)).toBeNull();
      // deleting what is gone is no error
      await sessions().delete(hash);
    });

    it("keeps an operator's session, without account or key", async () => {
      const hash = tokenHash();
      const session: DashboardSession = { ...accountSession(1), kind: 'operator', account_id: null, key_id: null, credential_stamp: null };
      await sessions().create(hash, session, KEEP);
      expect(await sessions().get(hash, plus(session.created_at, 1))).toEqual(session);
    });

    it('a session has expired at the exact instant of its expires_at', async () => {
      const hash = tokenHash();
      const session = accountSession();
      await sessions().create(hash, session, KEEP);
      expect(await sessions().get(hash, plus(session.expires_at, -1))).toEqual(session);
      expect(await sessions().get(hash, plus(session.expires_at, 0))).toBeNull();
      expect(await sessions().get(hash, plus(session.expires_at, HOUR_MS))).toBeNull();
    });

    it('two sessions are independent: ending one leaves the other', async () => {
      const [first, second] = [tokenHash(), tokenHash()];
      const [a, b] = [accountSession(), accountSession(2)];
      await sessions().create(first, a, KEEP);
      await sessions().create(second, b, KEEP);
      const now = plus(a.created_at, 1000);
      expect(await sessions().get(first, now)).toEqual(a);
      expect(await sessions().get(second, now)).toEqual(b);
      await sessions().delete(first);
      expect(await sessions().get(first, now)).toBeNull();
      expect(await sessions().get(second, now)).toEqual(b);
      // b lasts 2 hours, a 8: each expires on its own
      expect(await sessions().get(second, plus(b.expires_at, 0))).toBeNull();
    });

    it("past `keep`, a new session ends its account's sessions nearest their end; other accounts' stay", async () => {
      const account = `acc_${crypto.randomBytes(8).toString('hex')}`;
      // each a millisecond further from its end than the one before (they begin on the real clock)
      const made = Array.from({ length: 4 }, (_, i) => ({ hash: tokenHash(), session: accountSession(8 + i / HOUR_MS, account) }));
      const neighbour = { hash: tokenHash(), session: accountSession(1) };
      expect(await sessions().create(neighbour.hash, neighbour.session, 1)).toBe(0);
      for (const { hash, session } of made.slice(0, 3)) expect(await sessions().create(hash, session, 3)).toBe(0);
      const now = plus(made[0].session.created_at, 1000);
      expect(await sessions().create(made[3].hash, made[3].session, 3)).toBe(1);
      const live = async () => Promise.all(made.map(async ({ hash }) => (await sessions().get(hash, now)) !== null));
      expect(await live()).toEqual([false, true, true, true]);
      expect(await sessions().get(neighbour.hash, now)).toEqual(neighbour.session);
      // a lower cap ends all but the ones that end last, the new one included
      const newest = { hash: tokenHash(), session: accountSession(9, account) };
      expect(await sessions().create(newest.hash, newest.session, 2)).toBe(2);
      expect([...(await live()), (await sessions().get(newest.hash, now)) !== null]).toEqual([false, false, false, true, true]);
    });

    it('counts only live sessions: a deleted or expired one frees its place', async () => {
      const account = `acc_${crypto.randomBytes(8).toString('hex')}`;
      const [first, second, third] = [tokenHash(), tokenHash(), tokenHash()];
      const brief = { ...accountSession(8, account), expires_at: new Date(Date.now() + 300).toISOString() };
      await sessions().create(first, brief, 2);
      await sessions().create(second, accountSession(8, account), 2);
      await sessions().delete(second);
      const kept = accountSession(8, account);
      expect(await sessions().create(third, kept, 2)).toBe(0);
      expect(await sessions().get(first, plus(kept.created_at, 1))).toEqual(brief);
      // once the first has expired, a new sign-in (at its own instant) finds one live session
      await expect.poll(() => Date.now(), { interval: 50 }).toBeGreaterThan(Date.parse(brief.expires_at));
      const later = accountSession(8, account);
      expect(await sessions().create(tokenHash(), later, 2)).toBe(0);
      expect(await sessions().get(third, plus(later.created_at, 1))).toEqual(kept);
    });

    it("caps the operator's sessions on their own, apart from every account's", async () => {
      const operator = (): DashboardSession => ({
        ...accountSession(8),
        kind: 'operator',
        account_id: null,
        key_id: null,
        credential_stamp: null,
      });
      const made: string[] = [];
      for (let i = 0; i < 3; i++) {
        const hash = tokenHash();
        made.push(hash);
        await sessions().create(hash, { ...operator(), expires_at: new Date(Date.now() + 8 * HOUR_MS + i).toISOString() }, 2);
      }
      const now = new Date();
      const live = await Promise.all(made.map(async (hash) => (await sessions().get(hash, now)) !== null));
      expect(live).toEqual([false, true, true]);
      const holder = tokenHash();
      await sessions().create(holder, accountSession(8), 1);
      expect(await sessions().get(made[2], now)).not.toBeNull();
      expect(await sessions().get(holder, now)).not.toBeNull();
      // the operator's sessions of other tests do not matter: a fresh cap of 2 keeps these two
      for (const hash of made) await sessions().delete(hash);
    });

    it('refuses a cap that is not a whole number from 1', async () => {
      for (const keep of [0, -1, 1.5, Number.NaN])
        await expect(sessions().create(tokenHash(), accountSession(), keep), String(keep)).rejects.toBeInstanceOf(StoreInputError);
    });

    it('stores instants as ISO 8601 UTC', async () => {
      const hash = tokenHash();
      const session = accountSession();
      const offsetForm = { ...session, expires_at: session.expires_at.replace('Z', '+00:00') };
      await sessions().create(hash, offsetForm, KEEP);
      expect(await sessions().get(hash, plus(session.created_at, 1))).toEqual(session);
    });

    it('refuses a malformed token hash or session; answers nothing for a malformed hash', async () => {
      const session = accountSession();
      for (const bad of ['', 'abc', tokenHash().toUpperCase(), `${tokenHash()}0`, tokenHash().replace(/^./, 'g')]) {
        await expect(sessions().create(bad, session, KEEP), bad).rejects.toBeInstanceOf(StoreInputError);
        expect(await sessions().get(bad, new Date())).toBeNull();
        await sessions().delete(bad);
      }
      const refusals: DashboardSession[] = [
        { ...session, kind: 'admin' as never },
        { ...session, expires_at: session.created_at },
        { ...session, expires_at: 'tomorrow' },
        { ...session, created_at: 'now' },
        { ...session, account_id: 42 as never },
      ];
      for (const bad of refusals) await expect(sessions().create(tokenHash(), bad, KEEP)).rejects.toBeInstanceOf(StoreInputError);
    });

    it('a session is kept when the store is closed and opened again', async () => {
      const hash = tokenHash();
      const session = accountSession();
      await sessions().create(hash, session, KEEP);
      await shared.reopen();
      expect(await sessions().get(hash, plus(session.created_at, 1000))).toEqual(session);
    });

    it('answers unavailable once closed', async () => {
      const hash = tokenHash();
      const session = accountSession();
      await sessions().create(hash, session, KEEP);
      await shared.store.close();
      await expect(sessions().get(hash, new Date())).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(sessions().create(tokenHash(), session, KEEP)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(sessions().delete(hash)).rejects.toBeInstanceOf(StoreUnavailableError);
      await shared.reopen();
    });
  });
}
