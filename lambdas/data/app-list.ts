import { appKeys, toApp, type App } from './apps.js';
import { queryPage, type Db, itemOf, readItems, putItem } from './store.js';
import { everyGroupPage, groupPage, type WalkKey } from './group-index.js';

/**
 * Legacy bearer applications, one marker each under one partition, oldest first: written only when such an
 * application is created (rare, and never by a request), read by the legacy report a page at a time.
 */
const legacyAppKeys = {
  marker: (app: Pick<App, 'clientId' | 'createdAt'>) => ({ PK: 'LEGACY_APPS', SK: `${app.createdAt}#${app.clientId}` }),
};

/** Listing applications: the admin's alone, so the index walker stays out of the functions that only authorize. */
export function appListRepo(db: Db) {
  return {
    /** A page of applications, oldest first within a group, of one group or of every group in turn (a page may hold fewer than `limit` and still have a next). */
    async page({ groupId, limit, startKey }: { groupId?: string; limit: number; startKey?: WalkKey }) {
      const { items, lastKey } = groupId
        ? await groupPage(db, appKeys.index, groupId, {}, limit, startKey)
        : await everyGroupPage(db, appKeys.index, {}, limit, startKey);
      return { items: items.map(toApp), ...(lastKey ? { lastKey } : {}) };
    },
    /** Lists a legacy bearer application in the legacy report; written before the application itself. */
    async markLegacy(app: App): Promise<void> {
      await putItem(db, { Item: { ...legacyAppKeys.marker(app), clientId: app.clientId } });
    },
    /** A page of legacy bearer applications, oldest first: one Query for the markers, one BatchGetItem for the applications. */
    async legacyPage({ limit, startKey }: { limit: number; startKey?: Record<string, unknown> }) {
      const { items, lastKey } = await queryPage(
        db,
        { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'LEGACY_APPS' } },
        limit,
        startKey,
      );
      const keys = items.map((m) => appKeys.app(String(m.clientId)));
      const found = await readItems(db, keys, false);
      // A marker whose application was never written (a creation cut short) lists nothing.
      const apps = keys
        .map((k) => itemOf(found, k))
        .filter((item) => item !== null)
        .map(toApp);
      return { items: apps, ...(lastKey ? { lastKey } : {}) };
    },
  };
}
