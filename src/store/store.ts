/**
 * The store, as four interfaces an embedded and a shared implementation
 * both provide: the accounts and their keys (`AccountStore`), the meter (`Meter`: the per-second
 * rate window, quotas and usage counters), the blacklist (`BlacklistStore`, blacklistStore.ts) and
 * the dashboard's sessions (`SessionStore`).
 * `Store` composes them with what belongs to the store as a whole: its health and its closing.
 * Each interface has its own conformance suite (test/store/accountsConformance.ts,
 * meterConformance.ts, blacklistConformance.ts, sessionsConformance.ts), run against SQLite
 * (embedded default) and Redis (shared). Every method is async so that both fit; the embedded one
 * answers from memory where it can.
 */
import type { Api, PlanCode } from '../plans/plans.js';
import type { QuotaPeriod, QuotaState, UsageCounts } from '../plans/quota.js';
import type { BlacklistStore } from './blacklistStore.js';

export interface Account {
  id: string;
  plan: PlanCode;
  /** ISO 8601, null: no expiry (and always null on free) */
  expires_at: string | null;
  suspended: boolean;
  email: string | null;
  created_at: string;
}

/** A key as the store shows it: never its secret, never its hash. */
export interface ApiKey {
  id: string;
  account_id: string;
  name: string;
  /** allowed hosts: exact (example.com) or wildcard (*.example.com); empty: any origin */
  websites: string[];
  created_at: string;
  rolled_at: string | null;
  /**
   * when a request last authenticated with the key, to the minute (ISO 8601), null when never;
   * written in bulk (`noteKeyUse`), so it may lag by the store's flush interval
   */
  last_used_at: string | null;
}

/** A key with its secret, returned only when the secret is created (account, new key, roll). */
export interface KeyWithSecret extends ApiKey {
  secret: string;
}

export interface NewAccount {
  plan: PlanCode;
  expires_at?: string | null;
  email?: string | null;
}

export interface AccountPatch {
  plan?: PlanCode;
  expires_at?: string | null;
  suspended?: boolean;
  email?: string | null;
}

/** One page of accounts for the operator (`listAccounts`). */
export interface AccountQuery {
  /** case-insensitive: an account id starting with it, or an e-mail containing it; empty: every account */
  search?: string;
  offset: number;
  /** 1 to 100 */
  limit: number;
}

export interface AccountPage {
  /** accounts matching the search, all pages */
  total: number;
  /** newest first (created_at, then id) */
  accounts: Account[];
}

export interface KeyPatch {
  name?: string;
  websites?: string[];
}

/** The quota that applies to one request: its period and the limit of that period. */
export interface QuotaRule {
  period: QuotaPeriod;
  limit: number;
  /** day quotas are per API; month quotas are pooled across APIs */
  pooled: boolean;
}

export interface AdmitRequest {
  account_id: string;
  api: Api;
  /** lookups this request uses when it succeeds (1, or N for a batch of N unique addresses) */
  cost: number;
  rate_limit_per_second: number;
  quota: QuotaRule;
  /**
   * false when the request is already refused by a check that comes after the rate check (plan,
   * input): it then takes its place in the rate window and counts as rejected, never against
   * the quota.
   */
  consume: boolean;
  /**
   * A HEAD request (docs/api.md "HEAD"): decided as the same GET would be, and taking its place in
   * the rate window when admitted there, but counting nothing: neither its cost nor a rejection.
   */
  probe?: boolean;
  now: Date;
}

export type AdmitOutcome = 'admitted' | 'rate_limited' | 'quota_exceeded' | 'refused';

/** The per-second window after a decision (the X-RateLimit headers, docs/api.md "Quota headers"). */
export interface RateWindowState {
  /** requests the window admits now, after this one */
  remaining: number;
  /** when every place of the window is free again: its newest request plus one second (the request's clock) */
  resets_at: Date;
}

export interface AdmitDecision {
  outcome: AdmitOutcome;
  /** the quota after this request (used includes it when admitted) */
  quota: QuotaState;
  rate: RateWindowState;
}

/** Accounts (plan, expiry, suspension) and their API keys, stored only as hashes of their secrets. */
export interface AccountStore {
  /**
   * Optional, for stores shared by processes: true for exactly one caller ever, the process that
   * creates the first account of an empty store (instances starting together create one, not N).
   */
  claimFirstStart?(): Promise<boolean>;

  createAccount(input: NewAccount): Promise<{ account: Account; key: KeyWithSecret }>;
  getAccount(id: string): Promise<Account | null>;
  updateAccount(id: string, patch: AccountPatch): Promise<Account | null>;
  countAccounts(): Promise<number>;
  /** the operator's account list: search and paging (AccountQuery) */
  listAccounts(query: AccountQuery): Promise<AccountPage>;

