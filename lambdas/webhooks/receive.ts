import type { SQSRecord } from 'aws-lambda';
import { appKeys } from '#data/apps';
import { deliveryKeys, markerOf, type Delivery } from '#data/deliveries';
import { destinationKeys } from '#data/destinations';
import { jitteredBackoffSeconds, scaledTimings } from '#contract/delivery-policy';
import type { MessagingDeps } from '#platform/deps';
import { attempt, reportOutcome, type Known, type Receipt } from './attempt.js';
import * as state from './delivery-state.js';
import { noticeDeadLetter } from './owner-notices.js';
import { continueDispatch } from './fan-out.js';
import { releaseIfResumed } from './pause.js';
import { parseQueueMessage, type DeliveryMessage } from './queue.js';

/** Thrown for a record that must come back later: Powertools reports it as a batch item failure. */
export class RetryLater extends Error {}

/**
 * What one receive of a delivery's message does. The record decides, read
 * strongly consistently; the message is only a wake-up, so a receive that
 * makes no attempt (a duplicate, a throttled retry, a spent delivery on its
 * way to the DLQ) never uses one up.
 *
 * - 'done': the ESM deletes the message (finished, or a duplicate of the carrier).
 * - seconds: visible again after that long (a backoff; 0 hands a spent delivery to the redrive; the
 *   policy's look-again for an early message).
 * - 'hold': left as it is, back after the visibility timeout or whatever the receive in charge sets.
 */
type Fate = 'done' | 'hold' | number;

export async function processRecord(deps: MessagingDeps, record: SQSRecord, remainingMs: () => number): Promise<void> {
  const message = parseQueueMessage(record.body);
  if (!message) {
    // Nothing of ours sends it, so it is not a delivery: dropped, not left to poison the queue.
    deps.logger.error('unreadable webhook message dropped', { messageId: record.messageId });
    return;
  }
  if (message.kind === 'dispatch') return dispatchPage(deps, message.dispatch, message.cursor);
  if (message.kind === 'release') return releasePage(deps, message.release);
  const receipt = { messageId: record.messageId, redrive: message.redrive, receive: Number(record.attributes.ApproximateReceiveCount) || 1 };
  const fate = await receive(deps, message, receipt, remainingMs);
  if (fate === 'done') return;
  if (fate !== 'hold') await deps.queue.delay(record.receiptHandle, fate);
  throw new RetryLater(`delivery ${message.deliveryId}: ${fate === 'hold' ? 'held' : `back in ${fate}s`}`);
}

/**
 * A fan-out page. Its message is done either way: should the page fail, the
 * outbox entry still holds the cursor, and the sweeper goes on from there.
 */
async function dispatchPage(deps: MessagingDeps, eventId: string, cursor: string): Promise<void> {
  try {
    await continueDispatch(deps, eventId, cursor);
  } catch (err) {
    deps.logger.error('fan-out page failed; the sweeper resumes it', { eventId, error: (err as Error).name });
  }
}

/** A page of a resumed destination's held deliveries. Done either way: the paused marker stays, and the sweeper releases what is left. */
async function releasePage(deps: MessagingDeps, destinationId: string): Promise<void> {
  try {
    await releaseIfResumed(deps, destinationId);
  } catch (err) {
    deps.logger.error('release of held deliveries failed; the sweeper resumes it', { destinationId, error: (err as Error).name });
  }
}

/**
 * The record, and (when the message names them) its destination and
 * application, strongly consistent, in one BatchGetItem. What the record
 * does not confirm is dropped: the attempt then reads it itself.
 */
async function readAhead(deps: MessagingDeps, message: DeliveryMessage): Promise<{ d: Delivery | null; known?: Known }> {
  const { deliveryId, destinationId, clientId } = message;
  if (!destinationId || !clientId) return { d: await deps.store.deliveries.get(deliveryId) };
  const store = await deps.store.preload([deliveryKeys.delivery(deliveryId), destinationKeys.destination(destinationId), appKeys.app(clientId)]);
  const [d, destination, app] = await Promise.all([
    store.deliveries.get(deliveryId),
    store.destinations.get(destinationId),
    store.apps.get(clientId, { consistent: true }),
  ]);
  const confirmed = d !== null && d.destinationId === destinationId && (destination === null || destination.clientId === clientId);
  return { d, ...(confirmed ? { known: { destination, app: destination ? app : null } } : {}) };
}

async function receive(deps: MessagingDeps, message: DeliveryMessage, receipt: Receipt, remainingMs: () => number): Promise<Fate> {
  const timings = scaledTimings(deps.config.webhookTimeScale);
  const { d, known } = await readAhead(deps, message);
  // Records are written before their message is sent: missing means not readable yet, never done.
  if (!d) return 'hold';
  // Sent by a redrive whose record write is not visible yet (it sends first, writes second): the write follows
  // at once, so look again within seconds rather than after the visibility timeout.
  if (receipt.redrive > d.redrives) return timings.lookAgainVisibilitySeconds;
  // From before a redrive, or a duplicate of the message that carries the delivery.
  if (receipt.redrive < d.redrives || (d.carrier !== null && d.carrier !== receipt.messageId)) return 'done';
  // A second copy of the receive that started the last attempt (SQS delivers at least once): that
  // receive decides the message's visibility; this one must neither attempt early nor interrupt it.
  const repeat = d.carrier === receipt.messageId && receipt.receive <= (d.attemptReceive ?? 0);
  switch (d.status) {
    case 'SUCCEEDED':
    case 'FAILED':
      return 'done';
    case 'DEAD_LETTER':
      return 0;
    case 'DELIVERING': {
      if (repeat) return 'hold';
      // The carrier is back mid-attempt: the invocation that held it died or timed out.
      const interrupted = await deps.store.deliveries.write(state.interrupt(d, jitteredBackoffSeconds(d.attempts), deps.clock.now()), d);
      if (!interrupted) return 'hold';
      reportOutcome(deps, interrupted);
      return settle(deps, interrupted);
    }
    default: {
      // Too little time left to record an outcome: no attempt, nothing counted.
      if (repeat || remainingMs() < timings.startBudgetMs) return 'hold';
      const after = await attempt(deps, d, receipt, timings.attemptTimeoutMs, known);
      return after ? settle(deps, after) : 'hold';
    }
  }
}

/** After a write: a retry waits its backoff, a dead letter is listed and handed to the redrive, the rest is done. */
async function settle(deps: MessagingDeps, d: Delivery): Promise<Fate> {
  // The wait drawn for this retry (jittered), as the record keeps it.
  if (d.status === 'RETRY_PENDING') return scaledTimings(deps.config.webhookTimeScale).backoffVisibilitySeconds(d.backoffHistory.at(-1)!);
  if (d.status !== 'DEAD_LETTER') return 'done';
  // After the record: a crash in between leaves a DEAD_LETTER record whose marker the sweeper restores.
  await deps.store.deliveries.markDeadLetter(markerOf(d, 'attempts_exhausted'));
  await noticeDeadLetter(deps, d);
  return 0;
}
