import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { appKeys } from './apps.js';
import type { Db } from './db.js';
import { deliveryKeys } from './deliveries.js';
import { destinationKeys } from './destinations.js';
import { groupIndexComplete, markGroupIndexComplete, moveLegacyPage } from './group-index.js';

/** The kinds listed through per-group index partitions. */
export const GROUP_INDEXED = ['apps', 'destinations', 'deadLetters'] as const;
export type GroupIndexed = (typeof GROUP_INDEXED)[number];

export type GroupIndexRepo = {
  /** True once every item of the earlier shape was moved (then no list reads the earlier partitions). */
  complete(): Promise<boolean>;
  markComplete(at: string): Promise<void>;
  /** Moves one page of a kind's earlier partition to the per-group ones: the items seen (0: none left) and moved. */
  moveLegacy(kind: GroupIndexed, pageSize: number): Promise<{ seen: number; moved: number }>;
};

export function groupIndexRepo(db: Db): GroupIndexRepo {
  const own = async (item: Record<string, unknown>) => (typeof item.groupId === 'string' ? item.groupId : null);
  /** A marker of the earlier shape has no group: its delivery record says it, and without one it is unowned. */
  const ofDelivery = async (item: Record<string, unknown>) => {
    if (typeof item.groupId === 'string') return item.groupId;
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: deliveryKeys.delivery(String(item.deliveryId)), ConsistentRead: true }));
    return typeof Item?.groupId === 'string' ? Item.groupId : null;
  };
  const kinds = {
    apps: [appKeys.index, own],
    destinations: [destinationKeys.index, own],
    deadLetters: [deliveryKeys.deadLetters, ofDelivery],
  } as const;
  return {
    complete: () => groupIndexComplete(db),
    markComplete: (at) => markGroupIndexComplete(db, at),
    moveLegacy: (kind, pageSize) => moveLegacyPage(db, kinds[kind][0], kinds[kind][1], pageSize),
  };
}
