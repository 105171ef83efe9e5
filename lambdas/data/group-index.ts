import { queryPage, type Db } from './store.js';
import { groupKeys } from './groups.js';
import { GSI1 } from './table.js';

/**
 * Index partitions per group (docs/decisions/group-index.md): applications,
 * destinations and dead letters are listed from `<KIND>#<groupId>` in GSI1,
 * so no index key is written by the whole service. A list of one group reads
 * its own partition; a list of every group walks the groups in order, a
 * bounded number of partitions per page.
 */
export type GroupIndex = {
  /** The kind's partition for one group. */
  of: (groupId: string) => string;
  /** Items of no known group (a dead letter without a record), read after every group. */
  unowned?: string;
};

/** Where a page stops: the partition being read (a group id, `~` the unowned) and the key within it. */
export type WalkKey = { at: string; key?: Record<string, unknown> };

const UNOWNED = '~';
/** Before the first group (never a partition read). */
const START = '';
/** Partitions one page reads at most (a query each), however many groups have nothing to list. */
const MAX_PARTITIONS = 10;

type Filter = { expression: string; names?: Record<string, string>; values: Record<string, unknown> };

/** What a list asks of each partition beside its key: a sort-key prefix, a filter. */
export type PartitionQuery = {
  prefix?: string;
  filter?: Filter;
};

function partitionInput(pk: string, { prefix, filter }: PartitionQuery) {
  return {
    IndexName: GSI1.indexName,
    KeyConditionExpression: prefix ? 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)' : 'GSI1PK = :pk',
    ...(filter ? { FilterExpression: `(${filter.expression})` } : {}),
    ...(filter?.names ? { ExpressionAttributeNames: filter.names } : {}),
    ExpressionAttributeValues: { ':pk': pk, ...(prefix ? { ':prefix': prefix } : {}), ...filter?.values },
  };
}

/**
 * A page of items across partitions in order, from `start`: up to `limit`
 * items and at most MAX_PARTITIONS queries, so a page may hold fewer items
 * and still have a next one. `next` names the partition after one (null: the
 * end).
 */
async function walk(
  db: Db,
  index: GroupIndex,
  query: PartitionQuery,
  next: (at: string) => Promise<string | null>,
  limit: number,
  start: WalkKey,
): Promise<WalkPage> {
  const items: Record<string, unknown>[] = [];
  let position: WalkKey | null = start;
  for (let reads = 0; position && reads < MAX_PARTITIONS && items.length < limit; reads++) {
    const { at, key }: WalkKey = position;
    const pk = at === UNOWNED ? index.unowned! : index.of(at);
    const page = await queryPage(db, partitionInput(pk, query), limit - items.length, key);
    items.push(...page.items);
    if (page.lastKey) position = { at, key: page.lastKey };
    else {
      const following = await next(at);
      position = following === null ? null : { at: following };
    }
  }
  return { items, ...(position ? { lastKey: position } : {}) };
}

/** The group ids after `after` (from the start for null), a few at a time, in order. */
async function groupsAfter(db: Db, after: string | null, count: number): Promise<string[]> {
  const { items } = await queryPage(
    db,
    {
      IndexName: GSI1.indexName,
      KeyConditionExpression: after === null ? 'GSI1PK = :pk' : 'GSI1PK = :pk AND GSI1SK > :after',
      ExpressionAttributeValues: { ':pk': groupKeys.allGroups, ...(after === null ? {} : { ':after': after }) },
    },
    count,
  );
  return items.map((i) => String(i.GSI1SK));
}

/** A page of items and where the next one starts. */
export type WalkPage = { items: Record<string, unknown>[]; lastKey?: WalkKey };

/** A page of one group's items, from its own partition. */
export async function groupPage(
  db: Db,
  index: GroupIndex,
  groupId: string,
  query: PartitionQuery,
  limit: number,
  start?: WalkKey,
): Promise<WalkPage> {
  return walk(db, index, query, async () => null, limit, start ?? { at: groupId });
}

/** A page of every group's items: each group's in order, then the unowned. */
export async function everyGroupPage(db: Db, index: GroupIndex, query: PartitionQuery, limit: number, start?: WalkKey): Promise<WalkPage> {
  const ahead: string[] = [];
  const next = async (at: string): Promise<string | null> => {
    if (at === UNOWNED) return null;
    if (ahead.length === 0) ahead.push(...(await groupsAfter(db, at === START ? null : at, MAX_PARTITIONS)));
    return ahead.shift() ?? (index.unowned ? UNOWNED : null);
  };
  const from = start ?? (await next(START).then((at) => (at === null ? null : { at })));
  return from ? walk(db, index, query, next, limit, from) : { items: [] };
}
