import { api } from '../api.js';
import type { DeadLetter, DeadLetters, DeadLetterSummary, Redriven } from '../documents.js';
import { duration, field, h, input, time, type Child } from '../dom.js';
import { freshness, keepCurrent, pagedList, PAGE_SIZE } from '../lists.js';
import type { Shell } from '../shell.js';
import { appLink, deadLetterLink, deliveryLink, destinationLink, query, submitForm, timelineTable } from './parts.js';

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
      const page = await api<DeadLetters>(
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
  const deadLetterRow = (d: DeadLetterSummary): Child[] => {
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
                const r = await api<Redriven>('POST', `/dead-letters/${d.deliveryId}/redrive`, {});
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
      const r = await api<Redriven>('POST', '/dead-letters/redrive', { deliveryIds: ids });
      const skipped = (r.skipped ?? []).map((s) => `${s.deliveryId} (${s.reason})`).join(', ');
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
      const { deadLetter: d } = await api<{ deadLetter: DeadLetter }>('GET', `/dead-letters/${deliveryId}`);
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
          const page = await api<Redriven>('POST', '/dead-letters/redrive', {
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
