/** Rules every store applies to input: a refusal of the caller's input, plans, expiry, key names and the key website list form. */
import { planCodes, type PlanCode } from '../plans/plans.js';
import { newId, newSecret } from './apiKeySecret.js';
import type { Account, ApiKey, NewAccount } from './store.js';

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
