import { api } from '../api.js';
import type { AppRow, CreatedDestination, Destination, Paged } from '../documents.js';
import { field, h, idList, input, time } from '../dom.js';
import { pagedList, PAGE_SIZE } from '../lists.js';
import type { Shell } from '../shell.js';
import { appLink, destinationLink, healthBadge, locationsText, query, secretOnce, submitForm } from './parts.js';

/** The destinations, searched or of one application, and the form that adds one. */
export async function destinationsPage(shell: Shell): Promise<HTMLElement> {
  const list = pagedList(shell, {
    caption: 'Destinations',
    headers: ['Name', 'Id', 'Health', 'Host', 'Application', 'Locations', 'Last success', 'Last failure'],
    empty: 'no destination yet; add one below.',
    search: { label: 'Search destinations', hint: 'A destination id, or part of a name, host or application id.' },
    of: { label: 'Of one application (client id)' },
    async load(q, cursor, clientId) {
      const page = await api<Paged<'destinations', Destination>>(
        'GET',
        `/destinations?${query({ limit: String(PAGE_SIZE), q, clientId, cursor })}`,
      );
      return {
        rows: page.destinations.map((d) => [
          destinationLink(d.destinationId, d.name),
          h('code', {}, d.destinationId),
          healthBadge(d.health),
          d.hostname,
          appLink(d.clientId),
          locationsText(d.locationIds),
          time(d.lastSuccessAt),
          time(d.lastFailureAt),
        ]),
        nextCursor: page.nextCursor,
      };
    },
  });
  const [{ apps }] = await Promise.all([api<Paged<'apps', AppRow>>('GET', '/apps?limit=1000'), list.reload()]);
  const app = h(
    'select',
    { name: 'clientId', required: true },
    ...apps.filter((a) => a.status === 'active').map((a) => h('option', { value: a.clientId }, `${a.name} (${a.clientId})`)),
  ) as HTMLSelectElement;
  const name = input({ name: 'name', required: true });
  const url = input({ type: 'url', name: 'url', required: true, placeholder: 'https://…' });
  const locations = input({ name: 'locationIds', placeholder: 'all' });
  const created = h('div', {});
  const form = submitForm(
    shell,
    async () => {
      const result = await api<CreatedDestination>('POST', '/destinations', {
        clientId: app.value,
        name: name.value,
        url: url.value,
        locationIds: idList(locations.value),
      });
      created.replaceChildren(h('p', {}, `Added ${result.destination.destinationId}.`), secretOnce('Signing secret', result.signingSecret));
      shell.say(`Destination ${result.destination.destinationId} added.`);
      await list.reload();
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Add a destination'),
      field('Application', app),
      field('Name', name),
      field('URL', url),
      field('Covered locations', locations, 'Location ids, comma-separated; blank: every location the application covers.'),
      h('button', { type: 'submit' }, 'Add'),
    ),
  );
  return h('section', {}, h('h2', {}, 'Destinations'), list.element, form, created);
}
