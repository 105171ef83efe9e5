import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_QUEUES } from '#lambdas/webhooks/queues';

export type WebhookQueuesProps = {
  /** Queue names are `<prefix>-webhooks` and `<prefix>-webhooks-dlq`, as locally. */
  namePrefix: string;
  /**
   * Keep the DLQ when the stack is deleted: its dead letters exist nowhere else. A later stack adopts it by its
   * fixed name (docs/operations.md, "A retained DLQ"). The queue itself goes: a delivery whose message vanished
   * is requeued from the table (docs/decisions/due-deliveries.md).
   */
  retainDeadLetters: boolean;
};

/** The webhook delivery queue and its DLQ, from the same WEBHOOK_QUEUES (derived from the delivery policy) the local SQS engine uses. */
export class WebhookQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: WebhookQueuesProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      queueName: WEBHOOK_QUEUES.dlqName(props.namePrefix),
      retentionPeriod: Duration.seconds(WEBHOOK_QUEUES.dlqRetentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.retainDeadLetters ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.queue = new Queue(this, 'Queue', {
      queueName: WEBHOOK_QUEUES.queueName(props.namePrefix),
      visibilityTimeout: Duration.seconds(WEBHOOK_QUEUES.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(WEBHOOK_QUEUES.retentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_QUEUES.maxReceiveCount },
    });
  }
}
