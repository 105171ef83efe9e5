import { markerOf, type DeadLetterMarker } from '#data/deliveries';
import type { MessagingDeps } from '#platform/deps';
import { count } from '#platform/observability';
import { DLQ_PASS_SECONDS, WEBHOOK_QUEUES } from '#contract/queues';
import * as state from './delivery-state.js';
import { scanDlq, type DlqMessage } from './dlq-scan.js';
import { noticeDeadLetter } from './owner-notices.js';

export type Reconciled = { stranded: number; relisted: number; removed: number };

/**
 * The sweeper's pass over the DLQ, so that every message there is listed
 * with its reason, whatever moved it: a spent delivery (DEAD_LETTER) is
 * listed by the deliverer, and relisted here if that write was lost; a
 * delivery whose receives ran out before its attempts (throttles, crashes,
 * timeouts) keeps its status and is marked `receives_exhausted`; a message
 * without a record is listed as `record_missing`. Copies that are no longer
 * the delivery's carrier (left behind by a redrive, orphaned by a redrive that
 * failed half-way, or duplicates) and copies of finished deliveries are deleted.
 */
export async function reconcileDlq(deps: MessagingDeps): Promise<Reconciled> {
  const { store, clock, logger } = deps;
  const result: Reconciled = { stranded: 0, relisted: 0, removed: 0 };
  // One read per message visited (the pass has a time budget), never a read of every marker.
  const list = async (marker: DeadLetterMarker, expiresAtSeconds?: number) => {
    if (await store.deliveries.isDeadLetter(marker.deliveryId, Math.floor(clock.now() / 1000))) return;
    await store.deliveries.markDeadLetter(marker, expiresAtSeconds);
    result.relisted++;
  };

  const visit = async ({ messageId, message }: DlqMessage): Promise<'delete' | 'keep'> => {
    if (!message) {
      logger.error('DLQ message is not a delivery', { messageId });
      return 'keep';
    }
    const { deliveryId, redrive } = message;
    const d = await store.deliveries.get(deliveryId);
    const now = clock.now();
    if (!d) {
      logger.error('DLQ message without a delivery record', { deliveryId });
      await list(missingMarker(deliveryId, now), Math.floor(now / 1000) + WEBHOOK_QUEUES.dlqRetentionSeconds);
      return 'keep';
    }
    const stale = redrive !== d.redrives || (d.carrier !== null && d.carrier !== messageId);
    if (stale || d.status === 'SUCCEEDED' || d.status === 'FAILED') return 'delete';
    if (d.deadLetterReason) {
      await list(markerOf(d, d.deadLetterReason));
      return 'keep';
    }
    const stranded = await store.deliveries.write(state.strand(d, now), d);
    if (stranded) {
      await store.deliveries.markDeadLetter(markerOf(stranded, 'receives_exhausted'));
      await noticeDeadLetter(deps, stranded);
      result.stranded++;
      count(deps, 'DeliveryStranded');
      logger.warn('webhook delivery stranded in the DLQ', { deliveryId, status: d.status, attempts: d.attempts });
    }
    return 'keep';
  };
  result.removed = await scanDlq(deps, visit, { budgetSeconds: DLQ_PASS_SECONDS });
  return result;
}

function missingMarker(deliveryId: string, now: number): DeadLetterMarker {
  const none = { status: null, eventId: null, eventType: null, destinationId: null, destinationHost: null, attempts: null, lastErrorCode: null, createdAt: null };
  return { deliveryId, groupId: null, reason: 'record_missing', since: new Date(now).toISOString(), ...none };
}
