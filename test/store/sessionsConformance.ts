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
const tokenHash = () => crypto.createHash('sha256').update(crypto.randomBytes(32)).digest('hex');

/** A session begun now (the real clock, to the millisecond) for `hours`. */
function accountSession(hours = 8): DashboardSession {
  const createdAt = new Date();
  return {
    kind: 'account',
    account_id: `acc_${crypto.randomBytes(8).toString('hex')}`,
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
      await sessions().create(hash, session);
      expect(await sessions().get(hash, now)).toEqual(session);
      await sessions().delete(hash);
      expect(await sessions().get(hash, now)).toBeNull();
      // deleting what is gone is no error
      await sessions().delete(hash);
    });

    it("keeps an operator's session, without account or key", async () => {
      const hash = tokenHash();
      const session: DashboardSession = { ...accountSession(1), kind: 'operator', account_id: null, key_id: null, credential_stamp: null };
      await sessions().create(hash, session);
      expect(await sessions().get(hash, plus(session.created_at, 1))).toEqual(session);
    });

    it('a session has expired at the exact instant of its expires_at', async () => {
      const hash = tokenHash();
      const session = accountSession();
      await sessions().create(hash, session);
      expect(await sessions().get(hash, plus(session.expires_at, -1))).toEqual(session);
      expect(await sessions().get(hash, plus(session.expires_at, 0))).toBeNull();
      expect(await sessions().get(hash, plus(session.expires_at, HOUR_MS))).toBeNull();
    });

    it('two sessions are independent: ending one leaves the other', async () => {
      const [first, second] = [tokenHash(), tokenHash()];
      const [a, b] = [accountSession(), accountSession(2)];
      await sessions().create(first, a);
      await sessions().create(second, b);
      const now = plus(a.created_at, 1000);
      expect(await sessions().get(first, now)).toEqual(a);
      expect(await sessions().get(second, now)).toEqual(b);
      await sessions().delete(first);
      expect(await sessions().get(first, now)).toBeNull();
      expect(await sessions().get(second, now)).toEqual(b);
      // b lasts 2 hours, a 8: each expires on its own
      expect(await sessions().get(second, plus(b.expires_at, 0))).toBeNull();
    });

    it('stores instants as ISO 8601 UTC', async () => {
      const hash = tokenHash();
      const session = accountSession();
      const offsetForm = { ...session, expires_at: session.expires_at.replace('Z', '+00:00') };
      await sessions().create(hash, offsetForm);
      expect(await sessions().get(hash, plus(session.created_at, 1))).toEqual(session);
    });

    it('refuses a malformed token hash or session; answers nothing for a malformed hash', async () => {
      const session = accountSession();
      for (const bad of ['', 'abc', tokenHash().toUpperCase(), `${tokenHash()}0`, tokenHash().replace(/^./, 'g')]) {
        await expect(sessions().create(bad, session), bad).rejects.toBeInstanceOf(StoreInputError);
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
      for (const bad of refusals) await expect(sessions().create(tokenHash(), bad)).rejects.toBeInstanceOf(StoreInputError);
    });

    it('a session is kept when the store is closed and opened again', async () => {
      const hash = tokenHash();
      const session = accountSession();
      await sessions().create(hash, session);
      await shared.reopen();
      expect(await sessions().get(hash, plus(session.created_at, 1000))).toEqual(session);
    });

    it('answers unavailable once closed', async () => {
      const hash = tokenHash();
      const session = accountSession();
      await sessions().create(hash, session);
      await shared.store.close();
      await expect(sessions().get(hash, new Date())).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(sessions().create(tokenHash(), session)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(sessions().delete(hash)).rejects.toBeInstanceOf(StoreUnavailableError);
      await shared.reopen();
    });
  });
}
