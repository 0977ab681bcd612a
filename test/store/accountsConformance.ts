/**
 * The conformance suite of every AccountStore (src/store/store.ts): accounts, their keys and
 * authentication, the operator's account list and the keys' last use, through the interface only,
 * nothing of one implementation. Each test makes its own accounts, so the tests share one opened
 * store; the tests of a key's last use close and open it again, which writes what was noted.
 */
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { StoreInputError } from '../../src/store/storeInput.js';
import { KeyLimitError, type Account, type AccountStore, type Store } from '../../src/store/store.js';
import { sharedStore } from './sharedStore.js';
import { elapse } from '../until.js';

const secretFormat = /^nlk_[0-9a-f]{40}$/;
const unknownSecret = `nlk_${'0123456789'.repeat(4)}`;

export function accountsConformance(name: string, open: () => Promise<Store>, cleanup?: () => Promise<void>): void {
  describe(`AccountStore conformance: ${name}`, () => {
    const shared = sharedStore(open, cleanup);
    let accounts: AccountStore;

    beforeAll(() => {
      accounts = shared.store.accounts;
    });

    const newAccount = async () => (await accounts.createAccount({ plan: 'free' })).account.id;

    /** The store closed (writing what it holds in memory) and opened again, and its accounts. */
    const reopen = async () => {
      await shared.reopen();
      accounts = shared.store.accounts;
    };

    describe('accounts', () => {
      it('creates, reads and counts accounts', async () => {
        const before = await accounts.countAccounts();
        const { account } = await accounts.createAccount({
          plan: 'starter',
          expires_at: '2031-06-30T00:00:00.000Z',
          email: 'ops@example.com',
        });
        expect(account.id).toMatch(/^acc_[0-9a-z]+$/);
        expect(account).toMatchObject({
          plan: 'starter',
          expires_at: '2031-06-30T00:00:00.000Z',
          suspended: false,
          email: 'ops@example.com',
        });
        expect(Number.isNaN(Date.parse(account.created_at))).toBe(false);
        expect(await accounts.getAccount(account.id)).toEqual(account);
        expect(await accounts.countAccounts()).toBe(before + 1);
        expect(await accounts.getAccount('acc_does_not_exist')).toBeNull();
      });

      it('gives a free account no expiry and no email by default', async () => {
        const { account } = await accounts.createAccount({ plan: 'free' });
        expect(account).toMatchObject({ plan: 'free', expires_at: null, suspended: false, email: null });
        await expect(accounts.createAccount({ plan: 'free', expires_at: '2031-01-01T00:00:00.000Z' })).rejects.toThrow(/paid/);
      });

      it('ids are not counters', async () => {
        const a = await newAccount();
        const b = await newAccount();
        expect(a).not.toBe(b);
        expect(a.replace(/^acc_/, '')).toMatch(/[0-9a-z]{8,}/);
      });

      it('updates plan, expiry, suspension and email', async () => {
        const id = await newAccount();
        const paid = await accounts.updateAccount(id, { plan: 'pro', expires_at: '2032-02-29T12:00:00.000Z' });
        expect(paid).toMatchObject({ id, plan: 'pro', expires_at: '2032-02-29T12:00:00.000Z', suspended: false });
        const suspended = await accounts.updateAccount(id, { suspended: true, email: 'a@b.example' });
        expect(suspended).toMatchObject({ plan: 'pro', expires_at: '2032-02-29T12:00:00.000Z', suspended: true, email: 'a@b.example' });
        expect(await accounts.getAccount(id)).toEqual(suspended);
        const back = await accounts.updateAccount(id, { plan: 'free', suspended: false });
        expect(back).toMatchObject({ plan: 'free', expires_at: null, suspended: false });
        expect(await accounts.updateAccount('acc_does_not_exist', { suspended: true })).toBeNull();
      });

      it('refuses an unknown plan', async () => {
        const id = await newAccount();
        await expect(accounts.updateAccount(id, { plan: 'gold' as never })).rejects.toThrow(/plan/);
        expect((await accounts.getAccount(id))?.plan).toBe('free');
      });
    });

    describe('keys', () => {
      it('creates the first key with the account (SPEC 5.2)', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'free' });
        expect(key.secret).toMatch(secretFormat);
        expect(key).toMatchObject({ account_id: account.id, name: 'default', websites: [], rolled_at: null });
        expect(key.id).toMatch(/^key_[0-9a-z]+$/);
        const { secret, ...shown } = key;
        expect(secret).toBeTruthy();
        expect(await accounts.listKeys(account.id)).toEqual([shown]);
        expect(await accounts.getKey(key.id)).toEqual(shown);
      });

      it('authenticates the secret to its key and account', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'free' });
        const found = await accounts.authenticate(key.secret);
        expect(found?.account).toEqual(account);
        expect(found?.key.id).toBe(key.id);
        expect(await accounts.authenticate(key.secret)).toEqual(found);
      });

      it('refuses wrong, malformed and unknown secrets', async () => {
        const { key } = await accounts.createAccount({ plan: 'free' });
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
        for (const text of malformed) expect(await accounts.authenticate(text)).toBeNull();
        expect(await accounts.authenticate(unknownSecret)).toBeNull();
        const flipped = key.secret.slice(0, -1) + (key.secret.endsWith('0') ? '1' : '0');
        expect(await accounts.authenticate(flipped)).toBeNull();
      });

      it('a secret authenticated before opens nothing to its near misses', async () => {
        const { key } = await accounts.createAccount({ plan: 'free' });
        expect(await accounts.authenticate(key.secret)).not.toBeNull();
        expect(await accounts.authenticate(key.secret)).not.toBeNull();
        const hex = key.secret.slice(4);
        const flip = (digit: string) => (digit === '0' ? '1' : '0');
        const nearMisses = [`nlk_${hex.slice(0, -1)}${flip(hex.at(-1)!)}`, `nlk_${flip(hex[0])}${hex.slice(1)}`, key.secret.toUpperCase()];
        for (const text of nearMisses) expect(await accounts.authenticate(text)).toBeNull();
        expect((await accounts.authenticate(key.secret))?.key.id).toBe(key.id);
      });

      it("another account's secret authenticates to that account only", async () => {
        const a = await accounts.createAccount({ plan: 'free' });
        const b = await accounts.createAccount({ plan: 'free' });
        expect((await accounts.authenticate(a.key.secret))?.account.id).toBe(a.account.id);
        expect((await accounts.authenticate(b.key.secret))?.account.id).toBe(b.account.id);
        expect((await accounts.authenticate(b.key.secret))?.key.id).toBe(b.key.id);
      });

      it('authentication sees account changes at once', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'free' });
        expect((await accounts.authenticate(key.secret))?.account.suspended).toBe(false);
        await accounts.updateAccount(account.id, { suspended: true, plan: 'business', expires_at: '2033-01-01T00:00:00.000Z' });
        expect((await accounts.authenticate(key.secret))?.account).toMatchObject({ suspended: true, plan: 'business' });
      });

      it('creates keys up to maxKeys, then refuses with KeyLimitError', async () => {
        const { account, key: first } = await accounts.createAccount({ plan: 'starter' });
        const second = await accounts.createKey(account.id, { name: 'web', websites: ['example.com'] }, 3);
        const third = await accounts.createKey(account.id, { name: 'server' }, 3);
        expect(new Set([first.secret, second.secret, third.secret]).size).toBe(3);
        for (const k of [second, third]) expect(k.secret).toMatch(secretFormat);
        expect(second).toMatchObject({ account_id: account.id, name: 'web', websites: ['example.com'], rolled_at: null });
        const refusal = accounts.createKey(account.id, { name: 'fourth' }, 3);
        await expect(refusal).rejects.toBeInstanceOf(KeyLimitError);
        await expect(refusal).rejects.toMatchObject({ maxKeys: 3 });
        expect((await accounts.listKeys(account.id)).map((k) => k.id)).toEqual([first.id, second.id, third.id]);
        for (const k of [first, second, third]) expect((await accounts.authenticate(k.secret))?.key.id).toBe(k.id);
        expect(await accounts.deleteKey(third.id)).toBe(true);
        await expect(accounts.createKey(account.id, { name: 'again' }, 3)).resolves.toMatchObject({ name: 'again' });
      });

      it('the free plan limit of one key refuses a second key', async () => {
        const { account } = await accounts.createAccount({ plan: 'free' });
        await expect(accounts.createKey(account.id, { name: 'second' }, 1)).rejects.toBeInstanceOf(KeyLimitError);
        expect(await accounts.listKeys(account.id)).toHaveLength(1);
      });

      it('updates name and websites, normalised to lower case', async () => {
        const { key } = await accounts.createAccount({ plan: 'free' });
        const renamed = await accounts.updateKey(key.id, { name: 'shop' });
        expect(renamed).toMatchObject({ id: key.id, name: 'shop', websites: [] });
        const restricted = await accounts.updateKey(key.id, { websites: ['Example.COM', '*.Shop.Example.com', 'example.com'] });
        expect(restricted).toMatchObject({ name: 'shop', websites: ['example.com', '*.shop.example.com'] });
        expect(await accounts.getKey(key.id)).toEqual(restricted);
        expect((await accounts.authenticate(key.secret))?.key).toEqual(restricted);
        expect(await accounts.updateKey(key.id, { websites: [] })).toMatchObject({ websites: [] });
        expect(await accounts.updateKey('key_does_not_exist', { name: 'x' })).toBeNull();
      });

      it('refuses websites that are not hosts', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'starter' });
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
          await expect(accounts.updateKey(key.id, { websites: [website] }), website).rejects.toThrow(/host/);
          await expect(accounts.createKey(account.id, { name: 'k', websites: [website] }, 10), website).rejects.toThrow(/host/);
        }
        expect(await accounts.getKey(key.id)).toMatchObject({ websites: [] });
        expect(await accounts.listKeys(account.id)).toHaveLength(1);
      });

      it('rolls a key: new secret works, old one fails at once, name and websites kept', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'free' });
        await accounts.updateKey(key.id, { name: 'site', websites: ['*.example.org'] });
        expect(await accounts.authenticate(key.secret)).not.toBeNull();
        const rolled = await accounts.rollKey(key.id);
        expect(rolled?.secret).toMatch(secretFormat);
        expect(rolled?.secret).not.toBe(key.secret);
        expect(rolled).toMatchObject({ id: key.id, account_id: account.id, name: 'site', websites: ['*.example.org'] });
        expect(rolled?.rolled_at).not.toBeNull();
        expect(await accounts.authenticate(key.secret)).toBeNull();
        expect((await accounts.authenticate(rolled!.secret))?.key).toMatchObject({ id: key.id, name: 'site' });
        const again = await accounts.rollKey(key.id);
        expect(await accounts.authenticate(rolled!.secret)).toBeNull();
        expect((await accounts.authenticate(again!.secret))?.key.id).toBe(key.id);
        expect(await accounts.rollKey('key_does_not_exist')).toBeNull();
      });

      it('deletes a key: its secret fails at once', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'free' });
        expect(await accounts.authenticate(key.secret)).not.toBeNull();
        expect(await accounts.deleteKey(key.id)).toBe(true);
        expect(await accounts.authenticate(key.secret)).toBeNull();
        expect(await accounts.getKey(key.id)).toBeNull();
        expect(await accounts.listKeys(account.id)).toEqual([]);
        expect(await accounts.deleteKey(key.id)).toBe(false);
        expect(await accounts.getAccount(account.id)).not.toBeNull();
      });

      it('never shows a secret or its hash after creation', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'starter' });
        const extra = await accounts.createKey(account.id, { name: 'extra' }, 5);
        const rolled = await accounts.rollKey(extra.id);
        const shown = JSON.stringify([
          await accounts.getKey(key.id),
          await accounts.getKey(extra.id),
          await accounts.listKeys(account.id),
          await accounts.authenticate(key.secret),
          await accounts.authenticate(rolled!.secret),
          await accounts.getAccount(account.id),
          await accounts.updateKey(key.id, { name: 'renamed' }),
        ]);
        for (const secret of [key.secret, extra.secret, rolled!.secret]) {
          expect(shown).not.toContain(secret.slice(4));
        }
        expect(shown).not.toMatch(/"(secret|hash)"/);
      });
    });

    describe('account list', () => {
      /** Accounts created one after another, each a few milliseconds after the one before: newest last. */
      const createInTurn = async (emails: (string | null)[]): Promise<Account[]> => {
        const created: Account[] = [];
        for (const email of emails) {
          // a pace: creation times a few milliseconds apart
          await elapse(3);
          created.push((await accounts.createAccount({ plan: 'free', email })).account);
        }
        return created;
      };
      const ids = (list: Account[]) => list.map((a) => a.id);

      it('searches e-mails anywhere and ids from their start, ignoring case, newest first', async () => {
        const tag = crypto.randomBytes(5).toString('hex');
        const created = await createInTurn([
          `ann.${tag}@example.com`,
          `Bob.${tag.toUpperCase()}@Example.ORG`,
          null,
          `carla@${tag}.example.net`,
          `under_score.${tag}@example.com`,
        ]);
        const withTag = created.filter((a) => a.email !== null);
        const newestFirst = [...withTag].reverse();

        for (const search of [tag, tag.toUpperCase(), ` ${tag} `]) {
          const page = await accounts.listAccounts({ search, offset: 0, limit: 100 });
          expect(page.total, search).toBe(4);
          expect(ids(page.accounts), search).toEqual(ids(newestFirst));
        }
        expect(await accounts.listAccounts({ search: `BOB.${tag}`, offset: 0, limit: 10 })).toEqual({ total: 1, accounts: [withTag[1]] });
        expect((await accounts.listAccounts({ search: `${tag}@EXAMPLE.com`, offset: 0, limit: 10 })).accounts).toEqual([
          withTag[3],
          withTag[0],
        ]);

        // an id from its start (any case), not from its middle
        const target = created[2];
        const byId = await accounts.listAccounts({ search: target.id.slice(0, 14).toUpperCase(), offset: 0, limit: 100 });
        expect(byId.accounts).toContainEqual(target);
        for (const found of byId.accounts) expect(found.id.startsWith(target.id.slice(0, 14))).toBe(true);
        expect(await accounts.listAccounts({ search: target.id, offset: 0, limit: 100 })).toEqual({ total: 1, accounts: [target] });
        expect((await accounts.listAccounts({ search: target.id.slice(4), offset: 0, limit: 100 })).total).toBe(0);

        // the search is text, not a pattern
        for (const search of [`%${tag}`, `_${tag}`, `under%score.${tag}`, `*${tag}`])
          expect(await accounts.listAccounts({ search, offset: 0, limit: 100 }), search).toEqual({ total: 0, accounts: [] });
        expect((await accounts.listAccounts({ search: `under_score.${tag}`, offset: 0, limit: 100 })).accounts).toEqual([withTag[3]]);
      });

      it('pages through the matches with the total of all pages', async () => {
        const tag = crypto.randomBytes(5).toString('hex');
        const created = await createInTurn(Array.from({ length: 5 }, (_, i) => `user${i}@${tag}.example`));
        const newestFirst = ids([...created].reverse());
        const pages = [];
        for (const offset of [0, 2, 4]) {
          const page = await accounts.listAccounts({ search: tag, offset, limit: 2 });
          expect(page.total).toBe(5);
          pages.push(...ids(page.accounts));
        }
        expect(pages).toEqual(newestFirst);
        expect(ids((await accounts.listAccounts({ search: tag, offset: 1, limit: 3 })).accounts)).toEqual(newestFirst.slice(1, 4));
        expect(await accounts.listAccounts({ search: tag, offset: 5, limit: 2 })).toEqual({ total: 5, accounts: [] });
        expect(await accounts.listAccounts({ search: tag, offset: 1000, limit: 100 })).toEqual({ total: 5, accounts: [] });
      });

      it('without a search lists every account, newest first', async () => {
        const [older, newer] = await createInTurn([null, 'latest@example.com']);
        for (const search of [undefined, '', '   ']) {
          const page = await accounts.listAccounts({ search, offset: 0, limit: 2 });
          expect(page.total).toBe(await accounts.countAccounts());
          expect(page.accounts).toEqual([newer, older]);
        }
        const all = await accounts.listAccounts({ offset: 0, limit: 100 });
        expect(all.accounts.length).toBe(Math.min(100, all.total));
        const order = all.accounts.map((a) => a.created_at);
        expect(order).toEqual([...order].sort().reverse());
      });

      it('refuses a limit outside 1 to 100, a negative or fractional offset and a search that is not text', async () => {
        const refused = [
          { offset: 0, limit: 0 },
          { offset: 0, limit: 101 },
          { offset: 0, limit: 2.5 },
          { offset: -1, limit: 10 },
          { offset: 0.5, limit: 10 },
          { offset: Number.NaN, limit: 10 },
          { offset: 0, limit: '10' as never },
          { search: 42 as never, offset: 0, limit: 10 },
          { search: 'x'.repeat(1000), offset: 0, limit: 10 },
        ];
        for (const query of refused)
          await expect(accounts.listAccounts(query), JSON.stringify(query)).rejects.toBeInstanceOf(StoreInputError);
        await expect(accounts.listAccounts({ offset: 0, limit: 100 })).resolves.toMatchObject({ total: expect.any(Number) });
        await expect(accounts.listAccounts({ offset: 0, limit: 1 })).resolves.toMatchObject({ accounts: [expect.any(Object)] });
      });
    });

    describe("a key's last use", () => {
      it('is null until the key is used, wherever a key is shown', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'starter' });
        expect(key.last_used_at).toBeNull();
        const extra = await accounts.createKey(account.id, { name: 'extra' }, 5);
        expect(extra.last_used_at).toBeNull();
        expect((await accounts.listKeys(account.id)).map((k) => k.last_used_at)).toEqual([null, null]);
        expect((await accounts.getKey(key.id))?.last_used_at).toBeNull();
        expect((await accounts.authenticate(key.secret))?.key.last_used_at).toBeNull();
        expect((await accounts.updateKey(key.id, { name: 'renamed' }))?.last_used_at).toBeNull();
        expect((await accounts.rollKey(extra.id))?.last_used_at).toBeNull();
      });

      it('is the minute of the latest use, once written, in every answer with the key', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'starter' });
        const other = await accounts.createKey(account.id, { name: 'other' }, 5);
        accounts.noteKeyUse(key.id, new Date('2031-05-05T10:07:05.250Z'));
        accounts.noteKeyUse(key.id, new Date('2031-05-05T10:07:59.999Z'));
        accounts.noteKeyUse(other.id, new Date('2031-05-05T09:00:00.000Z'));
        await reopen();
        const minute = '2031-05-05T10:07:00.000Z';
        expect((await accounts.getKey(key.id))?.last_used_at).toBe(minute);
        expect((await accounts.listKeys(account.id)).map((k) => [k.id, k.last_used_at])).toEqual([
          [key.id, minute],
          [other.id, '2031-05-05T09:00:00.000Z'],
        ]);
        expect((await accounts.authenticate(key.secret))?.key.last_used_at).toBe(minute);
        expect((await accounts.updateKey(key.id, { websites: ['example.com'] }))?.last_used_at).toBe(minute);

        accounts.noteKeyUse(key.id, new Date('2031-05-05T10:09:00.000Z'));
        await reopen();
        expect((await accounts.getKey(key.id))?.last_used_at).toBe('2031-05-05T10:09:00.000Z');
      });

      it('never moves backwards, in one process or across reopenings', async () => {
        const { key } = await accounts.createAccount({ plan: 'free' });
        accounts.noteKeyUse(key.id, new Date('2031-06-01T12:30:10.000Z'));
        accounts.noteKeyUse(key.id, new Date('2031-06-01T12:00:00.000Z'));
        await reopen();
        expect((await accounts.getKey(key.id))?.last_used_at).toBe('2031-06-01T12:30:00.000Z');
        // a fresh process has noted nothing yet: the store keeps the later time
        accounts.noteKeyUse(key.id, new Date('2031-06-01T11:00:00.000Z'));
        await reopen();
        expect((await accounts.getKey(key.id))?.last_used_at).toBe('2031-06-01T12:30:00.000Z');
      });

      it('survives a roll of the key; an invalid date or an unknown key notes nothing', async () => {
        const { account, key } = await accounts.createAccount({ plan: 'free' });
        accounts.noteKeyUse(key.id, new Date('2031-07-07T07:07:07.000Z'));
        accounts.noteKeyUse(key.id, new Date(Number.NaN));
        accounts.noteKeyUse('key_does_not_exist', new Date('2031-07-07T07:08:00.000Z'));
        await reopen();
        const rolled = await accounts.rollKey(key.id);
        expect(rolled?.last_used_at).toBe('2031-07-07T07:07:00.000Z');
        expect((await accounts.authenticate(rolled!.secret))?.key.last_used_at).toBe('2031-07-07T07:07:00.000Z');
        expect(await accounts.listKeys(account.id)).toEqual([
          expect.objectContaining({ id: key.id, last_used_at: '2031-07-07T07:07:00.000Z' }),
        ]);
        expect(await accounts.getKey('key_does_not_exist')).toBeNull();
      });
    });

    it('is healthy while open', async () => {
      expect(await shared.store.healthy()).toBe(true);
    });
  });
}