  listKeys(accountId: string): Promise<ApiKey[]>;
  getKey(id: string): Promise<ApiKey | null>;
  /** refuses (KeyLimitError) when the account already has `maxKeys` keys */
  createKey(accountId: string, input: { name: string; websites?: string[] }, maxKeys: number): Promise<KeyWithSecret>;
  updateKey(id: string, patch: KeyPatch): Promise<ApiKey | null>;
  /** a new secret for the same key; the old secret stops working at once */
  rollKey(id: string): Promise<KeyWithSecret | null>;
  deleteKey(id: string): Promise<boolean>;
  /** the key and account of a presented secret (hashed, compared in constant time), or null */
  authenticate(secret: string): Promise<{ key: ApiKey; account: Account } | null>;
  /**
   * Records that a request authenticated with the key at `now` (the key's `last_used_at`): kept in
   * this process, at most once per key and minute, and written in bulk, so a lookup awaits nothing.
   */
  noteKeyUse(keyId: string, now: Date): void;
  /**
   * Optional: `authenticate` answered at once, by a store that keeps what it needs in this
   * process's memory (the embedded one). The single lookups then run without awaiting anything; a
   * store without it (shared, over the network) is awaited as usual.
   */
  readonly immediate?: {
    authenticate(secret: string): { key: ApiKey; account: Account } | null;
  };
  /**
   * Optional, for a store without `immediate`: what `authenticate` would answer, when this process
   * holds it at hand (the shared store's cache of verified secrets), else undefined. A request
   * whose secret is cached then awaits nothing to be authenticated.
   */
  cachedAuthentication?(secret: string): { key: ApiKey; account: Account } | undefined;
}

/** The meter: per-second rate window, quotas, and the usage counters (lookups by API, rejected requests). */
export interface Meter {
  /** the rate window, then the quota, as one decision; counts the request as used or rejected */
  admit(request: AdmitRequest): Promise<AdmitDecision>;
  /** Optional: `admit` answered at once, as `AccountStore.immediate` (the embedded store). */
  readonly immediate?: {
    admit(request: AdmitRequest): AdmitDecision;
  };
  /**
   * An admitted request that was not served after all (its answer failed: the blacklist could not
   * be read, ...): gives back the `cost` its admission used and counts it as rejected, so that
   * only served answers are charged. `request` is the one admitted.
   */
  refund(request: AdmitRequest): Promise<void>;
  /** counts a request of a known account refused before metering (origin, suspension) */
  countRejected(accountId: string, now: Date): Promise<void>;
  usage(accountId: string, now: Date): Promise<UsageCounts>;
  /**
   * The counts of each of the `days` UTC days that end with `now`'s day, oldest first, a day
   * without requests as zeros; today's equal `usage(...).today` at the same moment. Days older
   * than USAGE_HISTORY_DAYS may be gone.
   */
  usageHistory(accountId: string, days: number, now: Date): Promise<DailyUsage[]>;
}

/** How many UTC days of usage (today included) both stores keep at least. */
export const USAGE_HISTORY_DAYS = 90;

/** One UTC day's counts of an account (the dashboard's chart, docs/dashboard.md). */
export interface DailyUsage {
  /** YYYY-MM-DD, UTC */
  date: string;
  ip: number;
  blacklist: number;
  mac: number;
  rejected: number;
}

/**
 * A dashboard session (docs/dashboard.md): who signed in and how. The token the browser holds is
 * never stored; the store keys the session by the token's SHA-256 (hex).
 */
export interface DashboardSession {
  /** 'account': signed in with an API key; 'operator': with the admin token */
  kind: 'account' | 'operator';
  /** the account and key signed in with (null for the operator) */
  account_id: string | null;
  key_id: string | null;
  /**
   * what the credential signed in with was when the session began (the key's rolled_at; for the
   * operator, a fingerprint of the admin token): a change since ends the session
   */
  credential_stamp: string | null;
  created_at: string;
  expires_at: string;
}

/** Dashboard sessions, shared by every instance of a deployment like the rest of the store. */
export interface SessionStore {
  /**
   * Stores a new session, then ends its owner's sessions (those of its account; for the operator,
   * the operator's) past the `keep` that end last, nearest their end first (ties: the smaller token
   * hash first): with one lifetime for all, the oldest. Expired and deleted sessions do not count.
   * Answers how many it ended.
   */
  create(tokenHash: string, session: DashboardSession, keep: number): Promise<number>;
  /** the session, or null when there is none or it has expired at `now` */
  get(tokenHash: string, now: Date): Promise<DashboardSession | null>;
  delete(tokenHash: string): Promise<void>;
}

/** The whole store: its four parts on one connection, and the health and closing they share. */
export interface Store {
  readonly kind: 'sqlite' | 'redis';
  readonly accounts: AccountStore;
  readonly meter: Meter;
  /** The service's own blacklist (src/store/blacklistStore.ts). */
  readonly blacklist: BlacklistStore;
  /** The dashboard's sessions. */
  readonly sessions: SessionStore;
  /** true while the store can answer and record */
  healthy(): Promise<boolean>;
  /**
   * Optional: true while the store answers lookups from a per-process fallback (the shared store
   * with Redis unreachable, or still writing back what it counted meanwhile); /health says degraded.
   */
  degraded?(): boolean;
  /** writes buffered counters and releases the store */
  close(): Promise<void>;
}

export class KeyLimitError extends Error {
  constructor(readonly maxKeys: number) {
    super(`the plan allows ${maxKeys} key${maxKeys === 1 ? '' : 's'}`);
    this.name = 'KeyLimitError';
  }
}

/** Thrown when the store cannot answer (database gone, Redis down for a write that must not be lost). */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}
