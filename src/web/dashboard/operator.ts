/**
 * The operator's views: the accounts (search, a page at a time), one account (plan and expiry,
 * suspension, keys, usage), and removing an address from the blacklist, below both. An account
 * is opened by its link (#/accounts/<id>), so the browser's Back returns to the list.
 */
import * as api from './api.js';
import { count, day, instant } from './format.js';
import { keysSection } from './keys.js';
import { announce, attempt, button, confirmAction, confirmingButton, field, h, pager, section, table } from './ui.js';
import { usageBlocks } from './usage.js';
import type { Key } from './types.js';

/** SPEC 3's plan codes; the operator's plan file changes their numbers, never the codes. */
const PLAN_CODES = ['free', 'starter', 'pro', 'business'];
const LIMIT = 50;

/** The list's search and page, kept while an account is open so that Back finds them again. */
const listing = { search: '', offset: 0 };

const accountHash = (id: string) => `#/accounts/${encodeURIComponent(id)}`;

function blacklistSection(): HTMLElement {
  const address = field('IP address', h('input', { type: 'text', required: true, autocomplete: 'off', spellcheck: false }), 'IPv4 or IPv6');
  const result = h('output', {});
  const form = h(
    'form',
    { attrs: { 'aria-label': 'Remove an address from the blacklist' } },
    address.element,
    h('button', { type: 'submit', textContent: 'Remove' }),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const ip = address.control.value.trim();
    void attempt(async () => {
      if (!(await confirmAction(`Remove ${ip} from the blacklist? Every report of it is deleted.`, 'Remove'))) return;
      const removed = await api.removeFromBlacklist(ip);
      const text = `${removed.ip}: ${count(removed.deleted_reports)} report${removed.deleted_reports === 1 ? '' : 's'} deleted.`;
      result.textContent = text;
      result.setAttribute('data-deleted-reports', String(removed.deleted_reports));
      announce(text);
      form.reset();
    });
  });
  return section(
    'Remove an address from the blacklist',
    h('p', { className: 'hint' }, 'Deletes every report of the address: it is no longer listed.'),
    form,
  );
}

export async function accountsView(): Promise<HTMLElement> {
  const search = field(
    'Search accounts',
    h('input', { type: 'search', value: listing.search, autocomplete: 'off' }),
    'The start of an account id, or part of an e-mail address',
  );
  const form = h('form', { attrs: { role: 'search' } }, search.element, h('button', { type: 'submit', textContent: 'Search' }));
  const results = h('div', {});

  const show = async (offset: number) => {
    const query = listing.search;
    const { total, accounts } = await api.listAccounts(query, offset, LIMIT);
    // An answer to a search the operator has since replaced would overwrite the newer one.
    if (query !== listing.search) return;
    listing.offset = offset;
    results.setAttribute('data-search', query);
    results.replaceChildren(
      h('p', {}, total === 0 ? 'No account matches.' : `${count(total)} account${total === 1 ? '' : 's'}, newest first.`),
      total === 0
        ? ''
        : table(
            'Accounts, newest first',
            ['Account', 'E-mail', 'Plan', 'Expires', 'Suspended', 'Created'],
            accounts.map((account) => [
              h('a', { href: accountHash(account.id), className: 'address' }, account.id),
              account.email ?? '—',
              account.plan,
              account.expires_at ? instant(account.expires_at) : '—',
              account.suspended ? 'yes' : 'no',
              instant(account.created_at),
            ]),
          ),
      total === 0 ? '' : pager(offset, accounts.length, total, LIMIT, (next) => void attempt(() => show(next))),
    );
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    listing.search = search.control.value.trim();
    void attempt(() => show(0));
  });

  await show(listing.offset);
  return h(
    'div',
    { className: 'view', attrs: { 'data-view': 'accounts' } },
    h('h1', { tabIndex: -1 }, 'Accounts'),
    form,
    results,
    blacklistSection(),
  );
}

/** One account; `reload` shows it again, fresh from the service, with a message. */
export async function accountDetailView(id: string, reload: (message: string) => void): Promise<HTMLElement> {
  const { account, plan, usage, days, keys: firstKeys } = await api.getAccountDetail(id);
  // the keys table's first load is the answer above; after a roll or a delete it asks again
  let loaded: { keys: Key[]; max_keys: number } | null = { keys: firstKeys, max_keys: plan.max_keys };
  const keys = await keysSection(
    {
      load: async () => {
        const first = loaded;
        loaded = null;
        if (first) return first;
        const fresh = await api.getAccountDetail(id);
        return { keys: fresh.keys, max_keys: fresh.plan.max_keys };
      },
      roll: api.adminRollKey,
      remove: api.adminDeleteKey,
    },
    { sessionKeyId: null },
  );

  const planSelect = field(
    'Plan',
    h('select', {}, ...PLAN_CODES.map((code) => h('option', { value: code, textContent: code, selected: code === plan.code }))),
  );
  const expiry = field(
    'Expires (UTC date)',
    h('input', { type: 'date', value: day(plan.expires_at) }),
    'Empty: no expiry. The free plan never expires.',
  );
  const syncExpiry = () => {
    expiry.control.disabled = planSelect.control.value === 'free';
  };
  planSelect.control.addEventListener('change', syncExpiry);
  syncExpiry();
  const planForm = h(
    'form',
    { attrs: { 'aria-label': 'Plan and expiry' } },
    planSelect.element,
    expiry.element,
    h('button', { type: 'submit', textContent: 'Save' }),
  );
  planForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const patch: { plan: string; expires_at?: string | null } = { plan: planSelect.control.value };
    // an unchanged date is not sent: it would cut a stored expiry's time of day to midnight
    if (patch.plan !== 'free' && expiry.control.value !== day(plan.expires_at))
      patch.expires_at = expiry.control.value ? `${expiry.control.value}T00:00:00Z` : null;
    void attempt(async () => {
      await api.updateAccount(id, patch);
      reload('Plan saved.');
    });
  });

  const suspension = section(
    'Suspension',
    h('p', {}, account.suspended ? 'Suspended: every request with its keys is refused.' : 'Active.'),
    account.suspended
      ? button(
          'Unsuspend',
          () =>
            void attempt(async () => {
              await api.updateAccount(id, { suspended: false });
              reload('Account unsuspended.');
            }),
        )
      : confirmingButton(
          'Suspend',
          {
            label: `Suspend ${id}`,
            question: `Suspend account ${id}? Every request with its keys is refused until it is unsuspended.`,
            danger: true,
          },
          async () => {
            await api.updateAccount(id, { suspended: true });
            reload('Account suspended.');
          },
        ),
  );

  return h(
    'div',
    { className: 'view', attrs: { 'data-view': 'account-detail', 'data-account-id': id } },
    h('p', {}, h('a', { href: '#/' }, '← All accounts')),
    h('h1', { tabIndex: -1 }, `Account ${id}`),
    h(
      'p',
      { className: 'subtitle' },
      `${account.email ?? 'No e-mail address'} · since ${day(account.created_at)}${account.suspended ? ' · suspended' : ''}`,
    ),
    section('Plan and expiry', planForm),
    suspension,
    keys,
    ...usageBlocks(plan, usage, days),
    blacklistSection(),
  );
}
