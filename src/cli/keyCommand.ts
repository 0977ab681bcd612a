/**
 * `netlookup key create|update|roll|delete|list`: the admin API's key operations on the server's
 * store, with the same checks and JSON shapes:
 *   create → {key}  (with its secret; the plan's max_keys applies, from NETLOOKUP_PLANS or the spec)
 *   update → {key}
 *   roll   → {key}  (with the new secret; the old one is refused at once, by a running server too)
 *   delete → {success: true, deleted: id}
 *   list   → {account_id, keys}  (never secrets)
 */
import type { Command } from 'commander';
import type { KeyPatch } from '../store/store.js';
import { keyName, websiteHost } from './optionValues.js';
import { exclusive, keysText, keyText, notFound, refuseEmptyUpdate, runAdmin, withAdminOptions, type AdminFlags } from './storeAccess.js';

interface CreateFlags extends AdminFlags {
  name: string;
  website?: string[];
}

interface UpdateFlags extends AdminFlags {
  name?: string;
  website?: string[];
  /** false with --no-websites */
  websites: boolean;
}

const websiteHelp =
  'answer only requests whose Origin (else Referer) host is this: exact (example.com) or its subdomains (*.example.com); repeat for more';

export function registerKeyCommand(program: Command): Command {
  const key = program.command('key').description('create, change, roll, delete and list API keys in the store (NETLOOKUP_DATA_DIR)');

  withAdminOptions(
    key
      .command('create')
      .description("create a key for an account (up to the plan's max_keys); prints its secret (shown only this once)")
      .argument('<account-id>', 'account id (acc_…)')
      .requiredOption('--name <name>', 'a name for the key (1 to 100 characters)', keyName)
      .option('--website <host>', `${websiteHelp}; without it, the key answers any website`, websiteHost),
  ).action((accountId: string, flags: CreateFlags) =>
    runAdmin(flags, {}, async ({ accounts, plans }) => {
      const account = (await accounts.getAccount(accountId)) ?? notFound('account', accountId);
      const created = await accounts.createKey(
        account.id,
        { name: flags.name, websites: flags.website ?? [] },
        plans()[account.plan].max_keys,
      );
      return { json: { key: created }, text: keyText(created) };
    }),
  );

  withAdminOptions(
    key
      .command('update')
      .description("change a key's name or its websites (at least one)")
      .argument('<key-id>', 'key id (key_…)')
      .option('--name <name>', 'a new name (1 to 100 characters)', keyName)
      .addOption(exclusive('--website <host>', `${websiteHelp}; replaces the list`, 'websites').argParser(websiteHost))
      .addOption(exclusive('--no-websites', 'empty the list: the key answers any website', 'website')),
  ).action((keyId: string, flags: UpdateFlags, command: Command) => {
    const patch: KeyPatch = {};
    if (flags.name !== undefined) patch.name = flags.name;
    if (flags.website !== undefined) patch.websites = flags.website;
    if (flags.websites === false) patch.websites = [];
    refuseEmptyUpdate(command, Object.keys(patch).length > 0, '--name, --website or --no-websites');
    return runAdmin(flags, {}, async ({ accounts }) => {
      const updated = (await accounts.updateKey(keyId, patch)) ?? notFound('key', keyId);
      return { json: { key: updated }, text: keyText(updated) };
    });
  });

  withAdminOptions(
    key
      .command('roll')
      .description('give a key a new secret; the old secret stops working at once; prints the new secret')
      .argument('<key-id>', 'key id (key_…)'),
  ).action((keyId: string, flags: AdminFlags) =>
    runAdmin(flags, {}, async ({ accounts }) => {
      const rolled = (await accounts.rollKey(keyId)) ?? notFound('key', keyId);
      return { json: { key: rolled }, text: keyText(rolled) };
    }),
  );

  withAdminOptions(
    key.command('delete').description('delete a key; its secret stops working at once').argument('<key-id>', 'key id (key_…)'),
  ).action((keyId: string, flags: AdminFlags) =>
    runAdmin(flags, {}, async ({ accounts }) => {
      if (!(await accounts.deleteKey(keyId))) notFound('key', keyId);
      return { json: { success: true, deleted: keyId }, text: `deleted key ${keyId}` };
    }),
  );

  withAdminOptions(
    key.command('list').description("list an account's keys (never their secrets)").argument('<account-id>', 'account id (acc_…)'),
  ).action((accountId: string, flags: AdminFlags) =>
    runAdmin(flags, {}, async ({ accounts }) => {
      const account = (await accounts.getAccount(accountId)) ?? notFound('account', accountId);
      const keys = await accounts.listKeys(account.id);
      return { json: { account_id: account.id, keys }, text: keysText(keys) };
    }),
  );

  return key;
}
