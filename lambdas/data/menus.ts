import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { MenuData } from '#contract/schemas/bevq';
import { isConditionFailure, queryAll, type Db } from './db.js';
import { groupPartition } from './groups.js';
import { itemOf, readItems } from './preload.js';

/** A `bevq.menu.updated` event waiting to be fanned out (the outbox kept on the menu item). */
export type MenuEvent = {
  eventId: string;
  eventType: 'bevq.menu.updated';
  occurredAt: string;
  groupId: string;
  locationId: string;
  revision: string;
};

/** A location's published menu as the API returns it, its validator, and its undispatched events. */
export type StoredMenu = {
  groupId: string;
  locationId: string;
  menu: MenuData;
  etag: string;
  /** Keyed by event id; non-empty only between the menu write and the end of dispatch. */
  pendingEvents: Record<string, MenuEvent>;
  /** Counts the menu's writes (0 before menus counted them): a head is replaced only by a later one. */
  seq: number;
};

/**
 * What the summaries and a conditional read need of a menu, as a small item
 * beside it (docs/decisions/menu-head.md): a 304, a location's status and a
 * group's page read this, never the body (~1 read unit against up to ~88).
 */
export type MenuHead = Pick<MenuData, 'revision' | 'updatedAt' | 'sectionCount' | 'itemCount' | 'sourceHealth'> & {
  groupId: string;
  locationId: string;
  etag: string;
  seq: number;
};

export const headOf = (m: StoredMenu): MenuHead => ({
  groupId: m.groupId,
  locationId: m.locationId,
  etag: m.etag,
  seq: m.seq,
  revision: m.menu.revision,
  updatedAt: m.menu.updatedAt,
  sectionCount: m.menu.sectionCount,
  itemCount: m.menu.itemCount,
  sourceHealth: m.menu.sourceHealth,
});

export const menuKeys = {
  menu: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `BEVQ_MENU#${locationId}` }),
  head: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `BEVQ_HEAD#${locationId}` }),
  /** Written once the backfill has given every menu its head: from then on a missing head means no menu. */
  headsComplete: { PK: 'SCHEMA', SK: 'MENU_HEADS' },
  prefix: 'BEVQ_MENU#',
  /** GSI1 partition of menu items holding pending events; the sweeper reads it. */
  pending: 'BEVQ_PENDING_EVENTS',
};

/** Another writer published between our read and our write. */
export class MenuConflictError extends Error {}

export type MenusRepo = {
  get(groupId: string, locationId: string): Promise<StoredMenu | null>;
  /** Several locations' menus in one round trip (strongly consistent), in the order asked. */
  getMany(groupId: string, locationIds: readonly string[]): Promise<(StoredMenu | null)[]>;
  /** Written after its body; kept only if no later one is there (a slower writer never winds it back). */
  putHead(head: MenuHead): Promise<void>;
  getHead(groupId: string, locationId: string): Promise<MenuHead | null>;
  headsComplete(): Promise<boolean>;
  markHeadsComplete(at: string): Promise<void>;
  /** Several locations' heads in one round trip (strongly consistent), in the order asked. */
  getHeads(groupId: string, locationIds: readonly string[]): Promise<(MenuHead | null)[]>;
  put(menu: StoredMenu, previousEtag: string | null): Promise<void>;
  withPendingEvents(before: string): Promise<StoredMenu[]>;
  clearPendingEvent(groupId: string, locationId: string, eventId: string): Promise<void>;
};

/**
 * Menus are always read strongly consistently: a publisher conditions its
 * write on the version it read, and a webhook receiver re-reads the menu the
 * moment bevq.menu.updated arrives (contract 6.4) and must see that revision.
 */
