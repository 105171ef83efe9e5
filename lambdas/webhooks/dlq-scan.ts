import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Deps } from '#platform/deps';
import { parseDeliveryMessage, type DeliveryMessage } from './queue.js';

/** A DLQ message as a visit sees it; `message` is null for a body that is not a delivery message. */
export type DlqMessage = { messageId: string; message: DeliveryMessage | null };

export type ScanOptions = {
  /** Stop early once this holds for the messages deleted so far (a redrive that removed every copy it came for). */
  done?: (deleted: number) => boolean;
  /** Nominal seconds the pass may take; scaled like every other wait. */
  budgetSeconds: number;
};

/** Long-poll wait per receive, nominal seconds: long polls ask every SQS server, so an empty answer means empty. */
const POLL_SECONDS = 2;

/**
 * One pass over the DLQ: every message is visited once and deleted or kept.
 * Kept ones stay hidden until the pass ends (so no receive returns them
 * twice), then are handed back. The pass ends when `done` holds, or when a
 * long poll comes back empty and the queue reports no message outside this
 * pass's hands (none visible, none in flight elsewhere); short polls would
 * sample a few servers and may answer empty while messages remain.
 */
export async function scanDlq(deps: Deps, visit: (m: DlqMessage) => Promise<'delete' | 'keep'>, options: ScanOptions): Promise<number> {
  const url = deps.config.webhookDlqUrl;
  const scale = deps.config.webhookTimeScale;
  const waitSeconds = Math.max(1, Math.round(POLL_SECONDS * scale));
  const deadline = Date.now() + options.budgetSeconds * scale * 1000;
  const kept: string[] = [];
  const seen = new Set<string>();
  let deleted = 0;
  try {
    while (!options.done?.(deleted) && Date.now() < deadline) {
      const { Messages = [] } = await deps.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: waitSeconds,
          VisibilityTimeout: Math.ceil(options.budgetSeconds * scale) + waitSeconds + 1,
        }),
      );
      if (Messages.length === 0) {
        if (await nothingElseIn(deps, url, kept.length)) break;
        continue;
      }
      for (const m of Messages) {
        const messageId = m.MessageId!;
        const verdict = seen.has(messageId) ? 'keep' : await visit({ messageId, message: parseDeliveryMessage(m.Body ?? '') });
        seen.add(messageId);
        if (verdict === 'delete') {
          await deps.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
          deleted++;
        } else {
          kept.push(m.ReceiptHandle!);
        }
      }
    }
  } finally {
    for (const handle of kept) {
      await deps.sqs
        .send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: 0 }))
        .catch(() => undefined); // it comes back on its own when its visibility ends
    }
  }
  return deleted;
}

async function nothingElseIn(deps: Deps, url: string, heldByUs: number): Promise<boolean> {
  const { Attributes = {} } = await deps.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes.ApproximateNumberOfMessages ?? 0) === 0 && Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) <= heldByUs;
}
