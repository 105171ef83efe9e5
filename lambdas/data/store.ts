import { DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { ApiError } from '#contract/errors';
import { TABLE_KEYS } from './table.js';

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
/** An item as its entity: the item less its primary key (the entity's fields are all it holds besides). */
export const withoutKeys = <T>({ PK: _pk, SK: _sk, ...entity }: Record<string, unknown>): T => entity as T;
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
    if (db.ahead?.items.has(id)) found.set(id, db.ahead.items.get(id)!);
    else if (!found.has(id)) {
      toRead.set(id, key);
      found.set(id, null);
    }
  }
  const unique = [...toRead.values()];
  const batches: ItemKey[][] = [];
  for (let i = 0; i < unique.length; i += BATCH_KEYS) batches.push(unique.slice(i, i + BATCH_KEYS));
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
  const items = await readItems(
    db,
    reads.filter((r): r is ItemKey => !isQuery(r)),
  );
  return { ...db, ahead: { items, queries } };
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

/**
 * DynamoDB's limits on what a request may carry, measured the way DynamoDB
 * measures them, so a write AWS would refuse is refused here first, with one
 * clear error, before anything is sent:
 * - an item holds at most 400 KB = 409,600 bytes: attribute names and string
 *   values in UTF-8 bytes, binary in raw bytes, a number by its significant
 *   digits, 1 byte per boolean or null, 3 bytes per list or map plus 1 per
 *   element (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-items);
 * - a partition key value is 1 to 2,048 bytes and a sort key value 1 to 1,024,
 *   in the table's key and in every GSI's (Constraints.html#limits-partition-sort-keys);
 *   no key attribute may be an empty string
 *   (https://aws.amazon.com/about-aws/whats-new/2020/05/amazon-dynamodb-now-supports-empty-values-for-non-key-string-and-binary-attributes-in-dynamodb-tables/);
 * - a number has at most 38 significant digits and a magnitude from 1E-130 to
 *   under 1E+126 (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html);
 * - attributes nest at most 32 levels (Constraints.html#limits-attributes).
 * DynamoDB Local, AWS's own engine, refuses exactly past these measures;
 * dynalite counts UTF-16 code units and would never notice a multi-byte item.
 */
export const DYNAMODB_LIMITS = {
  itemBytes: 400 * 1024,
  partitionKeyBytes: 2048,
  sortKeyBytes: 1024,
  significantDigits: 38,
  /** Powers of ten a number's leading digit may have: 1E-130 ≤ |n| < 1E+126. */
  leadingPower: { min: -130, max: 125 },
  nestingLevels: 32,
} as const;

/**
 * What one item may hold of loaded data (a day's schedule, a location's
 * devices, a gzipped body): the rest is room for keys (ids of at most 64
 * characters) and the few attributes the service adds (timestamps, ttl).
 */
export const ITEM_VALUE_BUDGET_BYTES = DYNAMODB_LIMITS.itemBytes - 4 * 1024;

/** Input that DynamoDB could not store: 413 when too large, else 400; to the admin CLI, bad input (exit 2). */
export class StorageLimitError extends ApiError {
  constructor(tooLarge: boolean, message: string) {
    super(tooLarge ? 'payload_too_large' : 'invalid_request', message);
  }
}

const PARTITION_KEYS = new Set<string>([TABLE_KEYS.partitionKey, ...TABLE_KEYS.globalIndexes.map((i) => i.partitionKey)]);
const SORT_KEYS = new Set<string>([TABLE_KEYS.sortKey, ...TABLE_KEYS.globalIndexes.map((i) => i.sortKey)]);

type AttributeItem = Record<string, AttributeValue>;
type Request = { Item?: AttributeItem; Key?: AttributeItem };

/**
 * Checks one low-level (marshalled) DynamoDB request: every item it writes
 * (size, keys, numbers, nesting) and every key it names. Update values are
 * checked as values; updates here only set small fields or remove.
 */
export function checkRequest(input: Record<string, unknown>): void {
  for (const request of requestsOf(input)) {
    if (request.Item) checkItem(request.Item);
    if (request.Key) checkKeys(request.Key);
  }
  const values = input.ExpressionAttributeValues as AttributeItem | undefined;
  for (const value of Object.values(values ?? {})) valueBytes(value, 1);
}

/** The single-item requests inside Put/Get/Update/Delete, BatchGet, BatchWrite and Transact* inputs. */
function requestsOf(input: Record<string, unknown>): Request[] {
  const batches = Object.values((input.RequestItems ?? {}) as Record<string, unknown>).flatMap((batch) =>
    Array.isArray(batch)
      ? batch.map((w: { PutRequest?: Request; DeleteRequest?: Request }) => w.PutRequest ?? w.DeleteRequest ?? {})
      : ((batch as { Keys?: AttributeItem[] }).Keys ?? []).map((Key) => ({ Key })),
  );
  const transact = ((input.TransactItems ?? []) as Record<string, Request>[]).flatMap((t) => Object.values(t));
  return [input, ...batches, ...transact];
}

