import type { SQSRecord } from 'aws-lambda';
import { backoffSeconds, visibilitySeconds } from '../shared/backoff.js';
import type { App } from '../shared/data/apps.js';
import type { Delivery } from '../shared/data/deliveries.js';
import type { Destination } from '../shared/data/destinations.js';
import type { Deps } from '../shared/deps.js';
import { count, type MetricName } from '../shared/observability.js';
import { sign } from '../shared/signature.js';
import { resolveDestination } from '../shared/url-safety.js';
import { classify, errorCodeOf, type AttemptOutcome } from './classify.js';
import * as state from './delivery-state.js';
import { appIneligibility, covers } from './eligibility.js';
import { delayMessage, parseDeliveryMessage } from './queue.js';
import { postWebhook } from './send.js';

/** Thrown for a record that must come back later: Powertools reports it as a batch item failure. */
export class RetryLater extends Error {}

/**
 * One SQS record = one attempt of one delivery. The attempt number is the
 * message's receive count, the same number the queue's redrive counts.
 */
export async function processRecord(deps: Deps, record: SQSRecord): Promise<void> {
  const message = parseDeliveryMessage(record.body);
  if (!message) {
    deps.logger.error('unreadable webhook message dropped', { messageId: record.messageId });
    return;
  }
  const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
  const result = await attemptDelivery(deps, message.deliveryId, attempt);
  if (result.retryAfterSeconds !== null) {
    await delayMessage(deps, record.receiptHandle, result.retryAfterSeconds);
    throw new RetryLater(`delivery ${message.deliveryId} retries in ${result.retryAfterSeconds}s`);
  }
}

/** Why this attempt must not be made (contract 3 and 6.6), or null. */
function refusalOf(delivery: Delivery, destination: Destination | null, app: App | null, now: number): string | null {
  if (!destination) return 'destination_removed';
  if (!destination.enabled) return 'destination_disabled';
  const ineligible = appIneligibility(app, now);
  if (ineligible) return ineligible;
  // A menu event only for locations still covered; a test event was checked for its location when queued.
  if (delivery.eventType === 'bevq.menu.updated' && !covers(destination, app!, delivery.groupId, delivery.locationId)) {
    return 'location_not_covered';
  }
  return null;
}

/** How an attempt that was made ended, as counted (a refused attempt makes no request and is not counted). */
const OUTCOME_METRICS: Partial<Record<Delivery['status'], MetricName>> = {
  SUCCEEDED: 'DeliverySucceeded',
  FAILED: 'DeliveryFailed',
  RETRY_PENDING: 'DeliveryRetried',
  DEAD_LETTER: 'DeliveryDeadLettered',
};

/** null: done with this message; a number: make it visible again after that many seconds. */
type AttemptResult = { delivery: Delivery | null; retryAfterSeconds: number | null };

export async function attemptDelivery(deps: Deps, deliveryId: string, attempt: number): Promise<AttemptResult> {
  const { store, clock, config, logger } = deps;
  let delivery = await store.deliveries.get(deliveryId);
  if (!delivery || state.TERMINAL.includes(delivery.status)) return { delivery, retryAfterSeconds: null };

  // Execution-time re-check: a refused attempt makes no request.
  const destination = await store.destinations.get(delivery.destinationId);
  const app = destination ? await store.apps.get(destination.clientId) : null;
  const refusal = refusalOf(delivery, destination, app, clock.now());
  if (refusal !== null || !destination) {
    delivery = state.refuse(delivery, refusal ?? 'destination_removed', clock.now());
    await store.deliveries.save(delivery);
    logger.info('webhook attempt refused', { deliveryId, code: delivery.lastErrorCode });
    return { delivery, retryAfterSeconds: null };
  }

  delivery = state.start(delivery, attempt, clock.now());
  await store.deliveries.save(delivery);

  const target = await resolveDestination(destination.url, deps.resolver, { allowLoopback: config.webhookAllowLoopback });
  let outcome: AttemptOutcome;
  if (!target.ok) {
    outcome = { error: target.code };
  } else {
    // Fresh per attempt, signed with the secret current now (a rotation mid-retry applies at once).
    const timestamp = String(Math.floor(clock.now() / 1000));
    outcome = await postWebhook({
      url: target.url,
      address: target.address,
      eventType: delivery.eventType,
      eventId: delivery.eventId,
      timestamp,
      signature: sign(destination.signingSecret, timestamp, delivery.body),
      body: delivery.body,
      timeoutMs: config.webhookTimeoutMs,
    });
  }

  const now = clock.now();
  const verdict = classify(outcome);
  const code = errorCodeOf(outcome);
  const httpStatus = 'status' in outcome ? outcome.status : null;
  let retryAfterSeconds: number | null = null;
  if (verdict === 'success') {
    delivery = state.succeed(delivery, httpStatus!, now);
  } else if (verdict === 'permanent') {
    delivery = state.fail(delivery, code, httpStatus, now);
  } else {
    const wait = backoffSeconds(attempt);
    delivery = state.retry(delivery, code, httpStatus, wait, now);
    // Dead-lettered: visible at once, so the queue's redrive moves it to the DLQ on the next receive.
    retryAfterSeconds = delivery.status === 'DEAD_LETTER' ? 0 : visibilitySeconds(wait, config.webhookBackoffScale);
  }
  // Side records first, the delivery's outcome last: once the outcome is readable, health and the
  // dead-letter listing already reflect it, and a crash in between leaves a retry, never a lost entry.
  await store.destinations.recordAttempt(destination.destinationId, verdict === 'success', new Date(now).toISOString());
  if (delivery.status === 'DEAD_LETTER') await store.deliveries.markDeadLetter(delivery);
  await store.deliveries.save(delivery);
  const counted = OUTCOME_METRICS[delivery.status];
  if (counted) count(deps, counted);
  logger.info('webhook attempt', {
    deliveryId,
    eventId: delivery.eventId,
    host: destination.hostname,
    attempt,
    status: delivery.status,
    code: verdict === 'success' ? null : code,
  });
  return { delivery, retryAfterSeconds };
}
