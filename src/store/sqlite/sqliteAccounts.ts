/**
 * The embedded store's accounts and keys (the `AccountStore` of SqliteStore, on its connection).
 *
 * Durability: every account or key change is its own committed transaction before its method
 * resolves, so an acknowledged change survives `kill -9` (the connection syncs every commit).
 *
 * Authentication answers from caches of frozen keys and accounts. A secret whose hash matched a
 * stored key is remembered as verified, by the secret itself: presented again, it costs a map
 * lookup and a constant-time comparison instead of a SHA-256 and a query. A change of a key (name,
 * websites, roll, deletion) forgets it; a change of an account drops the account. Another
 * connection (such as the CLI) may change accounts and keys meanwhile: the caches notice through
 * `PRAGMA data_version`, asked at most once per millisecond, and are dropped whole.
 *
 * A key's last use (keyUse.ts) is noted in memory and written by `flushKeyUse`, which SqliteStore
 * calls on its flush timer and at close: one transaction for all keys used since, each row only
 * updated to a later minute. A crash loses at most the uses of the last flush interval.
 *
 * The account list filters with the same search rule as the shared store (storeInput.ts), given to
 * SQLite as a function; without a search it reads the accounts_created index backwards.
 */
import type Database from 'better-sqlite3';
import type { PlanCode } from '../../plans/plans.js';
import crypto from 'node:crypto';
import { hashSecret, isWellFormedSecret, newSecret, sameSecret, secretCodes } from '../apiKeySecret.js';
import {
  accountMatches,
  checkedAccountQuery,
  checkedName,
  checkedPlan,
  newAccountWithKey,
  newKeyWithSecret,
  normalizeWebsites,
  planAndExpiry,
  StoreInputError,
} from '../storeInput.js';
import { KeyUseNotes } from '../keyUse.js';
import type { Guard } from './sqliteGuard.js';
import type { OtherWriters } from './otherWriters.js';
import {
  KeyLimitError,
  type Account,
  type AccountPage,
  type AccountPatch,
  type AccountQuery,
  type AccountStore,
  type ApiKey,
  type KeyPatch,
  type KeyWithSecret,
  type NewAccount,
} from '../store.js';

/** The caches are cleared wholesale past this size, which bounds memory without bookkeeping. */
const CACHE_LIMIT = 100_000;

interface AccountRow {
  id: string;
  plan: PlanCode;
  expires_at: string | null;
  suspended: number;
  email: string | null;
  created_at: string;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  websites: string;
  hash: Buffer;
  created_at: string;
  rolled_at: string | null;
  last_used_at: string | null;
}

/** A verified secret and what it authenticates. */
interface VerifiedKey {
  /** the secret's character codes */
  secret: Uint8Array;
  key: ApiKey;
  /** the last answer made with this key, reused while its account is the same cached object */
  found: { key: ApiKey; account: Account } | null;
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  plan: row.plan,
  expires_at: row.expires_at,
  suspended: row.suspended !== 0,
  email: row.email,
  created_at: row.created_at,
});

const toKey = (row: KeyRow): ApiKey => ({
  id: row.id,
  account_id: row.account_id,
  name: row.name,
  websites: JSON.parse(row.websites) as string[],
  created_at: row.created_at,
  rolled_at: row.rolled_at,
  last_used_at: row.last_used_at,
});

const copyKey = (key: ApiKey): ApiKey => ({ ...key, websites: [...key.websites] });
const frozenKey = (key: ApiKey): ApiKey => Object.freeze({ ...key, websites: Object.freeze([...key.websites]) as string[] });

export class SqliteAccounts implements AccountStore {
  private readonly keysBySecret = new Map<string, VerifiedKey>();
  private readonly secretByKeyId = new Map<string, string>();
  private readonly accounts = new Map<string, Account>();
  private readonly keyUse = new KeyUseNotes();
  /** SQLite's count of commits by other connections, as last seen by the caches */
  /** the other connections' changes taken in (the caches dropped) */
  private changesTaken = 0;
  private readonly sql: ReturnType<typeof prepareStatements>;

  constructor(
    private readonly db: Database.Database,
    private readonly guard: Guard,
    private readonly otherWriters: OtherWriters,
  ) {
    db.function('account_matches', { deterministic: true }, (search, id, email) =>
      accountMatches(search as string, id as string, email as string | null) ? 1 : 0,
    );
    this.sql = prepareStatements(db);
  }

  // Accounts

  async createAccount(input: NewAccount): Promise<{ account: Account; key: KeyWithSecret }> {
    const { account, key, secret } = newAccountWithKey(input);
    this.guard('create account', () =>
      this.db
        .transaction(() => {
          this.sql.insertAccount.run({ ...account, suspended: 0 });
          this.sql.insertKey.run({ ...key, websites: '[]', hash: hashSecret(secret) });
        })
        .immediate(),
    );
    return { account: { ...account }, key: { ...copyKey(key), secret } };
  }

