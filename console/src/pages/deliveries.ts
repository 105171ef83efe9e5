import { DELIVERY_ID, EVENT_ID } from '#lambdas/webhooks/events';
import { api } from '../api.js';
import type { DeliveryStory, Paged } from '../documents.js';
import { field, h, input, time } from '../dom.js';
import { freshness, keepCurrent, pagedList, PAGE_SIZE } from '../lists.js';
import { hrefOf } from '../routes.js';
import type { Shell } from '../shell.js';
import { deliveryLink, destinationLink, query, timelineTable } from './parts.js';

/**
 * A delivery's story (`#/deliveries/` and its id): where it stands and its timeline of attempts and redrives, kept
 * current while open; an event's deliveries (the same address with the event's id), one per destination; and the
 * lookup that finds either by its id.
 */

/** The Deliveries page: the lookup; with `id`, that delivery's story or that event's deliveries. */
export async function deliveriesPage(shell: Shell, id?: string): Promise<HTMLElement> {
  const lookup = lookupForm(id);
  if (!id) {
    return h(
      'section',
      {},
      h('h2', {}, 'Deliveries'),
      h('p', {}, 'A delivery’s story: each attempt’s time, code, duration and next attempt, and its redrives.'),
      lookup,
    );
  }
  return id.startsWith(EVENT_ID.prefix) ? eventSection(shell, id, lookup) : storySection(id, lookup);
}

/** Finds a delivery by its id, or an event's by the event id: the address changes, so the result is a link too. */
function lookupForm(current: string | undefined): HTMLElement {
  const id = input({
    name: 'id',
    required: true,
    value: current ?? '',
    placeholder: `${DELIVERY_ID.prefix}… or ${EVENT_ID.prefix}…`,
    autocomplete: 'off',
  });
  return h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        location.hash = hrefOf({ page: 'deliveries', id: id.value.trim() });
      },
    },
    field('Delivery or event id', id, 'An event has one delivery per destination it went to.'),
    h('button', { type: 'submit' }, 'Find'),
  );
}

async function storySection(deliveryId: string, lookup: HTMLElement): Promise<HTMLElement> {
  const summary = h('div', {});
  const timeline = h('div', {});
  const updated = freshness();
  let seen = '';
  const draw = async (): Promise<boolean> => {
    const { delivery: d } = await api<{ delivery: DeliveryStory }>('GET', `/deliveries/${encodeURIComponent(deliveryId)}`);
    const state = JSON.stringify(d);
    updated.touch();
    if (state === seen) return false;
    seen = state;
    summary.replaceChildren(
      h(
        'p',
        {},
        `${d.status}${d.deadLetterReason ? ` (${d.deadLetterReason})` : ''} · ${d.attempts} attempt(s) since ${d.redrives ? `its redrive (redriven ${d.redrives} times)` : 'it began'} · next attempt `,
        time(d.nextAttemptAt),
        ` · last error `,
        d.errorCode ? h('code', {}, d.errorCode) : '—',
      ),
      h(
        'p',
        {},
        'Event ',
        h('code', {}, d.eventType),
        ' ',
        h('a', { href: hrefOf({ page: 'deliveries', id: d.eventId }) }, h('code', {}, d.eventId)),
        ' for ',
        d.locationId,
        ' · destination ',
        d.destinationName ? destinationLink(d.destinationId, d.destinationName) : `removed (${d.destinationId})`,
        ` (${d.destinationHost}) · created `,
        time(d.createdAt),
      ),
    );
    timeline.replaceChildren(timelineTable(d.timeline));
    return true;
  };
  await draw();
  const section = h('section', {}, h('h2', {}, `Delivery ${deliveryId}`), updated.element, summary, timeline, lookup);
  keepCurrent(section, draw);
  return section;
}

async function eventSection(shell: Shell, eventId: string, lookup: HTMLElement): Promise<HTMLElement> {
  const list = pagedList(shell, {
    caption: `Deliveries of ${eventId}`,
    headers: ['Delivery', 'Destination', 'Status', 'Attempts', 'Next attempt', 'Error'],
    empty: 'none.',
    async load(_q, cursor) {
      const page = await api<Paged<'deliveries', DeliveryStory>>(
        'GET',
        `/deliveries?${query({ eventId, limit: String(PAGE_SIZE), cursor })}`,
      );
      return {
        rows: page.deliveries.map((d) => [
          deliveryLink(d.deliveryId),
          d.destinationName ? destinationLink(d.destinationId, d.destinationName) : `removed (${d.destinationId})`,
          d.status,
          d.attempts,
          time(d.nextAttemptAt),
          d.errorCode ? h('code', {}, d.errorCode) : '—',
        ]),
        nextCursor: page.nextCursor,
      };
    },
  });
  await list.reload();
  return h('section', {}, h('h2', {}, `Event ${eventId}`), list.element, lookup);
}
