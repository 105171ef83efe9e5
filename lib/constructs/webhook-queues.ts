import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_QUEUES } from '#contract/queues';

export type WebhookQueuesProps = {
  /** Queue names are `<prefix>-webhooks` and `<prefix>-webhooks-dlq`, as locally. */
  namePrefix: string;
};

/** The webhook delivery queue and its DLQ, from the same WEBHOOK_QUEUES (derived from the delivery policy) the local SQS engine uses. */
export class WebhookQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** Fires when any message reaches the DLQ: the policy's attempts spent, or receives spent without them (`dlq list` says which). */
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WebhookQueuesProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      queueName: WEBHOOK_QUEUES.dlqName(props.namePrefix),
      retentionPeriod: Duration.seconds(WEBHOOK_QUEUES.dlqRetentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      queueName: WEBHOOK_QUEUES.queueName(props.namePrefix),
      visibilityTimeout: Duration.seconds(WEBHOOK_QUEUES.visibilityTimeoutSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_QUEUES.maxReceiveCount },
    });
    this.deadLetterAlarm = new Alarm(this, 'DeadLetterAlarm', {
      alarmDescription: `Webhook deliveries gave up and wait in ${WEBHOOK_QUEUES.dlqName(props.namePrefix)}: inspect, then redrive or purge.`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // SQS stops publishing metrics for idle queues; silence means empty.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
