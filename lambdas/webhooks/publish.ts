import * as v from 'valibot';
import { sha256Hex } from '#domain/crypto';
import { strongEtag } from '#domain/etag';
import { menuInput, type MenuData, type MenuSection, type PosHealth } from '#contract/schemas/bevq';
import { headOf, MenuConflictError, type StoredMenu } from '#data/menus';
import { StorageLimitError } from '#data/limits';
import type { SourceOrder } from '#data/store';
import type { MessagingDeps } from './deps.js';
import { MENU_UPDATED } from './events.js';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id } from '#contract/schemas/common';
import { dispatchMenuEvent } from './fan-out.js';
import { menuEventId, newEvent } from './messages.js';

/**
 * A menu publish, the journey's first half: the admin API (and CLI) and the POS sync's producer routes validate a
 * rebuilt menu, build the published one, record its event in the outbox, write it, and hand the event to the
 * fan-out (fan-out.ts). Only this module validates menus.
 */

/** A rebuilt menu for one location, as an operator publishes it (the admin API and CLI). */
export type PublishRequest = { groupId: string; locationId: string; menu: unknown };

const target = v.object({ groupId: id, locationId: id });

/**
 * First half of publishing a menu given whole: validate, then write it (writeMenuChange). Its place in a producer's
 * order stays as it was: an operator's publish replaces the content, and the producer's next update in order
 * replaces it in turn.
 */
export async function writeMenu(deps: MessagingDeps, request: PublishRequest) {
  const where = parseInput(target, request);
  const input = parseMenu(request.menu);
  return writeMenuChange(deps, where, (previous) => ({ input, order: previous ? orderOf(previous) : NO_ORDER }));
}

/** A menu given whole, validated: its shape, then what the shape cannot say. */
export function parseMenu(menu: unknown): ParsedInput {
  const input = parseInput(menuInput, menu);
  const problems = contentProblems(input);
  if (problems.length) throw new AdminInputError(problems.join('; '));
  return input;
}

/** A stored menu's place in its producer's order (docs/decisions/producers.md, "Menus"). */
export type MenuOrder = { order: SourceOrder | null; itemOrders: Record<string, SourceOrder> };
const NO_ORDER: MenuOrder = { order: null, itemOrders: {} };
export const orderOf = (stored: StoredMenu): MenuOrder => ({ order: stored.order ?? null, itemOrders: stored.itemOrders ?? {} });

/**
 * What a writer makes of the stored menu (null: none yet): the next menu's input and its order, or, when the
 * update is not newer than what is stored, its outcome. `advanced`: the order moved, so the menu is written even if
 * nothing a reader sees changed (a later, older update must find the newer order).
 */
export type MenuChange = { input: ParsedInput; order: MenuOrder; advanced?: boolean } | { outcome: 'duplicate' | 'stale' };

/**
 * Record the new revision's event in the outbox, then write the menu (docs/decisions/webhooks.md, "Outbox").
 * `change` is asked again on the menu another writer stored meanwhile, so it decides on what it replaces.
 * Nothing is written when it says so or when nothing a reader sees, nor its order, has changed. A menu is one item:
 * the store refuses one larger than DynamoDB's 400 KB, measured in UTF-8 bytes as built (StorageLimitError, 413;
 * see docs/decisions/item-sizes.md).
 */
export async function writeMenuChange(
  deps: Pick<MessagingDeps, 'clock'> & { store: Pick<MessagingDeps['store'], 'locations' | 'menus' | 'outbox'> },
  { groupId, locationId }: { groupId: string; locationId: string },
  change: (previous: StoredMenu | null) => MenuChange,
) {
  if (!(await deps.store.locations.get(groupId, locationId))) {
    throw new AdminNotFoundError(`location ${groupId}/${locationId} does not exist`);
  }
  for (let tries = 0; ; tries++) {
    const previous = await deps.store.menus.get(groupId, locationId);
    const next = change(previous);
    if ('outcome' in next) return { stored: previous!, written: false, event: null, outcome: next.outcome };
    const now = deps.clock.now();
    const built = buildMenu(next.input, previous?.menu ?? null, now);
    if (previous && !built.changed && !next.advanced)
      return { stored: previous, written: false, event: null, outcome: 'duplicate' as const };
    const event = built.newRevision ? newEvent(MENU_UPDATED, { groupId, locationId, revision: built.menu.revision }, now) : null;
    const stored: StoredMenu = {
      groupId,
      locationId,
      menu: built.menu,
      etag: built.etag,
      seq: (previous?.seq ?? 0) + 1,
      lastPosFailureAt: next.input.sourceHealth.lastPosFailureAt ?? null,
      ...next.order,
    };
    // The entry before the body it announces: should the body never land, the sweeper finds the menu without it and drops the entry.
    if (event) await deps.store.outbox.add(event);
    // The body about to be replaced was written, so its revision's event, if still in the outbox, is confirmed before
    // the replacement (the sweeper could no longer see that body).
    if (previous) await deps.store.outbox.confirm(menuEventId(groupId, locationId, previous.menu.revision));
    try {
      await deps.store.menus.put(stored, previous?.seq ?? null);
      // After the body: a head never names a revision before its body is written. Should this be lost, the sweeper writes it.
      await deps.store.menus.putHead(headOf(stored));
      return { stored, written: true, event, outcome: 'applied' as const };
    } catch (err) {
      // Refused before it was sent (too large for an item): this body never lands, so its entry goes now. After
      // any other failure the write may still have landed: the sweeper decides.
      if (err instanceof StorageLimitError && event) await deps.store.outbox.dropUnconfirmed(event.eventId);
      if (!(err instanceof MenuConflictError)) throw err;
      if (tries >= 3) throw new AdminConflictError(`the menu of ${groupId}/${locationId} keeps changing concurrently; publish again`);
    }
  }
}

