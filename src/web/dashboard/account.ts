/**
 * The account holder's view: the plan and usage, the free plan's attribution, the keys and the
 * blacklist reports. A session made with a key restricted to websites reads only: the page says
 * so and offers no action (the service would refuse them: docs/dashboard.md).
 */
import * as api from './api.js';
import { day } from './format.js';
import { keysSection } from './keys.js';
import { reportsSection } from './reports.js';
import { copyButton, field, h, section } from './ui.js';
import { usageBlocks } from './usage.js';
import type { Attribution, Session } from './types.js';

const READ_ONLY_NOTE =
  'You signed in with a key restricted to websites: such a key can be public in a web page, so signing in with it only reads. To change keys or reports, sign in with a key without a website list.';

function attributionBlock(attribution: Extract<Attribution, { required: true }>): HTMLElement {
  const snippet = field('HTML to paste', h('textarea', { readOnly: true, rows: 3, value: attribution.html, spellcheck: false }));
  return section(
    'Attribution (free plan)',
    h('p', {}, 'The free plan asks for a visible credit wherever its data is shown: ', h('q', {}, attribution.text)),
    h('div', { className: 'inline' }, snippet.element, copyButton(snippet.control, 'the attribution HTML')),
  );
}

export async function accountView(session: Session): Promise<HTMLElement> {
  const manage = session.can_manage;
  const [overview, days, keys, reports] = await Promise.all([
    api.getAccount(),
    api.getHistory(90),
    keysSection(
      manage
        ? { load: api.getKeys, roll: api.rollKey, remove: api.deleteKey, update: api.updateKey, create: api.createKey }
        : { load: api.getKeys },
      { sessionKeyId: session.key_id, readOnlyNote: manage ? undefined : READ_ONLY_NOTE },
    ),
    reportsSection(manage),
  ]);
  const { account, plan, usage, attribution } = overview;
  return h(
    'div',
    { className: 'view', attrs: { 'data-view': 'account' } },
    h('h1', { tabIndex: -1 }, 'Your account'),
    h('p', { className: 'subtitle' }, `${account.email ?? 'No e-mail address'} · account ${account.id} · since ${day(account.created_at)}`),
    attribution.required ? attributionBlock(attribution) : null,
    ...usageBlocks(plan, usage, days),
    keys,
    reports,
  );
}
