import { DELIVERY_STATUSES, STATUS, TERMINAL_STATUSES } from '#contract/delivery-policy';
import { SCOPES } from '#contract/scopes';
import { api } from './api.js';
import { field, h, input, table, time } from './dom.js';

/** What a page may ask of the shell: show a message, run an action with its errors shown, draw a page again. */
export type Shell = { say(message: string): void; act(action: () => Promise<void>): Promise<void>; redraw(): void };

/** A form whose submission runs `action` through the shell (its errors shown), never a page load. */
function submitForm(shell: Shell, action: () => Promise<void>, ...children: Parameters<typeof h>[2][]): HTMLElement {
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

export async function applicationsPage(shell: Shell): Promise<HTMLElement> {
  const list = h('div', {});
  const created = h('div', {});
  const refresh = async () =>
    list.replaceChildren(
      appsTable(shell, (await api<{ apps: any[] }>('GET', '/apps?limit=1000')).apps, (shown) => created.replaceChildren(shown)),
    );
  await refresh();
  const group = input({ name: 'groupId', required: true, value: 'demo-group' });
  const name = input({ name: 'name', required: true });
  const scopes = SCOPES.map((scope) => h('label', {}, h('input', { type: 'checkbox', name: 'scope', value: scope }), ` ${scope}`));
  const form = submitForm(
    shell,
    async () => {
      const chosen = scopes
        .map((l) => l.querySelector('input') as HTMLInputElement)
        .filter((c) => c.checked)
        .map((c) => c.value);
      const result = await api('POST', '/apps', { groupId: group.value, name: name.value, scopes: chosen });
      created.replaceChildren(h('p', {}, `Created ${result.app.clientId}.`), secretOnce('Client secret', result.clientSecret));
      shell.say(`Application ${result.app.clientId} created.`);
      await refresh();
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Create an application'),
      field('Group', group),
      field('Name', name),
      h('div', { role: 'group', 'aria-label': 'Scopes' }, ...scopes),
      h('button', { type: 'submit' }, 'Create'),
    ),
  );
  return h('section', {}, h('h2', {}, 'Applications'), form, created, list, await legacySection());
}

/** Legacy bearer credentials still in use, for planning their retirement (the first page, oldest first). */
async function legacySection(): Promise<HTMLElement> {
  const { legacyCredentials, nextCursor } = await api<{ legacyCredentials: any[]; nextCursor?: string }>(
    'GET',
    '/legacy-credentials?limit=100',
  );
  const rows = legacyCredentials.map((c) => [
    h('code', {}, c.clientId),
    c.name,
    c.groupId,
    c.status,
    h('code', {}, c.tokenPrefix),
    c.lastUsedAt ? time(c.lastUsedAt) : 'never',
  ]);
  return h(
    'section',
    { 'aria-label': 'Legacy credentials' },
    h('h3', {}, 'Legacy bearer credentials'),
    legacyCredentials.length
      ? table('Legacy bearer credentials', ['Client id', 'Name', 'Group', 'Status', 'Prefix', 'Last used (to the hour)'], rows)
      : h('p', {}, 'No legacy bearer credentials.'),
    nextCursor ? h('p', {}, 'The oldest 100 are shown; `npm run admin -- apps legacy-report` lists them all.') : '',
  );
}

/** Rotates an application's client secret after asking how long the replaced one keeps working. */
function rotateSecretButton(shell: Shell, clientId: string, show: (shown: HTMLElement) => void): HTMLElement {
  return h(
    'button',
    {
      type: 'button',
      onclick: () => {
        const answer = prompt(
          `New client secret for ${clientId}. Hours the current secret keeps working (0 to 168; 0 if it leaked):`,
          '24',
        );
        if (answer === null) return;
        void shell.act(async () => {
          const result = await api('POST', `/apps/${clientId}/rotate-secret`, { overlapHours: Number(answer.trim()) });
          show(
            h(
              'div',
              {},
              h('p', {}, `New client secret for ${clientId}; the replaced one works until ${result.app.previousSecretExpiresAt}.`),
              secretOnce('Client secret', result.clientSecret),
            ),
          );
          shell.say(`Client secret of ${clientId} rotated.`);
        });
      },
    },
    'Rotate secret',
  );
}

function appsTable(shell: Shell, apps: any[], show: (shown: HTMLElement) => void): HTMLElement {
  const rows = apps.map((a) => [
    h('code', {}, a.clientId),
    a.name,
    a.groupId,
    a.status,
    a.scopes.join(', '),
    a.allowedLocationIds ? a.allowedLocationIds.join(', ') : 'all',
    ownerCell(a),
    `${a.requestsThisMinute} / ${a.rateLimitPerMinute}`,
    a.previousSecretExpiresAt && Date.parse(a.previousSecretExpiresAt) > Date.now() ? time(a.previousSecretExpiresAt) : '',
    a.status === 'active' && a.credentialType === 'client_credentials' ? rotateSecretButton(shell, a.clientId, show) : '',
    a.status === 'active'
      ? h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: () => {
              if (!confirm(`Revoke ${a.clientId}? Its tokens stop working at once.`)) return;
              void shell.act(async () => {
                await api('POST', `/apps/${a.clientId}/revoke`, {});
                shell.say(`Application ${a.clientId} revoked.`);
                shell.redraw();
              });
            },
          },
          'Revoke',
        )
      : '',
  ]);
  return table(
    'Applications',
    [
      'Client id',
      'Name',
      'Group',
      'Status',
      'Scopes',
      'Locations',
      'Owner e-mail',
      'This minute / limit',
      'Replaced secret works until',
      '',
      '',
    ],
    rows,
  );
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

