import { DELIVERY_STATUSES, STATUS, TERMINAL_STATUSES } from '#contract/delivery-policy';
import { SCOPES } from '#contract/scopes';
import { api } from './api.js';
import { duration, field, h, idList, input, table, time, type Child } from './dom.js';
import { freshness, keepCurrent, pagedList, PAGE_SIZE } from './lists.js';
import { hourlyChart } from './chart.js';
import { hrefOf } from './routes.js';
import { deliveryLink, timelineTable } from './delivery-pages.js';
import { CLIENT_CREDENTIALS } from '#contract/credentials';

/** What a page may ask of the shell: show a message, run an action with its errors shown, draw a page again. */
export type Shell = {
  say(message: string): void;
  act(action: () => Promise<void>): Promise<void>;
  redraw(): void;
  /** From a destination's page back to the list it was opened from (after the destination is removed, there is no page). */
  back(): void;
};

/** A form whose submission runs `action` through the shell (its errors shown), never a page load. */
function submitForm(shell: Shell, action: () => Promise<void>, ...children: Child[]): HTMLElement {
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
function secretOnce(label: string, secret: string): HTMLElement {
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

const query = (params: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => Boolean(e[1]))).toString();

const locationsText = (ids: string[] | null | undefined) => (ids ? ids.join(', ') : 'all');

/** Links to an item's own address (a real `<a href>`: open in a new tab, copy the link). */
const appLink = (clientId: string) => h('a', { href: hrefOf({ page: 'applications', id: clientId }) }, h('code', {}, clientId));
const destinationLink = (id: string, name: Child) => h('a', { href: hrefOf({ page: 'destinations', id }) }, name);
const deadLetterLink = (id: string) => h('a', { href: hrefOf({ page: 'dead-letters', id }) }, h('code', {}, id));

/** The applications; with `clientId` (its address), searched for that one. */
export async function applicationsPage(shell: Shell, clientId?: string): Promise<HTMLElement> {
  const created = h('div', {});
  const list = pagedList(shell, {
    caption: 'Applications',
    headers: [
      'Client id',
      'Name',
      'Status',
      'Group',
      'Scopes',
      'Locations',
      'Owner e-mail',
      'This minute / limit',
      'Destinations / limit',
      'Expires',
      'Replaced secret works until',
      'Actions',
    ],
    empty: 'no application yet; create one below.',
    search: { label: 'Search applications', hint: 'A client id, or part of a name, group or owner e-mail.' },
    q: clientId,
    of: { label: 'Of one group (id)' },
    async load(q, cursor, groupId) {
      const page = await api<{ apps: any[]; nextCursor?: string }>(
        'GET',
        `/apps?${query({ limit: String(PAGE_SIZE), q, groupId, cursor })}`,
      );
      return {
        rows: page.apps.map((a) =>
          appRow(
            shell,
            a,
            (shown) => created.replaceChildren(shown),
            () => list.reload(),
          ),
        ),
        nextCursor: page.nextCursor,
      };
    },
  });
  const group = input({ name: 'groupId', required: true, value: 'demo-group' });
  const name = input({ name: 'name', required: true });
  const scopes = SCOPES.map((scope) =>
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'scope', value: scope }), ` ${scope}`),
  );
  const locations = input({ name: 'allowedLocationIds', placeholder: 'all' });
  const rate = input({ type: 'number', name: 'rateLimitPerMinute', min: 1, step: 1, value: '600', required: true });
  const owner = input({ type: 'email', name: 'ownerEmail', autocomplete: 'off' });
  const expires = input({ type: 'datetime-local', name: 'expiresAt' });
  const form = submitForm(
    shell,
    async () => {
      const chosen = scopes
        .map((l) => l.querySelector('input') as HTMLInputElement)
        .filter((c) => c.checked)
        .map((c) => c.value);
      const result = await api('POST', '/apps', {
        groupId: group.value,
        name: name.value,
        scopes: chosen,
        allowedLocationIds: idList(locations.value),
        rateLimitPerMinute: Number(rate.value),
        ownerEmail: owner.value.trim() || null,
        // The field is in the viewer's zone; the API takes an instant.
        expiresAt: expires.value ? new Date(expires.value).toISOString() : null,
      });
      created.replaceChildren(h('p', {}, `Created ${result.app.clientId}.`), secretOnce('Client secret', result.clientSecret));
      shell.say(`Application ${result.app.clientId} created.`);
      await list.reload();
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Create an application'),
      field('Group', group),
      field('Name', name),
      h('fieldset', { class: 'choices' }, h('legend', {}, 'Scopes'), ...scopes),
      field('Allowed locations', locations, "Location ids, comma-separated; blank: all of the group's, now and later."),
      field('Rate limit per minute', rate),
      field('Owner e-mail (optional)', owner, 'Told of changes to its webhook destinations; never a secret.'),
      field('Expires (optional)', expires, 'In your time zone; blank: never.'),
      h('button', { type: 'submit' }, 'Create'),
    ),
  );
  await list.reload();
  // The list first: what is there matters more than adding to it.
  return h('section', {}, h('h2', {}, 'Applications'), list.element, form, created, await legacySection(shell));
}

