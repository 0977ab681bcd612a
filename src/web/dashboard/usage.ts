/**
 * An account's plan and usage, the same block for the account holder and for the operator looking
 * at an account: the plan's limits, this period's quota use, today's counts (from `usage`, exactly
 * the GET /v1/usage record), the chart of the last days and the same numbers as a table. Elements
 * that show a field of the usage record carry data-usage="<field path>" and data-value="<number>".
 */
import { usageChart } from './chart.js';
import { count, instant } from './format.js';
import { h, section, table, uid } from './ui.js';
import type { DailyUsage, Plan, Usage } from './types.js';

/** A number of the usage record, marked with its field path for tests to compare with /v1/usage. */
const usageNumber = (path: string, value: number) =>
  h('span', { attrs: { 'data-usage': path, 'data-value': String(value) } }, count(value));

function definitions(entries: [string, Node | string][]): HTMLDListElement {
  return h('dl', {}, ...entries.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

function quotaText(usage: Usage): string {
  if (usage.monthly_quota) return `${count(usage.monthly_quota.limit)} lookups a month, all APIs together`;
  const daily = usage.daily_quota!;
  return `${count(daily.ip)} IP, ${count(daily.blacklist)} blacklist and ${count(daily.mac)} MAC lookups a day`;
}

function planBlock(plan: Plan, usage: Usage): HTMLElement {
  return section(
    'Plan',
    definitions([
      ['Plan', `${plan.name} (${plan.code})`],
      ['Expires', plan.code === 'free' ? 'never (free plan)' : plan.expires_at ? instant(plan.expires_at) : 'no expiry'],
      ['Rate limit', `${count(plan.rate_limit_per_second)} requests a second`],
      ['Keys', `up to ${count(plan.max_keys)}`],
      ['Batch size', plan.batch_size > 0 ? `up to ${count(plan.batch_size)} addresses` : 'no batch requests'],
      ['Quota', quotaText(usage)],
    ]),
  );
}

/** One labelled gauge: "used of limit" with the numbers marked. */
function gauge(label: string, used: [string | null, number], limit: [string, number], extra?: Node): HTMLElement {
  const meter = h('meter', { min: 0, max: Math.max(1, limit[1]), value: used[1], high: limit[1] * 0.9, optimum: 0 });
  meter.id = uid('quota');
  const usedText = used[0] ? usageNumber(used[0], used[1]) : h('span', {}, count(used[1]));
  return h(
    'div',
    { className: 'gauge' },
    h('label', { htmlFor: meter.id }, label),
    meter,
    h('p', {}, usedText, ' of ', usageNumber(limit[0], limit[1]), extra ?? null),
  );
}

function quotaBlock(usage: Usage): HTMLElement {
  if (usage.monthly_quota) {
    const q = usage.monthly_quota;
    return section(
      'Quota this month',
      h('p', { className: 'hint' }, 'All APIs count against one monthly pool; it resets on the 1st at 00:00 UTC.'),
      gauge(
        'Lookups this month',
        ['monthly_quota.used', q.used],
        ['monthly_quota.limit', q.limit],
        h('span', {}, ' (', usageNumber('monthly_quota.remaining', q.remaining), ' left)'),
      ),
    );
  }
  const q = usage.daily_quota!;
  return section(
    'Quota today',
    h('p', { className: 'hint' }, 'Each API has its own daily allowance; they reset at 00:00 UTC.'),
    gauge('IP lookups today', [null, usage.today.ip], ['daily_quota.ip', q.ip]),
    gauge('Blacklist lookups today', [null, usage.today.blacklist], ['daily_quota.blacklist', q.blacklist]),
    gauge('MAC lookups today', [null, usage.today.mac], ['daily_quota.mac', q.mac]),
  );
}

function todayBlock(usage: Usage): HTMLElement {
  const t = usage.today;
  return section(
    'Today (UTC)',
    definitions([
      ['IP lookups', usageNumber('today.ip', t.ip)],
      ['Blacklist lookups', usageNumber('today.blacklist', t.blacklist)],
      ['MAC lookups', usageNumber('today.mac', t.mac)],
      ['Rejected requests', usageNumber('today.rejected', t.rejected)],
    ]),
    h('p', { className: 'hint' }, 'Rejected requests never count against the quota.'),
  );
}

function historyBlock(days: DailyUsage[]): HTMLElement {
  return section(
    `Last ${days.length} days`,
    usageChart(days),
    h(
      'details',
      {},
      h('summary', {}, 'Daily numbers'),
      table(
        'Lookups and rejected requests per UTC day, oldest first',
        ['Day', 'IP', 'Blacklist', 'MAC', 'Rejected'],
        days.map((d) => [d.date, count(d.ip), count(d.blacklist), count(d.mac), count(d.rejected)]),
      ),
    ),
  );
}

export function usageBlocks(plan: Plan, usage: Usage, days: DailyUsage[]): HTMLElement[] {
  return [planBlock(plan, usage), quotaBlock(usage), todayBlock(usage), historyBlock(days)];
}
