import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { SQSRecord } from 'aws-lambda';
import { appKeys, type App } from '#data/apps';
import { deliveryKeys, lastOutcome, markerOf, type Delivery } from './deliveries.js';
import {
  destinationKeys,
  isPaused,
  isProduction,
  noticeDeadLetter,
  noticeRecovery,
  urlSafetyOf,
  type Destination,
} from './destinations.js';
import { MENU_UPDATED, WEBHOOK_HEADERS } from './events.js';
import type { MessagingDeps } from './deps.js';
import { count, type MetricName } from '#platform/observability';

import { resolveDestination, type ResolvedAddress } from '#domain/url-safety';
import * as state from './attempt-rules.js';
import { jitteredBackoffSeconds, scaledTimings, STATUS } from './delivery-policy.js';
import { classify, errorCodeOf, errorFromException, sign, type AttemptOutcome } from './attempt-rules.js';
import { appIneligibility, covers } from './fan-out.js';

import { enqueueRelease, parseDeliveryMessage, refuseRecord, RetryLater, sqsConsumer, standing, type DeliveryMessage } from './messages.js';

/**
 * The deliverer's side of the journey, in the order it runs: a queue message is
 * received and decided from its record (receive), one attempt is made (attempt,
 * send, postWebhook), its outcome recorded, and the owner told when a
 * destination starts failing or recovers. The pure rules it applies are in
 * attempt-rules.ts.
 */

/**
 * SQS event source (reportBatchItemFailures): each record is at most one
 * attempt, all records in parallel; retries come back as batch item failures.
 */
export function createDeliverer(deps: MessagingDeps) {
  return sqsConsumer(deps, (context) => (record) => processRecord(deps, record, () => context.getRemainingTimeInMillis()));
}

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
/** The message a receive holds: what it says, its id, and how many times SQS has handed it out. */
type Receipt = DeliveryMessage & { messageId: string; receive: number };
/** The destination and its application as read with the record (strongly consistent, this receive). */
type Known = { destination: Destination | null; app: App | null };

async function processRecord(deps: MessagingDeps, record: SQSRecord, remainingMs: () => number): Promise<void> {
  const message = parseDeliveryMessage(record.body);
  // Not a delivery (a fan-out wake-up sent to the wrong queue, or nothing of ours): never run here, handed to the DLQ at once.
  if (!message) return refuseRecord(deps, record, deps.queue);
  const receives = Number(record.attributes.ApproximateReceiveCount) || 1;
  const fate = await receive(deps, { ...message, messageId: record.messageId, receive: receives }, remainingMs);
  if (fate === 'done') return;
  if (fate !== 'hold') await deps.queue.delay(record.receiptHandle, fate);
  throw new RetryLater(`delivery ${message.deliveryId}: ${fate === 'hold' ? 'held' : `back in ${fate}s`}`);
}

/**
 * The record, and the destination and application its message names,
 * strongly consistent, in one BatchGetItem. What the record does not
 * confirm is dropped: the attempt then reads it itself.
 */
async function readAhead(deps: MessagingDeps, message: DeliveryMessage): Promise<{ d: Delivery | null; known?: Known }> {
  const { deliveryId, destinationId, clientId } = message;
  const store = await deps.store.preload([
    deliveryKeys.delivery(deliveryId),
    destinationKeys.destination(destinationId),
    appKeys.app(clientId),
  ]);
  const [d, destination, app] = await Promise.all([
    store.deliveries.get(deliveryId),
    store.destinations.get(destinationId),
    store.apps.get(clientId, { consistent: true }),
  ]);
  const confirmed = d !== null && d.destinationId === destinationId && (destination === null || destination.clientId === clientId);
  return { d, ...(confirmed ? { known: { destination, app: destination ? app : null } } : {}) };
}

