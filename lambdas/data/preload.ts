import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.js';

/** A table item's primary key. */
export type ItemKey = { PK: string; SK: string };
type Item = Record<string, unknown>;

const idOf = (key: ItemKey) => `${key.PK}\u0000${key.SK}`;

/** BatchGetItem's limit per request. */
const BATCH_KEYS = 100;
/** Unprocessed keys (throttling, the 16 MB response cap) are retried with backoff, as AWS advises, a bounded number of times. */
const RETRIES = 5;
const BASE_DELAY_MS = 25;

/** Reads every key, strongly consistent, in as few BatchGetItem calls as the limits allow; absent items map to null. */
export async function readItems(db: Db, keys: readonly ItemKey[]): Promise<Map<string, Item | null>> {
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
          new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of Responses?.[db.tableName] ?? []) found.set(idOf(item as ItemKey), item);
        pending = (UnprocessedKeys?.[db.tableName]?.Keys ?? []) as ItemKey[];
      }
    }),
  );
  return found;
}

/**
 * A Db whose GetItems of already-read keys are answered from memory (an
 * absent item stays absent); every other call goes to DynamoDB. The items
 * were read strongly consistent, which satisfies any GetItem's consistency.
 */
export function preloadedDb(db: Db, items: Map<string, Item | null>): Db {
  const send = ((command: unknown) => {
    if (command instanceof GetCommand) {
      const id = idOf(command.input.Key as ItemKey);
      if (command.input.TableName === db.tableName && items.has(id)) return Promise.resolve({ Item: items.get(id) ?? undefined, $metadata: {} });
    }
    return db.doc.send(command as GetCommand);
  }) as Db['doc']['send'];
  return { tableName: db.tableName, doc: Object.assign(Object.create(db.doc) as Db['doc'], { send }) };
}
