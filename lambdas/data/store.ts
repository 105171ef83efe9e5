import { DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DeleteCommandInput,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { checkRequest } from './limits.js';
import { GSI1, TABLE_KEYS } from './table.js';

/**
 * The one table as repositories use it: the document client (every request checked against DynamoDB's limits),
 * its queries and batches, the read-ahead a request's items are fetched by, and storeOf, which builds a store of
 * repositories over it (their list and types: repositories.ts).
 */

/** The partition every item of a group lives in (locations, menus, sports, matriq, campaigns): the only spelling of it. */
export const groupPartition = (groupId: string): string => `GROUP#${groupId}`;

/**
 * What every repository needs: a document client and the table's name; and, in a request's store, what the request
 * read ahead (readAhead), which the store's reads (getItem, query, readItems) answer from before asking DynamoDB.
 */
export type Db = { doc: DynamoDBDocumentClient; tableName: string; ahead?: ReadAhead };

/**
 * Endpoints come from the SDK's own settings (AWS_ENDPOINT_URL_DYNAMODB), so
 * the local runtime and AWS share this code path.
 */
export function createDb(tableName: string, client = new DynamoDBClient({})): Db {
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  // The one gate every request passes, once marshalled (the build step runs
  // after the document client's marshalling): an item or key that DynamoDB
  // would refuse throws StorageLimitError and nothing is sent. The document
  // client shares the client's stack; `override` keeps it single per client.
  doc.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (!plainRequest(input)) checkRequest(input);
      return next(args);
    },
    { step: 'build', name: 'dynamoDbStorageLimits', override: true },
  );
  return { doc, tableName };
}

/** 256 UTF-16 units are at most 768 UTF-8 bytes: inside every key limit (ids, at most 64 characters, make such keys). */
const SHORT = 256;
/** So many short attributes make an item of at most 154 KB: inside DynamoDB's 400 KB. */
const FEW = 100;
const plainValue = (v: AttributeValue) =>
  v.S !== undefined ? v.S !== '' && v.S.length <= SHORT : v.N !== undefined && Number.isSafeInteger(Number(v.N));
const plainValues = (values: unknown) => {
  const entries = Object.entries((values ?? {}) as Record<string, AttributeValue>);
  return entries.length <= FEW && entries.every(([name, value]) => name.length <= SHORT && plainValue(value));
};

/**
 * A request whose keys, values and item are a few short strings or whole numbers (reads by ids, a counter's ADD, a
 * token's record): no limit of limits.ts can refuse it, so it is not measured, and the measuring stays off the
 * request paths.
 */
function plainRequest(input: Record<string, unknown>): boolean {
  if (input.TransactItems) return false;
  const batches = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>);
  if (batches.some(Array.isArray)) return false;
  return [input.Item, input.Key, input.ExpressionAttributeValues, ...batches.flatMap((b) => b.Keys ?? [])].every(plainValues);
}

/** Writes to the one table, as a repository sends them: the input less the table's name. */
export const putItem = (db: Db, input: Omit<PutCommandInput, 'TableName'>) =>
  db.doc.send(new PutCommand({ ...input, TableName: db.tableName }));
export const updateItem = (db: Db, input: Omit<UpdateCommandInput, 'TableName'>) =>
  db.doc.send(new UpdateCommand({ ...input, TableName: db.tableName }));
export const deleteItem = (db: Db, input: Omit<DeleteCommandInput, 'TableName'>) =>
  db.doc.send(new DeleteCommand({ ...input, TableName: db.tableName }));

/** A conditional write's output, or null when its condition failed; any other error is thrown. */
export async function unlessConflict<T>(write: Promise<T>): Promise<T | null> {
  try {
    return await write;
  } catch (err) {
    if ((err as { name?: string })?.name === 'ConditionalCheckFailedException') return null;
    throw err;
  }
}

/** A conditional write: true when it applied, false when its condition failed; any other error is thrown. */
export const applied = async (write: Promise<unknown>): Promise<boolean> => (await unlessConflict(write)) !== null;

/**
 * Where an update stands in its source's order: when the source observed it (epoch ms) and a sequence that breaks
 * ties. Stored on the item as `sourceMs` and `sequence`.
 */
export type SourceOrder = { sourceMs: number; sequence: number };
/** What became of an ordered write: written, a replay of what is stored, or older than what is stored. */
export type OrderedOutcome = 'applied' | 'duplicate' | 'stale';

