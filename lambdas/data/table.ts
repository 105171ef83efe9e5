/** The table's general-purpose global secondary index: the name queries and IAM grants name it by, and the attributes of its keys. */
export const GSI1 = { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' } as const;

/**
 * The due deliveries' index (docs/decisions/due-deliveries.md): sparse, since only a delivery still waiting on its
 * message carries its keys, and keys only, since the sweeper reads each record itself, strongly consistent.
 */
export const GSI2 = { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: 'KEYS_ONLY' } as const;

/**
 * A delivery by its event (docs/decisions/delivery-timeline.md): keys only, set when the record is created and
 * never changed, so the index is written once per delivery (an entry under 1 KB: one unit), never again by an
 * attempt (no key or projected attribute changes); the capacity model bounds its writes by that.
 */
export const GSI3 = {
  indexName: 'GSI3',
  partitionKey: 'GSI3PK',
  sortKey: 'GSI3SK',
  projection: 'KEYS_ONLY',
  writeUnitsPerDelivery: 1,
} as const;

/**
 * The one table's key schema, declared once: the CDK `Table` and the local
 * `CreateTable` are both derived from it, so the two cannot drift.
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalIndexes: [GSI1, GSI2, GSI3],
  /** Epoch seconds; DynamoDB deletes lazily, so every read also checks expiry itself. */
  ttlAttribute: 'ttl',
} as const;

/**
 * What one partition takes, in the table or in a GSI: at most 1,000 write units a second (a write of up to 1 KB
 * is one unit; https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html).
 */
export const PARTITION_WRITES_PER_SECOND = 1_000;
