/**
 * `netlookup account create|show|update`: the admin API's account operations (POST, GET and PATCH
 * /admin/accounts) on the server's store, with the same checks and the same JSON shapes:
 *   create → {account, key}   (key with its secret: the only time it is shown)
 *   show   → {account, keys}  (never secrets)
 *   update → {account}
 */
import { Option, type Command } from 'commander';
import { planCodes, type PlanCode } from '../plans/plans.js';
import type { AccountPatch } from '../store/store.js';
import { emailOrNone, instantOrNone, noneAsNull } from './optionValues.js';
import {
  accountText,
  CliError,
  exclusive,
  keysText,
  keyText,
  notFound,
  refuseEmptyUpdate,
  runAdmin,
  withAdminOptions,
  type AdminFlags,
} from './storeAccess.js';

/** `expires` and `email`: an ISO instant or address, or "none" (noneAsNull). */
interface CreateFlags extends AdminFlags {
  plan: PlanCode;
  expires?: string;
  email?: string;
}

interface UpdateFlags extends AdminFlags {
  plan?: PlanCode;
  expires?: string;
  email?: string;
  suspend?: boolean;
  unsuspend?: boolean;
}

const planOption = (description: string) => new Option('--plan <plan>', description).choices(planCodes);

/** The store's rule (a free plan never ends) in the words of the command line. */
function refuseFreeExpiry(plan: PlanCode, expires: string | null | undefined): void {
  if (plan === 'free' && expires !== undefined && expires !== null)
    throw new CliError('invalid_input', '--expires applies to paid plans only: the free plan does not end.');
}

export function registerAccountCommand(program: Command): Command {
  const account = program.command('account').description('create, show and change accounts in the store (NETLOOKUP_DATA_DIR)');

  withAdminOptions(
    account
      .command('create')
      .description('create an account and its first key; prints the key secret (shown only this once)')
      .addOption(planOption("the account's plan, which sets its limits and field level").default('free'))
      .option('--expires <date>', 'end of a paid plan, ISO 8601 (2027-01-01 or 2027-01-01T12:00:00Z); default: no end', instantOrNone)
      .option('--email <address>', 'contact address (default: none)', emailOrNone),
  ).action((flags: CreateFlags) =>
    runAdmin(flags, { createIfMissing: true }, async ({ accounts }) => {
      const expires = noneAsNull(flags.expires) ?? null;
      refuseFreeExpiry(flags.plan, expires);
      const created = await accounts.createAccount({ plan: flags.plan, expires_at: expires, email: noneAsNull(flags.email) ?? null });
      return { json: created, text: `${accountText(created.account)}\n\n${keyText(created.key)}` };
    }),
  );

  withAdminOptions(
    account.command('show').description('print an account and its keys (never their secrets)').argument('<id>', 'account id (acc_…)'),
  ).action((id: string, flags: AdminFlags) =>
    runAdmin(flags, {}, async ({ accounts }) => {
      const found = (await accounts.getAccount(id)) ?? notFound('account', id);
      const keys = await accounts.listKeys(found.id);
      return { json: { account: found, keys }, text: `${accountText(found)}\n\n${keysText(keys)}` };
    }),
  );

  withAdminOptions(
    account
      .command('update')
      .description('change an account: plan, expiry, suspension, email (at least one)')
      .argument('<id>', 'account id (acc_…)')
      .addOption(planOption('a new plan (a change to free also ends the expiry)'))
      .option('--expires <date>', 'a new end of the paid plan, ISO 8601; "none": no end', instantOrNone)
      .option('--email <address>', 'a new contact address; "none" removes it', emailOrNone)
      .addOption(exclusive('--suspend', 'suspend the account: its keys are refused (403 account_suspended)', 'unsuspend'))
      .addOption(exclusive('--unsuspend', 'lift a suspension', 'suspend')),
  ).action((id: string, flags: UpdateFlags, command: Command) => {
    const patch: AccountPatch = {};
    if (flags.plan !== undefined) patch.plan = flags.plan;
    if (flags.expires !== undefined) patch.expires_at = noneAsNull(flags.expires);
    if (flags.suspend) patch.suspended = true;
    if (flags.unsuspend) patch.suspended = false;
    if (flags.email !== undefined) patch.email = noneAsNull(flags.email);
    refuseEmptyUpdate(command, Object.keys(patch).length > 0, '--plan, --expires, --email, --suspend or --unsuspend');
    return runAdmin(flags, {}, async ({ accounts }) => {
      const current = (await accounts.getAccount(id)) ?? notFound('account', id);
      refuseFreeExpiry(patch.plan ?? current.plan, patch.expires_at);
      const updated = (await accounts.updateAccount(id, patch)) ?? notFound('account', id);
      return { json: { account: updated }, text: accountText(updated) };
    });
  });

  return account;
}