export function menusRepo({ doc, tableName }: Db): MenusRepo {
  return {
    async get(groupId: string, locationId: string): Promise<StoredMenu | null> {
      const { Item } = await doc.send(
        new GetCommand({ TableName: tableName, Key: menuKeys.menu(groupId, locationId), ConsistentRead: true }),
      );
      return Item ? toMenu(Item) : null;
    },
    async getMany(groupId: string, locationIds: readonly string[]): Promise<(StoredMenu | null)[]> {
      const keys = locationIds.map((id) => menuKeys.menu(groupId, id));
      const found = await readItems({ doc, tableName }, keys);
      return keys.map((key) => {
        const item = itemOf(found, key);
        return item ? toMenu(item) : null;
      });
    },
    async putHead(head: MenuHead): Promise<void> {
      try {
        await doc.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...menuKeys.head(head.groupId, head.locationId), ...head },
            ConditionExpression: 'attribute_not_exists(PK) OR seq < :seq',
            ExpressionAttributeValues: { ':seq': head.seq },
          }),
        );
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    },
    async getHead(groupId: string, locationId: string): Promise<MenuHead | null> {
      const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: menuKeys.head(groupId, locationId), ConsistentRead: true }));
      return Item ? toHead(Item) : null;
    },
    async headsComplete(): Promise<boolean> {
      const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: menuKeys.headsComplete }));
      return Item !== undefined;
    },
    async markHeadsComplete(at: string): Promise<void> {
      await doc.send(new PutCommand({ TableName: tableName, Item: { ...menuKeys.headsComplete, at } }));
    },
    async getHeads(groupId: string, locationIds: readonly string[]): Promise<(MenuHead | null)[]> {
      const keys = locationIds.map((id) => menuKeys.head(groupId, id));
      const found = await readItems({ doc, tableName }, keys);
      return keys.map((key) => {
        const item = itemOf(found, key);
        return item ? toHead(item) : null;
      });
    },
    /**
     * Writes the menu only if it is still the version read (`previousEtag`,
     * null for the first one), so concurrent publishes cannot drop each
     * other's pending events.
     */
    async put(menu: StoredMenu, previousEtag: string | null): Promise<void> {
      const pending = Object.values(menu.pendingEvents);
      const oldest = pending.map((e) => e.occurredAt).sort()[0];
      try {
        await doc.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...menuKeys.menu(menu.groupId, menu.locationId),
              ...(oldest ? { GSI1PK: menuKeys.pending, GSI1SK: `${oldest}#${menu.groupId}#${menu.locationId}` } : {}),
              ...menu,
            },
            ...(previousEtag === null
              ? { ConditionExpression: 'attribute_not_exists(PK)' }
              : { ConditionExpression: 'etag = :etag', ExpressionAttributeValues: { ':etag': previousEtag } }),
          }),
        );
      } catch (err) {
        if (isConditionFailure(err)) throw new MenuConflictError(`menu ${menu.groupId}/${menu.locationId} changed meanwhile`);
        throw err;
      }
    },
    /** Menus with pending events whose oldest event occurred at or before `before` (ISO). */
    async withPendingEvents(before: string): Promise<StoredMenu[]> {
      const items = await queryAll(doc, {
        TableName: tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :before',
        ExpressionAttributeValues: { ':pk': menuKeys.pending, ':before': `${before}#\uffff` },
      });
      return items.map(toMenu);
    },
    /** Marks one event dispatched; the last one also takes the item out of the sweeper's partition. */
    async clearPendingEvent(groupId: string, locationId: string, eventId: string): Promise<void> {
      const key = menuKeys.menu(groupId, locationId);
      let remaining: Record<string, unknown>;
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'REMOVE pendingEvents.#id',
            ConditionExpression: 'attribute_exists(pendingEvents.#id)',
            ExpressionAttributeNames: { '#id': eventId },
            ReturnValues: 'ALL_NEW',
          }),
        );
        remaining = (Attributes?.pendingEvents ?? {}) as Record<string, unknown>;
      } catch (err) {
        if (isConditionFailure(err)) return;
        throw err;
      }
      if (Object.keys(remaining).length > 0) return;
      try {
        await doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'REMOVE GSI1PK, GSI1SK',
            ConditionExpression: 'size(pendingEvents) = :zero',
            ExpressionAttributeValues: { ':zero': 0 },
          }),
        );
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    },
  };
}

function toMenu(item: Record<string, unknown>): StoredMenu {
  return {
    groupId: String(item.groupId),
    locationId: String(item.locationId),
    menu: item.menu as MenuData,
    etag: String(item.etag),
    pendingEvents: (item.pendingEvents ?? {}) as Record<string, MenuEvent>,
    seq: Number(item.seq ?? 0),
  };
}

function toHead(item: Record<string, unknown>): MenuHead {
  const { PK: _pk, SK: _sk, ...head } = item;
  return head as MenuHead;
}