/** Legacy bearer credentials still in use, for planning their retirement (oldest first, paged). */
async function legacySection(shell: Shell): Promise<HTMLElement> {
  const list = pagedList(shell, {
    caption: 'Legacy bearer credentials',
    headers: ['Client id', 'Name', 'Group', 'Status', 'Prefix', 'Last used (updated hourly)'],
    empty: 'none.',
    async load(_q, cursor) {
      const page = await api<{ legacyCredentials: any[]; nextCursor?: string }>(
        'GET',
        `/legacy-credentials?${query({ limit: String(PAGE_SIZE), cursor })}`,
      );
      return {
        rows: page.legacyCredentials.map((c) => [
          h('code', {}, c.clientId),
          c.name,
          c.groupId,
          c.status,
          h('code', {}, c.tokenPrefix),
          c.lastUsedAt ? time(c.lastUsedAt) : 'never',
        ]),
        nextCursor: page.nextCursor,
      };
    },
  });
  await list.reload();
  return h('section', { 'aria-label': 'Legacy credentials' }, h('h3', {}, 'Legacy bearer credentials'), list.element);
}

/**
 * Rotates an application's client secret after asking how long the replaced one keeps working and, when it keeps
 * working a while, whether the tokens it issued end with it (with 0 hours they always end).
 */
function rotateSecretButton(shell: Shell, clientId: string, show: (shown: HTMLElement) => void, after: () => Promise<void>): HTMLElement {
  return h(
    'button',
    {
      type: 'button',
      onclick: () => {
        const answer = prompt(
          `New client secret for ${clientId}. Hours the current secret keeps working (0 to 168; 0 if it leaked, which also ends its tokens):`,
          '24',
        );
        if (answer === null) return;
        const overlapHours = Number(answer.trim());
        const endOldTokens =
          overlapHours === 0 ||
          confirm('End the tokens the replaced secret issued when it stops working? Cancel: they keep their 24 hours.');
        void shell.act(async () => {
          const result = await api('POST', `/apps/${clientId}/rotate-secret`, { overlapHours, endOldTokens });
          show(
            h(
              'div',
              {},
              h('p', {}, `New client secret for ${clientId}; the replaced one works until ${result.app.previousSecretExpiresAt}.`),
              h(
                'p',
                {},
                result.oldTokensEndAt
                  ? `Tokens of the replaced secrets end at ${result.oldTokensEndAt}.`
                  : 'Tokens already issued keep their 24 hours.',
              ),
              secretOnce('Client secret', result.clientSecret),
            ),
          );
          shell.say(`Client secret of ${clientId} rotated.`);
          await after();
        });
      },
    },
    'Rotate secret',
  );
}

