import { api } from '../api.js';
import type { MenuRow, Paged, Published } from '../documents.js';
import { field, h, input, time } from '../dom.js';
import { pagedList, PAGE_SIZE } from '../lists.js';
import type { Shell } from '../shell.js';
import { query, submitForm } from './parts.js';

/** A group's menus by location, and the form that publishes a rebuilt one. */
export async function menusPage(shell: Shell): Promise<HTMLElement> {
  const group = input({ name: 'groupId', required: true, value: 'demo-group' });
  const list = pagedList(shell, {
    caption: 'Menus by location',
    headers: ['Location', 'Id', 'Revision', 'Last publish', 'POS source', 'Sections / items', 'Events waiting'],
    empty: 'this group has no location.',
    async load(_q, cursor) {
      const page = await api<Paged<'menus', MenuRow>>(
        'GET',
        `/menus?${query({ groupId: group.value.trim(), limit: String(PAGE_SIZE), cursor })}`,
      );
      return {
        rows: page.menus.map((m) => [
          m.name,
          h('code', {}, m.locationId),
          m.published ? h('code', {}, m.revision) : 'not published',
          time(m.updatedAt),
          m.sourceHealth ? m.sourceHealth.pos : '—',
          `${m.sectionCount} / ${m.itemCount}`,
          m.pendingEvents,
        ]),
        nextCursor: page.nextCursor,
      };
    },
  });
  const form = submitForm(shell, list.restart, field('Group', group), h('button', { type: 'submit' }, 'Show'));
  // Publishing a rebuilt menu: the JSON file the CLI's `menus publish --file` takes.
  const location = input({ name: 'locationId', required: true });
  const file = h('input', { type: 'file', name: 'menu', accept: 'application/json,.json', required: true }) as HTMLInputElement;
  const published = h('div', {});
  const publish = submitForm(
    shell,
    async () => {
      const chosen = file.files?.[0];
      if (!chosen) throw new Error('Choose the menu file (JSON).');
      let menu: unknown;
      try {
        menu = JSON.parse(await chosen.text());
      } catch {
        throw new Error(`${chosen.name} is not JSON.`);
      }
      const r = await api<Published>(
        'PUT',
        `/menus/${encodeURIComponent(group.value.trim())}/${encodeURIComponent(location.value.trim())}`,
        menu,
      );
      published.replaceChildren(
        h(
          'p',
          {},
          r.newRevision
            ? `Published revision ${r.revision}; ${r.deliveries} deliveries queued.`
            : `Unchanged: revision ${r.revision} stands.`,
        ),
      );
      await list.reload();
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Publish a rebuilt menu'),
      field('Location id', location),
      field('Menu file (JSON)', file, "The shape of the API's data.menu; revision, counts and timestamps are computed."),
      h('button', { type: 'submit' }, 'Publish'),
    ),
  );
  await list.reload();
  return h('section', {}, h('h2', {}, 'Menus'), form, list.element, publish, published);
}
