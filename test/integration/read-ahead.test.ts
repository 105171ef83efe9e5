import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import {
  applied,
  createDb,
  type Db,
  deleteItem,
  getItem,
  type ItemQuery,
  putItem,
  query,
  queryAll,
  type Read,
  readItems,
  storeOf,
  updateItem,
} from '#data/store';
import { ENGINE_NAME, startTestRuntime } from '../support/runtime.js';

/**
 * What a read-ahead answers and what still goes to DynamoDB, on a real engine: the requests that reach it are
 * counted where the client sends them.
 */
let runtime: LocalRuntime;
let db: Db;
const sent: Record<string, unknown>[] = [];

const PRESENT = { PK: 'AHEAD#1', SK: 'ITEM' };
const ABSENT = { PK: 'AHEAD#2', SK: 'ITEM' };
const OTHER = { PK: 'AHEAD#3', SK: 'ITEM' };
const LIST: ItemQuery = { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'AHEAD#1' } };

beforeAll(async () => {
  runtime = await startTestRuntime({ seed: false });
  db = createDb(runtime.tableName, runtime.dynamo);
  db.doc.middlewareStack.add(
    (next) => async (args) => {
      sent.push(args.input as Record<string, unknown>);
      return next(args);
    },
    { step: 'initialize', name: 'countSent' },
  );
  for (const [key, value] of [
    [PRESENT, 'one'],
    [OTHER, 'three'],
  ] as const) {
    await putItem(db, { Item: { ...key, value } });
  }
});
afterAll(async () => runtime?.stop());

/** The requests `read` sends, and what it gives. */
async function sending<T>(read: () => Promise<T>): Promise<{ calls: Record<string, unknown>[]; value: T }> {
  const before = sent.length;
  const value = await read();
  return { calls: sent.slice(before), value };
}

describe(`reads ahead on ${ENGINE_NAME}`, () => {
  it('reads the items in one BatchGetItem and starts the Queries beside it', async () => {
    const { calls } = await sending(() => storeOf(db, {}).preload([PRESENT, ABSENT, LIST]));
    expect(calls).toHaveLength(2);
    expect(calls.filter((c) => 'RequestItems' in c)).toHaveLength(1);
  });

  it('answers items from memory, an absent one as absent, whatever consistency is asked', async () => {
    const ahead = await aheadDb([PRESENT, ABSENT]);
    const { calls, value } = await sending(async () => [
      await getItem(ahead, PRESENT),
      await getItem(ahead, PRESENT, true),
      await getItem(ahead, ABSENT, true),
    ]);
    expect(calls).toHaveLength(0);
    expect(value.map((i) => i?.value ?? null)).toEqual(['one', 'one', null]);
  });

  it('sends only what was not read ahead: another item, the rest of a batch', async () => {
    const ahead = await aheadDb([PRESENT, ABSENT]);
    const one = await sending(() => getItem(ahead, OTHER));
    expect(one.calls).toHaveLength(1);
    expect(one.value?.value).toBe('three');
    const batch = await sending(() => readItems(ahead, [PRESENT, ABSENT, OTHER]));
    expect(batch.calls).toHaveLength(1);
    expect(JSON.stringify(batch.calls[0])).not.toContain('AHEAD#1');
    expect([...batch.value.values()].map((i) => i?.value ?? null)).toEqual(['one', null, 'three']);
  });

  it('answers a Query only when it is the very same input, consistency included', async () => {
    const ahead = await aheadDb([LIST]);
    const same = await sending(() => query(ahead, { ExpressionAttributeValues: { ':pk': 'AHEAD#1' }, KeyConditionExpression: 'PK = :pk' }));
    expect(same.calls).toHaveLength(0);
    expect(same.value.Items?.map((i) => i.value)).toEqual(['one']);
    expect((await sending(() => queryAll(ahead, LIST))).calls).toHaveLength(0);
    expect((await sending(() => query(ahead, { ...LIST, ConsistentRead: true }))).calls).toHaveLength(1);
    expect((await sending(() => query(ahead, { ...LIST, Limit: 1 }))).calls).toHaveLength(1);
  });

  it('never answers a write: each is sent, its condition judged and its answer given by the engine', async () => {
    const ahead = await aheadDb([PRESENT, ABSENT, OTHER]);
    // Changed after the read-ahead, as another request may: the writes below must see the engine's items.
    await putItem(db, { Item: { ...PRESENT, value: 'changed' } });
    await putItem(db, { Item: { ...ABSENT, value: 'two' } });
    const writes = await sending(async () => ({
      created: await applied(putItem(ahead, { Item: { ...ABSENT, value: 'mine' }, ConditionExpression: 'attribute_not_exists(PK)' })),
      old: (
        await updateItem(ahead, {
          Key: PRESENT,
          UpdateExpression: 'SET #v = :v',
          ExpressionAttributeNames: { '#v': 'value' },
          ExpressionAttributeValues: { ':v': 'uno' },
          ReturnValues: 'ALL_OLD',
        })
      ).Attributes?.value,
      deleted: (await deleteItem(ahead, { Key: OTHER, ReturnValues: 'ALL_OLD' })).Attributes?.value,
    }));
    expect(writes.calls).toHaveLength(3);
    expect(writes.value).toEqual({ created: false, old: 'changed', deleted: 'three' });
    const now = await readItems(db, [PRESENT, ABSENT, OTHER]);
    expect([...now.values()].map((i) => i?.value ?? null)).toEqual(['uno', 'two', null]);
  });
});

/** A Db that read these ahead, as the store's read-ahead builds it for its repositories. */
async function aheadDb(reads: readonly Read[]): Promise<Db> {
  return (await storeOf<{ db: Db }>(db, { db: (ahead) => ahead }).preload(reads)).db;
}