const healthBadge = (health: string) => h('span', { class: `health health-${health}` }, health);

export async function destinationsPage(shell: Shell, open: (id: string) => void): Promise<HTMLElement> {
  const list = h('div', {});
  const refresh = async () =>
    list.replaceChildren(destinationsTable((await api<{ destinations: any[] }>('GET', '/destinations?limit=1000')).destinations, open));
  const [{ apps }] = await Promise.all([api<{ apps: any[] }>('GET', '/apps?limit=1000'), refresh()]);
  const app = h(
    'select',
    { name: 'clientId', required: true },
    ...apps.filter((a) => a.status === 'active').map((a) => h('option', { value: a.clientId }, `${a.name} (${a.clientId})`)),
  ) as HTMLSelectElement;
  const name = input({ name: 'name', required: true });
  const url = input({ type: 'url', name: 'url', required: true, placeholder: 'https://…' });
  const created = h('div', {});
  const form = submitForm(
    shell,
    async () => {
      const result = await api('POST', '/destinations', { clientId: app.value, name: name.value, url: url.value });
      created.replaceChildren(h('p', {}, `Added ${result.destination.destinationId}.`), secretOnce('Signing secret', result.signingSecret));
      shell.say(`Destination ${result.destination.destinationId} added.`);
      await refresh();
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Add a destination'),
      field('Application', app),
      field('Name', name),
      field('URL', url),
      h('button', { type: 'submit' }, 'Add'),
    ),
  );
  return h('section', {}, h('h2', {}, 'Destinations'), form, created, list);
}

function destinationsTable(destinations: any[], open: (id: string) => void): HTMLElement {
  const rows = destinations.map((d) => [
    h('button', { type: 'button', onclick: () => open(d.destinationId) }, d.name),
    d.hostname,
    healthBadge(d.health),
    d.locationIds ? d.locationIds.join(', ') : 'all',
    time(d.lastSuccessAt),
    time(d.lastFailureAt),
  ]);
  return table('Destinations', ['Name', 'Host', 'Health', 'Locations', 'Last success', 'Last failure'], rows);
}

