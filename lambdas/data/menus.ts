import type { MenuData } from '#contract/schemas/bevq';
import type { SourceOrder } from './store.js';
import { applied, getItem, groupPartition, type Db, itemOf, itemsOfPage, readItems, withoutKeys, putItem } from './store.js';

/** A location's published menu as the API returns it, and its validator. */
export type StoredMenu = {
  groupId: string;
  locationId: string;
  menu: MenuData;
  etag: string;
  /** Counts the menu's writes: a head is replaced only by a later one, a menu only by a writer that read the one before. */
  seq: number;
  /** The last failed POS reconciliation: with `menu.sourceHealth.lastPosSyncAt`, what `pos` is derived from (2.11 rule 3). */
  lastPosFailureAt?: string | null;
  /** The producer's last rebuild, in its source's order; null (or absent) when none was ordered. */
  order?: SourceOrder | null;
  /** Items patched since that rebuild, each in its patch's order: a stock patch is ordered per item. */
  itemOrders?: Record<string, SourceOrder>;
};

/**
 * What the summaries and a conditional read need of a menu, as a small item
 * beside it (docs/decisions/menu-head.md): a 304, a location's status and a
 * group's page read this, never the body (~1 read unit against up to ~88).
 */
export type MenuHead = Pick<StoredMenu, 'groupId' | 'locationId' | 'etag' | 'seq'> &
  Pick<MenuData, 'revision' | 'updatedAt' | 'sectionCount' | 'itemCount' | 'sourceHealth'>;

export const headOf = ({
  groupId,
  locationId,
  etag,
  seq,
  menu: { revision, updatedAt, sectionCount, itemCount, sourceHealth },
}: StoredMenu): MenuHead => ({
  groupId,
  locationId,
  etag,
  seq,
  revision,
  updatedAt,
  sectionCount,
  itemCount,
  sourceHealth,
});

/** A menu head's sort-key prefix; the location id follows. */
const HEAD = 'BEVQ_HEAD#';

export const menuKeys = {
  menu: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `BEVQ_MENU#${locationId}` }),
  head: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `${HEAD}${locationId}` }),
  prefix: 'BEVQ_MENU#',
};

/** Another writer published between our read and our write. */
export class MenuConflictError extends Error {}

/**
 * Menus are always read strongly consistently: a publisher conditions its
 * write on the version it read, and a webhook receiver re-reads the menu the
 * moment bevq.menu.updated arrives (contract 6.4) and must see that revision.
 */
export function menusRepo(db: Db) {
  return {
    async get(groupId: string, locationId: string): Promise<StoredMenu | null> {
      const item = await getItem(db, menuKeys.menu(groupId, locationId), true);
      return item ? withoutKeys<StoredMenu>(item) : null;
    },
    /** Several locations' menus in one round trip (strongly consistent), in the order asked. */
    async getMany(groupId: string, locationIds: readonly string[]): Promise<(StoredMenu | null)[]> {
      const keys = locationIds.map((id) => menuKeys.menu(groupId, id));
      const found = await readItems(db, keys);
      return keys.map((key) => {
        const item = itemOf(found, key);
        return item ? withoutKeys<StoredMenu>(item) : null;
      });
    },
    /** Written after its body; kept only if no later one is there (a slower writer never winds it back). */
    async putHead(head: MenuHead): Promise<void> {
      await applied(
        putItem(db, {
          Item: { ...menuKeys.head(head.groupId, head.locationId), ...head },
          ConditionExpression: 'attribute_not_exists(PK) OR seq < :seq',
          ExpressionAttributeValues: { ':seq': head.seq },
        }),
      );
    },
    async getHead(groupId: string, locationId: string): Promise<MenuHead | null> {
      const item = await getItem(db, menuKeys.head(groupId, locationId), true);
      return item ? withoutKeys<MenuHead>(item) : null;
    },
    /**
     * The heads of a page of locations (`locationIds` in id order), by location id: one Query over their range, whose
     * read units follow the heads' bytes, where a read of each would take a unit apiece.
     */
    async headsOfPage(groupId: string, locationIds: readonly string[]): Promise<Map<string, MenuHead>> {
      const items = await itemsOfPage(db, groupId, HEAD, locationIds, true);
      return new Map([...items].map(([id, item]) => [id, withoutKeys<MenuHead>(item)]));
    },
    /**
     * Writes the menu only if it is still the version read (`previousSeq`, null for the first one): its write count,
     * not its ETag, which an update that moves only the order leaves as it was.
     */
    async put(menu: StoredMenu, previousSeq: number | null): Promise<void> {
      const written = await applied(
        putItem(db, {
          Item: { ...menuKeys.menu(menu.groupId, menu.locationId), ...menu },
          ...(previousSeq === null
            ? { ConditionExpression: 'attribute_not_exists(PK)' }
            : { ConditionExpression: 'seq = :seq', ExpressionAttributeValues: { ':seq': previousSeq } }),
        }),
      );
      if (!written) throw new MenuConflictError(`menu ${menu.groupId}/${menu.locationId} changed meanwhile`);
    },
  };
}
