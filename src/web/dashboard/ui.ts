/**
 * The page's building blocks: elements, labelled fields, scrolling tables, the status line (an
 * aria-live region), confirmation dialogs, Copy buttons, pagers, and `attempt`, which every action
 * goes through so that a refusal is shown the same way everywhere and an ended session returns to
 * the sign-in form.
 */
import { RequestError } from './api.js';
import { pageRange, retryIn } from './format.js';

type Child = Node | string | null | undefined | false;

/** An element with properties (textContent, type, disabled…) and attributes (aria-*, data-*). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { attrs?: Record<string, string> } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const { attrs, ...rest } = props;
  const element = Object.assign(document.createElement(tag), rest);
  for (const [name, value] of Object.entries(attrs ?? {})) element.setAttribute(name, value);
  element.append(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
  return element;
}

let lastId = 0;
export const uid = (prefix: string) => `${prefix}-${++lastId}`;

/** A control with its visible label, tied by id. */
export function field<T extends HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
  label: string,
  control: T,
  hint?: string,
): { element: HTMLElement; control: T } {
  control.id = uid('field');
  const hintElement = hint ? h('span', { className: 'hint', id: uid('hint') }, hint) : null;
  if (hintElement) control.setAttribute('aria-describedby', hintElement.id);
  return { element: h('div', { className: 'field' }, h('label', { htmlFor: control.id }, label), hintElement, control), control };
}

export const button = (text: string, onClick: () => void, props: Partial<HTMLButtonElement> & { attrs?: Record<string, string> } = {}) => {
  const element = h('button', { type: 'button', textContent: text, ...props });
  element.addEventListener('click', onClick);
  return element;
};

/** A table in its own horizontally scrolling box: a wide table never widens the page. */
export function table(caption: string, headers: string[], rows: Child[][]): HTMLElement {
  return h(
    'div',
    { className: 'scroll' },
    h(
      'table',
      {},
      h('caption', { className: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
    ),
  );
}

/** A section with its heading; the heading can take focus, for moving to it after a change. */
export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', {}, h('h2', { tabIndex: -1 }, title), ...children);
}

export function focusHeading(container: Element): void {
  container.querySelector<HTMLElement>('h1, h2')?.focus();
}

const status = () => document.getElementById('status')!;

const INFO_SECONDS = 10;
let fading: ReturnType<typeof setTimeout> | undefined;

/**
 * Says something in the status line; screen readers announce it. The line stays in view while the
 * page scrolls: news fades after a few seconds so that it does not keep covering the page; an
 * error stays until the next message.
 */
export function announce(message: string, kind: 'info' | 'error' = 'info'): void {
  const line = status();
  line.textContent = message;
  line.dataset.kind = kind;
  clearTimeout(fading);
  if (kind === 'info' && message !== '') fading = setTimeout(() => announce(''), INFO_SECONDS * 1000);
}

let sessionEnded: (message: string) => void = () => {};

/** What happens when a request answers 401 session_required: set once by the page. */
export function onSessionEnded(handler: (message: string) => void): void {
  sessionEnded = handler;
}

/** The message to show for a refusal: the envelope's, with when to retry when the service says. */
export function errorMessage(error: unknown): string {
  if (!(error instanceof RequestError)) return `Something went wrong in the page: ${(error as Error).message}`;
  return error.retryAfter === null ? error.message : `${error.message} Try again in ${retryIn(error.retryAfter)}.`;
}

/** Runs an action; a refusal goes to the status line, an ended session back to the sign-in form. */
export async function attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof RequestError && error.code === 'session_required') sessionEnded(error.message);
    else announce(errorMessage(error), 'error');
    return undefined;
  }
}

/** Asks before something that cannot be undone; Cancel has the focus, Escape cancels. */
export function confirmAction(question: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const prompt = h('p', { id: uid('confirm') }, question);
    const dialog = h(
      'dialog',
      { attrs: { 'aria-labelledby': prompt.id } },
      prompt,
      h(
        'div',
        { className: 'actions' },
        button('Cancel', () => dialog.close('cancel'), { autofocus: true }),
        button(confirmLabel, () => dialog.close('confirm'), { className: 'danger' }),
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'confirm');
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** A button for something that cannot be undone: it asks first, its own text confirming, then acts. */
export function confirmingButton(
  text: string,
  options: { label: string; question: string; danger?: boolean },
  act: () => Promise<void>,
): HTMLButtonElement {
  return button(
    text,
    () =>
      void attempt(async () => {
        if (await confirmAction(options.question, text)) await act();
      }),
    { className: options.danger ? 'danger' : '', attrs: { 'aria-label': options.label } },
  );
}

/** Copies a read-only field's text; where the clipboard is out of reach, selects it for Ctrl+C. */
export function copyButton(source: HTMLInputElement | HTMLTextAreaElement, label: string): HTMLButtonElement {
  return button(
    'Copy',
    () => {
      source.select();
      // navigator.clipboard is missing outside secure contexts (plain HTTP to another host).
      Promise.resolve()
        .then(() => navigator.clipboard.writeText(source.value))
        .then(() => announce('Copied to the clipboard.'))
        .catch(() => announce('The page may not use the clipboard here: the text is selected, copy it with Ctrl+C (⌘C).', 'error'));
    },
    { attrs: { 'aria-label': `Copy ${label}` } },
  );
}

/** Previous / next buttons and "1–50 of 123" for a list the service pages. */
export function pager(offset: number, shown: number, total: number, limit: number, go: (offset: number) => void): HTMLElement {
  return h(
    'nav',
    { className: 'pager', attrs: { 'aria-label': 'Pages' } },
    button('Previous', () => go(Math.max(0, offset - limit)), { disabled: offset === 0 }),
    h('span', {}, pageRange(offset, shown, total)),
    button('Next', () => go(offset + limit), { disabled: offset + shown >= total }),
  );
}
