import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { checkRequest } from './item-limits.js';

/**
 * The one table as repositories use it: the document client (every request checked against DynamoDB's limits),
 * its queries and batches, the read-ahead a request's items are fetched by, and storeOf, which builds a store of
 * repositories over it (their list and types: repositories.ts).
 */

/** The partition every item of a group lives in (locations, menus, sports, matriq, campaigns): the only spelling of it. */
export const groupPartition = (groupId: string): string => `GROUP#${groupId}`;

/** What every repository needs: a document client and the table's name. */
export type Db = { doc: DynamoDBDocumentClient; tableName: string };

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
      checkRequest(args.input as Record<string, unknown>);
      return next(args);
    },
    { step: 'build', name: 'dynamoDbStorageLimits', override: true },
  );
  return { doc, tableName };
}

export function isConditionFailure(err: unknown): boolean {
  return (err as { name?: string })?.name === 'ConditionalCheckFailedException';
}

/** A conditional write: true when it applied, false when its condition failed; any other error is thrown. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** A page of a Query, and the key to continue from when DynamoDB says more may follow. */
export type QueryPage = { items: Record<string, unknown>[]; lastKey?: Record<string, unknown> };

/** One Query call: at most `limit` items evaluated (DynamoDB's Limit, before any filter), from `startKey`. */
export async function queryPage(
  doc: DynamoDBDocumentClient,
  input: ConstructorParameters<typeof QueryCommand>[0],
  limit: number,
  startKey?: Record<string, unknown>,
): Promise<QueryPage> {
  const { Items = [], LastEvaluatedKey } = await doc.send(new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey: startKey }));
  return { items: Items, ...(LastEvaluatedKey ? { lastKey: LastEvaluatedKey } : {}) };
}

