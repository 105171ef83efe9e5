import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import type { WebhookQueue } from './webhook-queue.js';

export type { SQSClient };

/** The one place in lambdas/ that builds an SQS client; endpoints and credentials as for every AWS client. */
export function sqsClient(config: SQSClientConfig = {}): SQSClient {
  return new SQSClient(config);
}

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
