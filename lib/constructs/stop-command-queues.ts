import { RemovalPolicy } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STOP_COMMAND_QUEUES } from '#lambdas/matriq/stop-queue';
import { queuePair } from './webhook-queues.js';

/**
 * The stop-command queue the device platform consumes (docs/decisions/matriq.md, "How a stop reaches the gateway")
 * and its DLQ, from the same STOP_COMMAND_QUEUES the local SQS engine uses: `<prefix>-stop-commands` and
 * `<prefix>-stop-commands-dlq`. Neither is retained: every command is in the table, and one still queued is sent
 * again by the sweeper.
 */
export class StopCommandQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: { namePrefix: string }) {
    super(scope, id);
    [this.queue, this.deadLetterQueue] = queuePair(
      this,
      ['Queue', 'DeadLetterQueue'],
      STOP_COMMAND_QUEUES,
      props.namePrefix,
      RemovalPolicy.DESTROY,
    );
  }
}
