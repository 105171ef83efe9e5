import * as v from 'valibot';
import { menuItem } from '#contract/schemas/bevq';
import { nonNegativeMoney } from '#contract/schemas/common';
import { parseInput } from '#contract/validation';
import type { StoredMenu } from '#data/menus';
import type { SourceOrder } from '#data/store';
import { AdminInputError, AdminNotFoundError } from '#domain/inputs';
import { enqueueDispatch } from '#lambdas/webhooks/messages';
import { orderOf, parseMenu, writeMenuChange, type MenuChange, type ParsedInput } from '#lambdas/webhooks/publish';
import type { Operation, Order, ProducerDeps } from './operation.js';

/**
 * The POS sync's menus (docs/decisions/producers.md, "Menus"): a rebuild (the menu whole), a stock overlay (only
 * the changed items' availability and their sizes' prices and availability, applied to the stored menu) and a
 * reconciliation report (what `sourceHealth` is derived from, contract 2.11 rule 3). Each becomes the next menu
 * through the same code as a publish (writeMenuChange): revision, ETag and `bevq.menu.updated` follow the content,
 * so a patch publishes exactly what the patched menu published whole would.
 */

/** A rebuild carries the sections only: the source health moves on reconciliation reports alone. */
const rebuildData = v.strictObject({ sections: v.unknown() });

/** An item's or a size's id, by the menu's own rule. */
const menuId = menuItem.entries.id;

const stockData = v.strictObject({
  items: v.pipe(
    v.array(
      v.strictObject({
        id: menuId,
        available: v.optional(v.boolean()),
        sizes: v.optional(
          v.pipe(
            v.array(v.strictObject({ id: menuId, price: v.optional(nonNegativeMoney), available: v.optional(v.boolean()) })),
            v.maxLength(20),
          ),
        ),
      }),
    ),
    v.minLength(1),
    v.maxLength(1000),
  ),
});
type StockPatch = v.InferOutput<typeof stockData>;

const reportData = v.strictObject({ result: v.picklist(['succeeded', 'failed']) });

/** -1, 0 or 1 as `a` comes before, with, or after `b` in the source's order; no order at all comes first. */
const compare = (a: SourceOrder, b: SourceOrder | null | undefined) =>
  !b ? 1 : Math.sign(a.sourceMs - b.sourceMs || a.sequence - b.sequence);
const later = (a: SourceOrder | null | undefined, b: SourceOrder | null | undefined) => (!a || (b && compare(b, a) > 0) ? b : a);
const orderOnly = ({ sourceMs, sequence }: Order): SourceOrder => ({ sourceMs, sequence });

/**
 * The stored menu as the input that publishes it again, with its source health as reported: it was validated when
 * it was built, and a published section is an input section (the fields the build adds are ones the input allows).
 */
function inputOf(stored: StoredMenu, health = healthOf(stored)): ParsedInput {
  return { sections: stored.menu.sections, sourceHealth: health };
}
const healthOf = (stored: StoredMenu | null) => ({
  lastPosSyncAt: stored?.menu.sourceHealth.lastPosSyncAt ?? null,
  lastPosFailureAt: stored?.lastPosFailureAt ?? null,
});

type Item = ParsedInput['sections'][number]['items'][number];
/** What a stock patch may change of an item, as `from` has it, carried onto `to` (sizes matched by id). */
function carryStock(to: Item, from: Item): Item {
  const sizes = new Map(from.sizes.map((s) => [s.id, s]));
  return {
    ...to,
    available: from.available,
    sizes: to.sizes.map((s) => {
      const was = sizes.get(s.id);
      return was ? { ...s, price: was.price, available: was.available } : s;
    }),
  };
}

/** Each item of the menu, by id, however many sections list it. */
const mapItems = (input: ParsedInput, f: (item: Item) => Item): ParsedInput => ({
  ...input,
  sections: input.sections.map((section) => ({ ...section, items: section.items.map(f) })),
});

/**
 * A rebuild, newer than the last one: the menu whole, but an item patched later than it keeps its patched stock
 * (the newest observation of each item wins).
 */
function rebuild(sections: ParsedInput['sections'], order: SourceOrder) {
  return (previous: StoredMenu | null): MenuChange => {
    const input: ParsedInput = { sections, sourceHealth: healthOf(previous) };
    if (!previous) return { input, order: { order, itemOrders: {} }, advanced: true };
    const standing = orderOf(previous);
    const step = compare(order, standing.order);
    if (step <= 0) return { outcome: step === 0 ? 'duplicate' : 'stale' };
    const newer = Object.fromEntries(Object.entries(standing.itemOrders).filter(([, o]) => compare(o, order) > 0));
    const stored = new Map(inputOf(previous).sections.flatMap((s) => s.items.map((i) => [i.id, i] as const)));
    const kept = mapItems(input, (item) => (newer[item.id] && stored.has(item.id) ? carryStock(item, stored.get(item.id)!) : item));
    return { input: kept, order: { order, itemOrders: newer }, advanced: true };
  };
}

