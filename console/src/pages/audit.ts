import { api } from '../api.js';
import type { AuditEntry, Paged } from '../documents.js';
import { field, h, input, time } from '../dom.js';
import { pagedList, PAGE_SIZE } from '../lists.js';
import type { Shell } from '../shell.js';
import { appLink, destinationLink, query, submitForm } from './parts.js';

/** A change's parameters as the trail recorded them (overlap hours, scopes, a URL's host…): "key: value; …". */
const auditDetails = (details: AuditEntry['details']): string =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ') || '—';

/** The audit trail of changes, newest first, of one application or destination if asked. */
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
      const page = await api<Paged<'entries', AuditEntry>>(
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
          auditDetails(e.details),
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
