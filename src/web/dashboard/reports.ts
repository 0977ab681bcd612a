/**
 * The blacklist reports the account sent (inside the retention window), newest first, a page at a
 * time; withdrawing one takes it out of the listing at once.
 */
import { getReports, withdrawReport } from './api.js';
import { count, instant } from './format.js';
import type { Report } from './types.js';
import { announce, attempt, confirmingButton, focusHeading, h, pager, section, table } from './ui.js';

const LIMIT = 50;

export async function reportsSection(): Promise<HTMLElement> {
  const list = h('div', {});
  const element = section('My blacklist reports', list);
  let offset = 0;

  const show = async (at: number) => {
    const { total, reports } = await getReports(at, LIMIT);
    if (reports.length === 0 && at > 0 && total > 0) return show(Math.max(0, Math.floor((total - 1) / LIMIT) * LIMIT));
    offset = at;
    if (total === 0) {
      list.replaceChildren(h('p', {}, 'No reports inside the retention window.'));
      return;
    }
    list.replaceChildren(
      table(
        'Blacklist reports sent by this account, newest first',
        ['Address', 'Type', 'Message', 'Source', 'First reported', 'Last reported', 'Count', 'Withdraw'],
        reports.map((report) => [
          h('span', { className: 'address' }, report.ip),
          report.threat_type,
          h('span', { className: 'wrap' }, report.message ?? '—'),
          report.source,
          instant(report.reported_at),
          instant(report.last_reported_at),
          count(report.count),
          withdrawButton(report),
        ]),
      ),
      pager(at, reports.length, total, LIMIT, (next) => void attempt(() => show(next))),
    );
  };

  const withdrawButton = (report: Report) =>
    confirmingButton(
      'Withdraw',
      {
        label: `Withdraw the report of ${report.ip}`,
        question: `Withdraw the report of ${report.ip}? It leaves the address's listing and score at once.`,
        danger: true,
      },
      async () => {
        await withdrawReport(report.id);
        announce(`Report of ${report.ip} withdrawn.`);
        await show(offset);
        focusHeading(element);
      },
    );

  await show(0);
  return element;
}
