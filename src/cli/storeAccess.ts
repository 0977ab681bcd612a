/**
 * What the admin commands (`netlookup account …`, `netlookup key …`, `netlookup blacklist …`) share:
 * the store the server uses (Redis when REDIS_URL, NETLOOKUP_REDIS_CLUSTER or NETLOOKUP_REDIS_SENTINELS is set, else the embedded SQLite file under
 * NETLOOKUP_DATA_DIR, default ./var, or `--data-dir`), output as text or JSON, and the refusals.
 *
 * Exit statuses (docs/api.md "Administration"): 0 done; 1 the command was understood but refused
 * or failed, with one of the CliErrorCode codes (unknown id, a value the store's rules refuse, key
 * limit, store unavailable, unusable plan file); 2 bad usage, reported by the parser before the
 * store is opened (unknown command or option, missing argument, conflicting options, a value of
 * the wrong form: src/cli/optionValues.ts).
 *
 * The store is closed (its counters flushed) before the command's output is written. A running
 * server sees the change at its next request (SqliteStore watches `PRAGMA data_version`; the Redis
 * store caches nothing).
 */
import { Command, Option } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { loadPlans, PlanFileError, type PlanTable } from '../plans/plans.js';
import type { BlacklistStore } from '../store/blacklistStore.js';
import { StoreInputError } from '../store/storeInput.js';
import { DATABASE_FILE, openStore } from '../store/openStore.js';
import { configFromEnv, sharedRedis } from '../config/config.js';
import { KeyLimitError, StoreUnavailableError, type Account, type AccountStore, type ApiKey, type KeyWithSecret } from '../store/store.js';

/**
 * The error codes of the admin commands (exit status 1), the same as the admin API's where they
 * overlap: not_found (no such account or key), invalid_input (the store's rules refuse a value, a
 * file to import is missing), key_limit (the plan's max_keys), unavailable (no store at the data
 * directory, Redis unreachable), invalid_config (NETLOOKUP_PLANS unusable), internal_error.
 */
export type CliErrorCode = 'not_found' | 'invalid_input' | 'key_limit' | 'unavailable' | 'invalid_config' | 'internal_error';

export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface AdminFlags {
  dataDir?: string;
  json?: boolean;
}

/** What a command prints on success: `json` with --json, `text` otherwise. */
export interface CommandOutput {
  json: unknown;
  text: string;
}

export interface AdminContext {
  accounts: AccountStore;
  blacklist: BlacklistStore;
  /** the plan table in force (NETLOOKUP_PLANS or the spec's), read on first use */
  plans(): PlanTable;
}

/** The data directory as the server resolves it (src/config/config.ts), `--data-dir` first. */
function dataDirOf(flags: AdminFlags, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(flags.dataDir ?? env.NETLOOKUP_DATA_DIR ?? './var');
}

/** The common options of every admin command. */
export function withAdminOptions(command: Command): Command {
  return command
    .option('--json', 'print the result as one line of JSON; a refusal as {success: false, error: {code, message}} on stderr')
    .option('--data-dir <dir>', 'folder of the store (default: $NETLOOKUP_DATA_DIR or ./var)');
}

/** `--suspend`/`--unsuspend`, `--website`/`--no-websites`: one of a pair at most (bad usage otherwise). */
export function exclusive(flags: string, description: string, other: string): Option {
  return new Option(flags, description).conflicts(other);
}

/** An update that names nothing to change is a mistake (bad usage), not a request to print the record. */
export function refuseEmptyUpdate(command: Command, changed: boolean, options: string): void {
  if (!changed) command.error(`error: nothing to change: give ${options}`);
}

function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof KeyLimitError)
    return new CliError(
      'key_limit',
      `The plan allows ${error.maxKeys} key${error.maxKeys === 1 ? '' : 's'}; delete one first or change the plan.`,
    );
  if (error instanceof StoreInputError) return new CliError('invalid_input', error.message);
  if (error instanceof StoreUnavailableError) return new CliError('unavailable', error.message);
  if (error instanceof PlanFileError) return new CliError('invalid_config', error.message);
  return new CliError('internal_error', error instanceof Error ? error.message : String(error));
}

function report(flags: AdminFlags, error: CliError): void {
  process.stderr.write(
    flags.json
      ? JSON.stringify({ success: false, error: { code: error.code, message: error.message } }) + '\n'
      : `netlookup: ${error.message}\n`,
  );
  process.exitCode = 1;
}

/**
 * Runs one admin command on the store: opens it, does the work, closes it (flushing), then prints.
 * `createIfMissing`: only `account create` may bring a new store file into being; the others
 * refuse a data directory without one, which is almost always a wrong NETLOOKUP_DATA_DIR.
 */
export async function runAdmin(
  flags: AdminFlags,
  options: { createIfMissing?: boolean },
  work: (context: AdminContext) => Promise<CommandOutput>,
): Promise<void> {
  let output: CommandOutput;
  try {
    const config = { ...configFromEnv(), dataDir: dataDirOf(flags) };
    const file = path.join(config.dataDir, DATABASE_FILE);
    if (!sharedRedis(config) && !options.createIfMissing && !fs.existsSync(file)) {
      throw new CliError('unavailable', `no store at ${file} (set NETLOOKUP_DATA_DIR or --data-dir to the server's data folder)`);
    }
    const store = await openStore(config);
    let plans: PlanTable | undefined;
    try {
      output = await work({
        accounts: store.accounts,
        blacklist: store.blacklist,
        plans: () => (plans ??= loadPlans(process.env.NETLOOKUP_PLANS)),
      });
    } finally {
      await store.close();
    }
  } catch (error) {
    report(flags, asCliError(error));
    return;
  }
  process.stdout.write(flags.json ? JSON.stringify(output.json) + '\n' : output.text.replace(/\n?$/, '\n'));
}

export function notFound(what: 'account' | 'key', id: string): never {
  throw new CliError('not_found', `No such ${what}: ${id}.`);
}

// Text output

const row = (label: string, value: string) => `  ${label.padEnd(10)} ${value}`;

export function accountText(account: Account): string {
  return [
    `account ${account.id}`,
    row('plan', account.plan),
    row('expires', account.expires_at ?? 'never'),
    row('suspended', account.suspended ? 'yes' : 'no'),
    row('email', account.email ?? '-'),
    row('created', account.created_at),
  ].join('\n');
}

export function keyText(key: ApiKey | KeyWithSecret): string {
  const lines = [
    `key ${key.id} (${JSON.stringify(key.name)})`,
    row('account', key.account_id),
    row('websites', key.websites.length === 0 ? 'any' : key.websites.join(', ')),
    row('created', key.created_at),
    row('rolled', key.rolled_at ?? 'never'),
    row('last used', key.last_used_at ?? 'never'),
  ];
  if ('secret' in key) lines.push(row('secret', key.secret), '', 'The secret is shown only now and stored only hashed: keep it safe.');
  return lines.join('\n');
}

export function keysText(keys: ApiKey[]): string {
  if (keys.length === 0) return 'no keys';
  return keys.map(keyText).join('\n\n');
}
