/**
 * Rules every store applies to input: a refusal of the caller's input, plans, expiry, key names, the
 * key website list form, the operator's account list (search, paging, order) and dashboard sessions.
 */
import { planCodes, type PlanCode } from '../plans/plans.js';
import { newId, newSecret } from './apiKeySecret.js';
import type { Account, AccountQuery, ApiKey, DashboardSession, NewAccount } from './store.js';

/** Refusal of a caller's input (a bad host, plan or date, an unknown account): the caller's fault, not the store's. */
export class StoreInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreInputError';
  }
}

const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const hostPattern = new RegExp(`^(?:\\*\\.)?${label}(?:\\.${label})*$`);

/**
 * A key's website list (SPEC 5.5) in its stored form: lower case, each an exact host (example.com)
 * or a wildcard of a host (*.example.com), duplicates dropped. URLs, ports and paths are refused
 * rather than guessed at, since a wrong guess would silently lock a key out.
 */
export function normalizeWebsites(websites: unknown): string[] {
  if (!Array.isArray(websites)) throw new StoreInputError('websites must be a list of hosts');
  const out: string[] = [];
  for (const entry of websites) {
    if (typeof entry !== 'string') throw new StoreInputError('websites must be a list of hosts');
    const host = entry.trim().toLowerCase();
    if (host.replace(/^\*\./, '').length > 253 || !hostPattern.test(host)) {
      throw new StoreInputError(
        `website ${JSON.stringify(entry)} is not a host: give example.com or *.example.com, without scheme, port or path`,
      );
    }
    if (!out.includes(host)) out.push(host);
  }
  return out;
}

export function checkedPlan(plan: unknown): PlanCode {
  if (!planCodes.includes(plan as PlanCode)) throw new StoreInputError(`unknown plan ${JSON.stringify(plan)}`);
  return plan as PlanCode;
}

function checkedInstant(value: unknown): string | null {
  if (value === null) return null;
  const date = typeof value === 'string' ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime())) throw new StoreInputError('expires_at must be an ISO 8601 date or null');
  return date.toISOString();
}

/** An account's plan and expiry as stored: a free plan never carries an expiry. */
export function planAndExpiry(plan: PlanCode, expiresAt: string | null | undefined, current: string | null): string | null {
  if (plan === 'free') {
    if (expiresAt !== undefined && expiresAt !== null) throw new StoreInputError('expires_at applies to paid plans only');
    return null;
  }
  return expiresAt === undefined ? current : checkedInstant(expiresAt);
}

export function checkedName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0) throw new StoreInputError('a key name must be a non-empty string');
  return name.trim();
}

/** A new key of an account, its name and websites checked, with its secret: what every store saves. */
export function newKeyWithSecret(
  accountId: string,
  input: { name: string; websites?: string[] },
  createdAt = new Date().toISOString(),
): { key: ApiKey; secret: string } {
  const key: ApiKey = {
    id: newId('key'),
    account_id: accountId,
    name: checkedName(input.name),
    websites: normalizeWebsites(input.websites ?? []),
    created_at: createdAt,
    rolled_at: null,
    last_used_at: null,
  };
  return { key, secret: newSecret() };
}

/** A new account and its first key (SPEC 5.2), checked, with the key's secret: what every store saves. */
export function newAccountWithKey(input: NewAccount): { account: Account; key: ApiKey; secret: string } {
  const plan = checkedPlan(input.plan);
  const account: Account = {
    id: newId('acc'),
    plan,
    expires_at: planAndExpiry(plan, input.expires_at ?? null, null),
    suspended: false,
    email: input.email ?? null,
    created_at: new Date().toISOString(),
  };
  return { account, ...newKeyWithSecret(account.id, { name: 'default' }, account.created_at) };
}

/** The longest search the account list takes: longer text is no id or e-mail anyone types. */
const MAX_SEARCH_LENGTH = 320;
const MAX_ACCOUNT_PAGE = 100;

/** An AccountQuery checked, its search trimmed and in lower case ('' = every account). */
export function checkedAccountQuery(query: AccountQuery): { search: string; offset: number; limit: number } {
  const { search = '', offset, limit } = query;
  if (typeof search !== 'string' || search.length > MAX_SEARCH_LENGTH)
    throw new StoreInputError(`search must be text of at most ${MAX_SEARCH_LENGTH} characters`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new StoreInputError('offset must be a whole number, 0 or more');
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_ACCOUNT_PAGE)
    throw new StoreInputError(`limit must be a whole number from 1 to ${MAX_ACCOUNT_PAGE}`);
  return { search: search.trim().toLowerCase(), offset, limit };
}

/** The account list's search (`search` from checkedAccountQuery): an id starting with it or an e-mail containing it, ignoring case. */
export function accountMatches(search: string, id: string, email: string | null): boolean {
  return search === '' || id.toLowerCase().startsWith(search) || (email !== null && email.toLowerCase().includes(search));
}

/** The account list's order: newest first, by created_at, then by id, both descending (SQLite's ORDER BY says the same). */
export function newestFirst(a: Account, b: Account): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const tokenHashPattern = /^[0-9a-f]{64}$/;

/** A session's key in the store: the SHA-256 of its token, as 64 lowercase hex digits. */
export function isTokenHash(text: unknown): text is string {
  return typeof text === 'string' && tokenHashPattern.test(text);
}

/**
 * A session as both stores save it: checked, its instants in ISO 8601 UTC (so that SQLite compares
 * them as text), ending after it begins.
 */
export function checkedSession(tokenHash: string, session: DashboardSession): DashboardSession {
  if (!isTokenHash(tokenHash)) throw new StoreInputError('a session is stored by the SHA-256 of its token, as 64 lowercase hex digits');
  if (session.kind !== 'account' && session.kind !== 'operator') throw new StoreInputError('a session is of kind account or operator');
  const textOrNull = (value: unknown, name: string): string | null => {
    if (value !== null && typeof value !== 'string') throw new StoreInputError(`${name} must be text or null`);
    return value;
  };
  const createdAt = typeof session.created_at === 'string' ? Date.parse(session.created_at) : NaN;
  const expiresAt = typeof session.expires_at === 'string' ? Date.parse(session.expires_at) : NaN;
  if (!(expiresAt > createdAt)) throw new StoreInputError('a session needs an ISO 8601 created_at and a later expires_at');
  return {
    kind: session.kind,
    account_id: textOrNull(session.account_id, 'account_id'),
    key_id: textOrNull(session.key_id, 'key_id'),
    credential_stamp: textOrNull(session.credential_stamp, 'credential_stamp'),
    created_at: new Date(createdAt).toISOString(),
    expires_at: new Date(expiresAt).toISOString(),
  };
}

/** The number of sessions `create` keeps per owner: a whole number from 1. */
export function checkedKeep(keep: number): number {
  if (!Number.isSafeInteger(keep) || keep < 1) throw new StoreInputError('sessions kept per owner: a whole number from 1');
  return keep;
}

/** A stored session is over from its expires_at on. */
export function sessionExpired(session: DashboardSession, now: Date): boolean {
  return Date.parse(session.expires_at) <= now.getTime();
}
