import { appKeys, toApp, type App } from './apps.js';
import type { Db } from './db.js';
import { everyGroupPage, groupPage, type WalkKey } from './group-index.js';

/** Listing applications: the admin's alone, so the index walker stays out of the functions that only authorize. */
export type AppListRepo = {
  /** A page of applications, oldest first within a group, of one group or of every group in turn (a page may hold fewer than `limit` and still have a next). */
  page(request: { groupId?: string; limit: number; startKey?: WalkKey }): Promise<{ apps: App[]; lastKey?: WalkKey }>;
};

export function appListRepo(db: Db): AppListRepo {
  return {
    async page({ groupId, limit, startKey }) {
      const { items, lastKey } = groupId
        ? await groupPage(db, appKeys.index, groupId, { legacy: { filter: { expression: 'groupId = :g', values: { ':g': groupId } } } }, limit, startKey)
        : await everyGroupPage(db, appKeys.index, {}, limit, startKey);
      return { apps: items.map(toApp), ...(lastKey ? { lastKey } : {}) };
    },
  };
}
