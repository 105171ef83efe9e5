import { headOf, type MenuHead } from '#data/menus';
import { outboxKeys } from '#lambdas/webhooks/outbox';
import type { AdminDeps } from './deps.js';
import { requireGroup } from './apps.js';
import { adminPage, type PageQuery } from '#platform/admin-paging';
import { AdminNotFoundError } from '#domain/inputs';

/** Outbox entries one listing reads per shard: the oldest waiting events, a bounded read however many wait. */
const PENDING_PER_SHARD = 25;

/**
 * A page of a group's locations with their menus as published (revision,
 * last publish, counts, `sourceHealth`, from the menu heads; a menu without
 * a head yet from its body) and the events still waiting in the outbox.
 */
export async function listMenus(deps: AdminDeps, { groupId, ...query }: { groupId: string } & PageQuery) {
  await requireGroup(deps.store, groupId);
  const { items, nextCursor } = await adminPage<MenuRow, { after: string }>(
    deps,
    { r: 'menus', g: groupId },
    query,
    async (limit, start) => {
      const page = await deps.store.locations.page(groupId, { limit, ...(start ? { after: start.after } : {}) });
      const ids = page.locations.map((l) => l.id);
      const heads = await deps.store.menus.headsOfPage(groupId, ids);
      const missing = ids.filter((id) => !heads.has(id));
      const bodies = new Map(
        (await deps.store.menus.getMany(groupId, missing)).flatMap((m) => (m ? [[m.locationId, headOf(m)] as const] : [])),
      );
      const pending = await pendingByLocation(deps, groupId);
      const rows = page.locations.map((l) => rowOf(l.id, l.name, heads.get(l.id) ?? bodies.get(l.id) ?? null, pending.get(l.id) ?? 0));
      return { items: rows, ...(page.next !== null ? { lastKey: { after: page.next } } : {}) };
    },
  );
  return { menus: items, ...(nextCursor ? { nextCursor } : {}) };
}

/** A location's published menu (the API's data.menu), a file publishMenu takes back: its computed fields are ignored there. */
export async function showMenu(deps: AdminDeps, groupId: string, locationId: string) {
  const stored = await deps.store.menus.get(groupId, locationId);
  if (!stored) throw new AdminNotFoundError(`no menu is published for ${groupId}/${locationId}`);
  return stored.menu;
}

type MenuRow = ReturnType<typeof rowOf>;

function rowOf(locationId: string, name: string, head: MenuHead | null, pendingEvents: number) {
  return {
    locationId,
    name,
    published: head !== null,
    revision: head?.revision ?? null,
    updatedAt: head?.updatedAt ?? null,
    sectionCount: head?.sectionCount ?? 0,
    itemCount: head?.itemCount ?? 0,
    sourceHealth: head?.sourceHealth ?? null,
    pendingEvents,
  };
}

/** The group's events waiting in the outbox, by location (the oldest of each shard). */
async function pendingByLocation(deps: AdminDeps, groupId: string): Promise<Map<string, number>> {
  const now = new Date(deps.clock.now()).toISOString();
  const pages = await Promise.all(outboxKeys.shards().map((shard) => deps.store.outbox.due(shard, now, PENDING_PER_SHARD)));
  const counts = new Map<string, number>();
  for (const { entries } of pages)
    for (const e of entries) if (e.groupId === groupId) counts.set(e.locationId, (counts.get(e.locationId) ?? 0) + 1);
  return counts;
}
