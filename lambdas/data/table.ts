/**
 * The one table's key schema, declared once: the CDK `Table` and the local
 * `CreateTable` are both derived from it, so the two cannot drift.
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalIndexes: [{ indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' }],
  /** Epoch seconds; DynamoDB deletes lazily, so every read also checks expiry itself. */
  ttlAttribute: 'ttl',
} as const;

export type Key = { PK: string; SK: string };