export async function destinationPage(shell: Shell, id: string): Promise<HTMLElement> {
  const { destination: d, recentDeliveries } = await api('GET', `/destinations/${id}`);
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
  const edit = submitForm(
    shell,
    async () => {
      await api('PATCH', `/destinations/${id}`, { name: editName.value, url: editUrl.value });
      shell.say('Destination saved.');
      shell.redraw();
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Edit'),
      field('New name', editName),
      field('New URL', editUrl),
      h('button', { type: 'submit' }, 'Save'),
    ),
  );
  const result = h('div', { id: 'test-result' });
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
            after?.(r);
            shell.say(`${label}: done.`);
            if (!after) shell.redraw();
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
      // Its outcome appears here without a reload.
      for (let tries = 0; tries < 60; tries++) {
        const shown = await api('GET', `/destinations/${id}`);
        const delivery = shown.recentDeliveries.find((r: any) => r.deliveryId === queued.deliveryId);
        // Health is recorded just after the outcome: wait for it to follow (a success makes it HEALTHY, a failure FAILING).
        const expected = delivery?.status === STATUS.SUCCEEDED ? 'HEALTHY' : 'FAILING';
        if (
          delivery &&
          [...TERMINAL_STATUSES, STATUS.RETRY_PENDING].includes(delivery.status) &&
          (shown.destination.health === expected || tries > 50)
        ) {
          result.replaceChildren(
            `Test ${queued.deliveryId}: ${delivery.status}${delivery.errorCode ? ` (${delivery.errorCode})` : ''}. Health: `,
            healthBadge(shown.destination.health),
          );
          return;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    },
    h('fieldset', {}, h('legend', {}, 'Send test'), field('Location', location), h('button', { type: 'submit' }, 'Send test')),
  );
  const deliveryRow = (r: any) => [
    h('code', {}, r.deliveryId),
    r.eventType,
    r.status,
    r.attempts,
    time(r.nextAttemptAt),
    r.errorCode ?? '—',
    time(r.updatedAt),
  ];
  const deliveryColumns = ['Delivery', 'Event', 'Status', 'Attempts', 'Next attempt', 'Error', 'Updated'];
  const [hourly, history] = await Promise.all([api('GET', `/destinations/${id}/hourly`), historySection(id, deliveryRow, deliveryColumns)]);
  return h(
    'section',
    {},
    h('h2', {}, `Destination ${d.name}`),
    h(
      'p',
      {},
      'Health: ',
      healthBadge(d.health),
      d.paused ? ' (paused: new deliveries are held until it answers)' : '',
      ` · ${d.hostname} · application ${d.clientId}`,
    ),
    test,
    result,
    edit,
    h(
      'div',
      { role: 'group', 'aria-label': 'Actions' },
      d.enabled ? act('Disable', 'disable') : act('Enable', 'enable'),
      ' ',
      act('Rotate secret', 'rotate-secret', 'Rotate the signing secret? The old one stops verifying at once.', (r) =>
        secret.replaceChildren(secretOnce('Signing secret', r.signingSecret)),
      ),
      ' ',
      act('Remove', 'DELETE', `Remove ${d.name}? Its subscription and secret are deleted.`),
    ),
    secret,
    table('Last three deliveries', deliveryColumns, recentDeliveries.map(deliveryRow)),
    hourlyChart(hourly),
    history,
  );
}

/** A destination's longer history, filtered by status, 50 a page. */
async function historySection(id: string, row: (r: any) => unknown[], columns: string[]): Promise<HTMLElement> {
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
  const list = h('div', {});
  let cursor: string | undefined;
  const load = async (more: boolean) => {
    const from = new Date(Date.now() - Number(since.value) * 3_600_000).toISOString();
    const query = new URLSearchParams({
      limit: '50',
      since: from,
      ...(status.value ? { status: status.value } : {}),
      ...(more && cursor ? { cursor } : {}),
    });
    const page = await api('GET', `/destinations/${id}/deliveries?${query}`);
    cursor = page.nextCursor;
    const rows = page.deliveries.map(row);
    list.replaceChildren(
      table('Delivery history', columns, rows),
      cursor ? h('button', { type: 'button', onclick: () => void load(true) }, 'Older') : '',
    );
  };
  for (const filter of [status, since]) filter.addEventListener('change', () => void load(false));
  await load(false);
  return h('section', {}, h('h3', {}, 'History'), field('Status', status), field('Since', since), list);
}

/** The history's periods, in hours back from now (deliveries are kept 30 days). */
const PERIODS = {
  'the last hour': 1,
  'the last 6 hours': 6,
  'the last 24 hours': 24,
  'the last 7 days': 168,
  'the last 30 days': 720,
} as const;

const OUTCOME_COLOURS: Record<string, string> = {
  [STATUS.SUCCEEDED]: '#1a7f37',
  [STATUS.FAILED]: '#cf222e',
  [STATUS.DEAD_LETTER]: '#82071e',
  [STATUS.RETRY_PENDING]: '#bf8700',
};

