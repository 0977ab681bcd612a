/**
 * The shared store's accounts and keys (the `AccountStore` of RedisStore, on its connection; key
 * layout in redisStore.ts). Authentications are cached in the process and invalidated everywhere,
 * acknowledged, before a change answers (src/store/redis/redisKeyCache.ts), so a roll, deletion or
 * suspension made through any instance holds on the next request everywhere.
 *
 * The indexes (keyacct, secret) live outside the account's slot, so they are written before and
 * removed after the account's records; authentication always checks the key record's own hash,
 * so an index that outlives its key (a crash between two writes) admits nothing.
 *
 * A key's last use lives apart from its record, in one hash (`key-last-used`), so that writing it
 * neither races the compare-and-set of key changes nor clears the instances' caches: uses are noted
 * in the process (keyUse.ts) and written every `keyUseIntervalMs` and at close() by one script per
 * chunk, each value only over an older one. Uses noted while Redis is away are kept and written
 * when it answers again; those still unwritten when the store closes are lost (the time lags, the
 * counts are elsewhere). Cached authentications carry the last use as it was when read.
 *
 * The account list reads every account: the `accounts` set by SSCAN and the account records by
 * GETs sent together (auto-pipelined), LIST_CHUNK at a time, so N accounts cost about 2N/LIST_CHUNK
 * round trips and N records' transfer and parsing, and the matching accounts are held to be sorted.
 * Right for an operator's page over thousands of accounts, not for a hot path.
 */
