import type { MessagingDeps } from '#platform/deps';
import { parseQueueMessage, type DeliveryMessage } from './queue.js';

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
export async function scanDlq(deps: MessagingDeps, visit: (m: DlqMessage) => Promise<'delete' | 'keep'>, options: ScanOptions): Promise<number> {
  const { dlq } = deps.queue;
  const scale = deps.config.webhookTimeScale;
  const waitSeconds = Math.max(1, Math.round(POLL_SECONDS * scale));
  const deadline = Date.now() + options.budgetSeconds * scale * 1000;
  const kept: string[] = [];
  const seen = new Set<string>();
  let deleted = 0;
  try {
    while (!options.done?.(deleted) && Date.now() < deadline) {
      // Never waiting past the budget: a pass inside an invocation (a redrive page) must end in its time.
      const wait = Math.max(0, Math.min(waitSeconds, Math.floor((deadline - Date.now()) / 1000)));
      const messages = await dlq.receive({
        waitSeconds: wait,
        hideSeconds: Math.ceil(options.budgetSeconds * scale) + waitSeconds + 1,
      });
      if (messages.length === 0) {
        const depth = await dlq.depth();
        if (depth.visible === 0 && depth.inFlight <= kept.length) break;
        continue;
      }
      for (const m of messages) {
        const message = parseQueueMessage(m.body);
        // A wake-up (a fan-out page, a release of held deliveries): its entry or marker stays, and the sweeper goes on from there.
        const wakeUp = message?.kind === 'dispatch' || message?.kind === 'release';
        const verdict = seen.has(m.messageId) ? 'keep' : wakeUp ? 'delete' : await visit({ messageId: m.messageId, message: message?.kind === 'delivery' ? message : null });
        seen.add(m.messageId);
        if (verdict === 'delete') {
          await dlq.delete(m.receiptHandle);
          deleted++;
        } else {
          kept.push(m.receiptHandle);
        }
      }
    }
  } finally {
    for (const handle of kept) {
      await dlq.release(handle).catch(() => undefined); // it comes back on its own when its visibility ends
    }
  }
  return deleted;
}
