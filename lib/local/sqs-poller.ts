import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export type PollerOptions = {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsHandler;
  logger: Logger;
  batchSize?: number;
  /** Pause after an empty receive. */
  idleMs?: number;
};

/**
 * Plays the Lambda SQS event source mapping with reportBatchItemFailures:
 * receive a batch, invoke the handler with an SQSEvent, delete what
 * succeeded, leave the reported failures (and everything, if the handler
 * throws) to come back when their visibility ends.
 */
export function startSqsPoller(options: PollerOptions): { stop(): Promise<void> } {
  const { sqs, queueUrl, handler, logger } = options;
  let stopped = false;
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = (async () => {
    while (!stopped) {
      try {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: options.batchSize ?? 10,
            WaitTimeSeconds: 0,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (Messages.length === 0) {
          await pause(options.idleMs ?? 50);
          continue;
        }
        const records: SQSRecord[] = Messages.map((m) => ({
          messageId: m.MessageId!,
          receiptHandle: m.ReceiptHandle!,
          body: m.Body ?? '',
          attributes: {
            ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
            SentTimestamp: m.Attributes?.SentTimestamp ?? '0',
            SenderId: m.Attributes?.SenderId ?? 'local',
            ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? '0',
          },
          messageAttributes: {},
          md5OfBody: m.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: options.queueArn,
          awsRegion: 'us-east-1',
        }));
        let failed: Set<string>;
        try {
          const response = await handler({ Records: records }, { awsRequestId: `local-${Date.now()}` } as Context);
          failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        } catch (err) {
          logger.error('SQS handler failed; the whole batch returns', { error: (err as Error).message });
          failed = new Set(records.map((r) => r.messageId));
        }
        const done = records.filter((r) => !failed.has(r.messageId));
        if (done.length) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
            }),
          );
        }
      } catch (err) {
        if (stopped) break;
        logger.error('SQS poll failed', { error: (err as Error).message });
        await pause(500);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      (wake as (() => void) | null)?.();
      await loop;
    },
  };
}
