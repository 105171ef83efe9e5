import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import type { WebhookQueue } from './queue.js';

export type { SQSClient };

/** The one place in lambdas/ that builds an SQS client; endpoints and credentials as for every AWS client. */
export function sqsClient(config: SQSClientConfig = {}): SQSClient {
  return new SQSClient(config);
}

/** SendMessageBatch's limit of entries per request. */
const SEND_BATCH = 10;
const SEND_RETRIES = 3;

/** The WebhookQueue over SQS. */
export function sqsWebhookQueue(
  sqs: SQSClient,
  { webhookQueueUrl, webhookDlqUrl }: { webhookQueueUrl: string; webhookDlqUrl: string },
): WebhookQueue {
  const setVisibility = async (QueueUrl: string, ReceiptHandle: string, VisibilityTimeout: number) => {
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle, VisibilityTimeout }));
  };
  return {
    async send(body) {
      const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl: webhookQueueUrl, MessageBody: body }));
      return MessageId!;
    },
    /**
     * SendMessageBatch, 10 entries a request (SQS's limit; bodies here are
     * far below its 256 KB a request), the requests in parallel. Entries SQS
     * reports failed are sent again, a bounded number of times.
     */
    async sendAll(bodies) {
      const ids = new Array<string>(bodies.length);
      const batches: number[][] = [];
      for (let i = 0; i < bodies.length; i += SEND_BATCH) batches.push(bodies.slice(i, i + SEND_BATCH).map((_, k) => i + k));
      await Promise.all(
        batches.map(async (batch) => {
          let pending = batch;
          for (let attempt = 0; pending.length > 0; attempt++) {
            if (attempt > SEND_RETRIES) throw new Error(`SendMessageBatch left ${pending.length} messages unsent after retries`);
            const { Successful = [] } = await sqs.send(
              new SendMessageBatchCommand({
                QueueUrl: webhookQueueUrl,
                Entries: pending.map((index) => ({ Id: String(index), MessageBody: bodies[index]! })),
              }),
            );
            for (const sent of Successful) ids[Number(sent.Id)] = sent.MessageId!;
            pending = pending.filter((index) => ids[index] === undefined);
          }
        }),
      );
      return ids;
    },
    delay: (receiptHandle, seconds) => setVisibility(webhookQueueUrl, receiptHandle, seconds),
    dlq: {
      async receive({ waitSeconds, hideSeconds }) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: webhookDlqUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: waitSeconds,
            VisibilityTimeout: hideSeconds,
          }),
        );
        return Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body ?? '', receiptHandle: m.ReceiptHandle! }));
      },
      async delete(receiptHandle) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl: webhookDlqUrl, ReceiptHandle: receiptHandle }));
      },
      release: (receiptHandle) => setVisibility(webhookDlqUrl, receiptHandle, 0),
      async depth() {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: webhookDlqUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return {
          visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
          inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
        };
      },
    },
  };
}
