import type { TimelineEntry } from '#lambdas/webhooks/delivery-policy';
import type { Health } from '../documents.js';
import { h, table, time, type Child } from '../dom.js';
import { hrefOf } from '../routes.js';
import type { Shell } from '../shell.js';

/** What several pages draw: forms run through the shell, secrets shown once, links to an item's address, badges. */

/** A form whose submission runs `action` through the shell (its errors shown), never a page load. */
export function submitForm(shell: Shell, action: () => Promise<void>, ...children: Child[]): HTMLElement {
  return h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        void shell.act(action);
      },
    },
    ...children,
  );
}

/** A secret shown once: with a copy button and a warning, gone from the page at the next redraw. */
export function secretOnce(label: string, secret: string): HTMLElement {
  const code = h('code', { id: 'secret-value' }, secret);
  return h(
    'div',
    { class: 'secret', role: 'region', 'aria-label': label },
    h('p', {}, h('strong', {}, `${label}: shown this once.`), ' Copy it now; it cannot be shown again.'),
    code,
    ' ',
    h('button', { type: 'button', onclick: () => void navigator.clipboard?.writeText(secret) }, 'Copy'),
  );
}

/** A list call's query string: the parameters given, the blank ones left out. */
export const query = (params: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => Boolean(e[1]))).toString();

/** An item's locations; null is all of them. */
export const locationsText = (ids: string[] | null | undefined) => (ids ? ids.join(', ') : 'all');

/** Links to an item's own address (a real `<a href>`: open in a new tab, copy the link). */
export const appLink = (clientId: string) => h('a', { href: hrefOf({ page: 'applications', id: clientId }) }, h('code', {}, clientId));
export const destinationLink = (id: string, name: Child) => h('a', { href: hrefOf({ page: 'destinations', id }) }, name);
export const deadLetterLink = (id: string) => h('a', { href: hrefOf({ page: 'dead-letters', id }) }, h('code', {}, id));

/** Health as text with a symbol and a colour (the colour never the only signal). */
const HEALTH_MARK: Record<Health, string> = { HEALTHY: '✓', FAILING: '✕', NOT_TESTED: '?', DISABLED: '⏸' };
export const healthBadge = (health: Health) => h('span', { class: `health health-${health}` }, `${HEALTH_MARK[health]} ${health}`);

/** A link to a delivery's own page; `label` names it for a screen reader where the visible text does not. */
export const deliveryLink = (deliveryId: string, text: Child = h('code', {}, deliveryId), label?: string) =>
  h('a', { href: hrefOf({ page: 'deliveries', id: deliveryId }), 'aria-label': label }, text);

/** A delivery's timeline, oldest first: each attempt's start, code, status, duration and next attempt; never a body. */
export function timelineTable(timeline: readonly TimelineEntry[]): HTMLElement {
  return table(
    'Timeline',
    ['Attempt', 'Started', 'Step', 'Code', 'Status', 'Duration', 'Next attempt'],
    timeline.map((e) => [
      e.attempt ?? '—',
      time(e.at),
      e.kind,
      e.code ? h('code', {}, e.code) : '—',
      e.status,
      e.ms === null ? '—' : `${e.ms} ms`,
      time(e.next),
    ]),
    'no attempt yet.',
  );
}
