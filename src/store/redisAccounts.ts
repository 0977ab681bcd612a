/**
 * The shared store's accounts and keys (the `AccountStore` of RedisStore, on its connection; key
 * layout in redisStore.ts). Authentications are cached in the process and invalidated everywhere,
 * acknowledged, before a change answers (src/store/redisKeyCache.ts), so a roll, deletion or
 * suspension made through any instance holds on the next request everywhere.
 *
 * The indexes (keyacct, secret) live outside the account's slot, so they are written before and
 * removed after the account's records; authentication always checks the key record's own hash,
 * so an index that outlives its key (a crash between two writes) admits nothing.
 */
import { hashSecretHex, isWellFormedSecret, newId, newSecret, sameHashHex } from './apiKeySecret.js';
import { checkedName, checkedPlan, newAccountWithKey, normalizeWebsites, planAndExpiry, StoreInputError } from './keyWebsites.js';
import { ChangeFeed } from './redisChangeFeed.js';
import type { OutageFallback } from './redisFallback.js';
import { KeyCache } from './redisKeyCache.js';
import { execResult, isRedisOutage, type RedisGuard, type StoreRedis } from './redisScripts.js';
import {
  KeyLimitError,
  StoreUnavailableError,
  type Account,
  type AccountPatch,
  type AccountStore,
  type ApiKey,
  type KeyPatch,
  type KeyWithSecret,
  type NewAccount,
} from './store.js';

/** Compare-and-set retries of a record changed concurrently by another instance. */
const CAS_ATTEMPTS = 20;

/** The key record as stored: the shown key plus its hash. */
interface KeyRecord extends ApiKey {
  hash: string;
}

const shownKey = ({ hash: _hash, ...key }: KeyRecord): ApiKey => ({ ...key, websites: [...key.websites] });

export class RedisAccounts implements AccountStore {
  private readonly keyCache: KeyCache | null;

  /**
   * `feed`: the change feed that keeps the authentication cache (none: every request reads Redis);
   * `fallback`: the store's answers for outages; `instance`: this instance's unique name.
   */
  constructor(
    private readonly redis: StoreRedis,
    private readonly prefix: string,
    private readonly guard: RedisGuard,
    feed: ChangeFeed | null,
    private readonly fallback: OutageFallback,
    private readonly instance: string,
  ) {
    this.keyCache = feed && new KeyCache(feed);
  }

  async claimFirstStart(): Promise<boolean> {
    return this.guard('claim first start', async () => (await this.redis.set(`${this.prefix}first-start`, this.instance, 'NX')) === 'OK');
  }

  // Keys of the layout

  private accountKey = (id: string) => `${this.prefix}{acct:${id}}:account`;
  private keysKey = (id: string) => `${this.prefix}{acct:${id}}:keys`;
  private keyRecordKey = (accountId: string, keyId: string) => `${this.prefix}{acct:${accountId}}:key:${keyId}`;
  private keyAccountKey = (keyId: string) => `${this.prefix}keyacct:${keyId}`;
  private secretKey = (hex: string) => `${this.prefix}secret:${hex}`;
  private accountsKey = () => `${this.prefix}accounts`;

  // Accounts

  async createAccount(input: NewAccount): Promise<{ account: Account; key: KeyWithSecret }> {
    const created = newAccountWithKey(input);
    const { account, secret } = created;
    const key: KeyRecord = { ...created.key, hash: hashSecretHex(secret) };
    await this.guard('create account', async () => {
      await this.redis.set(this.keyAccountKey(key.id), account.id);
      await this.redis.set(this.secretKey(key.hash), `${account.id} ${key.id}`);
      await this.redis
        .multi()
        .set(this.keyRecordKey(account.id, key.id), JSON.stringify(key))
        .rpush(this.keysKey(account.id), key.id)
        .set(this.accountKey(account.id), JSON.stringify(account))
        .exec()
        .then(execResult);
      await this.redis.sadd(this.accountsKey(), account.id);
    });
    return { account: { ...account }, key: { ...shownKey(key), secret } };
  }