/**
 * The condition of a write in `order`: the stored item is older by (sourceMs, sequence), or carries no order (its
 * `:ms`, `:seq` and `#seq` are the write's own: an update that also moves the order SETs `sourceMs = :ms, #seq = :seq`).
 */
export const newerThanStored = (order: SourceOrder) => ({
  ConditionExpression: 'attribute_not_exists(sourceMs) OR sourceMs < :ms OR (sourceMs = :ms AND #seq < :seq)',
  ExpressionAttributeNames: { '#seq': 'sequence' },
  ExpressionAttributeValues: { ':ms': order.sourceMs, ':seq': order.sequence },
});

/**
 * Puts an item only if it is newer, by (sourceMs, sequence), than the one stored under its key: one conditional
 * PutItem, so concurrent writers of one key never interleave and the newest always wins, in any arrival order. An
 * item written outside any source's order (an operator's edit) yields to the next ordered update. When the
 * condition fails, a consistent read tells a replay (the same order) from an older update.
 */
export async function putInOrder(db: Db, item: ItemKey & Record<string, unknown>, order: SourceOrder): Promise<OrderedOutcome> {
  return (await writeInOrder(db, item, order, false)).outcome;
}

/**
 * putInOrder that also answers the item an applied put replaced (null: none): what hangs off an item (a campaign's
 * links) is then mended from what was replaced, even when another writer's put came between a read and this one.
 */
export const replaceInOrder = (db: Db, item: ItemKey & Record<string, unknown>, order: SourceOrder) => writeInOrder(db, item, order, true);

async function writeInOrder(
  db: Db,
  item: ItemKey & Record<string, unknown>,
  order: SourceOrder,
  returnReplaced: boolean,
): Promise<{ outcome: OrderedOutcome; replaced: Record<string, unknown> | null }> {
  const written = await unlessConflict(
    putItem(db, {
      // The order alone: a caller's wider object (its clock reading) never reaches the item.
      Item: { ...item, sourceMs: order.sourceMs, sequence: order.sequence },
      ...newerThanStored(order),
      ...(returnReplaced ? { ReturnValues: 'ALL_OLD' as const } : {}),
    }),
  );
  if (written) return { outcome: 'applied', replaced: written.Attributes ?? null };
  const stored = await getItem(db, { PK: item.PK, SK: item.SK }, true);
  return { outcome: stored?.sourceMs === order.sourceMs && stored.sequence === order.sequence ? 'duplicate' : 'stale', replaced: null };
}

/** A page of a Query, and the key to continue from when DynamoDB says more may follow. */
export type QueryPage = { items: Record<string, unknown>[]; lastKey?: Record<string, unknown> };

/** The Query of one GSI1 partition, every item of it. */
export const gsi1Partition = (pk: string) => ({
  IndexName: GSI1.indexName,
  KeyConditionExpression: 'GSI1PK = :pk',
  ExpressionAttributeValues: { ':pk': pk },
});

/** One Query call: at most `limit` items evaluated (DynamoDB's Limit, before any filter), from `startKey`. */
export async function queryPage(db: Db, input: ItemQuery, limit: number, startKey?: Record<string, unknown>): Promise<QueryPage> {
  const { Items = [], LastEvaluatedKey } = await query(db, { ...input, Limit: limit, ExclusiveStartKey: startKey });
  return { items: Items, ...(LastEvaluatedKey ? { lastKey: LastEvaluatedKey } : {}) };
}

/** Follows LastEvaluatedKey so callers always get every page. */
export async function queryAll(db: Db, input: ItemQuery): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await query(db, { ...input, ExclusiveStartKey: startKey });
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * The items `<prefix><locationId>` of a page of one group's locations (`locationIds` in id order), by location id:
 * one Query over the page's range, whose read units follow the items' bytes where a read of each would take at
 * least half a unit apiece. Items of locations inside the range but off the page are left out.
 */
export async function itemsOfPage(
  db: Db,
  groupId: string,
  prefix: string,
  locationIds: readonly string[],
  consistent: boolean,
): Promise<Map<string, Record<string, unknown>>> {
  if (locationIds.length === 0) return new Map();
  const items = await queryAll(db, {
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': groupPartition(groupId),
      ':from': `${prefix}${locationIds[0]}`,
      ':to': `${prefix}${locationIds.at(-1)}`,
    },
    ConsistentRead: consistent,
  });
  const wanted = new Set(locationIds);
  return new Map(items.map((item) => [String(item.SK).slice(prefix.length), item] as const).filter(([id]) => wanted.has(id)));
}

