import type { CustomerApiClient } from './client.js';
import type { components } from './schema.js';

export type Menu = components['schemas']['MenuData'];

/** A location's local copy: the menu with the validator and revision it came with. */
export interface MenuCopy {
  etag: string;
  revision: string;
  menu: Menu;
}

/** Where the copies live (a table, a file, a cache); `memoryMenuStore` for tests and single processes. */
export interface MenuStore {
  get(groupId: string, locationId: string): Promise<MenuCopy | undefined>;
  put(groupId: string, locationId: string, copy: MenuCopy): Promise<void>;
}

export function memoryMenuStore(): MenuStore {
  const copies = new Map<string, MenuCopy>();
  return {
    get: async (groupId, locationId) => copies.get(`${groupId}/${locationId}`),
    put: async (groupId, locationId, copy) => void copies.set(`${groupId}/${locationId}`, copy),
  };
}

export type SyncResult = { changed: boolean; copy: MenuCopy };

/**
 * Contract 6.4 receiver rule 6: read the menu with the stored ETag in `If-None-Match`; a 200 replaces the copy and
 * stores its ETag and revision, a 304 keeps it. The same call serves the scheduled reconciliation.
 */
export async function syncMenu(client: CustomerApiClient, groupId: string, locationId: string, store: MenuStore): Promise<SyncResult> {
  const stored = await store.get(groupId, locationId);
  const { data, response } = await client.api.GET('/v1/{group_id}/{location_id}/bevq/menu', {
    params: { path: { group_id: groupId, location_id: locationId }, header: stored ? { 'If-None-Match': stored.etag } : {} },
  });
  if (response.status === 304 && stored) return { changed: false, copy: stored };
  if (!data) throw new Error(`bevq/menu answered ${response.status} without a menu`);
  const copy = { etag: response.headers.get('etag') ?? '', revision: data.data.menu.revision, menu: data.data.menu };
  await store.put(groupId, locationId, copy);
  return { changed: true, copy };
}

/**
 * The scheduled fallback of rule 6: every location of the group that the token reaches and that has a published
 * menu, page by page, synced one after another (an unchanged menu costs one 304 against the rate limit).
 */
export async function reconcileMenus(
  client: CustomerApiClient,
  groupId: string,
  store: MenuStore,
): Promise<{ locationId: string; changed: boolean }[]> {
  const results: { locationId: string; changed: boolean }[] = [];
  let cursor: string | undefined;
  do {
    const { data } = await client.api.GET('/v1/{group_id}/bevq', {
      params: { path: { group_id: groupId }, query: cursor ? { cursor } : {} },
    });
    for (const location of data!.data.locations) {
      if (!location.bevqEnabled || !location.menu.available) continue;
      const { changed } = await syncMenu(client, groupId, location.id, store);
      results.push({ locationId: location.id, changed });
    }
    cursor = data!.data.nextCursor;
  } while (cursor);
  return results;
}
