import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.js';

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
export async function preloadedDb(db: Db, reads: readonly Read[]): Promise<Db> {
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
  const items = await readItems(db, reads.filter((r): r is ItemKey => !isQuery(r)));

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
