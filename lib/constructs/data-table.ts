import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLE_KEYS } from '#data/table';

export type DataTableProps = {
  /** Prod keeps the table (RETAIN + deletion protection); dev tears it down with the stack. */
  retain: boolean;
  /**
   * Units a second the table serves from the start (pre-warming, billed); absent: a new on-demand table's.
   * ONE-WAY: once deployed, DynamoDB never lowers it, and removing it here does not either.
   */
  warmThroughput?: { readUnitsPerSecond: number; writeUnitsPerSecond: number };
};

/** The service's one table, derived from TABLE_KEYS exactly as the local CreateTable is. */
export class DataTable extends Table {
  constructor(scope: Construct, id: string, props: DataTableProps) {
    super(scope, id, {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      deletionProtection: props.retain,
      // ONE-WAY: pre-warming can be raised later, never lowered (docs/capacity.md, "Warm throughput").
      ...(props.warmThroughput ? { warmThroughput: props.warmThroughput } : {}),
    });
    for (const index of TABLE_KEYS.globalIndexes) {
      this.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        // As declared, and as the local CreateTable projects it.
        projectionType: ProjectionType[index.projection],
      });
    }
  }
}
