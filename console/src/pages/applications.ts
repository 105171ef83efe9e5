import { CLIENT_CREDENTIALS } from '#contract/credentials';
import { SCOPES } from '#contract/scopes';
import { api } from '../api.js';
import type { AppRow, CreatedApp, LegacyCredential, Paged, RotatedApp } from '../documents.js';
import { field, h, idList, input, time, type Child } from '../dom.js';
import { pagedList, PAGE_SIZE } from '../lists.js';
import type { Shell } from '../shell.js';
import { appLink, locationsText, query, secretOnce, submitForm } from './parts.js';

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
      const page = await api<Paged<'apps', AppRow>>('GET', `/apps?${query({ limit: String(PAGE_SIZE), q, groupId, cursor })}`);
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
      const result = await api<CreatedApp>('POST', '/apps', {
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
      const page = await api<Paged<'legacyCredentials', LegacyCredential>>(
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
          const result = await api<RotatedApp>('POST', `/apps/${clientId}/rotate-secret`, { overlapHours, endOldTokens });
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

function appRow(shell: Shell, a: AppRow, show: (shown: HTMLElement) => void, after: () => Promise<void>): Child[] {
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
const ownerCell = (a: Pick<AppRow, 'ownerEmail' | 'ownerEmailSuppressed'>) =>
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
