import { buildMenu, contentProblems } from './menu-build.js';
import type { StoredMenu } from '#data/menus';
import { headOf, MenuConflictError } from '#data/menus';
import { StorageLimitError } from '#data/item-limits';
import type { MenuEvent } from '#data/outbox';
import middy from '@middy/core';
import type { MessagingDeps } from '#platform/deps';
import { count, observability } from '#platform/observability';
import { menuInput, type MenuData } from '#contract/schemas/bevq';
import { MENU_UPDATED } from '#contract/webhook-events';
import { dispatchMenuEvent } from './fan-out.js';
import { menuEventId } from './messages.js';
import { AdminConflictError, AdminInputError, AdminNotFoundError, parseInput } from '#domain/inputs';
import { id } from '#contract/schemas/common';
import * as v from 'valibot';

/** A rebuilt menu for one location, as the platform publishes it (admin CLI and the ingest function). */
export type PublishRequest = { groupId: string; locationId: string; menu: unknown };

export type PublishResult = {
  menu: MenuData;
  /** The menu differs from what readers saw (revision or source health) and was written. */
  written: boolean;
  newRevision: boolean;
  /** The `bevq.menu.updated` event of a new revision, else null. */
  eventId: string | null;
  /** Deliveries queued now (the sweeper queues any left pending). */
  deliveries: number;
};

const target = v.object({ groupId: id, locationId: id });

/**
 * First half of publishing: validate, build, record the new revision's event
 * in the outbox, then write the menu (docs/decisions/webhooks.md, "Outbox").
 * Nothing is written when the input is refused or when nothing a reader sees
 * has changed. A menu is one item: the store refuses one larger than DynamoDB's 400 KB, measured in
 * UTF-8 bytes as built (StorageLimitError, 413; see docs/decisions/item-sizes.md).
 */
export async function writeMenu(
  deps: MessagingDeps,
  request: PublishRequest,
): Promise<{ stored: StoredMenu; written: boolean; event: MenuEvent | null }> {
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
    const event: MenuEvent | null = built.newRevision
      ? {
          eventId: menuEventId(groupId, locationId, built.menu.revision),
          eventType: MENU_UPDATED,
          occurredAt: new Date(now).toISOString(),
          groupId,
          locationId,
          revision: built.menu.revision,
        }
      : null;
    const stored: StoredMenu = { groupId, locationId, menu: built.menu, etag: built.etag, seq: (previous?.seq ?? 0) + 1 };
    // The entry before the body it announces: should the body never land, the sweeper finds the menu without it and drops the entry.
    if (event) await deps.store.outbox.add(event);
    if (previous) await keepEventsOf(deps, previous);
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
 * The body about to be replaced was written, so its revision's event, if still
 * in the outbox, is confirmed before the replacement (the sweeper could no
 * longer see that body).
 */
async function keepEventsOf(deps: MessagingDeps, previous: StoredMenu): Promise<void> {
  await deps.store.outbox.confirm(menuEventId(previous.groupId, previous.locationId, previous.menu.revision));
}

/** Write, then fan out the new revision's event; a failed fan-out stays in the outbox for the sweeper. */
export async function publishMenu(deps: MessagingDeps, request: PublishRequest): Promise<PublishResult> {
  const { stored, written, event } = await writeMenu(deps, request);
  const deliveries = event ? await dispatchMenuEvent(deps, event) : 0;
  return { menu: stored.menu, written, newRevision: event !== null, eventId: event?.eventId ?? null, deliveries };
}

/** The published menu as ops see it (CLI --json and the admin API): its revision and what happened, not the whole menu. */
export function publishDocument({ menu, ...rest }: PublishResult) {
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