async function receive(deps: MessagingDeps, receipt: Receipt, remainingMs: () => number): Promise<Fate> {
  const timings = scaledTimings(deps.config.webhookTimeScale);
  const { d, known } = await readAhead(deps, receipt);
  // Records are written before their message is sent: missing means not readable yet, never done.
  if (!d) return 'hold';
  // Sent by a redrive or a requeue whose record write is not visible yet (each sends first, writes second): the
  // write follows at once, so look again within seconds rather than after the visibility timeout.
  const stands = standing(receipt, d);
  if (stands === 'early') return timings.lookAgainVisibilitySeconds;
  // From before a redrive or a requeue, or a duplicate of the message that carries the delivery.
  if (stands === 'stale' || (d.carrier !== null && d.carrier !== receipt.messageId)) return 'done';
  // A second copy of the receive that started the last attempt (SQS delivers at least once): that
  // receive decides the message's visibility; this one must neither attempt early nor interrupt it.
  const repeat = d.carrier === receipt.messageId && receipt.receive <= (d.attemptReceive ?? 0);
  switch (d.status) {
    case STATUS.SUCCEEDED:
    case STATUS.FAILED:
      return 'done';
    case STATUS.DEAD_LETTER:
      return 0;
    case STATUS.DELIVERING: {
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
      const after = await attempt(deps, d, receipt, known);
      return after ? settle(deps, after) : 'hold';
    }
  }
}

/** After a write: a retry waits its backoff, a dead letter is listed and handed to the redrive, the rest is done. */
async function settle(deps: MessagingDeps, d: Delivery): Promise<Fate> {
  // The wait drawn for this retry (jittered), as the record keeps it.
  if (d.status === STATUS.RETRY_PENDING)
    return scaledTimings(deps.config.webhookTimeScale).backoffVisibilitySeconds(d.backoffHistory.at(-1)!);
  if (d.status !== STATUS.DEAD_LETTER) return 'done';
  // After the record: a crash in between leaves a DEAD_LETTER record whose marker the sweeper restores.
  await deps.store.deliveries.markDeadLetter(markerOf(d, 'attempts_exhausted'));
  await noticeDeadLetter(deps, d);
  return 0;
}

/**
 * One attempt of a delivery that is due: re-check, count the attempt with a
 * conditional write, POST, and return the record as the attempt left it
 * (null when another receive got there first and this one must stand back).
 */
async function attempt(deps: MessagingDeps, d: Delivery, receipt: Receipt, known?: Known): Promise<Delivery | null> {
  const { store, clock, logger } = deps;
  // Strongly consistent: a disable, removal, revocation or rotation made a moment ago applies to this attempt.
  const destination = known ? known.destination : await store.destinations.get(d.destinationId);
  const app = known ? known.app : destination ? await store.apps.get(destination.clientId, { consistent: true }) : null;
  const refusal = refusalOf(d, destination, app, clock.now());
  if (refusal !== null || !destination) {
    const refused = await store.deliveries.write(state.refuse(d, refusal ?? 'destination_removed', clock.now()), d);
    logger.info('webhook attempt refused', { deliveryId: d.deliveryId, code: refused ? lastOutcome(refused).lastErrorCode : 'superseded' });
    if (refused && d.deadLetterReason) await store.deliveries.unmarkDeadLetter(d.deliveryId);
    return refused;
  }

  const started = await store.deliveries.write(state.start(d, receipt.messageId, receipt.receive, clock.now()), d);
  if (!started) return null;
  // It was stranded in the DLQ listing and is moving again.
  if (d.deadLetterReason) await store.deliveries.unmarkDeadLetter(d.deliveryId);

  const outcome = await send(deps, destination, started);
  const now = clock.now();
  const verdict = classify(outcome);
  const code = errorCodeOf(outcome);
  const next =
    verdict === 'success'
      ? state.succeed(started, code, now)
      : verdict === 'permanent'
        ? state.fail(started, code, now)
        : state.retry(started, code, jitteredBackoffSeconds(started.attempts), now);
  const saved = await store.deliveries.write(next, started);
  // Only when this invocation was taken for dead (its carrier came back and recorded an interruption): a later
  // attempt has spoken for the destination's health too, so this late outcome leaves it alone.
  if (!saved) {
    logger.warn('webhook outcome superseded', { deliveryId: d.deliveryId, attempt: started.attempts, status: next.status });
    return null;
  }
  const at = new Date(now).toISOString();
  const { failuresBefore, recovered } = await store.destinations.recordAttempt(
    destination.destinationId,
    verdict === 'success',
    at,
    isProduction(d),
  );
  if (recovered) await noticeRecovery(deps, destination, saved);
  // It was paused and answered: what was held for it goes out (should this send fail, the sweeper releases them).
  if (verdict === 'success' && isPaused({ consecutiveFailures: failuresBefore })) {
    await enqueueRelease(deps, destination.destinationId).catch((err: Error) =>
      logger.error('release not queued', { destinationId: destination.destinationId, error: err.name }),
    );
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
    code: lastOutcome(d).lastErrorCode,
  });
}