import { hashSecretHex, isWellFormedSecret, newSecret, sameHashHex } from '../apiKeySecret.js';
import {
  accountMatches,
  checkedAccountQuery,
  checkedName,
  checkedPlan,
  newAccountWithKey,
  newestFirst,
  newKeyWithSecret,
  normalizeWebsites,
  planAndExpiry,
  StoreInputError,
} from '../storeInput.js';
import { KeyUseNotes } from '../keyUse.js';
import { ChangeFeed } from './redisChangeFeed.js';
import type { OutageFallback } from './redisFallback.js';
import { KeyCache } from './redisKeyCache.js';
import { execResult, isRedisOutage, type RedisGuard } from './redisFailures.js';
import type { ConfirmedWrites } from './redisReplicas.js';
import type { StoreRedis } from './redisScripts.js';
import {
  KeyLimitError,
  StoreUnavailableError,
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

/** Compare-and-set retries of a record changed concurrently by another instance. */
const CAS_ATTEMPTS = 20;
/** Accounts asked for per SSCAN and read per batch of GETs by the account list. */
const LIST_CHUNK = 1000;
/** Key uses per run of the script that writes them. */
const KEY_USE_CHUNK = 500;

/** The key record as stored: the shown key plus its hash; its last use is kept apart (`key-last-used`). */
interface KeyRecord extends Omit<ApiKey, 'last_used_at'> {
  hash: string;
}

const storedKey = ({ last_used_at: _keptApart, ...key }: ApiKey, secret: string): KeyRecord => ({ ...key, hash: hashSecretHex(secret) });

const shownKey = ({ hash: _hash, ...key }: KeyRecord, lastUsedAt: string | null): ApiKey => ({
  ...key,
  websites: [...key.websites],
  last_used_at: lastUsedAt,
});

export class RedisAccounts implements AccountStore {
  private readonly keyCache: KeyCache | null;
  private readonly keyUse = new KeyUseNotes();
  private readonly keyUseTimer: NodeJS.Timeout;
  /** the connection of account and key changes, with what they read: their WAIT covers their writes */
  private readonly writer: StoreRedis;

  /**
   * `confirmed`: the connection account and key changes are written on, and their confirmation by
   * replicas (redisReplicas.ts); `feed`: the change feed that keeps the authentication cache (none:
   * every request reads Redis);
   * `fallback`: the store's answers for outages; `instance`: this instance's unique name;
   * `keyUseIntervalMs`: how often the keys' last use is written.
   */
  constructor(
    private readonly redis: StoreRedis,
    private readonly confirmed: ConfirmedWrites,
    private readonly prefix: string,
    private readonly guard: RedisGuard,
    feed: ChangeFeed | null,
    private readonly fallback: OutageFallback,
    private readonly instance: string,
    keyUseIntervalMs: number,
  ) {
    this.writer = confirmed.redis;
    this.keyCache = feed && new KeyCache(feed);
    this.keyUseTimer = setInterval(() => void this.writeKeyUse(), keyUseIntervalMs);
    this.keyUseTimer.unref();
  }

  /** Stops the timer and writes the key uses noted since the last write, as far as Redis takes them. */
  async close(): Promise<void> {
    clearInterval(this.keyUseTimer);
    await this.writeKeyUse();
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
  private keyUseKey = () => `${this.prefix}key-last-used`;

  // Accounts

  async createAccount(input: NewAccount): Promise<{ account: Account; key: KeyWithSecret }> {
    const created = newAccountWithKey(input);
    const { account, secret } = created;
    const key = storedKey(created.key, secret);
    await this.guard('create account', async () => {
      await this.writer.set(this.keyAccountKey(key.id), account.id);
      await this.writer.set(this.secretKey(key.hash), `${account.id} ${key.id}`);
      await this.writer
        .multi()
        .set(this.keyRecordKey(account.id, key.id), JSON.stringify(key))
        .rpush(this.keysKey(account.id), key.id)
        .set(this.accountKey(account.id), JSON.stringify(account))
        .exec()
        .then(execResult);
      await this.writer.sadd(this.accountsKey(), account.id);
      await this.confirmed.confirm([this.keyAccountKey(key.id), this.secretKey(key.hash), this.accountKey(account.id), this.accountsKey()]);
    });
    return { account: { ...account }, key: { ...shownKey(key, null), secret } };
  }

  async getAccount(id: string): Promise<Account | null> {
    const json = await this.guard('read account', () => this.redis.get(this.accountKey(id)));
    return json === null ? null : (JSON.parse(json) as Account);
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<Account | null> {
    if (patch.suspended !== undefined && typeof patch.suspended !== 'boolean') throw new StoreInputError('suspended must be true or false');
    return this.changed('update account', [this.accountKey(id)], () =>
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

  async listAccounts(query: AccountQuery): Promise<AccountPage> {
    const { search, offset, limit } = checkedAccountQuery(query);
    return this.guard('list accounts', async () => {
      const seen = new Set<string>();
      const found: Account[] = [];
      let cursor = '0';
      do {
        const [next, ids] = await this.redis.sscan(this.accountsKey(), cursor, 'COUNT', LIST_CHUNK);
        cursor = next;
        // SSCAN may answer an id twice
        const fresh = ids.filter((id) => !seen.has(id));
        for (const id of fresh) seen.add(id);
        const records = await Promise.all(fresh.map((id) => this.redis.get(this.accountKey(id))));
        for (const json of records) {
          if (json === null) continue;
          const account = JSON.parse(json) as Account;
          if (accountMatches(search, account.id, account.email)) found.push(account);
        }
      } while (cursor !== '0');
      found.sort(newestFirst);
      return { total: found.length, accounts: found.slice(offset, offset + limit) };
    });
  }

  // Keys

  async listKeys(accountId: string): Promise<ApiKey[]> {
    return this.guard('list keys', async () => {
      const ids = await this.redis.lrange(this.keysKey(accountId), 0, -1);
      if (ids.length === 0) return [];
      const [records, lastUses] = await Promise.all([
        this.redis.mget(ids.map((id) => this.keyRecordKey(accountId, id))),
        this.redis.hmget(this.keyUseKey(), ...ids),
      ]);
      return records.flatMap((r, i) => (r === null ? [] : [shownKey(JSON.parse(r) as KeyRecord, lastUses[i])]));
    });
  }

  async getKey(id: string): Promise<ApiKey | null> {
    return this.guard('read key', async () => {
      const [found, lastUsed] = await Promise.all([this.keyRecord(id), this.redis.hget(this.keyUseKey(), id)]);
      return found && shownKey(found.record, lastUsed);
    });
  }

  async createKey(accountId: string, input: { name: string; websites?: string[] }, maxKeys: number): Promise<KeyWithSecret> {
    const created = newKeyWithSecret(accountId, input);
    const { secret } = created;
    const key = storedKey(created.key, secret);
    await this.guard('create key', async () => {
      await this.writer.set(this.keyAccountKey(key.id), accountId);
      await this.writer.set(this.secretKey(key.hash), `${accountId} ${key.id}`);
      const added = await this.writer.netlookupAddKey(
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
      await this.confirmed.confirm([this.keyAccountKey(key.id), this.secretKey(key.hash), this.accountKey(accountId)]);
    });
    return { ...shownKey(key, null), secret };
  }

  async updateKey(id: string, patch: KeyPatch): Promise<ApiKey | null> {
    const name = patch.name === undefined ? undefined : checkedName(patch.name);
    const websites = patch.websites === undefined ? undefined : normalizeWebsites(patch.websites);
    return this.changed('update key', [this.keyAccountKey(id)], async (written) => {
      const accountId = await this.writer.get(this.keyAccountKey(id));
      if (accountId === null) return null;
      written.push(this.keyRecordKey(accountId, id));
      const next = await this.compareAndSet(this.keyRecordKey(accountId, id), (json) => {
        const current = JSON.parse(json) as KeyRecord;
        return { ...current, name: name ?? current.name, websites: websites ?? current.websites };
      });
      return next && shownKey(next, await this.writer.hget(this.keyUseKey(), id));
    });
  }

  async rollKey(id: string): Promise<KeyWithSecret | null> {
    const secret = newSecret();
    const hash = hashSecretHex(secret);
    return this.changed('roll key', [this.secretKey(hash)], async (written) => {
      const accountId = await this.writer.get(this.keyAccountKey(id));
      if (accountId === null) return null;
      written.push(this.keyRecordKey(accountId, id));
      await this.writer.set(this.secretKey(hash), `${accountId} ${id}`);
      let oldHash: string | null = null;
      const next = await this.compareAndSet(this.keyRecordKey(accountId, id), (json) => {
        const current = JSON.parse(json) as KeyRecord;
        oldHash = current.hash;
        return { ...current, hash, rolled_at: new Date().toISOString() };
      });
      if (next === null) {
        await this.writer.del(this.secretKey(hash));
        return null;
      }
      // The record holds the new hash already, so the old secret fails from here on; the index goes for space.
      if (oldHash !== null) await this.writer.del(this.secretKey(oldHash));
      return { ...shownKey(next, await this.writer.hget(this.keyUseKey(), id)), secret };
    });
  }

  async deleteKey(id: string): Promise<boolean> {
    return this.changed('delete key', [this.keyAccountKey(id), this.keyUseKey()], async (written) => {
      const accountId = await this.writer.get(this.keyAccountKey(id));
      if (accountId === null) return false;
      written.push(this.keyRecordKey(accountId, id));
      const recordKey = this.keyRecordKey(accountId, id);
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const json = await this.writer.get(recordKey);
        if (json === null) break;
        const deleted = await this.writer.netlookupCas(recordKey, this.keysKey(accountId), json, '', id);
        if (deleted === 1) {
          const { hash } = JSON.parse(json) as KeyRecord;
          written.push(this.secretKey(hash));
          await this.deleteIndexes(this.secretKey(hash), this.keyAccountKey(id));
          await this.writer.hdel(this.keyUseKey(), id);
          return true;
        }
      }
      await this.writer.del(this.keyAccountKey(id));
      return false;
    });
  }

  noteKeyUse(keyId: string, now: Date): void {
    this.keyUse.note(keyId, now);
  }

  /** Writes the key uses noted since the last write; those Redis does not take stay noted for the next. */
  private async writeKeyUse(): Promise<void> {
    const uses = this.keyUse.take();
    if (uses.size === 0) return;
    if (this.redis.status !== 'ready') {
      this.keyUse.giveBack(uses);
      return;
    }
    const pairs = [...uses].flat();
    const chunks: string[][] = [];
    for (let i = 0; i < pairs.length; i += 2 * KEY_USE_CHUNK) chunks.push(pairs.slice(i, i + 2 * KEY_USE_CHUNK));
    try {
      await Promise.all(chunks.map((chunk) => this.redis.netlookupNoteKeyUse(this.keyUseKey(), ...chunk)));
    } catch {
      // Written again whole: a value already written is only written over by a later one.
      this.keyUse.giveBack(uses);
    }
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
    const [[accountJson, keyJson], lastUsed] = await Promise.all([
      this.redis.mget(this.accountKey(accountId), this.keyRecordKey(accountId, keyId)),
      this.redis.hget(this.keyUseKey(), keyId),
    ]);
    if (accountJson === null || keyJson === null) return null;
    const record = JSON.parse(keyJson) as KeyRecord;
    // The record is the authority: an index left behind by a roll or deletion matches no record.
    if (!sameHashHex(record.hash, hex)) return null;
    // Frozen: a cached answer is handed to every request that presents the secret.
    const key = shownKey(record, lastUsed);
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
      const json = await this.writer.get(key);
      if (json === null) return null;
      const next = change(json);
      if ((await this.writer.netlookupCas(key, key, json, JSON.stringify(next), '')) === 1) return next;
    }
    throw new StoreUnavailableError(`redis store: ${key} kept changing during ${CAS_ATTEMPTS} attempts`);
  }

  /** Deletes index keys of different Cluster slots: one DEL each, as one DEL of several keys must stay in one slot. */
  private async deleteIndexes(...keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.writer.del(key)));
  }

  /**
   * An account or key change: no answer remembered for outages survives it, and it answers once
   * replicas have it. `written`: the keys it writes, to which `work` adds those it finds.
   */
  private async changed<T>(what: string, written: string[], work: (written: string[]) => Promise<T>): Promise<T> {
    const result = await this.guard(what, async () => {
      const changed = await work(written);
      if (changed !== null && changed !== false) await this.confirmed.confirm(written);
      return changed;
    });
    this.fallback.forgetAuthentications();
    this.keyCache?.invalidate();
    // Every instance drops its cache before this change's caller has its answer.
    if (result !== null && result !== false) await this.guard(what, () => ChangeFeed.announce(this.redis, this.prefix, 'keys'));
    return result;
  }
}