function appRow(shell: Shell, a: any, show: (shown: HTMLElement) => void, after: () => Promise<void>): Child[] {
  return [
    appLink(a.clientId),
    a.name,
    a.status,
    a.groupId,
    a.scopes.join(', '),
    locationsText(a.allowedLocationIds),
    ownerCell(a),
    `${a.requestsThisMinute} / ${a.rateLimitPerMinute}`,
    `${a.destinationCount} / ${a.destinationLimit}`,
    a.expiresAt ? time(a.expiresAt) : 'never',
    a.previousSecretExpiresAt && Date.parse(a.previousSecretExpiresAt) > Date.now() ? time(a.previousSecretExpiresAt) : '—',
    h(
      'span',
      { class: 'actions' },
      a.status === 'active' && a.credentialType === CLIENT_CREDENTIALS ? rotateSecretButton(shell, a.clientId, show, after) : '',
      ' ',
      a.status === 'active'
        ? h(
            'button',
            {
              type: 'button',
              class: 'danger',
              'aria-label': `Revoke ${a.clientId}`,
              onclick: () => {
                if (!confirm(`Revoke ${a.clientId}? Its tokens stop working at once.`)) return;
                void shell.act(async () => {
                  await api('POST', `/apps/${a.clientId}/revoke`, {});
                  shell.say(`Application ${a.clientId} revoked.`);
                  await after();
                });
              },
            },
            'Revoke',
          )
        : '',
    ),
  ];
}

/** The owner's address, marked when SES reported it bouncing or complaining (no owner mail reaches it: the Owner mail page lifts it). */
const ownerCell = (a: { ownerEmail: string | null; ownerEmailSuppressed?: boolean }) =>
  a.ownerEmail
    ? h(
        'span',
        {},
        a.ownerEmail,
        a.ownerEmailSuppressed
          ? h('span', { class: 'health health-FAILING', title: 'No owner mail is sent to this address' }, ' suppressed')
          : '',
      )
    : '—';

/** Health as text with a symbol and a colour (the colour never the only signal). */
const HEALTH_MARK: Record<string, string> = { HEALTHY: '✓', FAILING: '✕', NOT_TESTED: '?', DISABLED: '⏸' };
const healthBadge = (health: string) => h('span', { class: `health health-${health}` }, `${HEALTH_MARK[health] ?? ''} ${health}`);

