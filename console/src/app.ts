import { ApiFailure, api, signIn, signOut, useApi } from './api.js';
import type { ConsoleConfig } from '#contract/console-config';
import { finishSignIn, signOutOf, startSignIn } from './auth.js';
import { field, h } from './dom.js';
import { HOME, PAGES, hrefOf, routeOf, type Page, type Route } from './routes.js';
import { applicationsPage } from './pages/applications.js';
import { auditPage } from './pages/audit.js';
import { deadLettersPage } from './pages/dead-letters.js';
import { deliveriesPage } from './pages/deliveries.js';
import { destinationPage } from './pages/destination.js';
import { destinationsPage } from './pages/destinations.js';
import { menusPage } from './pages/menus.js';
import { ownerMailPage } from './pages/owner-mail.js';
import { tokenKeysPage } from './pages/token-keys.js';
import type { Shell } from './shell.js';

/** The console: a sign-in, then the page the address names (routes.ts), drawn from the admin API. */

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const errorBox = document.getElementById('error')!;
const statusBox = document.getElementById('status')!;

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
  // The removed destination's address leaves the history: back never returns to a page that is gone.
  back: () => {
    keepStatus = true;
    location.replace(hrefOf({ page: 'destinations' }));
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

const RENDER: Record<Page, (route: Route) => Promise<HTMLElement>> = {
  applications: ({ id }) => applicationsPage(shell, id),
  destinations: ({ id, delivery }) => (id ? destinationPage(shell, id, delivery) : destinationsPage(shell)),
  'dead-letters': ({ id }) => deadLettersPage(shell, id),
  deliveries: ({ id }) => deliveriesPage(shell, id),
  menus: () => menusPage(shell),
  audit: () => auditPage(shell),
  'owner-mail': () => ownerMailPage(shell),
  'token-keys': () => tokenKeysPage(shell),
};

let drawn = 0;
let keepStatus = false;

/** Draws the page the address names; an address that names none is replaced by the first page's. */
async function draw(): Promise<void> {
  const route = routeOf(location.hash);
  if (!route) return location.replace(hrefOf(HOME));
  for (const link of nav.querySelectorAll<HTMLAnchorElement>('a[data-page]')) {
    if (link.dataset.page === route.page && !route.id) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const mine = ++drawn;
  await shell.act(async () => {
    const content = await RENDER[route.page](route);
    // A later draw (another page chosen, or signed out meanwhile) wins.
    if (mine !== drawn || nav.hidden) return;
    main.replaceChildren(content);
    content.querySelector('h2')?.setAttribute('tabindex', '-1');
    (content.querySelector('h2') as HTMLElement | null)?.focus();
  });
}

/** Signed in: the page the address names, or the first page when it names none. */
function enter(): void {
  nav.hidden = false;
  void draw();
}
// Links, back and forward change the address; signed out, the address waits for the sign-in.
addEventListener('hashchange', () => {
  // Another page: the last one's message goes (a redraw of the same page, or the way back from a removal, keeps it).
  if (!keepStatus) statusBox.replaceChildren();
  keepStatus = false;
  if (!nav.hidden) void draw();
});

let config: ConsoleConfig = { apiBase: '/admin/v1', signIn: 'admin-key' };

/** Signed out (a reload, a refused credential): the address stays, and the sign-in lands on its page. */
function signInPage(message?: string): void {
  signOut();
  nav.hidden = true;
  drawn++;
  for (const link of nav.querySelectorAll('a[aria-current]')) link.removeAttribute('aria-current');
  statusBox.replaceChildren();
  if (config.signIn === 'cognito') {
    const cognito = config;
    errorBox.replaceChildren(message ?? '');
    main.replaceChildren(
      h('h2', {}, 'Sign in'),
      h('p', {}, 'With your administrator account (a member of the admins group), on the sign-in page of this stage.'),
      h('button', { type: 'button', onclick: () => void shell.act(() => startSignIn(cognito, location.hash)) }, 'Sign in'),
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
          enter();
        });
      },
    },
    h('h2', {}, 'Sign in'),
    h(
      'p',
      {},
      'Locally, the admin key that ',
      h('code', {}, 'npm start'),
      ' printed. It is kept in this page only: after a reload it is asked again, and you land on the same page.',
    ),
    field('Admin key', key),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  errorBox.replaceChildren(message ?? '');
  main.replaceChildren(form);
  key.focus();
}

/** Signing out on purpose: the next sign-in starts at the first page. */
function signOutNow(): void {
  history.replaceState(null, '', hrefOf(HOME));
  if (config.signIn === 'cognito') {
    signOut();
    signOutOf(config);
  } else signInPage();
}

nav.replaceChildren(
  ...Object.keys(PAGES).map((id) => {
    const href = hrefOf({ page: id as Page });
    // Chosen again, a page is drawn anew (the address does not change, so no hashchange says so).
    return h(
      'a',
      { href, 'data-page': id, onclick: () => void (location.hash === href && (statusBox.replaceChildren(), draw())) },
      PAGES[id as Page],
    );
  }),
  h('button', { type: 'button', onclick: signOutNow }, 'Sign out'),
);

/** Where the page runs decides how it signs in (config.json, beside the page). */
async function start(): Promise<void> {
  config = (await (await fetch('config.json')).json()) as ConsoleConfig;
  useApi(config.apiBase);
  if (config.signIn === 'admin-key') return signInPage();
  const signedIn = await finishSignIn(config);
  if (signedIn) {
    signIn(signedIn.token);
    return enter();
  }
  // A reload or a pasted link: re-authorized through the hosted UI's own session (no token is stored here).
  if (routeOf(location.hash)) return startSignIn(config, location.hash);
  signInPage();
}
start().catch(showError);
