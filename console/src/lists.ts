import { field, h, input, table, type Child } from './dom.js';
import type { Shell } from './shell.js';

/** Rows a list page shows; each page is one admin call with this limit. */
export const PAGE_SIZE = 50;

/** One page of a list as the admin API answers it: rows to draw and the cursor of the next page. */
type Loaded = { rows: Child[][]; nextCursor?: string | undefined; note?: Child };

type ListOptions = {
  caption: string;
  headers: string[];
  empty: string;
  /** Said of an empty page the API's cursor goes on from (a list that reads a bounded stretch a call, such as the audit trail's days). */
  emptyWithMore?: string;
  /** One admin call: the page at `cursor` (absent: the first) of the items matching `q` ('' for all), within `of` ('' for all). */
  load(q: string, cursor: string | undefined, of: string): Promise<Loaded>;
  search?: { label: string; hint: string };
  /** The search the list starts with (an address naming one item: its id). */
  q?: string | undefined;
  /** The API's own narrowing of the list (a group's, an application's): an id, beside the search. */
  of?: { label: string };
};

/**
 * A list paged through the admin API's cursors, newest call only (a slow answer never replaces a later one):
 * Next follows `nextCursor`, Previous goes back to a cursor already seen, a search starts again from the first
 * page. `reload` draws the current page again (after an action, or a refresh while the page is open).
 */
export function pagedList(shell: Shell, options: ListOptions) {
  const body = h('div', { class: 'list-body' });
  const position = h('p', { class: 'paging-position', 'aria-live': 'polite' });
  const previous = h('button', { type: 'button' }, 'Previous page') as HTMLButtonElement;
  const next = h('button', { type: 'button' }, 'Next page') as HTMLButtonElement;
  const cursors: (string | undefined)[] = [undefined];
  let index = 0;
  let q = options.q ?? '';
  let of = '';
  let call = 0;
  let nextCursor: string | undefined;

  const reload = async () => {
    const mine = ++call;
    const loaded = await options.load(q, cursors[index], of);
    if (mine !== call) return;
    nextCursor = loaded.nextCursor;
    const empty = q
      ? `nothing matches “${q}” here.`
      : nextCursor
        ? (options.emptyWithMore ?? 'nothing on this page; more may follow.')
        : options.empty;
    body.replaceChildren(table(options.caption, options.headers, loaded.rows, empty));
    if (loaded.note) body.append(h('p', {}, loaded.note));
    previous.disabled = index === 0;
    next.disabled = !nextCursor;
    position.textContent = `Page ${index + 1}${q ? ` of the matches for “${q}”` : ''}: ${loaded.rows.length} shown.`;
  };
  previous.onclick = () => {
    if (index === 0) return;
    index--;
    void shell.act(reload);
  };
  next.onclick = () => {
    if (!nextCursor) return;
    cursors[index + 1] = nextCursor;
    index++;
    void shell.act(reload);
  };
  let searchForm: HTMLElement | string = '';
  if (options.search) {
    const box = input({ type: 'search', name: 'q', autocomplete: 'off', value: q });
    const ofBox = options.of ? input({ name: 'of', autocomplete: 'off', placeholder: 'any' }) : null;
    searchForm = h(
      'form',
      {
        role: 'search',
        onsubmit: (event: Event) => {
          event.preventDefault();
          q = box.value.trim();
          of = ofBox?.value.trim() ?? '';
          cursors.splice(1);
          index = 0;
          void shell.act(reload);
        },
      },
      field(options.search.label, box, options.search.hint),
      ofBox && options.of ? field(options.of.label, ofBox) : '',
      h('button', { type: 'submit' }, 'Search'),
    );
  }
  const element = h(
    'div',
    { class: 'paged-list' },
    searchForm,
    body,
    h('div', { class: 'paging', role: 'group', 'aria-label': `${options.caption}: pages` }, previous, ' ', next, position),
  );
  /** Back to the first page (a filter changed). */
  const restart = async () => {
    cursors.splice(1);
    index = 0;
    await reload();
  };
  return { element, reload, restart };
}

/** "updated 12 s ago", kept current each second while the element is on the page. */
export function freshness(): { element: HTMLElement; touch(): void } {
  const element = h('p', { class: 'freshness' }, 'updated just now');
  let at = Date.now();
  let shown = false;
  const tick = () => {
    // Built before it is drawn: it stops once it has been on the page and is gone.
    if (element.isConnected) shown = true;
    else if (shown) return;
    const seconds = Math.floor((Date.now() - at) / 1000);
    element.textContent = seconds < 2 ? 'updated just now' : `updated ${seconds} s ago`;
    setTimeout(tick, 1000);
  };
  setTimeout(tick, 1000);
  return {
    element,
    touch: () => {
      at = Date.now();
      element.textContent = 'updated just now';
    },
  };
}

/**
 * Refreshes a page while it is on screen and the tab is visible: every `FIRST_MS`, doubling (to `MAX_MS`) while
 * nothing changed and back to the start after a change; `refresh` answers whether something changed. It stops
 * for good once the page is gone.
 */
const FIRST_MS = 5_000;
const MAX_MS = 60_000;
export function keepCurrent(page: HTMLElement, refresh: () => Promise<boolean>): void {
  let wait = FIRST_MS;
  const turn = async () => {
    if (!page.isConnected) return;
    if (document.visibilityState === 'visible') {
      try {
        wait = (await refresh()) ? FIRST_MS : Math.min(MAX_MS, wait * 2);
      } catch {
        wait = Math.min(MAX_MS, wait * 2);
      }
    }
    setTimeout(() => void turn(), wait);
  };
  setTimeout(() => void turn(), wait);
}