export async function destinationsPage(shell: Shell): Promise<HTMLElement> {
  const list = pagedList(shell, {
    caption: 'Destinations',
    headers: ['Name', 'Id', 'Health', 'Host', 'Application', 'Locations', 'Last success', 'Last failure'],
    empty: 'no destination yet; add one below.',
    search: { label: 'Search destinations', hint: 'A destination id, or part of a name, host or application id.' },
    of: { label: 'Of one application (client id)' },
    async load(q, cursor, clientId) {
      const page = await api<{ destinations: any[]; nextCursor?: string }>(
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
  const [{ apps }] = await Promise.all([api<{ apps: any[] }>('GET', '/apps?limit=1000'), list.reload()]);
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
      const result = await api('POST', '/destinations', {
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

const deliveryColumns = ['Delivery', 'Status', 'Updated', 'Event', 'Location', 'Attempts', 'Next attempt', 'Error'];
/** A delivery's row; its id links to its own address, marked when that address is the one open. */
const deliveryRow =
  (destinationId: string, current: string | undefined) =>
  (r: any): Child[] => [
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
  const shown = await api('GET', `/destinations/${id}`);
  const d = shown.destination;
  // The locations a test may name: the group's, narrowed to the destination's and the application's.
  const [{ menus }, { app }] = await Promise.all([
    api('GET', `/menus?groupId=${encodeURIComponent(d.groupId)}&limit=1000`),
    api('GET', `/apps/${d.clientId}`),
  ]);
  const covered = (menus as any[]).filter(
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
    const [now, hourly] = await Promise.all([api('GET', `/destinations/${id}`), api('GET', `/destinations/${id}/hourly`)]);
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
  const act = (label: string, path: string, confirmText?: string, after?: (r: any) => void) =>
    h(
      'button',
      {
        type: 'button',
        class: confirmText ? 'danger' : undefined,
        onclick: () => {
          if (confirmText && !confirm(confirmText)) return;
          void shell.act(async () => {
            const r = path === 'DELETE' ? await api('DELETE', `/destinations/${id}`) : await api('POST', `/destinations/${id}/${path}`, {});
            shell.say(`${label}: done.`);
            if (path === 'DELETE') shell.back();
            else if (after) {
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
      const queued = await api('POST', `/destinations/${id}/test`, { locationId: location.value });
      result.replaceChildren(`Test ${queued.deliveryId} queued…`);
      await refresh();
      // Its outcome appears here without a reload.
      for (let tries = 0; tries < 60; tries++) {
        const now = await api('GET', `/destinations/${id}`);
        const delivery = now.recentDeliveries.find((r: any) => r.deliveryId === queued.deliveryId);
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
        secret.replaceChildren(secretOnce('Signing secret', r.signingSecret)),
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
      const page = await api(
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

/** The dead letters; with `deliveryId` (a dead letter's address), searched for that one and its detail open. */
export async function deadLettersPage(shell: Shell, deliveryId?: string): Promise<HTMLElement> {
  const selected = new Set<string>();
  let destinationFilter = '';
  let depth: number | null = null;
  const depthText = h('p', {});
  const updated = freshness();
  const selectedButton = h('button', { type: 'button', disabled: true }, 'Redrive selected') as HTMLButtonElement;
  const showSelection = () => {
    selectedButton.disabled = selected.size === 0;
    selectedButton.textContent = selected.size ? `Redrive selected (${selected.size})` : 'Redrive selected';
  };
  const headers = [
    'Select',
    'Delivery',
    'Destination',
    'Application',
    'Location',
    'Event',
    'Reason',
    'Attempts',
    'Last error',
    'Dead-lettered',
    'Actions',
  ];
  let seen = '';
  let changed = false;
  const list = pagedList(shell, {
    caption: 'Dead letters',
    headers,
    empty: 'nothing is dead-lettered.',
    search: {
      label: 'Search dead letters',
      hint: "Part of a delivery, destination, application or location id, a destination's name or host, or the event type.",
    },
    q: deliveryId,
    async load(q, cursor) {
      const page = await api<{ deadLetters: any[]; dlqMessages: number | null; nextCursor?: string }>(
        'GET',
        `/dead-letters?${query({ limit: String(PAGE_SIZE), q, cursor, destinationId: destinationFilter })}`,
      );
      depth = page.dlqMessages;
      depthText.textContent = `Messages in the DLQ: ${depth ?? 'unknown'}.`;
      const state = JSON.stringify(page.deadLetters.map((d) => d.deliveryId));
      changed = state !== seen;
      seen = state;
      for (const id of [...selected]) if (!page.deadLetters.some((d) => d.deliveryId === id)) selected.delete(id);
      showSelection();
      updated.touch();
      return { rows: page.deadLetters.map((d) => deadLetterRow(d)), nextCursor: page.nextCursor };
    },
  });
  const deadLetterRow = (d: any): Child[] => {
    const box = h('input', {
      type: 'checkbox',
      'aria-label': `Select ${d.deliveryId}`,
      checked: selected.has(d.deliveryId),
    }) as HTMLInputElement;
    box.onchange = () => {
      if (box.checked) selected.add(d.deliveryId);
      else selected.delete(d.deliveryId);
      showSelection();
    };
    return [
      box,
      deadLetterLink(d.deliveryId),
      d.destinationId
        ? h(
            'span',
            {},
            d.destinationName ? destinationLink(d.destinationId, d.destinationName) : `removed (${d.destinationId})`,
            h('br', {}),
            h('small', {}, d.destinationHost ?? ''),
          )
        : '—',
      d.clientId ? appLink(d.clientId) : '—',
      d.locationId ?? '—',
      // Identifiers as code, which wraps anywhere: the table stays within a 1280 px window.
      d.eventType ? h('code', {}, d.eventType) : '—',
      h('code', {}, d.reason),
      d.attempts ?? '—',
      d.lastErrorCode ? h('code', {}, d.lastErrorCode) : '—',
      h('span', {}, time(d.deadSince), ` (${duration(d.ageSeconds)} ago)`),
      h(
        'span',
        { class: 'actions' },
        inspectButton(shell, d.deliveryId, headers.length),
        ' ',
        deliveryLink(d.deliveryId, 'Timeline', `Timeline of ${d.deliveryId}`),
        ' ',
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Redrive ${d.deliveryId}`,
            onclick: () => {
              if (!confirm(`Redrive ${d.deliveryId}?`)) return;
              void shell.act(async () => {
                const r = await api('POST', `/dead-letters/${d.deliveryId}/redrive`, {});
                shell.say(`Redrive: ${r.redriven.length} queued again.`);
                selected.delete(d.deliveryId);
                await list.reload();
              });
            },
          },
          'Redrive',
        ),
      ),
    ];
  };
  selectedButton.onclick = () => {
    const ids = [...selected];
    if (!ids.length || !confirm(`Redrive the ${ids.length} selected dead letters?`)) return;
    void shell.act(async () => {
      const r = await api('POST', '/dead-letters/redrive', { deliveryIds: ids });
      const skipped = (r.skipped ?? []).map((s: any) => `${s.deliveryId} (${s.reason})`).join(', ');
      shell.say(`Redrive selected: ${r.redriven.length} queued again${skipped ? `; skipped ${skipped}` : ''}.`);
      selected.clear();
      await list.reload();
    });
  };
  const destination = input({ name: 'destinationId', placeholder: 'any' });
  const filter = submitForm(
    shell,
    async () => {
      destinationFilter = destination.value.trim();
      selected.clear();
      await list.restart();
      allButton.replaceChildren(redriveAll(shell, destinationFilter, list.reload));
    },
    field('Of one destination (id)', destination),
    h('button', { type: 'submit' }, 'Show'),
  );
  const allButton = h('span', {}, redriveAll(shell, '', list.reload));
  await list.reload();
  const section = h(
    'section',
    {},
    h('h2', {}, 'Dead letters'),
    updated.element,
    depthText,
    filter,
    h('div', { role: 'group', 'aria-label': 'Redrive', class: 'actions' }, selectedButton, ' ', allButton),
    list.element,
  );
  // Kept current while nothing is selected, open or focused in the list (a redraw would take them away).
  keepCurrent(section, async () => {
    if (selected.size || section.querySelector('tr.detail') || list.element.contains(document.activeElement)) return false;
    await list.reload();
    return changed;
  });
  if (deliveryId) list.element.querySelector<HTMLButtonElement>(`button[aria-label="Inspect ${CSS.escape(deliveryId)}"]`)?.click();
  return section;
}

/** Opens a dead letter's detail in a row right below its own (again: closes it). */
function inspectButton(shell: Shell, deliveryId: string, columns: number): HTMLElement {
  const button = h('button', { type: 'button', 'aria-expanded': 'false', 'aria-label': `Inspect ${deliveryId}` }, 'Inspect');
  button.onclick = () => {
    const row = button.closest('tr');
    if (!row) return;
    const open = row.nextElementSibling;
    if (open?.classList.contains('detail')) {
      open.remove();
      button.setAttribute('aria-expanded', 'false');
      return;
    }
    void shell.act(async () => {
      const { deadLetter: d } = await api('GET', `/dead-letters/${deliveryId}`);
      const heading = h('h3', { tabindex: '-1' }, `Dead letter ${d.deliveryId}`);
      const detail = h(
        'tr',
        { class: 'detail', id: `detail-${deliveryId}` },
        h(
          'td',
          { colspan: columns },
          h(
            'div',
            { class: 'dead-letter', role: 'region', 'aria-label': `Dead letter ${d.deliveryId}` },
            heading,
            h(
              'p',
              {},
              `${d.reason} · ${d.attempts} attempts · last HTTP status ${d.lastHttpStatus ?? '—'} · backoffs ${d.backoffSeconds.join(', ') || '—'} s · redriven ${d.redrives} times · created `,
              time(d.createdAt),
            ),
            timelineTable(d.timeline),
            // The payload as it was signed and sent; it never holds a secret.
            h('pre', { tabindex: '0', 'aria-label': 'Payload' }, JSON.stringify(d.payload, null, 2)),
          ),
        ),
      );
      row.after(detail);
      button.setAttribute('aria-expanded', 'true');
      heading.focus();
    });
  };
  return button;
}

/**
 * "Redrive all" (of one destination's, when the list is filtered to it) a page per request (each bounded
 * inside the admin function's time): it calls again with the answer's `nextCursor` until there is none,
 * saying how far it is after every page.
 */
function redriveAll(shell: Shell, destinationId: string, after: () => Promise<void>): HTMLElement {
  const label = destinationId ? `Redrive all of ${destinationId}` : 'Redrive all';
  const button = h('button', { type: 'button' }, label) as HTMLButtonElement;
  button.onclick = () => {
    if (!confirm(destinationId ? `Redrive every dead letter of ${destinationId}?` : 'Redrive every dead letter?')) return;
    button.disabled = true;
    void shell
      .act(async () => {
        let queued = 0;
        let cursor: string | undefined;
        do {
          const page: { redriven: string[]; nextCursor?: string } = await api('POST', '/dead-letters/redrive', {
            ...(cursor ? { cursor } : {}),
            ...(destinationId ? { destinationId } : {}),
          });
          queued += page.redriven.length;
          cursor = page.nextCursor;
          shell.say(`${label}: ${queued} queued again${cursor ? '; going on…' : '.'}`);
        } while (cursor);
        await after();
      })
      .finally(() => (button.disabled = false));
  };
  return button;
}

/** A change's parameters as the trail recorded them (overlap hours, scopes, a URL's host…): "key: value; …". */
const auditDetails = (details: Record<string, unknown>): string =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ') || '—';

export async function auditPage(shell: Shell): Promise<HTMLElement> {
  const clientId = input({ name: 'clientId', placeholder: 'any' });
  const destinationId = input({ name: 'destinationId', placeholder: 'any' });
  const list = pagedList(shell, {
    caption: 'Changes, newest first',
    headers: ['When', 'What', 'Who', 'Application', 'Destination', 'Delivery', 'Details', 'Request'],
    empty: 'no change recorded.',
    // The trail reads a bounded stretch of days a call: a quiet stretch is an empty page, and older ones may still follow.
    emptyWithMore: 'no changes on this page; older ones may follow.',
    async load(_q, cursor) {
      const page = await api<{ entries: any[]; nextCursor?: string }>(
        'GET',
        `/audit?${query({ limit: String(PAGE_SIZE), clientId: clientId.value.trim(), destinationId: destinationId.value.trim(), cursor })}`,
      );
      return {
        rows: page.entries.map((e) => [
          time(e.at),
          e.operation,
          e.actor,
          e.clientId ? appLink(e.clientId) : '—',
          e.destinationId ? destinationLink(e.destinationId, h('code', {}, e.destinationId)) : '—',
          e.deliveryId ? h('code', {}, e.deliveryId) : '—',
          auditDetails(e.details ?? {}),
          h('code', {}, e.requestId),
        ]),
        nextCursor: page.nextCursor,
      };
    },
  });
  const form = submitForm(
    shell,
    list.restart,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Filter'),
      field('Application id', clientId),
      field('Destination id', destinationId),
      h('button', { type: 'submit' }, 'Filter'),
    ),
  );
  await list.reload();
  return h('section', {}, h('h2', {}, 'Audit trail'), form, list.element);
}

export async function menusPage(shell: Shell): Promise<HTMLElement> {
  const group = input({ name: 'groupId', required: true, value: 'demo-group' });
  const list = pagedList(shell, {
    caption: 'Menus by location',
    headers: ['Location', 'Id', 'Revision', 'Last publish', 'POS source', 'Sections / items', 'Events waiting'],
    empty: 'this group has no location.',
    async load(_q, cursor) {
      const page = await api<{ menus: any[]; nextCursor?: string }>(
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
      const r = await api('PUT', `/menus/${encodeURIComponent(group.value.trim())}/${encodeURIComponent(location.value.trim())}`, menu);
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

/** Owner addresses SES reported bouncing for good or complaining: no owner mail goes to them until lifted here. */
export async function ownerMailPage(shell: Shell): Promise<HTMLElement> {
  const lift = (address: string) =>
    h(
      'button',
      {
        type: 'button',
        'aria-label': `Lift ${address}`,
        onclick: () => {
          if (
            !confirm(`Send owner mail to ${address} again? Only once its owner has mended the mailbox: a new bounce suppresses it again.`)
          )
            return;
          void shell.act(async () => {
            await api('POST', '/mail-suppressions/lift', { address });
            shell.say(`Owner mail goes to ${address} again.`);
            await list.reload();
          });
        },
      },
      'Lift',
    );
  const list = pagedList(shell, {
    caption: 'Suppressed owner addresses',
    headers: ['Address', 'Reason', 'Since', 'Actions'],
    empty: 'no address is suppressed.',
    async load(_q, cursor) {
      const page = await api<{ suppressions: any[]; nextCursor?: string }>(
        'GET',
        `/mail-suppressions?${query({ limit: String(PAGE_SIZE), cursor })}`,
      );
      return { rows: page.suppressions.map((s) => [s.address, s.reason, time(s.at), lift(s.address)]), nextCursor: page.nextCursor };
    },
  });
  await list.reload();
  return h(
    'section',
    {},
    h('h2', {}, 'Owner mail'),
    h('p', {}, 'Addresses SES reported bouncing for good (bounce) or marking the mail as spam (complaint). No owner mail is sent to them.'),
    list.element,
  );
}

/** The access-token key's versions (never a key): which signs, which verify until when; rotate, or revoke a compromised one. */
export async function tokenKeysPage(shell: Shell): Promise<HTMLElement> {
  const list = h('div', {});
  const draw = (versions: any[]) =>
    list.replaceChildren(
      table(
        'Access-token key versions',
        ['Version', 'State', 'Created', 'Verifies until', 'Revoked', 'Actions'],
        versions.map((k) => [
          k.version,
          k.state,
          time(k.createdAt),
          time(k.retiresAt),
          time(k.revokedAt),
          k.state === 'revoked'
            ? '—'
            : h(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  'aria-label': `Revoke key version ${k.version}`,
                  onclick: () => {
                    if (!confirm(`Revoke key version ${k.version}? Every token it signed is refused from now on.`)) return;
                    void shell.act(async () => {
                      draw((await api('POST', `/token-keys/${k.version}/revoke`, {})).versions);
                      shell.say(`Key version ${k.version} revoked.`);
                    });
                  },
                },
                'Revoke',
              ),
        ]),
        'no key version yet: the first token issued creates one.',
      ),
    );
  draw((await api('GET', '/token-keys')).versions);
  const rotate = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        if (
          !confirm('Rotate the access-token key? A new version signs from now on; the current one verifies its tokens until they expire.')
        )
          return;
        void shell.act(async () => {
          draw((await api('POST', '/token-keys/rotate', {})).versions);
          shell.say('Access-token key rotated.');
        });
      },
    },
    'Rotate key',
  );
  return h(
    'section',
    {},
    h('h2', {}, 'Token keys'),
    h('p', {}, 'The key that signs access tokens, by version. No key is ever shown.'),
    rotate,
    list,
  );
}
