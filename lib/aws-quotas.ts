import { PARTITION_WRITES_PER_SECOND } from '#data/table';

/**
 * AWS's published quotas that bound what a stage can serve, each with the page it comes from
 * (docs/capacity.md explains how the capacity model and the stages use them). `default` is what a new account in a
 * standard Region gets; an account's own value of the quotas in DECLARED_QUOTAS is declared per deployment.
 */
export type Quota = {
  what: string;
  default: number;
  /** AWS's published maximum, as AWS words it (null: AWS publishes none, or the quota cannot be raised). */
  max: string | null;
  source: string;
};

export const AWS_QUOTAS = {
  apiGatewayAccountRps: {
    what: 'API Gateway throttle per account and Region, all APIs together (requests a second)',
    default: 10_000,
    max: null,
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
  },
  apiGatewayAccountBurst: {
    what: "API Gateway account burst (the token bucket's size; AWS sets it from the rate, a customer cannot request it)",
    default: 5_000,
    max: null,
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
  },
  lambdaConcurrency: {
    what: 'Lambda concurrent executions per account and Region',
    default: 1_000,
    max: 'tens of thousands',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  lambdaUnreservedMinimum: {
    what: 'Lambda concurrent executions every account keeps unreserved (reservations may take the rest)',
    default: 100,
    max: '100 (fixed)',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html',
  },
  sqsEventSourceConcurrency: {
    what: "An SQS event source's maximum concurrency (and the batches it processes at once)",
    default: 1_000,
    max: '1,000 (fixed)',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html',
  },
  sqsEventSourceRampPerMinute: {
    what: 'Instances an SQS event source adds a minute while messages wait',
    default: 300,
    max: null,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html',
  },
  sqsInFlight: {
    what: 'In-flight messages of a standard queue (received, not yet deleted), approximately',
    default: 120_000,
    max: 'raised by a support request; no published maximum',
    source: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html',
  },
  dynamoTableReadUnits: {
    what: 'DynamoDB on-demand table-level read request units a second',
    default: 40_000,
    max: 'raised through Service Quotas; no published maximum',
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode-max-throughput.html',
  },
  dynamoTableWriteUnits: {
    what: 'DynamoDB on-demand table-level write request units a second',
    default: 40_000,
    max: 'raised through Service Quotas; no published maximum',
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode-max-throughput.html',
  },
  dynamoPartitionReadUnits: {
    what: 'DynamoDB read units a second of one partition (an item, or the items of one key range)',
    default: 3_000,
    max: '3,000 (fixed)',
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  dynamoPartitionWriteUnits: {
    what: 'DynamoDB write units a second of one partition',
    // Declared beside the key schema: the fan-out's write budget is a share of it.
    default: PARTITION_WRITES_PER_SECOND,
    max: '1,000 (fixed)',
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  dynamoNewTableReadUnits: {
    what: "A new on-demand table's warm read throughput (units a second it serves at once; more only by scaling or pre-warming)",
    default: 12_000,
    max: null,
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  dynamoNewTableWriteUnits: {
    what: "A new on-demand table's warm write throughput",
    default: 4_000,
    max: null,
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  sesSandboxPerDay: {
    what: 'SES messages per 24 hours in the sandbox (out of it: per account, by use case)',
    default: 200,
    max: 'out of the sandbox "varies based on your specific use case"',
    source: 'https://docs.aws.amazon.com/ses/latest/dg/quotas.html',
  },
  sesSandboxPerSecond: {
    what: 'SES messages a second in the sandbox',
    default: 1,
    max: 'out of the sandbox "varies based on your specific use case"',
    source: 'https://docs.aws.amazon.com/ses/latest/dg/quotas.html',
  },
} as const satisfies Record<string, Quota>;

export type QuotaName = keyof typeof AWS_QUOTAS;

/**
 * The account's quotas a stage must fit, each declared per deployment with `-c <key>=<value>` and AWS's default
 * when not: `stageConfig` refuses a stage that would pass one before CloudFormation runs (docs/operations.md,
 * "Account quotas", gives the commands that read the account's values).
 */
export const DECLARED_QUOTAS = {
  tableReadQuota: 'dynamoTableReadUnits',
  tableWriteQuota: 'dynamoTableWriteUnits',
  apiThrottleQuota: 'apiGatewayAccountRps',
  lambdaConcurrencyQuota: 'lambdaConcurrency',
} as const satisfies Record<string, QuotaName>;
export type DeclaredQuotaKey = keyof typeof DECLARED_QUOTAS;
export const DECLARED_QUOTA_KEYS = Object.keys(DECLARED_QUOTAS) as DeclaredQuotaKey[];
/** The values a deployment declares (or AWS's defaults), by context key. */
export type AccountQuotas = Record<DeclaredQuotaKey, number>;

export const AWS_DEFAULT_QUOTAS = Object.fromEntries(
  DECLARED_QUOTA_KEYS.map((key) => [key, AWS_QUOTAS[DECLARED_QUOTAS[key]].default]),
) as AccountQuotas;
