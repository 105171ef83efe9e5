import { ApiFailure, api, signIn, signOut, useApi } from './api.js';
import type { ConsoleConfig } from '#contract/console-config';
import { finishSignIn, signOutOf, startSignIn } from './auth.js';
import { field, h } from './dom.js';
import {
  applicationsPage,
  auditPage,
  deadLettersPage,
  destinationPage,
  destinationsPage,
  menusPage,
  ownerMailPage,
  tokenKeysPage,
  type Shell,
} from './pages.js';

/** The console: a sign-in, then one page at a time, drawn from the admin API. */
const PAGES = {
  applications: 'Applications',
  destinations: 'Destinations',
  'dead-letters': 'Dead letters',
  menus: 'Menus',
  audit: 'Audit trail',
  'owner-mail': 'Owner mail',
  'token-keys': 'Token keys',
} as const;
type Page = keyof typeof PAGES;

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const errorBox = document.getElementById('error')!;
const statusBox = document.getElementById('status')!;
let page: Page = 'applications';
let destination: string | null = null;

const shell: Shell = {
  say: (message) => statusBox.replaceChildren(message),
  async act(action) {
    errorBox.replaceChildren();
    try {
      await action();
    } catch (err) {
      showError(err);
    }
  },
  redraw: () => void draw(),
  back: () => {
    destination = null;
    void draw();
  },
};

function showError(err: unknown): void {
  if (err instanceof ApiFailure && (err.status === 401 || err.status === 403)) {
    return void signInPage(
      config.signIn === 'cognito'
        ? 'You are signed out, or not in the admins group. Sign in again.'
        : 'The admin key was refused. Sign in again.',
    );
  }
  errorBox.replaceChildren(err instanceof Error ? err.message : 'Something went wrong.');
}

const openDestination = (id: string) => {
  destination = id;
  void draw();
};

const RENDER: Record<Page, () => Promise<HTMLElement>> = {
  applications: () => applicationsPage(shell),
  destinations: () => destinationsPage(shell, openDestination),
  'dead-letters': () => deadLettersPage(shell, openDestination),
  menus: () => menusPage(shell),
  audit: () => auditPage(shell),
  'owner-mail': () => ownerMailPage(shell),
  'token-keys': () => tokenKeysPage(shell),
};

let drawn = 0;

async function draw(): Promise<void> {
  for (const button of nav.querySelectorAll<HTMLButtonElement>('button[data-page]')) {
    if (button.dataset.page === page && destination === null) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  const mine = ++drawn;
  await shell.act(async () => {
    const content = destination !== null ? await destinationPage(shell, destination) : await RENDER[page]();
    // A later draw (another page chosen, or signed out meanwhile) wins.
    if (mine !== drawn || nav.hidden) return;
    main.replaceChildren(content);
    content.querySelector('h2')?.setAttribute('tabindex', '-1');
    (content.querySelector('h2') as HTMLElement | null)?.focus();
  });
}

function go(to: Page): void {
  page = to;
  destination = null;
  statusBox.replaceChildren();
  void draw();
}

let config: ConsoleConfig = { apiBase: '/admin/v1', signIn: 'admin-key' };

function signInPage(message?: string): void {
  signOut();
  nav.hidden = true;
  drawn++;
  // Signed out, no page is current: the next sign-in starts at Applications.
  page = 'applications';
  destination = null;
  for (const button of nav.querySelectorAll('button[aria-current]')) button.removeAttribute('aria-current');
  statusBox.replaceChildren();
  if (config.signIn === 'cognito') {
    const cognito = config;
    errorBox.replaceChildren(message ?? '');
    main.replaceChildren(
      h('h2', {}, 'Sign in'),
      h('p', {}, 'With your administrator account (a member of the admins group), on the sign-in page of this stage.'),
      h('button', { type: 'button', onclick: () => void shell.act(() => startSignIn(cognito)) }, 'Sign in'),
    );
    return;
  }
  const key = h('input', { type: 'password', name: 'adminKey', autocomplete: 'off', required: true }) as HTMLInputElement;
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        signIn(key.value);
        void shell.act(async () => {
          await api('GET', '/apps?limit=1');
          nav.hidden = false;
          go('applications');
        });
      },
    },
    h('h2', {}, 'Sign in'),
    h(
      'p',
      {},
      'Locally, the admin key that ',
      h('code', {}, 'npm start'),
      ' printed. It is kept in this page only: a reload signs you out.',
    ),
    field('Admin key', key),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  errorBox.replaceChildren(message ?? '');
  main.replaceChildren(form);
  key.focus();
}

nav.replaceChildren(
  ...Object.entries(PAGES).map(([id, label]) => h('button', { type: 'button', 'data-page': id, onclick: () => go(id as Page) }, label)),
  h('button', { type: 'button', onclick: () => (config.signIn === 'cognito' ? (signOut(), signOutOf(config)) : signInPage()) }, 'Sign out'),
);

/** Where the page runs decides how it signs in (config.json, beside the page). */
async function start(): Promise<void> {
  config = (await (await fetch('config.json')).json()) as ConsoleConfig;
  useApi(config.apiBase);
  const token = config.signIn === 'cognito' ? await finishSignIn(config) : null;
  if (!token) return signInPage();
  signIn(token);
  nav.hidden = false;
  go('applications');
}
start().catch(showError);
