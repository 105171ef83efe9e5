import { GROUP_INDEXED, type GroupIndexed } from '#data/group-index-backfill';
import { headOf } from '#data/menus';
import type { MessagingDeps } from '#platform/messaging-deps';
import { moveLegacyEvents } from '#lambdas/webhooks/fan-out';

/** Locations read per step: one Query page of locations, then their menus in BatchGetItems of 100. */
const STEP = 500;

/**
 * The one-off step that moves a stage to menu heads (docs/decisions/menu-head.md):
 * a head for every published menu that has none or an older one. Until it
 * has run, reads answer from the body where a head is missing, so nothing a
 * client sees depends on it; it only makes those reads cheap. Safe to repeat
 * and to run beside publishing (a head is replaced only by a later one).
 */
export async function backfillMenuHeads(deps: MessagingDeps): Promise<{ groups: number; menus: number }> {
  let menus = 0;
  const groups = await deps.store.groups.list();
  for (const { groupId } of groups) {
    let after: string | undefined;
    do {
      const page = await deps.store.locations.page(groupId, { limit: STEP, ...(after !== undefined ? { after } : {}) });
      const bodies = await deps.store.menus.getMany(groupId, page.locations.map((l) => l.id));
      for (const body of bodies) {
        if (!body) continue;
        await deps.store.menus.putHead(headOf(body));
        menus++;
      }
      after = page.next ?? undefined;
    } while (after !== undefined);
  }
  await deps.store.menus.markHeadsComplete(new Date(deps.clock.now()).toISOString());
  return { groups: groups.length, menus };
}

/**
 * The one-off step that moves a stage to outbox items (docs/decisions/webhooks.md,
 * "Outbox"): every event a menu item of the earlier shape still holds moves
 * to the outbox, then the move is marked complete and nothing looks for such
 * events again. Until then the sweeper moves a page a run, so no event waits
 * on this; safe to repeat and to run beside publishing.
 */
export async function backfillOutbox(deps: MessagingDeps): Promise<{ menus: number }> {
  let menus = 0;
  for (let moved = await moveLegacyEvents(deps, STEP); moved > 0; moved = await moveLegacyEvents(deps, STEP)) menus += moved;
  await deps.store.menus.markOutboxComplete(new Date(deps.clock.now()).toISOString());
  return { menus };
}

/**
 * The one-off step that moves a stage to per-group index partitions
 * (docs/decisions/group-index.md): applications, destinations and dead-letter
 * markers of the earlier shape leave their single partition for their
 * group's, then the move is marked complete. Until then every list also reads
 * the earlier partition, so nothing is missed meanwhile; safe to repeat and
 * to run beside traffic (each move is conditional on the item's partition).
 */
export async function backfillGroupIndex(deps: MessagingDeps): Promise<Record<GroupIndexed, number>> {
  const moved = { apps: 0, destinations: 0, deadLetters: 0 };
  for (const kind of GROUP_INDEXED) {
    for (let page = await deps.store.groupIndex.moveLegacy(kind, STEP); page.seen > 0; page = await deps.store.groupIndex.moveLegacy(kind, STEP)) moved[kind] += page.moved;
  }
  await deps.store.groupIndex.markComplete(new Date(deps.clock.now()).toISOString());
  return moved;
}

/**
 * The one-off step that moves a stage to campaign links (docs/decisions/campaigns.md):
 * every campaign's links are written, then the move is marked complete. Until
 * then the campaigns routes read a group's campaigns whole, as before, so
 * nothing a client sees depends on it. Safe to repeat and to run beside a load.
 */
export async function backfillCampaignLinks(deps: MessagingDeps): Promise<{ groups: number; campaigns: number }> {
  let campaigns = 0;
  const groups = await deps.store.groups.list();
  for (const { groupId } of groups) {
    for (const campaign of await deps.store.campaigns.list(groupId)) {
      await deps.store.campaigns.put(campaign);
      campaigns++;
    }
  }
  await deps.store.campaigns.markLinksComplete(new Date(deps.clock.now()).toISOString());
  return { groups: groups.length, campaigns };
}
