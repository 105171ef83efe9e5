import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, MetricFilter, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { WEBHOOK_QUEUES } from '../../lambdas/shared/queues.js';
import { FamilyFunction, type DynamoAction, type TableIndexName } from './family-function.js';
import type { WebhookQueues } from './webhook-queues.js';

/** The non-HTTP webhook functions: declared once, like FAMILY_INFRA, with exactly what each needs. */
export const WEBHOOK_FUNCTIONS = {
  /** The ingest path: writes a rebuilt menu, then fans its event out (SendMessage). */
  'webhook-dispatcher': {
    entry: 'webhooks/dispatcher.ts',
    tableActions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
    queriedIndexes: ['GSI1'],
    memorySize: 512,
  },
  /** SQS consumer: one attempt per record; retries through the message's visibility. */
  'webhook-deliverer': {
    entry: 'webhooks/deliverer.ts',
    tableActions: ['GetItem', 'PutItem', 'UpdateItem'],
    queriedIndexes: [],
    memorySize: 512,
  },
  /** Schedule: re-dispatches menu events left pending (the outbox's safety net). */
  'webhook-sweeper': {
    entry: 'webhooks/sweeper.ts',
    tableActions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
    queriedIndexes: ['GSI1'],
    memorySize: 512,
  },
} as const satisfies Record<string, { entry: string; tableActions: readonly DynamoAction[]; queriedIndexes: readonly TableIndexName[]; memorySize: number }>;

export type WebhookFunctionName = keyof typeof WEBHOOK_FUNCTIONS;

export type WebhookFunctionsProps = {
  table: ITable;
  queues: WebhookQueues;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
};

/**
 * Dispatcher, deliverer and sweeper with least-privilege grants, the SQS
 * event source (partial batch failures), the sweeper's schedule, and an
 * alarm on delivery failures (the DLQ-depth alarm sits with the queues).
 */
export class WebhookFunctions extends Construct {
  readonly functions: Record<WebhookFunctionName, FamilyFunction>;
  readonly deliveryFailureAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WebhookFunctionsProps) {
    super(scope, id);
    const make = (name: WebhookFunctionName) => {
      const infra = WEBHOOK_FUNCTIONS[name];
      const fn = new FamilyFunction(this, pascal(name), {
        family: name,
        entry: infra.entry,
        memorySize: infra.memorySize,
        logRetention: props.logRetention,
        removalPolicy: props.removalPolicy,
        environment: props.environment,
      });
      fn.bindTable(props.table, infra.tableActions, infra.queriedIndexes);
      return fn;
    };
    const dispatcher = make('webhook-dispatcher');
    const deliverer = make('webhook-deliverer');
    const sweeper = make('webhook-sweeper');
    this.functions = { 'webhook-dispatcher': dispatcher, 'webhook-deliverer': deliverer, 'webhook-sweeper': sweeper };

    props.queues.queue.grantSendMessages(dispatcher);
    props.queues.queue.grantSendMessages(sweeper);
    // Receive, delete, ChangeMessageVisibility and GetQueueAttributes on this queue only.
    deliverer.addEventSource(
      new SqsEventSource(props.queues.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxBatchingWindow: Duration.seconds(1),
      }),
    );
    // A batch of ten 10 s attempts must finish inside the queue's visibility timeout.
    if (WEBHOOK_QUEUES.visibilityTimeoutSeconds < 6 * 10) throw new Error('webhook queue visibility too short for the deliverer');

    new Rule(this, 'SweeperSchedule', {
      description: 'Re-dispatch menu events left pending between the menu write and the enqueue',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(sweeper, { retryAttempts: 2 })],
    });

    // Permanent failures and dead letters, counted from the deliverer's structured log line.
    const metric = new MetricFilter(this, 'DeliveryFailures', {
      logGroup: deliverer.logGroup,
      metricNamespace: 'CustomerApi/Webhooks',
      metricName: 'DeliveryFailures',
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.message', '=', 'webhook attempt'),
        FilterPattern.any(FilterPattern.stringValue('$.status', '=', 'FAILED'), FilterPattern.stringValue('$.status', '=', 'DEAD_LETTER')),
      ),
      metricValue: '1',
      defaultValue: 0,
    }).metric({ statistic: 'Sum', period: Duration.minutes(5) });
    this.deliveryFailureAlarm = new Alarm(this, 'DeliveryFailureAlarm', {
      alarmDescription: 'Webhook deliveries are failing permanently or dead-lettering: check destination health and the DLQ.',
      metric,
      threshold: 5,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    new Alarm(this, 'DelivererErrorAlarm', {
      alarmDescription: 'The webhook deliverer itself is failing (not a receiver): batches return to the queue.',
      metric: deliverer.metricErrors({ period: Duration.minutes(5) }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}

function pascal(name: string): string {
  return name.replace(/(^|[-_])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());
}
