/** Elements built from text, never from HTML strings: nothing the API returns can become markup. */
export type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | boolean | number | ((event: Event) => void) | undefined>;

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children)
    if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  return el;
}

/** A time in the viewer's zone, UTC on hover. */
export function time(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return '—';
  const at = new Date(iso);
  return h(
    'time',
    {
      datetime: iso,
      title: `${at
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')}`,
    },
    at.toLocaleString(),
  );
}

/** Seconds as the largest whole unit: "45 s", "12 min", "3 h", "2 d". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.floor(seconds))} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/**
 * A table with a header row; rows of cells. Each cell carries its column's name, which narrow screens show
 * beside the value when the rows become cards (style.css), so no list scrolls sideways on a phone.
 */
export function table(caption: string, headers: string[], rows: Child[][], empty = 'Nothing to show.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty', role: 'note', 'aria-label': caption }, `${caption}: ${empty}`);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'cards' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell, i) => h('td', { 'data-label': headers[i] ?? '' }, cell))))),
    ),
  );
}

/** A labelled input; its id ties label and control together. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLElement {
  input.id ||= `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  if (!hint) return h('div', {}, h('label', { for: input.id }, label), input);
  const hintId = `${input.id}-hint`;
  input.setAttribute('aria-describedby', hintId);
  return h('div', {}, h('label', { for: input.id }, label), h('p', { id: hintId, class: 'hint' }, hint), input);
}

export const input = (attrs: Attrs) => h('input', { type: 'text', ...attrs }) as HTMLInputElement;

/** Comma- or space-separated ids; an empty answer is null ("all"). */
export function idList(text: string): string[] | null {
  const ids = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return ids.length ? ids : null;
}
