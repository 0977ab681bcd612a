/**
 * The keys of an account: a table with each key's websites and dates, and the actions the session
 * may take. The account holder edits, rolls, deletes and creates keys; the operator rolls and
 * deletes. A new secret (created or rolled key) is shown once, in a read-only field with a Copy
 * button, above the table, so that reloading the table does not take it away.
 */
import { count, instant, parseWebsites, websitesText } from './format.js';
import { announce, attempt, button, confirmingButton, copyButton, field, focusHeading, h, section, table, uid } from './ui.js';
import type { Key, KeyWithSecret } from './types.js';

export interface KeyOperations {
  load(): Promise<{ keys: Key[]; max_keys: number }>;
  /** the operator's and the account holder's */
  roll?(id: string): Promise<KeyWithSecret>;
  remove?(id: string): Promise<unknown>;
  /** the account holder's own operations */
  update?(id: string, patch: { name: string; websites: string[] }): Promise<Key>;
  create?(input: { name: string; websites: string[] }): Promise<KeyWithSecret>;
}

export interface KeysOptions {
  /** the key the session was made with: rolling or deleting it ends the session */
  sessionKeyId: string | null;
}

/** Name and website fields, for a new key and for editing one. */
function keyFields(key?: Key) {
  const name = field('Name', h('input', { type: 'text', required: true, maxLength: 100, value: key?.name ?? '', autocomplete: 'off' }));
  const websites = field(
    'Websites',
    h('textarea', { rows: 3, value: key?.websites.join('\n') ?? '', spellcheck: false }),
    'One host per line (example.com or *.example.com); empty: any website. A key with websites can be used in web pages, and cannot sign in to this dashboard (a session made with it ends).',
  );
  return {
    elements: [name.element, websites.element],
    value: () => ({ name: name.control.value.trim(), websites: parseWebsites(websites.control.value) }),
    focus: () => name.control.focus(),
  };
}

