import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GSI3, TABLE_KEYS } from '#data/table';
import type { LocalRuntime } from '#local/runtime';
import { ensureTable } from '#local/provision';
import { LocalStartError } from '#local/start-checks';
import { ENGINE_NAME, startTestRuntime } from '../support/runtime.js';

/** A table an older checkout made, without an index declared since: npm start refuses it instead of failing a read later. */
let runtime: LocalRuntime;
const tableName = `customer-api-old-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(async () => {
  await runtime.dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  await runtime?.stop();
});

describe(`a kept table older than its indexes (${ENGINE_NAME})`, () => {
  it('is refused at start in one line naming the way out, and nothing in it changes', async () => {
    const older = TABLE_KEYS.globalIndexes.filter((g) => g.indexName !== GSI3.indexName);
    const keys = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...older.flatMap((g) => [g.partitionKey, g.sortKey])];
    await runtime.dynamo.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: older.map((g) => ({
          IndexName: g.indexName,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' },
            { AttributeName: g.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: g.projection },
        })),
      }),
    );
    const doc = DynamoDBDocumentClient.from(runtime.dynamo);
    const item = { PK: 'DELIVERY#dlv_old', SK: 'DELIVERY', [GSI3.partitionKey]: 'EVENT_DELIVERIES#evt_old', [GSI3.sortKey]: 'dlv_old' };
    await doc.send(new PutCommand({ TableName: tableName, Item: item }));

    // npm start says so in one line, and the table keeps what it held.
    await expect(ensureTable(runtime.dynamo, tableName)).rejects.toThrow(
      new LocalStartError(
        `the table ${tableName} was made before its index ${GSI3.indexName}: start with another --data folder (or move this one away; its data stays there), or --in-memory`,
      ),
    );
    expect((await doc.send(new GetCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }))).Item).toEqual(item);
    const { Table } = await runtime.dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    expect((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName).sort()).toEqual(older.map((g) => g.indexName).sort());
  });
});
