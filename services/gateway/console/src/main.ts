// The console's shell: sign-in, navigation between pages (#/name), and signing out on a refused key.

import { ApiError, api, describeError, session, whenUnauthorised } from './api.js';
import { field, fill, h, notice } from './dom.js';
import { deadLettersPage } from './pages/dead-letters.js';
import { keysPage } from './pages/keys.js';
import { moderationPage } from './pages/moderation.js';
import { overviewPage } from './pages/overview.js';
import { playgroundPage } from './pages/playground.js';
import { translationPage } from './pages/translation.js';

/** A page draws into `root`; what it returns stops its timers when the operator leaves it. */
export type Page = (root: HTMLElement) => Promise<(() => void) | void>;

const PAGES: readonly { readonly path: string; readonly title: string; readonly page: Page }[] = [
  { path: 'overview', title: 'Overview', page: overviewPage },
  { path: 'dead-letters', title: 'Dead letters', page: deadLettersPage },
  { path: 'translation', title: 'Translation', page: translationPage },
  { path: 'moderation', title: 'Moderation and NLI', page: moderationPage },
  { path: 'keys', title: 'API keys', page: keysPage },
  { path: 'translate', title: 'Translate', page: playgroundPage },
];

const root = document.getElementById('page') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const signOutButton = document.getElementById('sign-out') as HTMLButtonElement;
let leave: (() => void) | void;
/** While a key is tried, a refusal is the sign-in form's to report. */
let signingIn = false;

function signInForm(message?: HTMLElement): void {
  nav.hidden = true;
  signOutButton.hidden = true;
  const key = h('input', { type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const status = h('div', { 'aria-live': 'polite' }, message);
  const form = h(
    'form',
    { class: 'card sign-in', 'aria-labelledby': 'sign-in-title' },
    h('h2', { id: 'sign-in-title' }, 'Sign in'),
    field('Admin API key', key, 'Kept for this tab only (sessionStorage), sent as a Bearer header.'),
    h('button', { type: 'submit' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void signIn(key.value.trim(), status);
  });
  fill(root, form);
  key.focus();
}

async function signIn(key: string, status: HTMLElement): Promise<void> {
  session.signIn(key);
  signingIn = true;
  try {
    await api('GET', '/api/admin/translate/config');
    signingIn = false;
    location.hash = '#/overview';
    await show();
  } catch (err) {
    signingIn = false;
    session.signOut();
    const why =
      err instanceof ApiError && err.status === 401
        ? 'This key was refused.'
        : err instanceof ApiError && err.status === 403
          ? 'This key is not an admin key.'
          : describeError(err);
    fill(status, notice('error', why));
  }
}

function navigation(current: string): void {
  fill(
    nav,
    h(
      'ul',
      {},
      ...PAGES.map((p) =>
        h(
          'li',
          {},
          h('a', { href: `#/${p.path}`, 'aria-current': p.path === current ? 'page' : undefined }, p.title),
        ),
      ),
    ),
  );
  nav.hidden = false;
  signOutButton.hidden = false;
}

async function show(): Promise<void> {
  leave?.();
  leave = undefined;
  if (!session.key()) return signInForm();
  const path = location.hash.replace(/^#\//, '') || 'overview';
  const entry = PAGES.find((p) => p.path === path) ?? PAGES[0]!;
  navigation(entry.path);
  document.title = `${entry.title} · Operator console`;
  fill(root, h('h2', {}, entry.title));
  try {
    leave = await entry.page(root);
  } catch (err) {
    root.appendChild(notice('error', describeError(err)));
  }
}

whenUnauthorised(() => {
  if (signingIn) return;
  session.signOut();
  signInForm(notice('error', 'The API refused the key; sign in again.'));
});
signOutButton.addEventListener('click', () => {
  session.signOut();
  leave?.();
  signInForm(notice('info', 'Signed out.'));
});
window.addEventListener('hashchange', () => void show());
void show();