  async getAccount(id: string): Promise<Account | null> {
    const json = await this.guard('read account', () => this.redis.get(this.accountKey(id)));
    return json === null ? null : (JSON.parse(json) as Account);
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    if (patch.suspended !== undefined && typeof patch.suspended !== 'boolean') throw new StoreInputError('suspended must be true or false');
    return this.changed('update account', () =>
      this.compareAndSet(this.accountKey(id), (json) => {
        const current = JSON.parse(json) as Account;
        const plan = patch.plan === undefined ? current.plan : checkedPlan(patch.plan);
        return {
          ...current,
          plan,
          expires_at: planAndExpiry(plan, patch.expires_at, current.expires_at),
          suspended: patch.suspended ?? current.suspended,
          email: patch.email === undefined ? current.email : patch.email,
        };
      }),
    );
  }

  async countAccounts(): Promise<number> {
    return this.guard('count accounts', () => this.redis.scard(this.accountsKey()));
  }

  // Keys

  async listKeys(accountId: string): Promise<ApiKey[]> {
    return this.guard('list keys', async () => {
      const ids = await this.redis.lrange(this.keysKey(accountId), 0, -1);
      if (ids.length === 0) return [];
      const records = await this.redis.mget(ids.map((id) => this.keyRecordKey(accountId, id)));
      return records.filter((r): r is string => r !== null).map((r) => shownKey(JSON.parse(r) as KeyRecord));
    });
  }

  async getKey(id: string): Promise<ApiKey | null> {
    return this.guard('read key', async () => {
      const found = await this.keyRecord(id);
      return found && shownKey(found.record);
    });
  }

  async createKey(accountId: string, input: { name: string; websites?: string[] }, maxKeys: number): Promise<KeyWithSecret> {
    const name = checkedName(input.name);
    const websites = normalizeWebsites(input.websites ?? []);
    const secret = newSecret();
    const key: KeyRecord = {
      id: newId('key'),
      account_id: accountId,
      name,
      websites,
      created_at: new Date().toISOString(),
      rolled_at: null,
      hash: hashSecretHex(secret),
    };
    await this.guard('create key', async () => {
      await this.redis.set(this.keyAccountKey(key.id), accountId);
      await this.redis.set(this.secretKey(key.hash), `${accountId} ${key.id}`);
      const added = await this.redis.netlookupAddKey(
        this.accountKey(accountId),
        this.keysKey(accountId),
        this.keyRecordKey(accountId, key.id),
        maxKeys,
        key.id,
        JSON.stringify(key),
      );
      if (added !== 1) {
        await this.deleteIndexes(this.keyAccountKey(key.id), this.secretKey(key.hash));
        if (added === -1) throw new StoreInputError(`no account ${accountId}`);
        throw new KeyLimitError(maxKeys);
      }
    });
    return { ...shownKey(key), secret };
  }

  async updateKey(id: string, patch: KeyPatch): Promise<ApiKey | null> {
    const name = patch.name === undefined ? undefined : checkedName(patch.name);
    const websites = patch.websites === undefined ? undefined : normalizeWebsites(patch.websites);
    return this.changed('update key', async () => {
      const accountId = await this.redis.get(this.keyAccountKey(id));
      if (accountId === null) return null;
      const next = await this.compareAndSet(this.keyRecordKey(accountId, id), (json) => {
        const current = JSON.parse(json) as KeyRecord;
        return { ...current, name: name ?? current.name, websites: websites ?? current.websites };
      });
      return next && shownKey(next);
    });
  }

  async rollKey(id: string): Promise<KeyWithSecret | null> {
    const secret = newSecret();
    const hash = hashSecretHex(secret);
    return this.changed('roll key', async () => {
      const accountId = await this.redis.get(this.keyAccountKey(id));
      if (accountId === null) return null;
      await this.redis.set(this.secretKey(hash), `${accountId} ${id}`);
      let oldHash: string | null = null;
      const next = await this.compareAndSet(this.keyRecordKey(accountId, id), (json) => {
        const current = JSON.parse(json) as KeyRecord;
        oldHash = current.hash;
        return { ...current, hash, rolled_at: new Date().toISOString() };
      });
      if (next === null) {
        await this.redis.del(this.secretKey(hash));
        return null;
      }
      // The record holds the new hash already, so the old secret fails from here on; the index goes for space.
      if (oldHash !== null) await this.redis.del(this.secretKey(oldHash));
      return { ...shownKey(next), secret };
    });
  }

