import { getItem, groupPartition, queryAll, type Db, putItem, gsi1Partition } from './store.js';

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
    async put(group: Group): Promise<void> {
      await putItem(db, {
        Item: { ...groupKeys.group(group.groupId), GSI1PK: groupKeys.allGroups, GSI1SK: group.groupId, ...group },
      });
    },
    async list(): Promise<Group[]> {
      return (await queryAll(db, gsi1Partition(groupKeys.allGroups))).map(toGroup);
    },
  };
}

function toGroup(item: Record<string, unknown>): Group {
  return { groupId: String(item.groupId), name: String(item.name), createdAt: String(item.createdAt) };
}
