/**
 * The demo page: loads the engine and the compact sets from beside the page, then answers what is
 * typed in the page itself (answerInput). Nothing typed is sent anywhere; the
 * page's Content-Security-Policy allows fetching its own assets only.
 */
import {
  answerInput,
  loadCompactEngine,
  splitInputs,
  type CompactEngine,
  type CompactIpAnswer,
  type CompactMacAnswer,
  type InputAnswer,
} from '../index.js';
import type { CompactManifest } from '../../tables/format/compactManifest.js';
import type { Downloads } from './downloads.js';

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const downloads = (globalThis as { netlookupDownloads?: Downloads }).netlookupDownloads;
if (!downloads) throw new Error('the boot script of the page did not run');
const { started, ...sources } = downloads;
const manifest = fetch('tables/manifest.json').then((r) => r.json() as Promise<CompactManifest>);
const engine = loadCompactEngine(sources);

type Answer = InputAnswer<CompactIpAnswer, CompactMacAnswer>;

function cell(row: HTMLTableRowElement, text: string, className?: string): void {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
}

const orNone = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '—' : String(value));

function render(answer: Answer): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset.answer = JSON.stringify(answer);
  row.className = answer.kind;
  cell(row, answer.input, 'input');
  if (answer.kind === 'invalid') {
    cell(row, answer.error.message);
    cell(row, '');
    cell(row, '');
  } else if (answer.kind === 'ip') {
    cell(
      row,
      answer.status === 'reserved'
        ? `reserved: ${answer.reserved!.description} (${answer.reserved!.cidr})`
        : answer.status === 'found'
          ? `IPv${answer.version}`
          : `IPv${answer.version}, not in the data`,
    );
    cell(row, answer.country_code ? `${answer.country?.name ?? answer.country_code} (${answer.country_code})` : '—');
    cell(row, answer.network ? `AS${orNone(answer.network.asn)} ${orNone(answer.network.organization)}` : '—');
  } else {
    const flags = [
      answer.is_multicast && 'multicast',
      answer.is_local && 'locally administered',
      answer.is_randomized && 'randomised',
      answer.vm_platform && `VM: ${answer.vm_platform}`,
    ].filter(Boolean);
    cell(
      row,
      [answer.found ? `${answer.block!.type} ${answer.block!.start}–${answer.block!.end}` : 'no registered block', ...flags].join(', '),
    );
    cell(row, answer.vendor?.country_code ? `${answer.vendor.country ?? answer.vendor.country_code} (${answer.vendor.country_code})` : '—');
    cell(row, answer.vendor ? (answer.vendor.company ?? 'private registration (assignee not listed)') : '—');
  }
  return row;
}

function lookUp(ready: CompactEngine): void {
  const body = element<HTMLTableElement>('results').tBodies[0];
  body.replaceChildren(...splitInputs(element<HTMLTextAreaElement>('input').value).map((input) => render(answerInput(ready, input))));
  element<HTMLTableElement>('results').hidden = body.rows.length === 0;
}

function showCredits(m: CompactManifest): void {
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  element('sizes').textContent =
    `Tables: MAC set ${mb(m.sets.mac.gzip_bytes)}, IP set (country and ASN) ${mb(m.sets.ip.gzip_bytes)}, gzip-compressed; built ${m.built_at.slice(0, 10)}.`;
  element('credits').replaceChildren(
    ...m.sources.map((source) => {
      const item = document.createElement('li');
      const name = source.url
        ? Object.assign(document.createElement('a'), { href: source.url, textContent: source.name })
        : document.createTextNode(source.name);
      item.append(name, ` (${source.licence})${source.attribution ? `: ${source.attribution}` : ''}`);
      return item;
    }),
  );
}

async function main(): Promise<void> {
  const status = element('status');
  try {
    const ready = await engine;
    const loadMs = performance.now() - started;
    document.body.dataset.loadMs = loadMs.toFixed(1);
    document.body.dataset.readyMs = performance.now().toFixed(1);
    status.textContent = `Ready: engine and tables loaded in ${Math.round(loadMs)} ms.`;
    element<HTMLFormElement>('form').addEventListener('submit', (event) => {
      event.preventDefault();
      lookUp(ready);
    });
    element<HTMLButtonElement>('lookup').disabled = false;
    document.body.dataset.state = 'ready';
  } catch (error) {
    status.textContent = `The engine could not load: ${(error as Error).message}`;
    document.body.dataset.state = 'failed';
  }
  showCredits(await manifest);
}

void main();
