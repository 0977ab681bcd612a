/**
 * The dashboard page (docs/dashboard.md): asks the service who is signed in, then shows the
 * sign-in form, the account holder's view or the operator's (accounts list, or one account by the
 * #/accounts/<id> route). A request answering 401 session_required anywhere comes back here, to the
 * sign-in form with the service's message. After each view change the view's heading has the focus.
 */
import * as api from './api.js';
import { accountView } from './account.js';
import { instant } from './format.js';
import { accountDetailView, accountsView } from './operator.js';
import { signInView } from './signIn.js';
import { announce, attempt, button, errorMessage, focusHeading, h, onSessionEnded } from './ui.js';
import type { Session } from './types.js';

const main = document.getElementById('view')!;
const who = document.getElementById('who')!;
let session: Session | null = null;
/** the latest view asked for: a slower earlier one does not replace it */
let shown = 0;

function header(): void {
  if (!session) {
    who.replaceChildren();
    return;
  }
  const name = session.kind === 'operator' ? 'Operator' : `Account ${session.account_id}`;
  who.replaceChildren(
    h('span', {}, `${name}, signed in until ${instant(session.expires_at)}`),
    button('Sign out', () => void attempt(signOut)),
  );
}

function build(current: Session | null): Promise<HTMLElement> | HTMLElement {
  if (!current) return signInView(signedIn);
  if (current.kind === 'account') return accountView(current);
  const opened = /^#\/accounts\/(.+)$/.exec(location.hash);
  return opened ? accountDetailView(decodeURIComponent(opened[1]), (message) => void route(message)) : accountsView();
}

async function route(message = '', kind: 'info' | 'error' = 'info'): Promise<void> {
  const ticket = ++shown;
  header();
  main.setAttribute('aria-busy', 'true');
  const view = await attempt(async () => build(session));
  if (ticket !== shown) return;
  main.removeAttribute('aria-busy');
  if (!view) {
    main.replaceChildren(
      h('h1', { tabIndex: -1 }, 'The dashboard could not load'),
      button('Try again', () => void route()),
    );
    focusHeading(main);
    return;
  }
  main.replaceChildren(view);
  document.title = `${view.querySelector('h1')?.textContent ?? ''} · netlookup dashboard`;
  announce(message, kind);
  focusHeading(view);
}

function signedIn(started: Session): void {
  session = started;
  void route(`Signed in${started.kind === 'operator' ? ' as the operator' : ''}.`);
}

async function signOut(): Promise<void> {
  await api.signOut();
  session = null;
  await route('Signed out.');
}

onSessionEnded((message) => {
  session = null;
  void route(message, 'error');
});
window.addEventListener('hashchange', () => void route());

// no session is the usual start, not an error: only another failure is worth saying
const problem = await api.getSession().then(
  (current) => {
    session = current;
    return '';
  },
  (error: unknown) => (error instanceof api.RequestError && error.code === 'session_required' ? '' : errorMessage(error)),
);
await route(problem, 'error');
