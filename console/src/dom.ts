/** Elements built from text, never from HTML strings: nothing the API returns can become markup. */
type Child = Node | string | number | null | undefined | false;
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

/** A table with a header row; rows of cells. */
export function table(caption: string, headers: string[], rows: Child[][]): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
    ),
  );
}

/** A labelled input; its id ties label and control together. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement): HTMLElement {
  input.id ||= `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('div', {}, h('label', { for: input.id }, label), input);
}

export const input = (attrs: Attrs) => h('input', { type: 'text', ...attrs }) as HTMLInputElement;
