/**
 * The changes made to accounts, keys and the blacklist by the operator (admin API, dashboard) and
 * by account holders (dashboard): one place, so that every way in validates a body the same way,
 * calls the same store operation and writes the same audit log line. Each line names who asked
 * (`via`: admin-api or dashboard, and `by`: the operator or the account and key of the session).
 */
import { ApiError } from '../../errors.js';
import { parseBlacklistAddress } from '../../blacklist/address.js';
import { planCodes, type PlanCode } from '../../plans/plans.js';
import { StoreInputError } from '../../store/storeInput.js';
import { KeyLimitError, type Account, type AccountPatch, type ApiKey, type KeyPatch, type KeyWithSecret } from '../../store/store.js';
import { planInForce } from '../request/caller.js';
import type { ServiceDeps } from '../serviceDeps.js';

/** Who asks for a change, as the audit log names them. */
export interface Actor {
  via: 'admin-api' | 'dashboard';
  /** 'operator', or `<account id>/<key id>` of an account holder's session */
  by: string;
  /** the client's address */
  client: string;
}

export type ChangeBody = Record<string, unknown>;

/** A request body as a JSON object; nothing sent is an empty object. */
export function changeBody(value: unknown): ChangeBody {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError('invalid_input', 'The body must be a JSON object.');
  return value as ChangeBody;
}

function invalid(message: string): never {
  throw new ApiError('invalid_input', message);
}

function planOf(value: unknown): PlanCode {
  if (typeof value !== 'string' || !planCodes.includes(value as PlanCode)) invalid(`plan must be one of ${planCodes.join(', ')}`);
  return value as PlanCode;
}

function dateOrNull(value: unknown, name: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) invalid(`${name} must be an ISO 8601 date or null`);
  return new Date(value as string).toISOString();
}

function emailOrNull(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.length > 254) invalid('email must be a string of at most 254 characters or null');
  return value as string;
}

function websitesOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) invalid('websites must be an array of host names');
  return value as string[];
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > 100)
    invalid('name must be a non-empty string of at most 100 characters');
  return (value as string).trim();
}

/** Store errors about input (bad website syntax, the key count) become API errors; the rest stay what they are. */
async function storeCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof KeyLimitError)
      throw new ApiError('key_limit', `The plan allows ${error.maxKeys} key${error.maxKeys === 1 ? '' : 's'}.`);
    if (error instanceof StoreInputError) invalid(error.message);
    throw error;
  }
}

export async function createAccount(deps: ServiceDeps, input: ChangeBody, actor: Actor) {
  const created = await storeCall(() =>
    deps.store.accounts.createAccount({
      plan: planOf(input.plan ?? 'free'),
      expires_at: input.expires_at === undefined ? null : dateOrNull(input.expires_at, 'expires_at'),
      email: input.email === undefined ? null : emailOrNull(input.email),
    }),
  );
  deps.logger.info({ ...actor, account: created.account.id, plan: created.account.plan }, 'account created');
  return created;
}

export async function updateAccount(deps: ServiceDeps, id: string, input: ChangeBody, actor: Actor): Promise<Account> {
  const patch: AccountPatch = {};
  if ('plan' in input) patch.plan = planOf(input.plan);
  if ('expires_at' in input) patch.expires_at = dateOrNull(input.expires_at, 'expires_at');
  if ('suspended' in input) {
    if (typeof input.suspended !== 'boolean') invalid('suspended must be true or false');
    patch.suspended = input.suspended as boolean;
  }
  if ('email' in input) patch.email = emailOrNull(input.email);
  const account = await storeCall(() => deps.store.accounts.updateAccount(id, patch));
  if (!account) throw new ApiError('not_found', 'No such account.');
  deps.logger.info({ ...actor, account: account.id, changed: Object.keys(patch) }, 'account changed');
  return account;
}

/** A new key within the key count of the plan in force. */
export async function createKey(deps: ServiceDeps, account: Account, input: ChangeBody, actor: Actor): Promise<KeyWithSecret> {
  const key = await storeCall(() =>
    deps.store.accounts.createKey(
      account.id,
      { name: nameOf(input.name ?? 'key'), websites: input.websites === undefined ? [] : websitesOf(input.websites) },
      planInForce(deps, account, deps.now()).max_keys,
    ),
  );
  deps.logger.info({ ...actor, account: account.id, key: key.id }, 'key created');
  return key;
}

export async function updateKey(deps: ServiceDeps, id: string, input: ChangeBody, actor: Actor): Promise<ApiKey> {
  const patch: KeyPatch = {};
  if ('name' in input) patch.name = nameOf(input.name);
  if ('websites' in input) patch.websites = websitesOf(input.websites);
  const key = await storeCall(() => deps.store.accounts.updateKey(id, patch));
  if (!key) throw new ApiError('not_found', 'No such key.');
  deps.logger.info({ ...actor, key: key.id, changed: Object.keys(patch) }, 'key changed');
  return key;
}

export async function rollKey(deps: ServiceDeps, id: string, actor: Actor): Promise<KeyWithSecret> {
  const key = await deps.store.accounts.rollKey(id);
  if (!key) throw new ApiError('not_found', 'No such key.');
  deps.logger.info({ ...actor, key: key.id }, 'key rolled');
  return key;
}

export async function deleteKey(deps: ServiceDeps, id: string, actor: Actor): Promise<void> {
  if (!(await deps.store.accounts.deleteKey(id))) throw new ApiError('not_found', 'No such key.');
  deps.logger.info({ ...actor, key: id }, 'key deleted');
}

/** False-positive review: every report of the address goes, and the log records who asked when. */
export async function deleteBlacklistAddress(
  deps: ServiceDeps,
  text: string,
  actor: Actor,
): Promise<{ ip: string; deleted_reports: number }> {
  const address = parseBlacklistAddress(text);
  if (!address) throw new ApiError('invalid_ip');
  const deleted = await deps.store.blacklist.deleteAddress(address, deps.now());
  if (deleted === 0) throw new ApiError('not_found', 'No reports for this address.');
  deps.logger.info({ ...actor, ip: address.text, reports: deleted }, 'blacklist address deleted');
  return { ip: address.text, deleted_reports: deleted };
}

/** An account holder takes back one of its own blacklist reports. */
export async function withdrawReport(deps: ServiceDeps, reporter: string, reportId: string, actor: Actor): Promise<void> {
  if (!(await deps.store.blacklist.withdrawReport(reporter, reportId, deps.now())))
    throw new ApiError('not_found', 'No such report of this account.');
  deps.logger.info({ ...actor, report: reportId }, 'blacklist report withdrawn');
}
