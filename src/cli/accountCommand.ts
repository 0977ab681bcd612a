/**
 * `netlookup account create|show|update`: the admin API's account operations (POST, GET and PATCH
 * /admin/accounts) on the server's store, with the same checks and the same JSON shapes:
 *   create → {account, key}   (key with its secret: the only time it is shown)
 *   show   → {account, keys}  (never secrets)
 *   update → {account}
 */
import type { Command } from 'commander';
import type { AccountPatch } from '../store/store.js';
import {
  accountText,
  dateOrNone,
  exclusive,
  keysText,
  keyText,
  notFound,
  planOf,
  runAdmin,
  textOrNone,
  usageErrorsExitWith2,
  withAdminOptions,
  type AdminFlags,
} from './storeAccess.js';

interface CreateFlags extends AdminFlags {
  plan: string;
  expires?: string;
  email?: string;
}

interface UpdateFlags extends AdminFlags {
  plan?: string;
  expires?: string;
  email?: string;
  suspend?: boolean;
  unsuspend?: boolean;
}

export function registerAccountCommand(program: Command): Command {
  const account = usageErrorsExitWith2(
    program.command('account').description('create, show and change accounts in the store (NETLOOKUP_DATA_DIR)'),
  );

  withAdminOptions(
    account
      .command('create')
      .description('create an account and its first key; prints the key secret (shown only this once)')
      .option('--plan <plan>', 'free, starter, pro or business', 'free')
      .option('--expires <date>', 'end of a paid plan (ISO 8601, e.g. 2027-01-01); "none" for no end')
      .option('--email <address>', 'contact address'),
  ).action((flags: CreateFlags) =>
    runAdmin(flags, { createIfMissing: true }, async ({ accounts }) => {
      const created = await accounts.createAccount({
        plan: planOf(flags.plan),
        expires_at: flags.expires === undefined ? null : dateOrNone(flags.expires, 'expires'),
        email: flags.email === undefined ? null : textOrNone(flags.email),
      });
      return { json: created, text: `${accountText(created.account)}\n\n${keyText(created.key)}` };
    }),
  );

  withAdminOptions(
    account.command('show').description('an account and its keys (never their secrets)').argument('<id>', 'account id (acc_…)'),
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
      .description('change an account: plan, expiry, suspension, email')
      .argument('<id>', 'account id (acc_…)')
      .option('--plan <plan>', 'free, starter, pro or business')
      .option('--expires <date>', 'end of the paid plan (ISO 8601), or "none"')
      .option('--email <address>', 'contact address, or "none"')
      .addOption(exclusive('--suspend', 'suspend the account: its keys are refused (403 account_suspended)', 'unsuspend'))
      .addOption(exclusive('--unsuspend', 'lift a suspension', 'suspend')),
  ).action((id: string, flags: UpdateFlags) =>
    runAdmin(flags, {}, async ({ accounts }) => {
      const patch: AccountPatch = {};
      if (flags.plan !== undefined) patch.plan = planOf(flags.plan);
      if (flags.expires !== undefined) patch.expires_at = dateOrNone(flags.expires, 'expires');
      if (flags.suspend) patch.suspended = true;
      if (flags.unsuspend) patch.suspended = false;
      if (flags.email !== undefined) patch.email = textOrNone(flags.email);
      const updated = (await accounts.updateAccount(id, patch)) ?? notFound('account', id);
      return { json: { account: updated }, text: accountText(updated) };
    }),
  );

  return account;
}
