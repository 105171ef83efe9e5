import type { App } from '#data/apps';
import type { Delivery } from '#data/deliveries';
import type { Destination } from '#data/destinations';
import { jitteredBackoffSeconds } from '#contract/delivery-policy';
import type { MessagingDeps } from '#platform/deps';
import { count, type MetricName } from '#platform/observability';
import { sign } from '#domain/signature';
import { resolveDestination } from '#domain/url-safety';
import { classify, errorCodeOf, type AttemptOutcome } from './classify.js';
import * as state from './delivery-state.js';
import { appIneligibility, covers } from './eligibility.js';
import { noticeRecovery, isProduction } from './owner-notices.js';
import { isPaused } from './pause-policy.js';
import { enqueueRelease } from './queue.js';
import { postWebhook, withinDeadline } from './send.js';

/** The message a receive holds: its id, the redrive it was sent for, and how many times SQS has handed it out. */
export type Receipt = { messageId: string; redrive: number; receive: number };
/** The destination and its application as read with the record (strongly consistent, this receive). */
export type Known = { destination: Destination | null; app: App | null };

/**
 * One attempt of a delivery that is due: re-check, count the attempt with a
 * conditional write, POST, and return the record as the attempt left it
 * (null when another receive got there first and this one must stand back).
 */
export async function attempt(deps: MessagingDeps, d: Delivery, receipt: Receipt, attemptTimeoutMs: number, known?: Known): Promise<Delivery | null> {
  const { store, clock, logger } = deps;
  // Strongly consistent: a disable, removal, revocation or rotation made a moment ago applies to this attempt.
  const destination = known ? known.destination : await store.destinations.get(d.destinationId);
  const app = known ? known.app : destination ? await store.apps.get(destination.clientId, { consistent: true }) : null;
  const refusal = refusalOf(d, destination, app, clock.now());
  if (refusal !== null || !destination) {
    const refused = await store.deliveries.write(state.refuse(d, refusal ?? 'destination_removed', clock.now()), d);
    logger.info('webhook attempt refused', { deliveryId: d.deliveryId, code: refused?.lastErrorCode ?? 'superseded' });
    if (refused && d.deadLetterReason) await store.deliveries.unmarkDeadLetter(d.deliveryId);
    return refused;
  }

  const started = await store.deliveries.write(state.start(d, receipt.messageId, receipt.receive, clock.now()), d);
  if (!started) return null;
  // It was stranded in the DLQ listing and is moving again.
  if (d.deadLetterReason) await store.deliveries.unmarkDeadLetter(d.deliveryId);

  const outcome = await send(deps, destination, started, attemptTimeoutMs);
  const now = clock.now();
  const verdict = classify(outcome);
  const code = errorCodeOf(outcome);
  const httpStatus = 'status' in outcome ? outcome.status : null;
  const next =
    verdict === 'success'
      ? state.succeed(started, httpStatus!, now)
      : verdict === 'permanent'
        ? state.fail(started, code, httpStatus, now)
        : state.retry(started, code, httpStatus, jitteredBackoffSeconds(started.attempts), now);
  const saved = await store.deliveries.write(next, started);
  // Only when this invocation was taken for dead (its carrier came back and recorded an interruption): a later
  // attempt has spoken for the destination's health too, so this late outcome leaves it alone.
  if (!saved) {
    logger.warn('webhook outcome superseded', { deliveryId: d.deliveryId, attempt: started.attempts, status: next.status });
    return null;
  }
  const { failuresBefore, recovered } = await store.destinations.recordAttempt(destination.destinationId, verdict === 'success', new Date(now).toISOString(), {
    production: isProduction(d),
  });
  if (recovered) await noticeRecovery(deps, destination, saved);
  // It was paused and answered: what was held for it goes out (should this send fail, the sweeper releases them).
  if (verdict === 'success' && isPaused({ consecutiveFailures: failuresBefore })) {
    await enqueueRelease(deps, destination.destinationId).catch((err: Error) => logger.error('release not queued', { destinationId: destination.destinationId, error: err.name }));
  }
  reportOutcome(deps, saved);
  return saved;
}

/** How an attempt that was made ended, as counted (a refused attempt makes no request and is not counted). */
const OUTCOME_METRICS: Partial<Record<Delivery['status'], MetricName>> = {
  SUCCEEDED: 'DeliverySucceeded',
  FAILED: 'DeliveryFailed',
  RETRY_PENDING: 'DeliveryRetried',
  DEAD_LETTER: 'DeliveryDeadLettered',
};

/** The metric and the log line (read by the stack's DeliveryFailures filter) of a recorded outcome; never a URL or secret. */
export function reportOutcome(deps: MessagingDeps, d: Delivery): void {
  const metric = OUTCOME_METRICS[d.status];
  if (metric) count(deps, metric);
  deps.logger.info('webhook attempt', {
    deliveryId: d.deliveryId,
    eventId: d.eventId,
    host: d.destinationHost,
    attempt: d.attempts,
    status: d.status,
    code: d.lastErrorCode,
  });
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

/** DNS, the address check, connect, TLS and the answer's status line, all inside one attempt timeout. */
async function send(deps: MessagingDeps, destination: Destination, d: Delivery, timeoutMs: number): Promise<AttemptOutcome> {
  const deadline = Date.now() + timeoutMs;
  const target = await withinDeadline(
    resolveDestination(destination.url, deps.resolver, { allowLoopback: deps.config.webhookAllowLoopback }),
    deadline,
  );
  if (target === 'timeout') return { error: 'timeout' };
  if (!target.ok) return { error: target.code };
  // Fresh per attempt, signed with the secret read just now.
  const timestamp = String(Math.floor(deps.clock.now() / 1000));
  return postWebhook({
    url: target.url,
    address: target.address,
    eventType: d.eventType,
    eventId: d.eventId,
    timestamp,
    signature: sign(destination.signingSecret, timestamp, d.body),
    body: d.body,
    deadline,
  });
}