export function checkItem(item: AttributeItem): void {
  checkKeys(item);
  const bytes = itemBytes(item);
  if (bytes > DYNAMODB_LIMITS.itemBytes) {
    throw new StorageLimitError(
      true,
      `Too large to store: ${bytes.toLocaleString('en')} bytes as DynamoDB counts them; one item holds at most ${DYNAMODB_LIMITS.itemBytes.toLocaleString('en')} (400 KB).`,
    );
  }
}

function checkKeys(item: AttributeItem): void {
  for (const [name, value] of Object.entries(item)) {
    const max = PARTITION_KEYS.has(name) ? DYNAMODB_LIMITS.partitionKeyBytes : SORT_KEYS.has(name) ? DYNAMODB_LIMITS.sortKeyBytes : null;
    if (max === null || value.S === undefined) continue;
    if (value.S === '') throw new StorageLimitError(false, 'An id that is part of a key is empty; DynamoDB keys cannot be empty.');
    const bytes = utf8Bytes(value.S);
    if (bytes > max) {
      throw new StorageLimitError(
        false,
        `An id is too long to be stored as a key: ${bytes.toLocaleString('en')} bytes where DynamoDB allows ${max.toLocaleString('en')}.`,
      );
    }
  }
}

/** DynamoDB's size of an item (attribute names plus values). */
export function itemBytes(item: AttributeItem): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += utf8Bytes(name) + valueBytes(value, 1);
  return bytes;
}

/** One value's size; `level` is its nesting depth (a top-level attribute is level 1). */
function valueBytes(value: AttributeValue, level: number): number {
  if (level > DYNAMODB_LIMITS.nestingLevels) {
    throw new StorageLimitError(false, `Nested more than ${DYNAMODB_LIMITS.nestingLevels} levels deep, more than DynamoDB stores.`);
  }
  if (value.S !== undefined) return utf8Bytes(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return sum(value.SS.map(utf8Bytes));
  if (value.NS) return sum(value.NS.map(numberBytes));
  if (value.BS) return sum(value.BS.map((b) => b.byteLength));
  if (value.L) return 3 + sum(value.L.map((v) => 1 + valueBytes(v, level + 1)));
  if (value.M) return 3 + sum(Object.entries(value.M).map(([k, v]) => 1 + utf8Bytes(k) + valueBytes(v, level + 1)));
  return 0;
}

/**
 * A number takes 1 byte, plus 1 per pair of digits counted from the decimal
 * point (significant digits only), plus 1 when negative; 0 takes 1. This is
 * the documented "1 byte per two significant digits + 1 byte", as DynamoDB
 * Local counts it exactly (1.5 spans two pairs, 0|1 and 5|0: 3 bytes).
 */
export function numberBytes(n: string): number {
  const shape = numberShape(n);
  if (shape === null) return 1;
  const { digits, leading, trailing, negative } = shape;
  if (
    digits > DYNAMODB_LIMITS.significantDigits ||
    leading < DYNAMODB_LIMITS.leadingPower.min ||
    leading > DYNAMODB_LIMITS.leadingPower.max
  ) {
    throw new StorageLimitError(
      false,
      `The number ${n} cannot be stored exactly: DynamoDB keeps at most 38 significant digits, magnitudes from 1E-130 to under 1E+126.`,
    );
  }
  const pairs = Math.floor(leading / 2) - Math.floor(trailing / 2) + 1;
  return 1 + pairs + (negative ? 1 : 0);
}

/** Significant digits of a decimal string and the powers of ten of its first and last one; null for zero. */
function numberShape(n: string): { digits: number; leading: number; trailing: number; negative: boolean } | null {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(n);
  if (!match) throw new StorageLimitError(false, `${n} is not a number.`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const all = whole + fraction;
  const first = all.search(/[1-9]/);
  if (first < 0) return null;
  const last = all.length - 1 - [...all].reverse().findIndex((c) => c !== '0');
  const power = (index: number) => whole.length - 1 - index + Number(exponent);
  return { digits: last - first + 1, leading: power(first), trailing: power(last), negative: sign === '-' };
}

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * The size of a plain value (what a repository passes to the document
 * client) once stored as one item, mapped as the document client maps it:
 * undefined is dropped, arrays become lists, objects maps, Sets sets. Loaders
 * judge each item-to-be with it before writing anything.
 */
export function plainItemBytes(value: Record<string, unknown>): number {
  return itemBytes(plainMap(value));
}

function plainMap(value: Record<string, unknown>): AttributeItem {
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : [[k, toAttribute(v)]])));
}

function toAttribute(value: unknown): AttributeValue {
  if (value === null) return { NULL: true };
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value instanceof Uint8Array) return { B: value };
  if (value instanceof Set) {
    const members = [...value];
    return typeof members[0] === 'number' ? { NS: members.map(String) } : { SS: members.map(String) };
  }
  if (Array.isArray(value)) return { L: value.filter((v) => v !== undefined).map(toAttribute) };
  return { M: plainMap(value as Record<string, unknown>) };
}
