/** How the page writes numbers, instants and lists: instants in UTC, the clock quotas reset by. */

const numbers = new Intl.NumberFormat('en-US');

export const count = (n: number) => numbers.format(n);

/** "2025-11-24 14:03 UTC"; "—" for none. */
export function instant(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "2025-11-24" (UTC); "" for none, as a date input wants it. */
export function day(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 10);
}

export const websitesText = (websites: string[]) => (websites.length === 0 ? 'any website' : websites.join(', '));

/** A website list as typed: one host per line (commas and spaces also separate). */
export const parseWebsites = (text: string) => text.split(/[\s,]+/).filter((host) => host.length > 0);

export function retryIn(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** "1–50 of 123" */
export const pageRange = (offset: number, shown: number, total: number) =>
  total === 0 ? 'none' : `${count(offset + 1)}–${count(offset + shown)} of ${count(total)}`;