  async deleteKey(id: string): Promise<boolean> {
    return this.changed('delete key', async () => {
      const accountId = await this.redis.get(this.keyAccountKey(id));
      if (accountId === null) return false;
      const recordKey = this.keyRecordKey(accountId, id);
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const json = await this.redis.get(recordKey);
        if (json === null) break;
        const deleted = await this.redis.netlookupCas(recordKey, this.keysKey(accountId), json, '', id);
        if (deleted === 1) {
          const { hash } = JSON.parse(json) as KeyRecord;
          await this.deleteIndexes(this.secretKey(hash), this.keyAccountKey(id));
          return true;
        }
      }
      await this.redis.del(this.keyAccountKey(id));
      return false;
    });
  }

  cachedAuthentication(secret: string): { key: ApiKey; account: Account } | undefined {
    return this.keyCache?.get(secret);
  }

  async authenticate(secret: string): Promise<{ key: ApiKey; account: Account } | null> {
    if (!isWellFormedSecret(secret)) return null;
    const cached = this.keyCache?.get(secret);
    if (cached !== undefined) return cached;
    const hex = hashSecretHex(secret);
    const epoch = this.keyCache?.begin() ?? 0;
    let found: { key: ApiKey; account: Account } | null;
    try {
      found = await this.guard('authenticate', () => this.readAuthentication(hex));
    } catch (e) {
      if (!isRedisOutage(e)) throw e;
      // Redis is away: the last answer it gave for this secret, else unavailable (retryable).
      const remembered = this.fallback.authenticate(hex);
      if (remembered === null) throw e;
      return remembered;
    }
    this.fallback.rememberAuthentication(hex, found);
    if (found !== null) this.keyCache?.set(secret, found, epoch);
    return found;
  }

  private async readAuthentication(hex: string): Promise<{ key: ApiKey; account: Account } | null> {
    const ids = await this.redis.get(this.secretKey(hex));
    if (ids === null) return null;
    const [accountId, keyId] = ids.split(' ');
    const [accountJson, keyJson] = await this.redis.mget(this.accountKey(accountId), this.keyRecordKey(accountId, keyId));
    if (accountJson === null || keyJson === null) return null;
    const record = JSON.parse(keyJson) as KeyRecord;
    // The record is the authority: an index left behind by a roll or deletion matches no record.
    if (!sameHashHex(record.hash, hex)) return null;
    // Frozen: a cached answer is handed to every request that presents the secret.
    const key = shownKey(record);
    Object.freeze(key.websites);
    return { key: Object.freeze(key), account: Object.freeze(JSON.parse(accountJson) as Account) };
  }

  // Internals

  private async keyRecord(id: string): Promise<{ accountId: string; record: KeyRecord } | null> {
    const accountId = await this.redis.get(this.keyAccountKey(id));
    if (accountId === null) return null;
    const json = await this.redis.get(this.keyRecordKey(accountId, id));
    return json === null ? null : { accountId, record: JSON.parse(json) as KeyRecord };
  }

  /** Read, change, write back only if unchanged meanwhile (another instance may write the same record). */
  private async compareAndSet<T>(key: string, change: (json: string) => T): Promise<T | null> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const json = await this.redis.get(key);
      if (json === null) return null;
      const next = change(json);
      if ((await this.redis.netlookupCas(key, key, json, JSON.stringify(next), '')) === 1) return next;
    }
    throw new StoreUnavailableError(`redis store: ${key} kept changing during ${CAS_ATTEMPTS} attempts`);
  }

  /** Deletes index keys of different Cluster slots: one DEL each, as one DEL of several keys must stay in one slot. */
  private async deleteIndexes(...keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.redis.del(key)));
  }

  /** An account or key change: no answer remembered for outages survives it. */
  private async changed<T>(what: string, work: () => Promise<T>): Promise<T> {
    const result = await this.guard(what, work);
    this.fallback.forgetAuthentications();
    this.keyCache?.invalidate();
    // Every instance drops its cache before this change's caller has its answer.
    if (result !== null && result !== false) await this.guard(what, () => ChangeFeed.announce(this.redis, this.prefix, 'keys'));
    return result;
  }
}