/** Follows LastEvaluatedKey so callers always get every page. */
export async function queryAll(
  doc: DynamoDBDocumentClient,
  input: ConstructorParameters<typeof QueryCommand>[0],
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
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
/** A base-table Query as a repository sends it, less the table's name. */
export type ItemQuery = Omit<QueryCommandInput, 'TableName'>;
/** What a request may read ahead: items by key, and Queries' first pages. */
export type Read = ItemKey | ItemQuery;
type Item = Record<string, unknown>;

const isQuery = (read: Read): read is ItemQuery => 'KeyConditionExpression' in read;
const idOf = (key: ItemKey) => `${key.PK}\u0000${key.SK}`;
/** The same Query however its object was built: keys sorted, undefined dropped (as the SDK sends it). */
const queryId = (input: QueryCommandInput) =>
  JSON.stringify(input, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );

/** BatchGetItem's limit per request. */
const BATCH_KEYS = 100;
/** Unprocessed keys (throttling, the 16 MB response cap) are retried with backoff, as AWS advises, a bounded number of times. */
const RETRIES = 5;
const BASE_DELAY_MS = 25;

/**
 * Reads every key in as few BatchGetItem calls as the limits allow, the
 * batches in parallel; absent items map to null. Strongly consistent unless
 * told otherwise.
 */
export async function readItems(db: Db, keys: readonly ItemKey[], consistent = true): Promise<Map<string, Item | null>> {
  const unique = [...new Map(keys.map((k) => [idOf(k), k])).values()];
  const found = new Map<string, Item | null>(unique.map((k) => [idOf(k), null]));
  const batches: ItemKey[][] = [];
  for (let i = 0; i < unique.length; i += BATCH_KEYS) batches.push(unique.slice(i, i + BATCH_KEYS));
  await Promise.all(
    batches.map(async (batch) => {
      let pending: ItemKey[] = batch;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > RETRIES) throw new Error('BatchGetItem left keys unprocessed after retries');
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
 * Reads ahead: the items in one strongly consistent round trip, the Queries
 * started beside it. Resolves once the items are in; the Queries may still be
 * running. The Db it gives answers GetItems of those items (an absent item
 * stays absent), BatchGetItems in part or whole, and exactly those Queries
 * from what was read; every other call goes to DynamoDB. The items were read
 * strongly consistent, which satisfies any read's consistency; a Query is
 * answered only when it is the very same input, consistency included.
 */
async function preloadedDb(db: Db, reads: readonly Read[]): Promise<Db> {
  const queries = new Map<string, Promise<QueryCommandOutput>>();
  for (const query of reads.filter(isQuery)) {
    const input = { ...query, TableName: db.tableName };
    // Named before sending: a client's middleware may add to the input it sends.
    const id = queryId(input);
    const running = db.doc.send(new QueryCommand(input));
    // Nobody may ever ask (authorization failed): a failure then is nobody's to handle.
    running.catch(() => undefined);
    queries.set(id, running);
  }
  const items = await readItems(
    db,
    reads.filter((r): r is ItemKey => !isQuery(r)),
  );

  const send = ((command: unknown) => {
    if (command instanceof GetCommand && command.input.TableName === db.tableName) {
      const id = idOf(command.input.Key as ItemKey);
      if (items.has(id)) return Promise.resolve({ Item: items.get(id) ?? undefined, $metadata: {} });
    }
    if (command instanceof QueryCommand) {
      const running = queries.get(queryId(command.input));
      if (running) return running;
    }
    if (command instanceof BatchGetCommand) return batchGet(command);
    return db.doc.send(command as GetCommand);
  }) as Db['doc']['send'];

  /** Keys already read are answered here; only the rest is sent. */
  const batchGet = async (command: BatchGetCommand) => {
    const request = command.input.RequestItems?.[db.tableName];
    const keys = (request?.Keys ?? []) as ItemKey[];
    const known = keys.filter((k) => items.has(idOf(k)));
    if (!request || Object.keys(command.input.RequestItems!).length > 1 || known.length === 0) return db.doc.send(command);
    const unknown = keys.filter((k) => !items.has(idOf(k)));
    const rest = unknown.length
      ? await db.doc.send(new BatchGetCommand({ ...command.input, RequestItems: { [db.tableName]: { ...request, Keys: unknown } } }))
      : { Responses: {}, UnprocessedKeys: {}, $metadata: {} };
    const answered = known.flatMap((k) => (items.get(idOf(k)) ? [items.get(idOf(k))!] : []));
    return { ...rest, Responses: { [db.tableName]: [...answered, ...(rest.Responses?.[db.tableName] ?? [])] } };
  };
  return { tableName: db.tableName, doc: Object.assign(Object.create(db.doc) as Db['doc'], { send }) };
}

/**
 * A store over the one table: its repositories by name (the full list and
 * its types: repositories.ts), and a read-ahead that gives the same store
 * with these items already read in one strongly consistent round trip and
 * these Queries started beside it, whose repositories answer reads of them
 * from memory. The /v1 pipeline reads a request's credential, application,
 * location and path-keyed data this way.
 */
export type StoreOf<R> = R & { preload(reads: readonly Read[]): Promise<StoreOf<R>> };

/** How to build repositories over a Db, by name: a function's bundle carries only the repositories it names. */
export type FactoriesOf<R> = { [K in keyof R]?: (db: Db) => R[K] };

/**
 * The Store's DynamoDB adapter, holding just these repositories. Reaching
 * for another one is a wiring mistake, which the suite finds: every family
 * runs under onlyRepositories below.
 */
export function storeOf<R>(db: Db, factories: FactoriesOf<R>): StoreOf<R> {
  const repositories = Object.fromEntries(Object.entries(factories).map(([name, make]) => [name, (make as (db: Db) => unknown)(db)]));
  return { ...repositories, preload: async (reads: readonly Read[]) => storeOf(await preloadedDb(db, reads), factories) } as StoreOf<R>;
}

/** The same store narrowed to the repositories a function builds in AWS, so the local runtime and the tests fail where AWS would. */
export function onlyRepositories<R>(store: StoreOf<R>, factories: FactoriesOf<R>): StoreOf<R> {
  const kept = Object.fromEntries(Object.keys(factories).map((name) => [name, store[name as keyof R]]));
  return { ...kept, preload: async (reads: readonly Read[]) => onlyRepositories(await store.preload(reads), factories) } as StoreOf<R>;
}
