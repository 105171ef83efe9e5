import middy from '@middy/core';
import * as v from 'valibot';
import { sha256Hex } from '#domain/crypto';
import { strongEtag } from '#domain/etag';
import { menuInput, type MenuData, type MenuSection, type PosHealth } from '#contract/schemas/bevq';
import { headOf, MenuConflictError, type StoredMenu } from '#data/menus';
import { StorageLimitError } from '#data/limits';
import type { MessagingDeps } from './deps.js';
import { count, observability } from '#platform/observability';
import { MENU_UPDATED } from './events.js';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id } from '#contract/schemas/common';
import { dispatchMenuEvent } from './fan-out.js';
import { menuEventId, newEvent } from './messages.js';

/**
 * A menu publish, the journey's first half: the dispatcher function (and the CLI and admin API) validate a
 * rebuilt menu, build the published one, record its event in the outbox, write it, and hand the event to the
 * fan-out (fan-out.ts). Only this module validates menus, so only the dispatcher's bundle carries the menu schema.
 */

/** A rebuilt menu for one location, as the platform publishes it (admin CLI and the ingest function). */
export type PublishRequest = { groupId: string; locationId: string; menu: unknown };

const target = v.object({ groupId: id, locationId: id });

/**
 * First half of publishing: validate, build, record the new revision's event
 * in the outbox, then write the menu (docs/decisions/webhooks.md, "Outbox").
 * Nothing is written when the input is refused or when nothing a reader sees
 * has changed. A menu is one item: the store refuses one larger than DynamoDB's 400 KB, measured in
 * UTF-8 bytes as built (StorageLimitError, 413; see docs/decisions/item-sizes.md).
 */
export async function writeMenu(deps: MessagingDeps, request: PublishRequest) {
  const { groupId, locationId } = parseInput(target, request);
  const input = parseInput(menuInput, request.menu);
  const problems = contentProblems(input);
  if (problems.length) throw new AdminInputError(problems.join('; '));
  if (!(await deps.store.locations.get(groupId, locationId))) {
    throw new AdminNotFoundError(`location ${groupId}/${locationId} does not exist`);
  }
  for (let tries = 0; ; tries++) {
    const previous = await deps.store.menus.get(groupId, locationId);
    const now = deps.clock.now();
    const built = buildMenu(input, previous?.menu ?? null, now);
    if (previous && !built.changed) return { stored: previous, written: false, event: null };
    const event = built.newRevision ? newEvent(MENU_UPDATED, { groupId, locationId, revision: built.menu.revision }, now) : null;
    const stored: StoredMenu = { groupId, locationId, menu: built.menu, etag: built.etag, seq: (previous?.seq ?? 0) + 1 };
    // The entry before the body it announces: should the body never land, the sweeper finds the menu without it and drops the entry.
    if (event) await deps.store.outbox.add(event);
    // The body about to be replaced was written, so its revision's event, if still in the outbox, is confirmed before
    // the replacement (the sweeper could no longer see that body).
    if (previous) await deps.store.outbox.confirm(menuEventId(groupId, locationId, previous.menu.revision));
    try {
      await deps.store.menus.put(stored, previous?.etag ?? null);
      // After the body: a head never names a revision before its body is written. Should this be lost, the sweeper writes it.
      await deps.store.menus.putHead(headOf(stored));
      return { stored, written: true, event };
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

/** The ingest path the menu platform invokes with a rebuilt menu: write, then fan out. */
export function createDispatcher(deps: MessagingDeps) {
  return middy<PublishRequest, { revision: string; newRevision: boolean; eventId: string | null }>()
    .use(observability(deps))
    .handler(async (event) => {
      const result = await publishMenu(deps, event);
      count(deps, 'DeliveriesQueued', result.deliveries);
      return { revision: result.menu.revision, newRevision: result.newRevision, eventId: result.eventId };
    });
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

type ParsedInput = v.InferOutput<typeof menuInput>;

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
