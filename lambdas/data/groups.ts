import {
  getItem,
  groupPartition,
  queryAll,
  type Db,
  putItem,
  gsi1Partition,
  putInOrder,
  type SourceOrder,
  type OrderedOutcome,
} from './store.js';

export type Group = { groupId: string; name: string; createdAt: string };

export const groupKeys = {
  group: (groupId: string) => ({ PK: groupPartition(groupId), SK: 'GROUP' }),
  /** GSI1 partition that lists every group. */
  allGroups: 'GROUPS',
};

export function groupsRepo(db: Db) {
  return {
    /** `consistent` for admin checks that a group exists: a venue load (or a script) may have written it a moment before. */
    async get(groupId: string, { consistent = false } = {}): Promise<Group | null> {
      const item = await getItem(db, groupKeys.group(groupId), consistent);
      return item ? toGroup(item) : null;
    },
    /** Unordered: a test's or a benchmark's fixture. The service writes groups in a source's order (putInOrder). */
    async put(group: Group): Promise<void> {
      await putItem(db, { Item: itemOf(group) });
    },
    putInOrder: (group: Group, order: SourceOrder): Promise<OrderedOutcome> => putInOrder(db, itemOf(group), order),
    async list(): Promise<Group[]> {
      return (await queryAll(db, gsi1Partition(groupKeys.allGroups))).map(toGroup);
    },
  };
}

const itemOf = (group: Group) => ({ ...groupKeys.group(group.groupId), GSI1PK: groupKeys.allGroups, GSI1SK: group.groupId, ...group });

function toGroup(item: Record<string, unknown>): Group {
  return { groupId: String(item.groupId), name: String(item.name), createdAt: String(item.createdAt) };
}
