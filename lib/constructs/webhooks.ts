import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, MetricFilter, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DELIVERY_POLICY, STATUS } from '#lambdas/webhooks/delivery-policy';
import { FAN_OUT_QUEUES } from '#lambdas/webhooks/queues';
import { FUNCTIONS, timeoutSecondsOf, type FunctionSpec, type WebhookFunctionName } from '../functions.js';
import { pascal, ServiceFunction } from './service-function.js';
import type { WebhookQueues } from './webhook-queues.js';

export type WebhookFunctionsProps = {
  table: ITable;
  queues: WebhookQueues;
  /** Sender of the owner mail the sweeper sends. */
  mailFrom: string;
  /** The SES configuration set that mail is sent with (MailEvents). */
  mailConfigurationSet: string;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  /** Lambda active tracing (the stage's setting). */
  tracing: boolean;
  /** The stage's deliverer concurrency: the event source's maximum and the deliverer's reservation. */
  delivererConcurrency: number;
};

/**
 * Dispatcher, deliverer and sweeper with least-privilege grants, the two SQS event sources (partial batch
 * failures): the deliverer's on the delivery queue (batch size, concurrency and its timeout from the delivery
 * policy), the dispatcher's on the fan-out queue (FAN_OUT_QUEUES); the sweeper's schedule, and the count of
 * delivery failures its alarm watches (lib/constructs/alarms.ts).
 */
export class WebhookFunctions extends Construct {
  readonly functions: Record<WebhookFunctionName, ServiceFunction>;
  /** Deliveries ending FAILED or DEAD_LETTER, from the deliverer's attempt lines (ServiceAlarms alarms on it). */
  readonly deliveryFailures: IMetric;

  constructor(scope: Construct, id: string, props: WebhookFunctionsProps) {
    super(scope, id);
    const make = (name: WebhookFunctionName) => {
      const infra: FunctionSpec = FUNCTIONS[name];
      const fn = new ServiceFunction(this, pascal(name), {
        family: name,
        entry: infra.entry,
        memorySize: infra.memorySize,
        timeoutSeconds: timeoutSecondsOf(name),
        // The deliverer reserves its event source's maximum: a burst elsewhere in the account cannot throttle it, and
        // throttled receives never spend the queue's receive headroom (AWS: keep the maximum at most the reservation).
        reservedConcurrency: name === 'webhook-deliverer' ? props.delivererConcurrency : infra.reservedConcurrency,
        logRetention: props.logRetention,
        removalPolicy: props.removalPolicy,
        tracing: props.tracing,
        environment: props.environment,
      });
      fn.bindTable(props.table, infra.tableActions, infra.queriedIndexes);
      if (infra.sendsMail) fn.bindMailer(props.mailFrom, props.mailConfigurationSet);
      return fn;
    };
    const dispatcher = make('webhook-dispatcher');
    const deliverer = make('webhook-deliverer');
    const sweeper = make('webhook-sweeper');
    this.functions = { 'webhook-dispatcher': dispatcher, 'webhook-deliverer': deliverer, 'webhook-sweeper': sweeper };

    const { queue, deadLetterQueue, fanOutQueue } = props.queues;
    // Deliveries: the dispatcher's pages, the sweeper's requeues. Wake-ups: the dispatcher's next page, the sweeper's
    // and the deliverer's releases. The deliverer sends no delivery.
    for (const fn of [dispatcher, sweeper]) queue.grantSendMessages(fn);
    for (const fn of [dispatcher, sweeper, deliverer]) fanOutQueue.grantSendMessages(fn);
    // The sweeper reads the DLQ (and deletes copies a redrive left behind) so every message there is listed.
    deadLetterQueue.grantConsumeMessages(sweeper);
    // Each event source grants Receive, Delete, ChangeMessageVisibility and GetQueueAttributes on its queue only.
    deliverer.live.addEventSource(
      new SqsEventSource(queue, {
        batchSize: DELIVERY_POLICY.batchSize,
        maxConcurrency: props.delivererConcurrency,
        reportBatchItemFailures: true,
        maxBatchingWindow: Duration.seconds(DELIVERY_POLICY.batchingWindowSeconds),
      }),
    );
    dispatcher.live.addEventSource(
      new SqsEventSource(fanOutQueue, {
        batchSize: FAN_OUT_QUEUES.batchSize,
        maxConcurrency: FAN_OUT_QUEUES.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    // A missed or failed run is the next minute's work: no retries, which could only throttle against the sweeper's
    // small reservation (and page), and no event older than one schedule period.
    const sweepEvery = Duration.minutes(1);
    new Rule(this, 'SweeperSchedule', {
      description: 'Re-dispatch menu events left pending, list every DLQ message, send queued owner mail',
      schedule: Schedule.rate(sweepEvery),
      targets: [new LambdaFunction(sweeper.live, { retryAttempts: 0 })],
    });
    sweeper.live.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: sweepEvery });

    // Permanent failures and dead letters, counted from the deliverer's structured log line.
    this.deliveryFailures = new MetricFilter(this, 'DeliveryFailures', {
      logGroup: deliverer.logGroup,
      metricNamespace: 'CustomerApi/Webhooks',
      metricName: 'DeliveryFailures',
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.message', '=', 'webhook attempt'),
        FilterPattern.any(
          FilterPattern.stringValue('$.status', '=', STATUS.FAILED),
          FilterPattern.stringValue('$.status', '=', STATUS.DEAD_LETTER),
        ),
      ),
      metricValue: '1',
      defaultValue: 0,
    }).metric({ statistic: 'Sum', period: Duration.minutes(5) });
  }
}