export async function keysSection(ops: KeyOperations, options: KeysOptions): Promise<HTMLElement> {
  const secretSlot = h('div', { className: 'secret-slot' });
  const list = h('div', {});
  const creating = ops.create ? newKeyForm(ops.create) : null;
  const element = section('Keys', secretSlot, list, creating?.element);

  const showSecret = (key: KeyWithSecret, what: string, endsSession: boolean) => {
    const secret = h('input', { type: 'text', readOnly: true, value: key.secret, spellcheck: false, autocomplete: 'off' });
    const secretField = field(`Secret of key “${key.name}”`, secret);
    const panel = h(
      'div',
      { className: 'secret', attrs: { 'data-key-id': key.id } },
      h('h3', {}, `${what}: copy its secret now`),
      h(
        'p',
        { className: 'note' },
        'Shown once: the service keeps only a hash of it, so it cannot be shown again. Lost, it can only be rolled.',
        endsSession ? ' You signed in with this key, so you are signed out: sign in again with the new secret.' : '',
      ),
      h('div', { className: 'inline' }, secretField.element, copyButton(secret, `the secret of key ${key.name}`)),
      button('Done', () => {
        panel.remove();
        // the key's old secret is gone: for the session made with it, this answers session_required
        void attempt(refresh).then(() => focusHeading(element));
      }),
    );
    secretSlot.replaceChildren(panel);
    secret.focus();
    secret.select();
  };

  const rowOf = (key: Key, columns: number): HTMLElement[] => {
    const actions: HTMLElement[] = [];
    const isSessionKey = key.id === options.sessionKeyId;
    if (ops.update) {
      const update = ops.update;
      actions.push(
        button('Edit', () => openEditor(key, update, columns), { attrs: { 'aria-label': `Edit ${key.name}`, 'aria-expanded': 'false' } }),
      );
    }
    if (ops.roll) {
      const roll = ops.roll;
      const warning = isSessionKey ? ' You signed in with it: you will need to sign in again with the new secret.' : '';
      const question = `Roll “${key.name}”? Its secret changes and the old one stops working at once.${warning}`;
      actions.push(
        confirmingButton('Roll', { label: `Roll ${key.name}`, question }, async () => {
          const rolled = await roll(key.id);
          announce(`Key “${key.name}” rolled: copy its new secret now, it is shown once.`);
          if (!isSessionKey) await refresh();
          showSecret(rolled, `Key “${rolled.name}” rolled`, isSessionKey);
        }),
      );
    }
    if (ops.remove) {
      const remove = ops.remove;
      const warning = isSessionKey ? ' You signed in with it: you will be signed out.' : '';
      const question = `Delete “${key.name}”? Requests with it are refused from now on.${warning}`;
      actions.push(
        confirmingButton('Delete', { label: `Delete ${key.name}`, question, danger: true }, async () => {
          await remove(key.id);
          announce(`Key “${key.name}” deleted.`);
          await refresh();
          focusHeading(element);
        }),
      );
    }
    const cells: HTMLElement[] = [
      h('span', {}, key.name, isSessionKey ? h('span', { className: 'tag' }, 'your sign-in') : null),
      h('span', { className: 'wrap' }, websitesText(key.websites)),
      h('span', {}, instant(key.created_at)),
      h('span', {}, key.last_used_at ? instant(key.last_used_at) : 'never'),
      h('span', {}, key.rolled_at ? instant(key.rolled_at) : 'never'),
    ];
    if (actions.length > 0) cells.push(h('div', { className: 'actions' }, ...actions));
    return cells;
  };

  const openEditor = (key: Key, update: NonNullable<KeyOperations['update']>, columns: number) => {
    const row = list.querySelector<HTMLTableRowElement>(`tr[data-key-id="${CSS.escape(key.id)}"]`)!;
    const toggle = row.querySelector<HTMLButtonElement>('button[aria-expanded]')!;
    if (row.nextElementSibling?.classList.contains('editor')) {
      row.nextElementSibling.remove();
      toggle.setAttribute('aria-expanded', 'false');
      return;
    }
    const fields = keyFields(key);
    const form = h(
      'form',
      { attrs: { 'aria-label': `Edit key ${key.name}` } },
      ...fields.elements,
      h(
        'div',
        { className: 'actions' },
        h('button', { type: 'submit', textContent: 'Save' }),
        button('Cancel', () => close()),
      ),
    );
    const editor = h('tr', { className: 'editor' }, h('td', { colSpan: columns }, form));
    const close = () => {
      editor.remove();
      toggle.setAttribute('aria-expanded', 'false');
      toggle.focus();
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void attempt(async () => {
        const saved = await update(key.id, fields.value());
        announce(`Key “${saved.name}” saved.`);
        await refresh();
        list.querySelector<HTMLElement>(`tr[data-key-id="${CSS.escape(key.id)}"] button`)?.focus();
      });
    });
    row.after(editor);
    toggle.setAttribute('aria-expanded', 'true');
    fields.focus();
  };

  const refresh = async () => {
    const { keys, max_keys } = await ops.load();
    const headers = ['Name', 'Websites', 'Created', 'Last used', 'Rolled'];
    const withActions = Boolean(ops.roll || ops.remove || ops.update);
    if (withActions) headers.push('Actions');
    const rendered = table(
      'Keys of the account',
      headers,
      keys.map((key) => rowOf(key, headers.length)),
    );
    rendered.querySelectorAll('tbody tr').forEach((row, i) => row.setAttribute('data-key-id', keys[i].id));
    list.replaceChildren(h('p', {}, `${count(keys.length)} of ${count(max_keys)} keys the plan allows.`), rendered);
    creating?.limit(keys.length >= max_keys, max_keys);
  };

  function newKeyForm(create: NonNullable<KeyOperations['create']>) {
    const fields = keyFields();
    const limitNote = h('p', { className: 'note', hidden: true, id: uid('limit') });
    // disabled at the plan's key limit, with the note saying why
    const controls = h(
      'fieldset',
      { attrs: { 'aria-describedby': limitNote.id } },
      ...fields.elements,
      h('button', { type: 'submit', textContent: 'Create key' }),
    );
    const heading = h('h3', { id: uid('heading') }, 'New key');
    const form = h('form', { attrs: { 'aria-labelledby': heading.id } }, heading, limitNote, controls);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void attempt(async () => {
        const key = await create(fields.value());
        form.reset();
        announce(`Key “${key.name}” created: copy its secret now, it is shown once.`);
        await refresh();
        showSecret(key, `Key “${key.name}” created`, false);
      });
    });
    return {
      element: form,
      limit(reached: boolean, max: number) {
        controls.disabled = reached;
        limitNote.hidden = !reached;
        limitNote.textContent = `The plan allows ${count(max)} key${max === 1 ? '' : 's'} and all are in use: delete one to create another.`;
      },
    };
  }

  await refresh();
  return element;
}