/** BatchWriteItem takes at most 25 requests; unprocessed ones are sent again with backoff, a bounded number of times. */
const WRITE_BATCH = 25;
const WRITE_TRIES = 5;

/** Puts and deletes in batches of 25; throws when some are still unprocessed after the retries. */
export async function writeBatches({ doc, tableName }: Db, requests: readonly Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < requests.length; i += WRITE_BATCH) {
    let pending: Record<string, unknown[]> | undefined = { [tableName]: requests.slice(i, i + WRITE_BATCH) };
    for (let tries = 0; pending && Object.keys(pending).length > 0; tries++) {
      if (tries === WRITE_TRIES) throw new Error(`BatchWriteItem left writes unprocessed after ${WRITE_TRIES} tries`);
      if (tries > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** tries));
      pending = (await doc.send(new BatchWriteCommand({ RequestItems: pending as never }))).UnprocessedItems;
    }
  }
}

/** A table item's primary key. */
export type ItemKey = { PK: string; SK: string };
/** Besides its primary key, what places an item rather than describes it: its indexes' keys, its expiry, its source's order. */
const PLACING = new Set<string>([
  ...TABLE_KEYS.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  TABLE_KEYS.ttlAttribute,
  ...(['sourceMs', 'sequence'] satisfies (keyof SourceOrder)[]),
]);
/** An item as its entity: the item less its primary key and what else places it (its fields are all it holds besides). */
export const withoutKeys = <T>({ PK: _pk, SK: _sk, ...entity }: Record<string, unknown>): T =>
  Object.fromEntries(Object.entries(entity).filter(([name]) => !PLACING.has(name))) as T;
/** A base-table Query as a repository sends it, less the table's name. */
export type ItemQuery = Omit<QueryCommandInput, 'TableName'>;
/** What a request may read ahead: items by key, and Queries' first pages. */
export type Read = ItemKey | ItemQuery;
type Item = Record<string, unknown>;

const isQuery = (read: Read): read is ItemQuery => 'KeyConditionExpression' in read;
const idOf = (key: ItemKey) => `${key.PK}\u0000${key.SK}`;
/** The same Query however its object was built: equal values, keys in any order, undefined ones absent (as the SDK sends it). */
function sameInput(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  return keys.length === Object.keys(y).filter((k) => y[k] !== undefined).length && keys.every((k) => sameInput(x[k], y[k]));
}

/**
 * DynamoDB's answers when it throttles a request (docs/decisions/throttled-reads.md): the SDK retries them with
 * backoff before giving up, and a batch's keys left unprocessed after this store's own retries count the same.
 */
const THROTTLES = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'UnprocessedKeys']);
export const isThrottle = (err: unknown): boolean => err instanceof Error && THROTTLES.has(err.name);

/** BatchGetItem's limit per request. */
const BATCH_KEYS = 100;
/** Unprocessed keys (throttling, the 16 MB response cap) are retried with backoff, as AWS advises, a bounded number of times. */
const RETRIES = 5;
const BASE_DELAY_MS = 25;

/**
 * Reads every key not read ahead in as few BatchGetItem calls as the limits
 * allow, the batches in parallel; absent items map to null. Strongly
 * consistent unless told otherwise.
 */
export async function readItems(db: Db, keys: readonly ItemKey[], consistent = true): Promise<Map<string, Item | null>> {
  const found = new Map<string, Item | null>();
  const toRead = new Map<string, ItemKey>();
  for (const key of keys) {
    const id = idOf(key);
    // Absent until a batch answers with it.
    found.set(id, db.ahead?.items.get(id) ?? null);
    if (!db.ahead?.items.has(id)) toRead.set(id, key);
  }
  const unique = [...toRead.values()];
  const batches = Array.from({ length: Math.ceil(unique.length / BATCH_KEYS) }, (_, i) =>
    unique.slice(i * BATCH_KEYS, (i + 1) * BATCH_KEYS),
  );
  await Promise.all(
    batches.map(async (batch) => {
      let pending: ItemKey[] = batch;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > RETRIES)
          throw Object.assign(new Error('BatchGetItem left keys unprocessed after retries'), { name: 'UnprocessedKeys' });
        if (attempt > 0) await new Promise((r) => setTimeout(r, BASE_DELAY_MS * 2 ** attempt * Math.random()));
        const { Responses, UnprocessedKeys } = await db.doc.send(
          new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending, ConsistentRead: consistent } } }),
        );
        for (const item of Responses?.[db.tableName] ?? []) found.set(idOf(item as ItemKey), item);
        pending = (UnprocessedKeys?.[db.tableName]?.Keys ?? []) as ItemKey[];
      }
    }),
  );
  return found;
}

