import { STATUS } from '#lambdas/webhooks/delivery-policy';
import type { HourlyOutcomes } from './documents.js';
import { h, table } from './dom.js';

/**
 * Deliveries per hour by outcome over 24 hours: an SVG bar chart with axes and a legend, each outcome drawn
 * with its own fill pattern as well as its colour (colour is never the only signal), and the same numbers as a
 * table for screen readers and anyone who prefers one.
 */
const OUTCOMES = [
  { status: STATUS.SUCCEEDED, label: 'succeeded', colour: '#1a7f37', pattern: 'solid' },
  { status: STATUS.RETRY_PENDING, label: 'retry pending', colour: '#9a6700', pattern: 'dots' },
  { status: STATUS.FAILED, label: 'failed', colour: '#cf222e', pattern: 'stripes' },
  { status: STATUS.DEAD_LETTER, label: 'dead letter', colour: '#82071e', pattern: 'cross' },
] as const;
const OTHER = { label: 'other', colour: '#6e7781', pattern: 'solid' } as const;

const NS = 'http://www.w3.org/2000/svg';
function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** A fill pattern per outcome, drawn over its colour. */
function patterns(): SVGElement {
  const defs = svg('defs', {});
  for (const o of [...OUTCOMES, OTHER]) {
    const marks: SVGElement[] = [svg('rect', { width: 6, height: 6, fill: o.colour })];
    if (o.pattern === 'dots') marks.push(svg('circle', { cx: 3, cy: 3, r: 1.3, fill: '#fff' }));
    if (o.pattern === 'stripes') marks.push(svg('path', { d: 'M0,6 L6,0', stroke: '#fff', 'stroke-width': 1.2 }));
    if (o.pattern === 'cross') marks.push(svg('path', { d: 'M0,6 L6,0 M0,0 L6,6', stroke: '#fff', 'stroke-width': 1 }));
    defs.append(svg('pattern', { id: `fill-${o.label.replace(' ', '-')}`, width: 6, height: 6, patternUnits: 'userSpaceOnUse' }, ...marks));
  }
  return defs;
}

const outcomeOf = (status: string) => OUTCOMES.find((o) => o.status === status) ?? OTHER;
const fillOf = (status: string) => `url(#fill-${outcomeOf(status).label.replace(' ', '-')})`;
const hourLabel = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

export function hourlyChart({ hours, truncated }: HourlyOutcomes): HTMLElement {
  const total = (x: { counts: Record<string, number> }) => Object.values(x.counts).reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...hours.map(total));
  // Plot area: x from 40 to 520, y from 10 (max) to 150 (zero).
  const [left, right, top, bottom] = [40, 520, 10, 150];
  const step = (right - left) / Math.max(1, hours.length);
  const y = (n: number) => bottom - (n / max) * (bottom - top);
  const chart = svg('svg', { viewBox: '0 0 530 180', role: 'img', class: 'chart' }, patterns());
  // Axes, with the count at zero, half and the top, and the hour every sixth bar.
  chart.append(svg('path', { d: `M${left},${top} V${bottom} H${right}`, stroke: '#57606a', fill: 'none' }));
  for (const n of [...new Set([0, Math.round(max / 2), max])]) {
    chart.append(svg('text', { x: left - 6, y: y(n) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#1b1f24' }, String(n)));
    chart.append(svg('path', { d: `M${left - 3},${y(n)} H${left}`, stroke: '#57606a' }));
  }
  hours.forEach((x, i) => {
    let base = 0;
    for (const [status, n] of Object.entries(x.counts)) {
      if (!n) continue;
      const bar = svg('rect', {
        x: left + i * step + 1,
        y: y(base + n),
        width: Math.max(1, step - 2),
        height: y(base) - y(base + n),
        fill: fillOf(status),
      });
      bar.append(svg('title', {}, `${hourLabel(x.hour)}: ${n} ${outcomeOf(status).label}`));
      chart.append(bar);
      base += n;
    }
    if (i % 6 === 0) chart.append(svg('text', { x: left + i * step, y: bottom + 16, 'font-size': 11, fill: '#1b1f24' }, hourLabel(x.hour)));
  });
  chart.append(svg('text', { x: right, y: bottom + 16, 'text-anchor': 'end', 'font-size': 11, fill: '#1b1f24' }, 'now'));
  chart.append(svg('text', { x: 4, y: top + 4, 'font-size': 11, fill: '#1b1f24' }, 'n'));

  const totals = new Map<string, number>();
  for (const x of hours) for (const [status, n] of Object.entries(x.counts)) totals.set(status, (totals.get(status) ?? 0) + n);
  const summary = [...totals].map(([status, n]) => `${n} ${status}`).join(', ') || 'no deliveries';
  chart.setAttribute('aria-label', `Deliveries per hour, last 24 hours: ${summary}`);
  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': 'Legend' },
    ...OUTCOMES.map((o) =>
      h(
        'li',
        {},
        svg(
          'svg',
          { viewBox: '0 0 12 12', width: 12, height: 12, 'aria-hidden': 'true' },
          patterns(),
          svg('rect', { width: 12, height: 12, fill: fillOf(o.status) }),
        ),
        ` ${o.label} (${o.status}): ${totals.get(o.status) ?? 0}`,
      ),
    ),
  );
  const rows = hours.filter((x) => total(x) > 0).map((x) => [hourLabel(x.hour), ...OUTCOMES.map((o) => x.counts[o.status] ?? 0), total(x)]);
  return h(
    'figure',
    {},
    h('figcaption', {}, `Last 24 hours by hour: ${summary}${truncated ? ' (the newest 1,000 counted)' : ''}.`),
    chart,
    legend,
    h(
      'details',
      {},
      h('summary', {}, 'The chart as a table'),
      table('Deliveries per hour', ['Hour', ...OUTCOMES.map((o) => o.label), 'Total'], rows, 'no delivery in the last 24 hours.'),
    ),
  );
}
