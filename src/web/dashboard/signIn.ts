/**
 * The sign-in form: an API key, or (separately) the operator's admin token, exchanged once for a
 * session cookie. The page keeps neither: the field is emptied as soon as the request is sent.
 */
import * as api from './api.js';
import { announce, errorMessage, field, h } from './ui.js';
import type { Session } from './types.js';

function credentialForm(
  label: string,
  submitText: string,
  credentials: (secret: string) => { key: string } | { admin_token: string },
  signedIn: (session: Session) => void,
): HTMLFormElement {
  const secret = field(label, h('input', { type: 'password', autocomplete: 'off', required: true, spellcheck: false }));
  const submit = h('button', { type: 'submit', textContent: submitText });
  const form = h('form', { attrs: { 'aria-label': submitText } }, secret.element, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const sent = api.signIn(credentials(secret.control.value));
    secret.control.value = '';
    submit.disabled = true;
    sent.then(signedIn, (error: unknown) => {
      submit.disabled = false;
      announce(errorMessage(error), 'error');
      secret.control.focus();
    });
  });
  return form;
}

export function signInView(signedIn: (session: Session) => void): HTMLElement {
  return h(
    'div',
    { className: 'view sign-in', attrs: { 'data-view': 'sign-in' } },
    h('h1', { tabIndex: -1 }, 'Sign in'),
    h(
      'p',
      {},
      'Sign in with one of your API keys to see your plan and usage and to manage your keys and blacklist reports. A key restricted to websites cannot sign in: it may be public in a web page.',
    ),
    credentialForm('API key', 'Sign in', (key) => ({ key }), signedIn),
    h(
      'details',
      {},
      h('summary', {}, 'Operator sign-in'),
      h('p', { className: 'hint' }, 'The operator of this service signs in with the admin token (NETLOOKUP_ADMIN_TOKEN).'),
      credentialForm('Admin token', 'Sign in as operator', (token) => ({ admin_token: token }), signedIn),
    ),
    h(
      'p',
      { className: 'hint' },
      'The page keeps neither the key nor the token: the service answers with a session cookie that lasts 8 hours or until you sign out.',
    ),
  );
}