/** The item of `key` among items read by readItems (null when absent). */
export const itemOf = (items: Map<string, Item | null>, key: ItemKey): Item | null => items.get(idOf(key)) ?? null;

/**
 * What a request read ahead: items by key, read in one strongly consistent round trip (an absent item is null), and
 * Queries started beside them. Strongly consistent items satisfy a read of any consistency; a Query is answered
 * only when it is the very same input, consistency included. A guess that turns out wrong costs only its own read.
 */
type ReadAhead = { items: Map<string, Item | null>; queries: { input: QueryCommandInput; running: Promise<QueryCommandOutput> }[] };

/** The Db of a request: these items read, these Queries started (resolves once the items are in). */
async function readAhead(db: Db, reads: readonly Read[]): Promise<Db> {
  const queries = reads.filter(isQuery).map((query) => {
    // Kept apart from what is sent: a client's middleware may add to the input it sends.
    const input = { ...query, TableName: db.tableName };
    const running = db.doc.send(new QueryCommand({ ...input }));
    // Nobody may ever ask (authorization failed): a failure then is nobody's to handle.
    running.catch(() => undefined);
    return { input, running };
  });
  const keys = reads.filter((r): r is ItemKey => !isQuery(r));
  return { ...db, ahead: { items: await readItems(db, keys), queries } };
}

/** One item by key (null when absent): from what was read ahead, else a GetItem. */
export async function getItem(db: Db, key: ItemKey, consistent = false): Promise<Item | null> {
  const id = idOf(key);
  if (db.ahead?.items.has(id)) return db.ahead.items.get(id)!;
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: consistent }));
  return Item ?? null;
}

/** One Query call: the very same Query read ahead, else sent. */
export function query(db: Db, input: ItemQuery): Promise<QueryCommandOutput> {
  const full = { ...input, TableName: db.tableName };
  return db.ahead?.queries.find((q) => sameInput(q.input, full))?.running ?? db.doc.send(new QueryCommand(full));
}

/**
 * A store over the one table: its repositories by name (the full list and
 * its types: repositories.ts), and a read-ahead that gives the same store
 * with these items already read in one strongly consistent round trip and
 * these Queries started beside it (readAhead), whose repositories' reads
 * answer from what was read. The /v1 pipeline reads a request's credential, application,
 * location and path-keyed data this way.
 */
export type StoreOf<R> = R & {
  /** `only`: build just these repositories over what was read (a narrowed store's own), not every one this store holds. */
  preload(reads: readonly Read[], only?: FactoriesOf<R>): Promise<StoreOf<R>>;
};

/** How to build repositories over a Db, by name: a function's bundle carries only the repositories it names. */
export type FactoriesOf<R> = { [K in keyof R]?: (db: Db) => R[K] };

/** The repositories a list of factories builds, by name: how a room composes its store's type from its list. */
export type RepositoriesOf<F> = { [K in keyof F]: F[K] extends (db: Db) => infer R ? R : never };

/**
 * The Store's DynamoDB adapter, holding just these repositories. Reaching
 * for another one is a wiring mistake, which the suite finds: every family
 * runs under onlyRepositories below.
 */
export function storeOf<R>(db: Db, factories: FactoriesOf<R>): StoreOf<R> {
  const store = { preload: async (reads: readonly Read[], only = factories) => storeOf(await readAhead(db, reads), only) };
  // Each repository is built when first used: a request's store costs only what the request reads.
  for (const [name, make] of Object.entries(factories)) {
    let built: unknown;
    Object.defineProperty(store, name, { enumerable: true, get: () => (built ??= (make as (db: Db) => unknown)(db)) });
  }
  return store as StoreOf<R>;
}

/** The same store narrowed to the repositories a function builds in AWS, so the local runtime and the tests fail where AWS would. */
export function onlyRepositories<S extends StoreOf<object>>(store: S, factories: object): S {
  const narrowed = { preload: async (reads: readonly Read[]) => store.preload(reads, factories) };
  for (const name of Object.keys(factories)) {
    Object.defineProperty(narrowed, name, { enumerable: true, get: () => store[name as keyof S] });
  }
  return narrowed as S;
}
