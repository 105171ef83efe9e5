/** The table's one global secondary index: the name queries and IAM grants name it by, and the attributes of its keys. */
export const GSI1 = { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' } as const;

/**
 * The one table's key schema, declared once: the CDK `Table` and the local
 * `CreateTable` are both derived from it, so the two cannot drift.
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalIndexes: [GSI1],
  /** Epoch seconds; DynamoDB deletes lazily, so every read also checks expiry itself. */
  ttlAttribute: 'ttl',
} as const;
