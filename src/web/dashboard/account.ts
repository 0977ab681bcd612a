/**
 * The account holder's view: the plan and usage, the free plan's attribution, the keys and the
 * blacklist reports. (A key restricted to websites cannot sign in: docs/dashboard.md.)
 */
import * as api from './api.js';
import { day } from './format.js';
import { keysSection } from './keys.js';
import { reportsSection } from './reports.js';
import { copyButton, field, h, section } from './ui.js';
import { usageBlocks } from './usage.js';
import type { Attribution, Session } from './types.js';

function attributionBlock(attribution: Extract<Attribution, { required: true }>): HTMLElement {
  const snippet = field('HTML to paste', h('textarea', { readOnly: true, rows: 3, value: attribution.html, spellcheck: false }));
  return section(
    'Attribution (free plan)',
    h('p', {}, 'The free plan asks for a visible credit wherever its data is shown: ', h('q', {}, attribution.text)),
    h('div', { className: 'inline' }, snippet.element, copyButton(snippet.control, 'the attribution HTML')),
  );
}

export async function accountView(session: Session): Promise<HTMLElement> {
  const [overview, days, keys, reports] = await Promise.all([
    api.getAccount(),
    api.getHistory(90),
    keysSection(
      { load: api.getKeys, roll: api.rollKey, remove: api.deleteKey, update: api.updateKey, create: api.createKey },
      { sessionKeyId: session.key_id },
    ),
    reportsSection(),
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