/**
 * Write, then fan out the new revision's event; a failed fan-out stays in the outbox for the sweeper. `written`: the
 * menu differs from what readers saw (revision or source health) and was written; `eventId`: the `bevq.menu.updated`
 * event of a new revision, else null; `deliveries`: those queued now (the sweeper queues any left pending).
 */
export async function publishMenu(deps: MessagingDeps, request: PublishRequest) {
  const { stored, written, event } = await writeMenu(deps, request);
  const deliveries = event ? await dispatchMenuEvent(deps, event) : 0;
  return { menu: stored.menu, written, newRevision: event !== null, eventId: event?.eventId ?? null, deliveries };
}

/** The published menu as ops see it (CLI --json and the admin API): its revision and what happened, not the whole menu. */
export function publishDocument({ menu, ...rest }: Awaited<ReturnType<typeof publishMenu>>) {
  return { revision: menu.revision, ...rest };
}

// The build: a rebuilt menu becomes the published one (configured order, computed counts, timestamps and
// revision). Pure; writeMenu persists.

/** JSON with object keys sorted at every level, so equal content always hashes equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const hash = (value: unknown) => sha256Hex(canonicalJson(value));

/** Contract 2.11 rule 3: not an age threshold, only the order of success and failure. */
export function posHealth(lastSyncAt: string | null, lastFailureAt: string | null | undefined): PosHealth {
  if (!lastSyncAt) return 'unknown';
  if (lastFailureAt && Date.parse(lastFailureAt) > Date.parse(lastSyncAt)) return 'stale';
  return 'current';
}

export type ParsedInput = v.InferOutput<typeof menuInput>;

/** By the configured sortOrder; equal values keep the given order (the sort is stable). */
const bySortOrder = <T extends { sortOrder: number }>(rows: readonly T[]) => rows.toSorted((a, b) => a.sortOrder - b.sortOrder);

/** The externally published content: what the revision is a hash of (no timestamps, counts or POS health). */
function publishedContent(input: ParsedInput) {
  return bySortOrder(input.sections).map((section) => {
    const { itemCount: _c, updatedAt: _u, items, ...fields } = section;
    return {
      ...fields,
      items: bySortOrder(items).map(({ updatedAt: _iu, ...item }) => ({ ...item, sectionId: section.id })),
    };
  });
}

/** Problems a schema cannot express: duplicate ids, items claiming another section. */
function contentProblems(input: ParsedInput): string[] {
  const problems: string[] = [];
  const sectionIds = new Set<string>();
  for (const section of input.sections) {
    if (sectionIds.has(section.id)) problems.push(`section ${section.id} appears twice`);
    sectionIds.add(section.id);
    const itemIds = new Set<string>();
    for (const item of section.items) {
      if (itemIds.has(item.id)) problems.push(`item ${item.id} appears twice in section ${section.id}`);
      itemIds.add(item.id);
      if (item.sectionId !== undefined && item.sectionId !== section.id) {
        problems.push(`item ${item.id} says sectionId ${item.sectionId} but is in section ${section.id}`);
      }
      const sizeIds = new Set(item.sizes.map((s) => s.id));
      if (sizeIds.size !== item.sizes.length) problems.push(`item ${item.id} repeats a size id`);
    }
  }
  return problems;
}

/**
 * The published menu and its validator; `newRevision`: a new published revision (it emits `bevq.menu.updated`);
 * `changed`: anything a reader sees differs (revision or source health), so the item must be rewritten.
 */
export function buildMenu(input: ParsedInput, previous: MenuData | null, now: number) {
  const at = new Date(now).toISOString();
  const content = publishedContent(input);
  const revision = hash(content).slice(0, 32);
  const newRevision = previous?.revision !== revision;

  const previousSections = new Map((previous?.sections ?? []).map((s) => [s.id, s]));
  const sections: MenuSection[] = content.map(({ items, ...fields }) => {
    const before = previousSections.get(fields.id);
    const beforeItems = new Map((before?.items ?? []).map((i) => [i.id, i]));
    const built = items.map((item) => {
      const old = beforeItems.get(item.id);
      const same = old && hash({ ...old, updatedAt: undefined }) === hash(item);
      return { ...item, updatedAt: same ? old.updatedAt : at };
    });
    const sectionSame =
      before &&
      hash({ ...before, items: undefined, itemCount: undefined, updatedAt: undefined }) === hash(fields) &&
      before.items.length === built.length &&
      built.every((item, i) => item.updatedAt === before.items[i]!.updatedAt && item.id === before.items[i]!.id);
    return { ...fields, itemCount: built.length, updatedAt: sectionSame ? before.updatedAt : at, items: built };
  });

  const { lastPosSyncAt, lastPosFailureAt } = input.sourceHealth;
  const sourceHealth = { pos: posHealth(lastPosSyncAt, lastPosFailureAt), lastPosSyncAt };
  const menu: MenuData = {
    updatedAt: newRevision || !previous ? at : previous.updatedAt,
    revision,
    sourceHealth,
    sectionCount: sections.length,
    itemCount: sections.reduce((n, s) => n + s.items.length, 0),
    sections,
  };
  // The validator covers the revision and the source health, the two things a re-read can reveal.
  const etag = strongEtag(`${revision}-${hash(sourceHealth).slice(0, 8)}`);
  const changed = newRevision || hash(previous?.sourceHealth) !== hash(sourceHealth);
  return { menu, etag, newRevision, changed };
}
