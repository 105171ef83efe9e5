import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Deps } from '../shared/deps.js';

/** One SQS message per delivery record; the record holds everything else (and no secret). */
export type DeliveryMessage = { deliveryId: string };

export async function enqueueDelivery(deps: Deps, deliveryId: string): Promise<void> {
  const body: DeliveryMessage = { deliveryId };
  await deps.sqs.send(new SendMessageCommand({ QueueUrl: deps.config.webhookQueueUrl, MessageBody: JSON.stringify(body) }));
}

export function parseDeliveryMessage(body: string): DeliveryMessage | null {
  try {
    const parsed = JSON.parse(body) as Partial<DeliveryMessage>;
    return typeof parsed.deliveryId === 'string' && /^dlv_[0-9a-f]{32}$/.test(parsed.deliveryId) ? { deliveryId: parsed.deliveryId } : null;
  } catch {
    return null;
  }
}

/** The retry wait is the message's visibility: SQS hands it back when the wait is over. */
export async function delayMessage(deps: Deps, receiptHandle: string, seconds: number): Promise<void> {
  await deps.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: deps.config.webhookQueueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
}
