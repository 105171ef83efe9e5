import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, queryPage, type Db } from './db.js';
import { groupKeys } from './groups.js';

/**
 * Index partitions per group (docs/decisions/group-index.md): applications,
 * destinations and dead letters are listed from `<KIND>#<groupId>` in GSI1,
 * so no index key is written by the whole service. A list of one group reads
 * its own partition; a list of every group walks the groups in order, a
 * bounded number of partitions per page. Items of the earlier shape sit in
 * one fixed partition per kind until `index backfill-groups` moves them;
 * until then every list reads that partition too (first, for a list of
 * every group; with the group's prefix or filter, for one group).
 */
export type GroupIndex = {
  /** The kind's partition for one group. */
  of: (groupId: string) => string;
  /** The partition of the earlier shape. */
  legacy: string;
  /** Items of no known group (a dead letter without a record), read after every group. */
  unowned?: string;
};

/** Where a page stops: the partition being read (`''` the earlier shape's, `~` the unowned) and the key within it. */
export type WalkKey = { at: string; key?: Record<string, unknown> };

const LEGACY = '';
const UNOWNED = '~';
/** Partitions one page reads at most (a query each), however many groups have nothing to list. */
const MAX_PARTITIONS = 10;

/** Written once `index backfill-groups` has moved every item of the earlier shape: then no list looks for them. */
const completeKey = { PK: 'SCHEMA', SK: 'GROUP_INDEX' };
export async function groupIndexComplete({ doc, tableName }: Db): Promise<boolean> {
  const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: completeKey }));
  return Item !== undefined;
}

export async function markGroupIndexComplete({ doc, tableName }: Db, at: string): Promise<void> {
  await doc.send(new PutCommand({ TableName: tableName, Item: { ...completeKey, at } }));
}

type Filter = { expression: string; names?: Record<string, string>; values: Record<string, unknown> };

/** What a list asks of each partition beside its key: a sort-key prefix, a filter. */
export type PartitionQuery = {
  prefix?: string;
  filter?: Filter;
  /** How the earlier shape's partition, which holds every group, is narrowed: its own prefix (in place of `prefix`) and a filter beside `filter`. */
  legacy?: { prefix?: string; filter?: Filter };
};

function partitionInput(tableName: string, pk: string, query: PartitionQuery, legacy: boolean) {
  const prefix = legacy ? query.legacy?.prefix : query.prefix;
  const filters = [query.filter, legacy ? query.legacy?.filter : undefined].filter((f) => f !== undefined);
  const names = Object.assign({}, ...filters.map((f) => f.names ?? {})) as Record<string, string>;
  return {
    TableName: tableName,
    IndexName: 'GSI1',
    KeyConditionExpression: prefix ? 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)' : 'GSI1PK = :pk',
    ...(filters.length ? { FilterExpression: filters.map((f) => `(${f.expression})`).join(' AND ') } : {}),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: { ':pk': pk, ...(prefix ? { ':prefix': prefix } : {}), ...Object.assign({}, ...filters.map((f) => f.values)) },
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
    const pk = at === LEGACY ? index.legacy : at === UNOWNED ? index.unowned! : index.of(at);
    const page = await queryPage(db.doc, partitionInput(db.tableName, pk, query, at === LEGACY), limit - items.length, key);
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
async function groupsAfter({ doc, tableName }: Db, after: string | null, count: number): Promise<string[]> {
  const { Items = [] } = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: after === null ? 'GSI1PK = :pk' : 'GSI1PK = :pk AND GSI1SK > :after',
      ExpressionAttributeValues: { ':pk': groupKeys.allGroups, ...(after === null ? {} : { ':after': after }) },
      Limit: count,
    }),
  );
  return Items.map((i) => String(i.GSI1SK));
}

/** A page of one group's items: the earlier shape's partition first while it may hold some, then the group's. */
export type WalkPage = { items: Record<string, unknown>[]; lastKey?: WalkKey };

export async function groupPage(db: Db, index: GroupIndex, groupId: string, query: PartitionQuery, limit: number, start?: WalkKey): Promise<WalkPage> {
  const from = start ?? { at: (await groupIndexComplete(db)) ? groupId : LEGACY };
  return walk(db, index, query, async (at) => (at === LEGACY ? groupId : null), limit, from);
}

/** A page of every group's items: the earlier shape's partition while it may hold some, each group's in order, then the unowned. */
export async function everyGroupPage(db: Db, index: GroupIndex, query: PartitionQuery, limit: number, start?: WalkKey): Promise<WalkPage> {
  const ahead: string[] = [];
  const next = async (at: string): Promise<string | null> => {
    if (at === UNOWNED) return null;
    if (ahead.length === 0) ahead.push(...(await groupsAfter(db, at === LEGACY ? null : at, MAX_PARTITIONS)));
    return ahead.shift() ?? (index.unowned ? UNOWNED : null);
  };
  const from = start ?? ((await groupIndexComplete(db)) ? await next(LEGACY).then((at) => (at === null ? null : { at })) : { at: LEGACY });
  return from ? walk(db, index, query, next, limit, from) : { items: [] };
}

/**
 * Moves one page of the earlier shape's partition to the per-group ones:
 * each item's index key is rewritten (conditionally, so a concurrent change
 * of the item is never undone). `groupOf` says an item's group (null: unowned).
 * Returns the items the page held (0: the partition is empty) and those this
 * call moved (the index lags its table: a page may show items already moved).
 */
export async function moveLegacyPage(
  db: Db,
  index: GroupIndex,
  groupOf: (item: Record<string, unknown>) => Promise<string | null>,
  pageSize: number,
): Promise<{ seen: number; moved: number }> {
  let moved = 0;
  const { items } = await queryPage(db.doc, partitionInput(db.tableName, index.legacy, {}, true), pageSize);
  for (const item of items) {
    const groupId = await groupOf(item);
    const target = groupId !== null ? index.of(groupId) : index.unowned;
    if (!target) throw new Error(`an item of ${index.legacy} has no group and the kind keeps no unowned partition`);
    // Moved already (the index lags its table) or changed meanwhile: left as it is.
    const done = await applied(
      db.doc.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: 'SET GSI1PK = :to',
          ConditionExpression: 'GSI1PK = :from',
          ExpressionAttributeValues: { ':to': target, ':from': index.legacy },
        }),
      ),
    );
    if (done) moved++;
  }
  return { seen: items.length, moved };
}
