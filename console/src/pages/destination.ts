import { DELIVERY_STATUSES, STATUS, TERMINAL_STATUSES } from '#lambdas/webhooks/delivery-policy';
import { api } from '../api.js';
import { hourlyChart } from '../chart.js';
import type {
  App,
  DeliverySummary,
  DestinationDocument,
  HourlyOutcomes,
  MenuRow,
  Paged,
  QueuedTest,
  ShownDestination,
} from '../documents.js';
import { field, h, idList, input, table, time, type Child } from '../dom.js';
import { freshness, keepCurrent, pagedList, PAGE_SIZE } from '../lists.js';
import { hrefOf } from '../routes.js';
import type { Shell } from '../shell.js';
import { appLink, deliveryLink, healthBadge, query, secretOnce, submitForm } from './parts.js';

const deliveryColumns = ['Delivery', 'Status', 'Updated', 'Event', 'Location', 'Attempts', 'Next attempt', 'Error'];
/** A delivery's row; its id links to its own address, marked when that address is the one open. */
const deliveryRow =
  (destinationId: string, current: string | undefined) =>
  (r: DeliverySummary): Child[] => [
    h(
      'a',
      {
        href: hrefOf({ page: 'destinations', id: destinationId, delivery: r.deliveryId }),
        'aria-current': r.deliveryId === current ? 'true' : undefined,
      },
      h('code', {}, r.deliveryId),
    ),
    // The status links to the delivery's own page: its timeline.
    deliveryLink(r.deliveryId, r.status, `${r.status}: timeline of ${r.deliveryId}`),
    time(r.updatedAt),
    r.eventType,
    r.locationId ?? '—',
    r.attempts,
    time(r.nextAttemptAt),
    r.errorCode ?? '—',
  ];

