import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, MetricFilter, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DELIVERY_POLICY, STATUS } from '#lambdas/webhooks/delivery-policy';
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
 * Dispatcher, deliverer and sweeper with least-privilege grants, the SQS
 * event source (partial batch failures; batch size, concurrency and the
 * deliverer's timeout from the delivery policy), the sweeper's schedule, and
 * the count of delivery failures its alarm watches (lib/constructs/alarms.ts).
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

    props.queues.queue.grantSendMessages(dispatcher);
    props.queues.queue.grantSendMessages(sweeper);
    // A deliverer that dispatches a fan-out page queues that page's deliveries and the wake-up for the next.
    props.queues.queue.grantSendMessages(deliverer);
    // The sweeper reads the DLQ (and deletes copies a redrive left behind) so every message there is listed.
    props.queues.deadLetterQueue.grantConsumeMessages(sweeper);
    // Receive, delete, ChangeMessageVisibility and GetQueueAttributes on this queue only; sizes from the delivery policy.
    deliverer.live.addEventSource(
      new SqsEventSource(props.queues.queue, {
        batchSize: DELIVERY_POLICY.batchSize,
        maxConcurrency: props.delivererConcurrency,
        reportBatchItemFailures: true,
        maxBatchingWindow: Duration.seconds(DELIVERY_POLICY.batchingWindowSeconds),
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
