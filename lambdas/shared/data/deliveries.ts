import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, queryAll, type Db } from './db.js';

export type DeliveryStatus = 'PENDING' | 'DELIVERING' | 'RETRY_PENDING' | 'SUCCEEDED' | 'FAILED' | 'DEAD_LETTER';
export type EventType = 'bevq.menu.updated' | 'customer_api.webhook.test';

/** One event for one destination: created once per (eventId, destinationId), carried by one SQS message. */
export type Delivery = {
  deliveryId: string;
  eventId: string;
  eventType: EventType;
  destinationId: string;
  destinationHost: string;
  clientId: string;
  groupId: string;
  locationId: string;
  /** The exact payload sent on every attempt (only the timestamp and signature are fresh). */
  body: string;
  status: DeliveryStatus;
  /** Attempts made so far (the SQS receive count of the current message). */
  attempts: number;
  /** Nominal waits chosen after each retryable failure, seconds. */
  backoffHistory: number[];
  lastErrorCode: string | null;
  lastHttpStatus: number | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  completedAt: string | null;
  redrives: number;
  createdAt: string;
  updatedAt: string;
};

const RETENTION_SECONDS = 30 * 24 * 3600;

export const deliveryKeys = {
  delivery: (id: string) => ({ PK: `DELIVERY#${id}`, SK: 'DELIVERY' }),
  /** GSI1 partition of one destination's deliveries, newest last. */
  ofDestination: (destinationId: string) => `DEST_DELIVERIES#${destinationId}`,
  /** A small marker per dead-lettered delivery, listed by ops. */
  deadLetter: (id: string) => ({ PK: `DEAD_LETTER#${id}`, SK: 'DEAD_LETTER' }),
  deadLetters: 'DEAD_LETTERS',
};

export function deliveriesRepo({ doc, tableName }: Db) {
  const item = (d: Delivery) => ({
    ...deliveryKeys.delivery(d.deliveryId),
    GSI1PK: deliveryKeys.ofDestination(d.destinationId),
    GSI1SK: `${d.createdAt}#${d.deliveryId}`,
    ...d,
    // History only: kept 30 days after its last change (longer than the DLQ's 14-day retention).
    ttl: Math.floor(Date.parse(d.updatedAt) / 1000) + RETENTION_SECONDS,
  });
  return {
    async get(id: string): Promise<Delivery | null> {
      const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: deliveryKeys.delivery(id) }));
      return Item ? toDelivery(Item) : null;
    },
    /** Creates the record once; false when it already exists (a re-dispatch). */
    async create(d: Delivery): Promise<boolean> {
      try {
        await doc.send(new PutCommand({ TableName: tableName, Item: item(d), ConditionExpression: 'attribute_not_exists(PK)' }));
        return true;
      } catch (err) {
        if (isConditionFailure(err)) return false;
        throw err;
      }
    },
    async save(d: Delivery): Promise<void> {
      await doc.send(new PutCommand({ TableName: tableName, Item: item(d) }));
    },
    /** The newest `limit` deliveries of a destination, newest first. */
    async recent(destinationId: string, limit: number): Promise<Delivery[]> {
      const { Items } = await doc.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': deliveryKeys.ofDestination(destinationId) },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (Items ?? []).map(toDelivery);
    },
    async markDeadLetter(d: Delivery): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...deliveryKeys.deadLetter(d.deliveryId),
            GSI1PK: deliveryKeys.deadLetters,
            GSI1SK: `${d.updatedAt}#${d.deliveryId}`,
            deliveryId: d.deliveryId,
          },
        }),
      );
    },
    async unmarkDeadLetter(id: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: deliveryKeys.deadLetter(id) }));
    },
    /** Ids of dead-lettered deliveries, oldest first. */
    async deadLetterIds(): Promise<string[]> {
      const items = await queryAll(doc, {
        TableName: tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': deliveryKeys.deadLetters },
      });
      return items.map((i) => String(i.deliveryId));
    },
  };
}

function toDelivery(item: Record<string, unknown>): Delivery {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, ttl: _ttl, ...delivery } = item;
  return delivery as Delivery;
}