  async getAccount(id: string): Promise<Account | null> {
    const account = this.guard('read account', () => {
      this.dropCachesIfChangedElsewhere();
      return this.loadAccount(id);
    });
    return account && { ...account };
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    return this.guard('update account', () => {
      this.accounts.delete(id);
      const row = this.sql.account.get(id);
      if (!row) return null;
      const current = toAccount(row);
      const plan = patch.plan === undefined ? current.plan : checkedPlan(patch.plan);
      if (patch.suspended !== undefined && typeof patch.suspended !== 'boolean')
        throw new StoreInputError('suspended must be true or false');
      const next: Account = {
        ...current,
        plan,
        expires_at: planAndExpiry(plan, patch.expires_at, current.expires_at),
        suspended: patch.suspended ?? current.suspended,
        email: patch.email === undefined ? current.email : patch.email,
      };
      this.sql.updateAccount.run({ ...next, suspended: next.suspended ? 1 : 0 });
      return { ...next };
    });
  }

  async countAccounts(): Promise<number> {
    return this.guard('count accounts', () => this.sql.countAccounts.get()!.n);
  }

  async listAccounts(query: AccountQuery): Promise<AccountPage> {
    const { search, offset, limit } = checkedAccountQuery(query);
    return this.guard('list accounts', () =>
      // one read transaction: the total and the page of one state of the file
      this.db.transaction((): AccountPage => {
        if (search === '')
          return { total: this.sql.countAccounts.get()!.n, accounts: this.sql.accountPage.all({ offset, limit }).map(toAccount) };
        return {
          total: this.sql.countFound.get({ search })!.n,
          accounts: this.sql.foundPage.all({ search, offset, limit }).map(toAccount),
        };
      })(),
    );
  }

  // Keys

  async listKeys(accountId: string): Promise<ApiKey[]> {
    return this.guard('list keys', () => this.sql.keysOfAccount.all(accountId).map(toKey));
  }

  async getKey(id: string): Promise<ApiKey | null> {
    return this.guard('read key', () => {
      const row = this.sql.key.get(id);
      return row ? toKey(row) : null;
    });
  }

  async createKey(accountId: string, input: { name: string; websites?: string[] }, maxKeys: number): Promise<KeyWithSecret> {
    const { key, secret } = newKeyWithSecret(accountId, input);
    this.guard('create key', () =>
      this.db
        .transaction(() => {
          if (!this.sql.account.get(accountId)) throw new StoreInputError(`no account ${accountId}`);
          if (this.sql.countKeys.get(accountId)!.n >= maxKeys) throw new KeyLimitError(maxKeys);
          this.sql.insertKey.run({ ...key, websites: JSON.stringify(key.websites), hash: hashSecret(secret) });
        })
        .immediate(),
    );
    return { ...copyKey(key), secret };
  }

  async updateKey(id: string, patch: KeyPatch): Promise<ApiKey | null> {
    const name = patch.name === undefined ? undefined : checkedName(patch.name);
    const websites = patch.websites === undefined ? undefined : normalizeWebsites(patch.websites);
    return this.guard('update key', () => {
      this.forgetKey(id);
      const row = this.sql.key.get(id);
      if (!row) return null;
      const next: ApiKey = { ...toKey(row), name: name ?? row.name };
      if (websites !== undefined) next.websites = websites;
      this.sql.updateKey.run({ id, name: next.name, websites: JSON.stringify(next.websites) });
      return next;
    });
  }

  async rollKey(id: string): Promise<KeyWithSecret | null> {
    const secret = newSecret();
    return this.guard('roll key', () => {
      this.forgetKey(id);
      const row = this.sql.key.get(id);
      if (!row) return null;
      const rolledAt = new Date().toISOString();
      this.sql.rollKey.run({ id, hash: hashSecret(secret), rolled_at: rolledAt });
      return { ...toKey(row), rolled_at: rolledAt, secret };
    });
  }

  async deleteKey(id: string): Promise<boolean> {
    return this.guard('delete key', () => {
      this.forgetKey(id);
      return this.sql.deleteKey.run(id).changes > 0;
    });
  }

  noteKeyUse(keyId: string, now: Date): void {
    this.keyUse.note(keyId, now);
  }

  /** Writes the key uses noted since the last flush in one transaction; on failure they stay noted for the next. */
  flushKeyUse(): void {
    const uses = this.keyUse.take();
    if (uses.size === 0) return;
    try {
      this.guard('write key use', () =>
        this.db
          .transaction(() => {
            for (const [id, at] of uses) this.sql.keyUsed.run({ id, at });
          })
          .immediate(),
      );
    } catch (e) {
      this.keyUse.giveBack(uses);
      throw e;
    }
  }