/** Deliveries per hour by outcome over 24 hours, as an SVG bar chart with a text summary for screen readers. */
function hourlyChart({ hours, truncated }: { hours: { hour: string; counts: Record<string, number> }[]; truncated: boolean }): HTMLElement {
  const ns = 'http://www.w3.org/2000/svg';
  const max = Math.max(1, ...hours.map((x) => Object.values(x.counts).reduce((a, b) => a + b, 0)));
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 480 120');
  svg.setAttribute('role', 'img');
  const totals: Record<string, number> = {};
  hours.forEach((x, i) => {
    let y = 110;
    for (const [status, n] of Object.entries(x.counts)) {
      totals[status] = (totals[status] ?? 0) + n;
      const height = (n / max) * 100;
      y -= height;
      const bar = document.createElementNS(ns, 'rect');
      for (const [k, v] of Object.entries({ x: i * 20 + 2, y, width: 16, height, fill: OUTCOME_COLOURS[status] ?? '#8c959f' }))
        bar.setAttribute(k, String(v));
      const title = document.createElementNS(ns, 'title');
      title.textContent = `${new Date(x.hour).toLocaleString()}: ${n} ${status}`;
      bar.append(title);
      svg.append(bar);
    }
  });
  const summary =
    Object.entries(totals)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ') || 'no deliveries';
  svg.setAttribute('aria-label', `Deliveries per hour, last 24 hours: ${summary}`);
  return h('figure', {}, svg, h('figcaption', {}, `Last 24 hours by hour: ${summary}${truncated ? ' (the newest 1,000 counted)' : ''}.`));
}

export async function deadLettersPage(shell: Shell): Promise<HTMLElement> {
  const { deadLetters, dlqMessages } = await api<{ deadLetters: any[]; dlqMessages: number | null }>('GET', '/dead-letters?limit=1000');
  const redrive = (target: string, label: string, question: string) =>
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          if (!confirm(question)) return;
          void shell.act(async () => {
            const r = await api('POST', target, {});
            shell.say(`${label}: ${r.redriven.length} queued again.`);
            shell.redraw();
          });
        },
      },
      label,
    );
  const detail = h('div', { id: 'dead-letter' });
  const inspect = (deliveryId: string) =>
    h(
      'button',
      {
        type: 'button',
        onclick: () =>
          void shell.act(async () => {
            const { deadLetter: d } = await api('GET', `/dead-letters/${deliveryId}`);
            detail.replaceChildren(
              h('h3', { tabindex: '-1' }, `Dead letter ${d.deliveryId}`),
              h(
                'p',
                {},
                `${d.reason} · ${d.attempts} attempts · last HTTP status ${d.lastHttpStatus ?? '—'} · backoffs ${d.backoffSeconds.join(', ') || '—'} s · redriven ${d.redrives} times`,
              ),
              // The payload as it was signed and sent; it never holds a secret.
              h('pre', {}, JSON.stringify(d.payload, null, 2)),
            );
            (detail.querySelector('h3') as HTMLElement).focus();
          }),
      },
      'Inspect',
    );
  const rows = deadLetters.map((d) => [
    h('code', {}, d.deliveryId),
    d.reason,
    d.destinationHost,
    d.attempts,
    d.lastErrorCode ?? '—',
    time(d.deadSince),
    h('span', {}, inspect(d.deliveryId), ' ', redrive(`/dead-letters/${d.deliveryId}/redrive`, 'Redrive', `Redrive ${d.deliveryId}?`)),
  ]);
  return h(
    'section',
    {},
    h('h2', {}, 'Dead letters'),
    detail,
    h('p', {}, `Messages in the DLQ: ${dlqMessages ?? 'unknown'}.`),
    deadLetters.length ? redriveAll(shell, deadLetters.length) : 'Nothing is dead-lettered.',
    table('Dead letters', ['Delivery', 'Reason', 'Host', 'Attempts', 'Last error', 'Since', ''], rows),
  );
}

/**
 * "Redrive all" a page per request (each bounded inside the admin function's time): it calls again with the
 * answer's `nextCursor` until there is none, saying how far it is after every page.
 */