/** A stock patch: each item it names, if the patch is newer than that item's last rebuild or patch. */
function patch(changes: StockPatch, order: SourceOrder) {
  return (previous: StoredMenu | null): MenuChange => {
    if (!previous) throw new AdminNotFoundError('no menu is published at this location: its first rebuild comes before any patch');
    if (new Set(changes.items.map((c) => c.id)).size !== changes.items.length) throw new AdminInputError('items: an item id repeats');
    const standing = orderOf(previous);
    const input = inputOf(previous);
    const items = new Map(input.sections.flatMap((s) => s.items.map((i) => [i.id, i] as const)));
    const steps = changes.items.map((change, i) => {
      const item = items.get(change.id);
      if (!item) throw new AdminInputError(`items.${i}.id: ${change.id} is not an item of the menu`);
      const unknown = (change.sizes ?? []).filter((s) => !item.sizes.some((size) => size.id === s.id)).map((s) => s.id);
      if (unknown.length) throw new AdminInputError(`items.${i}.sizes: ${unknown.join(', ')} not sizes of item ${change.id}`);
      return compare(order, later(standing.order, standing.itemOrders[change.id]));
    });
    const applying = new Map(changes.items.filter((_, i) => steps[i]! > 0).map((c) => [c.id, c]));
    if (applying.size === 0) return { outcome: steps.every((s) => s === 0) ? 'duplicate' : 'stale' };
    const patched = mapItems(input, (item) => {
      const change = applying.get(item.id);
      if (!change) return item;
      const sizes = new Map((change.sizes ?? []).map((s) => [s.id, s]));
      return {
        ...item,
        available: change.available ?? item.available,
        sizes: item.sizes.map((s) => ({
          ...s,
          price: sizes.get(s.id)?.price ?? s.price,
          available: sizes.get(s.id)?.available ?? s.available,
        })),
      };
    });
    const itemOrders = { ...standing.itemOrders, ...Object.fromEntries([...applying.keys()].map((id) => [id, order])) };
    return { input: patched, order: { ...standing, itemOrders }, advanced: true };
  };
}

/**
 * A reconciliation report: the newest success is `lastPosSyncAt`, the newest failure what makes `pos` stale
 * (2.11 rule 3). Its order is its source time alone: two reports of one result at one time are the same report.
 */
function report(result: 'succeeded' | 'failed', sourceMs: number) {
  return (previous: StoredMenu | null): MenuChange => {
    if (!previous) throw new AdminNotFoundError('no menu is published at this location: its first rebuild comes before any report');
    const health = healthOf(previous);
    const field = result === 'succeeded' ? 'lastPosSyncAt' : 'lastPosFailureAt';
    const at = health[field];
    const step = at === null ? 1 : Math.sign(sourceMs - Date.parse(at));
    if (step <= 0) return { outcome: step === 0 ? 'duplicate' : 'stale' };
    return { input: inputOf(previous, { ...health, [field]: new Date(sourceMs).toISOString() }), order: orderOf(previous), advanced: true };
  };
}

/**
 * Writes the change, then wakes the dispatcher for a new revision's first page. Should that wake-up be lost, the
 * event waits in the outbox and the sweeper dispatches it: the update is acknowledged either way.
 */
async function publish(deps: ProducerDeps, params: Record<string, string>, change: (previous: StoredMenu | null) => MenuChange) {
  const { event, outcome } = await writeMenuChange(deps, { groupId: params.groupId!, locationId: params.locationId! }, change);
  if (event) {
    try {
      await enqueueDispatch(deps, event.eventId, null);
    } catch (err) {
      deps.logger.error('menu event wake-up failed; the sweeper dispatches it', { eventId: event.eventId, error: (err as Error).name });
    }
  }
  return outcome;
}

/** The POS sync's menu routes. */
export const MENU_OPERATIONS = {
  putMenu: async (deps, params, data, order) => {
    const { sections } = parseMenu({ sections: parseInput(rebuildData, data).sections, sourceHealth: { lastPosSyncAt: null } });
    const outcome = await publish(deps, params, rebuild(sections, orderOnly(order)));
    return { outcome, records: sections.reduce((n, s) => n + s.items.length, 0) };
  },
  patchMenuStock: async (deps, params, data, order) => {
    const changes = parseInput(stockData, data);
    return { outcome: await publish(deps, params, patch(changes, orderOnly(order))), records: changes.items.length };
  },
  putMenuReconciliation: async (deps, params, data, order) => {
    const { result } = parseInput(reportData, data);
    return { outcome: await publish(deps, params, report(result, order.sourceMs)), records: 1 };
  },
} satisfies Record<string, Operation>;