/** A destination; with `delivery` (a delivery's address), that delivery's row marked in its lists. */
export async function destinationPage(shell: Shell, id: string, delivery?: string): Promise<HTMLElement> {
  const shown = await api<ShownDestination>('GET', `/destinations/${id}`);
  const d = shown.destination;
  // The locations a test may name: the group's, narrowed to the destination's and the application's.
  const [{ menus }, { app }] = await Promise.all([
    api<Paged<'menus', MenuRow>>('GET', `/menus?groupId=${encodeURIComponent(d.groupId)}&limit=1000`),
    api<{ app: App }>('GET', `/apps/${d.clientId}`),
  ]);
  const covered = menus.filter(
    (m) =>
      (!d.locationIds || d.locationIds.includes(m.locationId)) &&
      (!app.allowedLocationIds || app.allowedLocationIds.includes(m.locationId)),
  );
  const location = h(
    'select',
    { name: 'locationId', required: true },
    ...covered.map((m) => h('option', { value: m.locationId }, `${m.name} (${m.locationId})`)),
  ) as HTMLSelectElement;
  const editName = input({ name: 'name', required: true, value: d.name });
  const editUrl = input({ type: 'url', name: 'url', placeholder: 'blank keeps the current URL' });
  const editLocations = input({ name: 'locationIds', value: d.locationIds ? d.locationIds.join(', ') : '', placeholder: 'all' });
  const updated = freshness();
  const header = h('div', { class: 'destination-header' });
  const recent = h('div', {});
  const chart = h('div', {});
  const history = historySection(shell, id, delivery);
  const seen = new Map<HTMLElement, string>();
  /** Draws a part again only when its data changed, so an open table or the focus inside one survives a refresh. */
  const redrawn = (part: HTMLElement, data: unknown, draw: () => HTMLElement[]) => {
    const state = JSON.stringify(data);
    if (seen.get(part) === state) return false;
    seen.set(part, state);
    part.replaceChildren(...draw());
    return true;
  };
  /** Draws the destination's current state; answers whether it changed since the last draw. */
  const refresh = async (): Promise<boolean> => {
    const [now, hourly] = await Promise.all([
      api<ShownDestination>('GET', `/destinations/${id}`),
      api<HourlyOutcomes>('GET', `/destinations/${id}/hourly`),
    ]);
    if (!history.element.contains(document.activeElement)) await history.reload();
    const dest = now.destination;
    const changed = [
      redrawn(header, dest, () => [
        h(
          'p',
          {},
          'Health: ',
          healthBadge(dest.health),
          dest.paused ? ' (paused: new deliveries are held until it answers)' : '',
          ` · ${dest.hostname} · application `,
          appLink(dest.clientId),
        ),
        h(
          'p',
          {},
          'Covers: ',
          dest.locationIds ? dest.locationIds.join(', ') : 'every location the application covers',
          app.allowedLocationIds ? ` (the application: ${app.allowedLocationIds.join(', ')})` : '',
          ' · last success ',
          time(dest.lastSuccessAt),
          ' · last failure ',
          time(dest.lastFailureAt),
        ),
      ]),
      redrawn(recent, now.recentDeliveries, () => [
        table(
          'Last three deliveries',
          deliveryColumns,
          now.recentDeliveries.map(deliveryRow(id, delivery)),
          'no delivery yet; send a test.',
        ),
      ]),
      redrawn(chart, hourly, () => [hourlyChart(hourly)]),
    ].some(Boolean);
    updated.touch();
    return changed;
  };
  await refresh();
  const edit = submitForm(
    shell,
    async () => {
      await api('PATCH', `/destinations/${id}`, {
        name: editName.value,
        url: editUrl.value,
        locationIds: idList(editLocations.value),
      });
      shell.say('Destination saved.');
      shell.redraw();
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Edit'),
      field('New name', editName),
      field('New URL', editUrl),
      field('Covered locations', editLocations, 'Location ids, comma-separated; blank: every location the application covers.'),
      h('button', { type: 'submit' }, 'Save'),
    ),
  );
  const result = h('div', { id: 'test-result', role: 'status' });
  const act = (label: string, path: string, confirmText?: string, after?: (r: DestinationDocument) => void) =>
    h(
      'button',
      {
        type: 'button',
        class: confirmText ? 'danger' : undefined,
        onclick: () => {
          if (confirmText && !confirm(confirmText)) return;
          void shell.act(async () => {
            if (path === 'DELETE') {
              await api('DELETE', `/destinations/${id}`);
              shell.say(`${label}: done.`);
              return shell.back();
            }
            const r = await api<DestinationDocument>('POST', `/destinations/${id}/${path}`, {});
            shell.say(`${label}: done.`);
            if (after) {
              after(r);
              await refresh();
            } else shell.redraw();
          });
        },
      },
      label,
    );
  const secret = h('div', {});
  const test = submitForm(
    shell,
    async () => {
      const queued = await api<QueuedTest>('POST', `/destinations/${id}/test`, { locationId: location.value });
      result.replaceChildren(`Test ${queued.deliveryId} queued…`);
      await refresh();
      // Its outcome appears here without a reload.
      for (let tries = 0; tries < 60; tries++) {
        const now = await api<ShownDestination>('GET', `/destinations/${id}`);
        const delivery = now.recentDeliveries.find((r) => r.deliveryId === queued.deliveryId);
        // Health is recorded just after the outcome: wait for it to follow (a success makes it HEALTHY, a failure FAILING).
        const expected = delivery?.status === STATUS.SUCCEEDED ? 'HEALTHY' : 'FAILING';
        if (
          delivery &&
          [...TERMINAL_STATUSES, STATUS.RETRY_PENDING].includes(delivery.status) &&
          (now.destination.health === expected || tries > 50)
        ) {
          result.replaceChildren(
            `Test ${queued.deliveryId}: ${delivery.status}${delivery.errorCode ? ` (${delivery.errorCode})` : ''}. Health: `,
            healthBadge(now.destination.health),
          );
          await refresh();
          return;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    },
    h('fieldset', {}, h('legend', {}, 'Send test'), field('Location', location), h('button', { type: 'submit' }, 'Send test')),
  );
  const section = h(
    'section',
    {},
    h('h2', {}, `Destination ${d.name}`),
    updated.element,
    header,
    test,
    result,
    h(
      'div',
      { role: 'group', 'aria-label': 'Actions', class: 'actions' },
      d.enabled ? act('Disable', 'disable') : act('Enable', 'enable'),
      ' ',
      act('Rotate secret', 'rotate-secret', 'Rotate the signing secret? The old one stops verifying at once.', (r) =>
        secret.replaceChildren(secretOnce('Signing secret', r.signingSecret!)),
      ),
      ' ',
      act('Remove', 'DELETE', `Remove ${d.name}? Its subscription and secret are deleted.`),
    ),
    secret,
    edit,
    recent,
    chart,
    history.element,
  );
  keepCurrent(section, refresh);
  return section;
}

/** A destination's longer history, filtered by status and period, 50 a page. */
function historySection(shell: Shell, id: string, delivery: string | undefined) {
  const status = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'any'),
    ...DELIVERY_STATUSES.map((s) => h('option', { value: s }, s)),
  ) as HTMLSelectElement;
  const since = h(
    'select',
    { name: 'since' },
    ...Object.entries(PERIODS).map(([label, hours]) => h('option', { value: String(hours), selected: hours === 24 }, label)),
  ) as HTMLSelectElement;
  const list = pagedList(shell, {
    caption: 'Delivery history',
    headers: deliveryColumns,
    empty: 'no delivery in this period.',
    async load(_q, cursor) {
      const from = new Date(Date.now() - Number(since.value) * 3_600_000).toISOString();
      const page = await api<Paged<'deliveries', DeliverySummary>>(
        'GET',
        `/destinations/${id}/deliveries?${query({ limit: String(PAGE_SIZE), since: from, status: status.value, cursor })}`,
      );
      return { rows: page.deliveries.map(deliveryRow(id, delivery)), nextCursor: page.nextCursor };
    },
  });
  for (const filter of [status, since]) filter.addEventListener('change', () => void shell.act(list.restart));
  return {
    element: h(
      'section',
      {},
      h('h3', {}, 'History'),
      h('div', { class: 'filters' }, field('Status', status), field('Since', since)),
      list.element,
    ),
    reload: list.reload,
  };
}

/** The history's periods, in hours back from now (deliveries are kept 30 days). */
const PERIODS = {
  'the last hour': 1,
  'the last 6 hours': 6,
  'the last 24 hours': 24,
  'the last 7 days': 168,
  'the last 30 days': 720,
} as const;