function redriveAll(shell: Shell, listed: number): HTMLElement {
  const button = h('button', { type: 'button' }, 'Redrive all') as HTMLButtonElement;
  button.onclick = () => {
    if (!confirm(`Redrive all ${listed}${listed >= 1000 ? '+' : ''} dead letters?`)) return;
    button.disabled = true;
    void shell
      .act(async () => {
        let queued = 0;
        let cursor: string | undefined;
        do {
          const page: { redriven: string[]; nextCursor?: string } = await api('POST', '/dead-letters/redrive', cursor ? { cursor } : {});
          queued += page.redriven.length;
          cursor = page.nextCursor;
          shell.say(`Redrive all: ${queued} of about ${listed} queued again${cursor ? '; going on…' : '.'}`);
        } while (cursor);
        shell.redraw();
      })
      .finally(() => (button.disabled = false));
  };
  return button;
}

export async function auditPage(shell: Shell): Promise<HTMLElement> {
  const clientId = input({ name: 'clientId', placeholder: 'any' });
  const destinationId = input({ name: 'destinationId', placeholder: 'any' });
  const list = h('div', {});
  const load = async () => {
    const query = new URLSearchParams({
      limit: '200',
      ...(clientId.value ? { clientId: clientId.value } : {}),
      ...(destinationId.value ? { destinationId: destinationId.value } : {}),
    });
    const { entries } = await api<{ entries: any[] }>('GET', `/audit?${query}`);
    const rows = entries.map((e) => [
      time(e.at),
      e.actor,
      e.operation,
      e.clientId ?? '—',
      e.destinationId ?? '—',
      h('code', {}, e.requestId),
    ]);
    list.replaceChildren(table('Changes, newest first', ['When', 'Who', 'What', 'Application', 'Destination', 'Request'], rows));
  };
  const form = submitForm(
    shell,
    load,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Filter'),
      field('Application id', clientId),
      field('Destination id', destinationId),
      h('button', { type: 'submit' }, 'Filter'),
    ),
  );
  await load();
  return h('section', {}, h('h2', {}, 'Audit trail'), form, list);
}

export async function menusPage(shell: Shell): Promise<HTMLElement> {
  const group = input({ name: 'groupId', required: true, value: 'demo-group' });
  const list = h('div', {});
  const load = async () => {
    const { menus } = await api<{ menus: any[] }>('GET', `/menus?groupId=${encodeURIComponent(group.value)}&limit=500`);
    const rows = menus.map((m) => [
      m.name,
      h('code', {}, m.locationId),
      m.published ? h('code', {}, m.revision) : 'not published',
      time(m.updatedAt),
      m.sourceHealth ? m.sourceHealth.pos : '—',
      `${m.sectionCount} / ${m.itemCount}`,
      m.pendingEvents,
    ]);
    list.replaceChildren(
      table('Menus by location', ['Location', 'Id', 'Revision', 'Last publish', 'POS source', 'Sections / items', 'Events waiting'], rows),
    );
  };
  const form = submitForm(shell, load, field('Group', group), h('button', { type: 'submit' }, 'Show'));
  await load();
  return h('section', {}, h('h2', {}, 'Menus'), form, list);
}

/** Owner addresses SES reported bouncing for good or complaining: no owner mail goes to them until lifted here. */
export async function ownerMailPage(shell: Shell): Promise<HTMLElement> {
  const { suppressions, nextCursor } = await api<{ suppressions: any[]; nextCursor?: string }>('GET', '/mail-suppressions?limit=1000');
  const lift = (address: string) =>
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          if (
            !confirm(`Send owner mail to ${address} again? Only once its owner has mended the mailbox: a new bounce suppresses it again.`)
          )
            return;
          void shell.act(async () => {
            await api('POST', '/mail-suppressions/lift', { address });
            shell.say(`Owner mail goes to ${address} again.`);
            shell.redraw();
          });
        },
      },
      'Lift',
    );
  const rows = suppressions.map((s) => [s.address, s.reason, time(s.at), lift(s.address)]);
  return h(
    'section',
    {},
    h('h2', {}, 'Owner mail'),
    h('p', {}, 'Addresses SES reported bouncing for good (bounce) or marking the mail as spam (complaint). No owner mail is sent to them.'),
    suppressions.length
      ? table('Suppressed owner addresses', ['Address', 'Reason', 'Since', ''], rows)
      : h('p', {}, 'No address is suppressed.'),
    nextCursor ? h('p', {}, 'The first 1,000 are shown; `npm run admin -- mail suppressions` lists them all.') : '',
  );
}
