import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FAN_OUT_QUEUES, WEBHOOK_QUEUES } from '#lambdas/webhooks/queues';

export type WebhookQueuesProps = {
  /** Queue names are `<prefix>-webhooks`, `<prefix>-webhooks-fanout` and their `-dlq`s, as locally. */
  namePrefix: string;
  /**
   * Keep the delivery DLQ when the stack is deleted: its dead letters exist nowhere else. A later stack adopts it by
   * its fixed name (docs/operations.md, "A retained DLQ"). The queues themselves go: a delivery whose message
   * vanished is requeued from the table (docs/decisions/due-deliveries.md), a fan-out resumed from its outbox entry
   * or paused marker, so the fan-out DLQ holds nothing that exists nowhere else either.
   */
  retainDeadLetters: boolean;
};

/** What a queue and its DLQ are made from: their names, the queue's visibility and both retentions, the redrive's receives. */
export type QueueSpec = {
  queueName(prefix: string): string;
  dlqName(prefix: string): string;
  visibilityTimeoutSeconds: number;
  retentionSeconds: number;
  dlqRetentionSeconds: number;
  maxReceiveCount: number;
};

/** A queue and its DLQ (SSE-SQS, TLS only), the queue's redrive policy sending a message there after `maxReceiveCount` receives. */
export function queuePair(scope: Construct, ids: [string, string], spec: QueueSpec, namePrefix: string, dlqRemoval: RemovalPolicy) {
  const dlq = new Queue(scope, ids[1], {
    queueName: spec.dlqName(namePrefix),
    retentionPeriod: Duration.seconds(spec.dlqRetentionSeconds),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    removalPolicy: dlqRemoval,
  });
  const queue = new Queue(scope, ids[0], {
    queueName: spec.queueName(namePrefix),
    visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
    retentionPeriod: Duration.seconds(spec.retentionSeconds),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: dlq, maxReceiveCount: spec.maxReceiveCount },
  });
  return [queue, dlq] as const;
}

/**
 * The delivery queue and the fan-out queue, each with its DLQ and redrive policy, from the same WEBHOOK_QUEUES and
 * FAN_OUT_QUEUES the local SQS engine uses.
 */
export class WebhookQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly fanOutQueue: Queue;
  readonly fanOutDeadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: WebhookQueuesProps) {
    super(scope, id);
    const pair = (ids: [string, string], spec: typeof WEBHOOK_QUEUES | typeof FAN_OUT_QUEUES, dlqRemoval: RemovalPolicy) =>
      queuePair(this, ids, spec, props.namePrefix, dlqRemoval);
    [this.queue, this.deadLetterQueue] = pair(
      ['Queue', 'DeadLetterQueue'],
      WEBHOOK_QUEUES,
      props.retainDeadLetters ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    );
    [this.fanOutQueue, this.fanOutDeadLetterQueue] = pair(['FanOutQueue', 'FanOutDeadLetterQueue'], FAN_OUT_QUEUES, RemovalPolicy.DESTROY);
  }
}
