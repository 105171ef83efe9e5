import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { TABLE_KEYS } from '#data/table';
import { FAN_OUT_QUEUES, WEBHOOK_QUEUES } from '#lambdas/webhooks/queues';
import { STOP_COMMAND_QUEUES } from '#lambdas/matriq/stop-queue';
import { LocalStartError } from './start-checks.js';

/**
 * Creates the table from the shared key schema when it is missing (the CDK `Table` uses the same schema); true
 * when it created it. A table an older checkout made (a data folder, an external engine) without an index declared
 * since is refused at start in one line: dynalite cannot add an index, and a refusal now beats a read failing
 * later on the missing index.
 * `expireItems: false` leaves TTL off: an engine's TTL judges by the machine's clock, so a runtime on a
 * clock moved by hand (tests) would see items deleted that its own time says are live. In AWS the clock is
 * real and deletion is only best-effort (typically within two days), so reads never depend on it.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, { expireItems = true } = {}): Promise<boolean> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName));
    const missing = GLOBAL_INDEXES.find((g) => !present.has(g.IndexName));
    if (missing)
      throw new LocalStartError(
        `the table ${tableName} was made before its index ${missing.IndexName}: start with another --data folder (or move this one away; its data stays there), or --in-memory`,
      );
    return false;
  } catch (err) {
    if ((err as Error).name !== 'ResourceNotFoundException') throw err;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: GLOBAL_INDEXES,
    }),
  );
  // The SDK's table waiter sleeps 20 s after a first look that finds the table still CREATING; the embedded
  // engine creates it in a moment but answers CREATING to about one describe in ten sent right after the create
  // (a cold npm start, every test runtime): poll briskly instead.
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 0.05, maxDelay: 1 }, { TableName: tableName });
  if (!expireItems) return true;
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite has no TTL; reads check expiry themselves, so nothing depends on deletion.
  }
  return true;
}

const ATTRIBUTES = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...TABLE_KEYS.globalIndexes.flatMap((g) => [g.partitionKey, g.sortKey])];
const GLOBAL_INDEXES: GlobalSecondaryIndex[] = TABLE_KEYS.globalIndexes.map((g) => ({
  IndexName: g.indexName,
  KeySchema: [
    { AttributeName: g.partitionKey, KeyType: 'HASH' },
    { AttributeName: g.sortKey, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: g.projection },
}));

export type QueueUrls = {
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  fanOutQueueUrl: string;
  fanOutDlqUrl: string;
  stopCommandQueueUrl: string;
  stopCommandDlqUrl: string;
};

/** Creates the webhook queues, the stop-command queue and their DLQs with the stack's redrive policies (idempotent). */
export async function ensureQueues(sqs: SQSClient, prefix: string): Promise<QueueUrls> {
  const pair = async (spec: typeof WEBHOOK_QUEUES | typeof FAN_OUT_QUEUES | typeof STOP_COMMAND_QUEUES) => {
    const dlq = await sqs.send(
      new CreateQueueCommand({
        QueueName: spec.dlqName(prefix),
        Attributes: { MessageRetentionPeriod: String(spec.dlqRetentionSeconds) },
      }),
    );
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }));
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: spec.queueName(prefix),
        Attributes: {
          VisibilityTimeout: String(spec.visibilityTimeoutSeconds),
          MessageRetentionPeriod: String(spec.retentionSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: String(spec.maxReceiveCount) }),
        },
      }),
    );
    return [queue.QueueUrl!, dlq.QueueUrl!] as const;
  };
  const [[webhookQueueUrl, webhookDlqUrl], [fanOutQueueUrl, fanOutDlqUrl], [stopCommandQueueUrl, stopCommandDlqUrl]] = await Promise.all([
    pair(WEBHOOK_QUEUES),
    pair(FAN_OUT_QUEUES),
    pair(STOP_COMMAND_QUEUES),
  ]);
  return { webhookQueueUrl, webhookDlqUrl, fanOutQueueUrl, fanOutDlqUrl, stopCommandQueueUrl, stopCommandDlqUrl };
}
