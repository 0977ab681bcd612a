/**
 * The daily usage chart (uPlot): IP, blacklist and MAC lookups and rejected requests per UTC day.
 * It is drawn once its box has a width, and follows the box's width after that. Colours are the
 * Okabe–Ito set (told apart with colour blindness) and rejected is also dashed; the chart is one
 * image to assistive technology, which gets the same numbers as a table beside it.
 */
import uPlot from 'uplot';
import { count } from './format.js';
import { h } from './ui.js';
import type { DailyUsage } from './types.js';

const SERIES = [
  { key: 'ip', label: 'IP', stroke: '#0072b2' },
  { key: 'blacklist', label: 'Blacklist', stroke: '#e69f00' },
  { key: 'mac', label: 'MAC', stroke: '#009e73' },
  { key: 'rejected', label: 'Rejected', stroke: '#d55e00', dash: [6, 4] },
] as const;

const HEIGHT = 240;
/** y-axis steps: whole lookups only (1, 2, 5, 10, 20, 50…) */
const STEPS = Array.from({ length: 30 }, (_, i) => [1, 2, 5][i % 3] * 10 ** Math.floor(i / 3));

export function usageChart(days: DailyUsage[]): HTMLElement {
  const totals = SERIES.map(({ key, label }) => `${label} ${count(days.reduce((sum, d) => sum + d[key], 0))}`).join(', ');
  const box = h('div', {
    className: 'chart',
    attrs: {
      role: 'img',
      'aria-label': `Chart of the last ${days.length} days; totals: ${totals}. The numbers are in the table "Daily numbers".`,
    },
  });
  const data: uPlot.AlignedData = [
    days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000),
    ...SERIES.map(({ key }) => days.map((d) => d[key])),
  ];
  let chart: uPlot | null = null;
  const observer = new ResizeObserver(([entry]) => {
    // taken out of the page (another view): nothing to draw any more
    if (chart && !box.isConnected) {
      observer.disconnect();
      chart.destroy();
      return;
    }
    const width = Math.floor(entry.contentRect.width);
    if (width === 0) return;
    if (chart) chart.setSize({ width, height: HEIGHT });
    else
      chart = new uPlot(
        {
          width,
          height: HEIGHT,
          // quotas count by UTC day: the axis and the legend say UTC days, whatever the viewer's zone
          tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
          scales: { y: { range: (_u, _min, max) => uPlot.rangeNum(0, Math.max(1, max), 0.1, true) } },
          axes: [{}, { incrs: STEPS, values: (_u, ticks) => ticks.map((tick) => count(tick)), size: 60 }],
          series: [
            { label: 'Day', value: '{YYYY}-{MM}-{DD}' },
            ...SERIES.map((series) => ({
              label: series.label,
              stroke: series.stroke,
              width: 2,
              dash: 'dash' in series ? [...series.dash] : undefined,
            })),
          ],
        },
        data,
        box,
      );
  });
  observer.observe(box);
  return box;
}