  readonly immediate = {
    authenticate: (secret: string) => this.authenticateNow(secret),
  };

  async authenticate(secret: string): Promise<{ key: ApiKey; account: Account } | null> {
    return this.authenticateNow(secret);
  }

  /** Answers from frozen cached objects: this runs on every request, copies would cost. */
  private authenticateNow(secret: string): { key: ApiKey; account: Account } | null {
    if (!isWellFormedSecret(secret)) return null;
    return this.guard('authenticate', () => {
      this.dropCachesIfChangedElsewhere();
      const verified = this.keysBySecret.get(secret) ?? this.verify(secret);
      // The map found an equal secret; the comparison that decides is the constant-time one.
      if (verified === null || !sameSecret(verified.secret, secret)) return null;
      const account = this.loadAccount(verified.key.account_id);
      if (account === null) return null;
      if (verified.found?.account !== account) verified.found = Object.freeze({ key: verified.key, account });
      return verified.found;
    });
  }

  /** A secret not seen yet: its hash against the stored ones; remembered when it matches one. */
  private verify(secret: string): VerifiedKey | null {
    const hash = hashSecret(secret);
    const row = this.sql.keyByHash.get(hash);
    if (!row || !crypto.timingSafeEqual(row.hash, hash)) return null;
    const verified: VerifiedKey = { secret: secretCodes(secret), key: frozenKey(toKey(row)), found: null };
    if (this.keysBySecret.size >= CACHE_LIMIT) this.clearKeyCache();
    this.keysBySecret.set(secret, verified);
    this.secretByKeyId.set(verified.key.id, secret);
    return verified;
  }

  // Internals

  private loadAccount(id: string): Account | null {
    const cached = this.accounts.get(id);
    if (cached) return cached;
    const row = this.sql.account.get(id);
    if (!row) return null;
    if (this.accounts.size >= CACHE_LIMIT) this.accounts.clear();
    const account = Object.freeze(toAccount(row));
    this.accounts.set(id, account);
    return account;
  }

  /** Drops a key from the authentication cache, so a changed, rolled or deleted key is read afresh. */
  private forgetKey(id: string): void {
    const secret = this.secretByKeyId.get(id);
    if (secret === undefined) return;
    this.secretByKeyId.delete(id);
    this.keysBySecret.delete(secret);
  }

  /**
   * The caches are only valid while this process is the only writer. Another connection (say the
   * CLI rolling a key while the server runs) changes `PRAGMA data_version`, so a rolled or deleted
   * key's old secret still fails at once.
   */
  private dropCachesIfChangedElsewhere(): void {
    const changes = this.otherWriters.changesLately();
    if (changes === this.changesTaken) return;
    this.changesTaken = changes;
    this.clearKeyCache();
    this.accounts.clear();
  }

  private clearKeyCache(): void {
    this.keysBySecret.clear();
    this.secretByKeyId.clear();
  }
}

/** Statements prepared once: the hot one (authenticate) must not re-parse SQL. */
function prepareStatements(db: Database.Database) {
  return {
    insertAccount: db.prepare(
      'INSERT INTO accounts (id, plan, expires_at, suspended, email, created_at) VALUES (@id, @plan, @expires_at, @suspended, @email, @created_at)',
    ),
    account: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    updateAccount: db.prepare(
      'UPDATE accounts SET plan = @plan, expires_at = @expires_at, suspended = @suspended, email = @email WHERE id = @id',
    ),
    countAccounts: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM accounts'),
    accountPage: db.prepare<[{ offset: number; limit: number }], AccountRow>(
      'SELECT * FROM accounts ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset',
    ),
    countFound: db.prepare<[{ search: string }], { n: number }>(
      'SELECT COUNT(*) AS n FROM accounts WHERE account_matches(@search, id, email)',
    ),
    foundPage: db.prepare<[{ search: string; offset: number; limit: number }], AccountRow>(
      'SELECT * FROM accounts WHERE account_matches(@search, id, email) ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset',
    ),
    insertKey: db.prepare(
      'INSERT INTO api_keys (id, account_id, name, websites, hash, created_at, rolled_at) VALUES (@id, @account_id, @name, @websites, @hash, @created_at, NULL)',
    ),
    key: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?'),
    keyByHash: db.prepare<[Buffer], KeyRow>('SELECT * FROM api_keys WHERE hash = ?'),
    keysOfAccount: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY rowid'),
    countKeys: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?'),
    updateKey: db.prepare('UPDATE api_keys SET name = @name, websites = @websites WHERE id = @id'),
    rollKey: db.prepare('UPDATE api_keys SET hash = @hash, rolled_at = @rolled_at WHERE id = @id'),
    keyUsed: db.prepare('UPDATE api_keys SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)'),
    deleteKey: db.prepare('DELETE FROM api_keys WHERE id = ?'),
  };
}
