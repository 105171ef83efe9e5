import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { checkRequest } from './item-limits.js';

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
  doc.middlewareStack.add((next) => async (args) => {
    checkRequest(args.input as Record<string, unknown>);
    return next(args);
  }, { step: 'build', name: 'dynamoDbStorageLimits', override: true });
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
      pending = (await doc.send(new BatchWriteCommand({ RequestItems: pending as never }))).UnprocessedItems as Record<string, unknown[]> | undefined;
    }
  }
}