/** Why this attempt must not be made (contract 3 and 6.6), or null. */
function refusalOf(delivery: Delivery, destination: Destination | null, app: App | null, now: number): string | null {
  if (!destination) return 'destination_removed';
  if (!destination.enabled) return 'destination_disabled';
  const ineligible = appIneligibility(app, now);
  if (ineligible) return ineligible;
  // A menu event only for locations still covered; a test event was checked for its location when queued.
  if (delivery.eventType === MENU_UPDATED && !covers(destination, app!, delivery.groupId, delivery.locationId)) {
    return 'location_not_covered';
  }
  return null;
}

/** DNS, the address check, connect, TLS and the answer's status line, all inside one attempt timeout. */
async function send(deps: MessagingDeps, destination: Destination, d: Delivery): Promise<AttemptOutcome> {
  const deadline = Date.now() + scaledTimings(deps.config.webhookTimeScale).attemptTimeoutMs;
  const target = await withinDeadline(resolveDestination(destination.url, deps.resolver, urlSafetyOf(deps.config)), deadline);
  if (target === 'timeout') return { error: 'timeout' };
  if (!target.ok) return { error: target.code };
  // Fresh per attempt, signed with the secret read just now.
  const timestamp = String(Math.floor(deps.clock.now() / 1000));
  const signed = {
    [WEBHOOK_HEADERS.event]: d.eventType,
    [WEBHOOK_HEADERS.eventId]: d.eventId,
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.signature]: sign(destination.signingSecret, timestamp, d.body),
  };
  // The local runtime's listen inbox presents a certificate only it trusts, and only at that origin.
  const inbox = deps.config.webhookListenInbox;
  return postWebhook(target, signed, d.body, deadline, inbox?.origin === target.url.origin ? inbox.ca : undefined);
}

const USER_AGENT = 'Service-Customer-API-Webhooks/1.0';

/**
 * One POST. The socket goes only to the validated `address` (the lookup is pinned, so no second resolution can swap
 * it); TLS verifies the URL's hostname (SNI and certificate), which also names the Host header. node:https never
 * follows redirects, and the response body is discarded unread. `deadline`: epoch ms by which the status line must
 * have arrived (the attempt's timer started before DNS); `ca`: trust only this CA (PEM) instead of the system's
 * (the local runtime's listen inbox).
 */
function postWebhook(
  { url, address }: { url: URL; address: ResolvedAddress },
  signed: Record<string, string>,
  body: string,
  deadline: number,
  ca?: string,
): Promise<AttemptOutcome> {
  const pinned = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  }) as unknown as LookupFunction;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    // The first outcome stands: a promise settles once.
    const done = (outcome: AttemptOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = request(
      {
        protocol: 'https:',
        hostname,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        servername: isIP(hostname) ? undefined : hostname,
        lookup: pinned,
        agent: false,
        ...(ca ? { ca } : {}),
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': USER_AGENT,
          ...signed,
          'Content-Length': Buffer.byteLength(body, 'utf8'),
        },
      },
      (res) => {
        res.resume();
        done({ status: res.statusCode ?? 0 });
        res.destroy();
      },
    );
    const timer = setTimeout(
      () => {
        done({ error: 'timeout' });
        outgoing.destroy();
      },
      Math.max(0, deadline - Date.now()),
    );
    outgoing.on('error', (err) => done({ error: errorFromException(err) }));
    outgoing.end(body);
  });
}

/** `work`'s result, or 'timeout' once `deadline` (epoch ms) passes first. */
async function withinDeadline<T>(work: Promise<T>, deadline: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
