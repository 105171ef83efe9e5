import { createHmac } from 'node:crypto';
import type { Delivery } from './deliveries.js';
import { DELIVERY_POLICY, STATUS, TIMELINE_ENTRIES, type DeliveryStatus, type TimelineEntry } from './delivery-policy.js';

/**
 * The rules of one delivery attempt, pure and in one place: the signature it
 * carries (contract 6.4), how its outcome is classified (6.6, 7.4), and the
 * record's transitions (contract 3). deliver.ts does the I/O around them.
 */

/**
 * The webhook signature of contract 6.4: HMAC-SHA256 keyed with the
 * destination's signing secret over `timestamp + "." + rawBody` (UTF-8),
 * lowercase hex, prefixed `sha256=`.
 */
export function sign(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex')}`;
}

/**
 * How one delivery attempt ended, as contract 6.6 and 7.4 classify it:
 * 2xx succeeds; network failures, timeouts, 408, 425, 429 and 5xx are
 * retried; every other status (3xx included: redirects are never followed)
 * fails permanently.
 */
export type AttemptOutcome = { status: number } | { error: AttemptError };

/** Safe error codes: recorded on deliveries and shown to ops; never a response body. */
export type AttemptError =
  'timeout' | 'connection_refused' | 'connection_reset' | 'dns_failure' | 'tls_error' | 'network_error' | 'blocked_address' | 'invalid_url';

const RETRIED_STATUSES = new Set([408, 425, 429]);
/** The target itself is refused by policy: retrying cannot help. */
const PERMANENT_ERRORS = new Set<AttemptError>(['blocked_address', 'invalid_url']);

export function classify(outcome: AttemptOutcome) {
  if ('error' in outcome) return PERMANENT_ERRORS.has(outcome.error) ? 'permanent' : 'retry';
  const { status } = outcome;
  if (status >= 200 && status <= 299) return 'success';
  if (RETRIED_STATUSES.has(status) || (status >= 500 && status <= 599)) return 'retry';
  return 'permanent';
}

/** The safe code recorded for an outcome: `http_503`, `timeout`, … */
export function errorCodeOf(outcome: AttemptOutcome): string {
  return 'error' in outcome ? outcome.error : `http_${outcome.status}`;
}

/** Node's socket and TLS errors → safe codes. */
export function errorFromException(err: unknown): AttemptError {
  const code = (err as { code?: string })?.code ?? '';
  if (code === 'ETIMEDOUT' || code === 'WEBHOOK_TIMEOUT') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_failure';
  if (/^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code)) return 'tls_error';
  return 'network_error';
}

/**
 * The delivery lifecycle (contract 3), one function per transition:
 *
 *   PENDING | RETRY_PENDING ─start→ DELIVERING ─succeed→ SUCCEEDED
 *                                              ─fail→ FAILED            (non-retryable status)
 *                                              ─retry→ RETRY_PENDING    (retryable, attempts left)
 *                                              ─retry→ DEAD_LETTER      (retryable, the policy's last attempt)
 *                                              ─interrupt→ as retry     (its invocation died mid-attempt)
 *   PENDING | RETRY_PENDING ─refuse→ FAILED                             (destination/app re-check fails; no request)
 *   PENDING | RETRY_PENDING | DELIVERING ─strand→ (same status)         (its message reached the DLQ with attempts left)
 *   PENDING (held) ─expireHold→ FAILED, hold_expired                    (its destination stayed paused past the hold bound; no request)
 *   PENDING | RETRY_PENDING | DELIVERING ─requeue→ (same status)        (its message vanished: a new one carries it on)
 *   DEAD_LETTER or stranded ─redrive→ PENDING                           (ops; the policy's attempts afresh)
 *
 * Every result is written conditionally on the version read (the repository's
 * `write`), so two receives of one delivery can never both start an attempt.
 * An outcome, a refusal, an expired hold and a redrive each append their entry
 * to the record's timeline in that same write (`told`).
 */

const STARTABLE: readonly DeliveryStatus[] = [STATUS.PENDING, STATUS.RETRY_PENDING];

export class TransitionError extends Error {}

function expect(delivery: Delivery, from: readonly DeliveryStatus[], transition: string) {
  if (!from.includes(delivery.status)) {
    throw new TransitionError(`${transition}: delivery ${delivery.deliveryId} is ${delivery.status}`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The delivery with `entry` at the end of its timeline, the oldest entries dropped past TIMELINE_ENTRIES. */
function told(d: Delivery, entry: TimelineEntry): Delivery {
  return { ...d, timeline: [...d.timeline, entry].slice(-TIMELINE_ENTRIES) };
}

/** The entry of the attempt `d` records the outcome of: from its start (`lastAttemptAt`) to `now`. */
function attemptEntry(d: Delivery, code: string, now: number): TimelineEntry {
  const at = d.lastAttemptAt ?? iso(now);
  return { kind: 'attempt', attempt: d.attempts, at, status: d.status, code, ms: Math.max(0, now - Date.parse(at)), next: d.nextAttemptAt };
}

/** An attempt begins on receive number `receive` of message `carrier`: it is counted here, before any request. */
export function start(d: Delivery, carrier: string, receive: number, now: number): Delivery {
  expect(d, STARTABLE, 'start');
  return {
    ...d,
    status: STATUS.DELIVERING,
    attempts: d.attempts + 1,
    carrier,
    attemptReceive: receive,
    deadLetterReason: null,
    lastAttemptAt: iso(now),
    updatedAt: iso(now),
    nextAttemptAt: null,
  };
}

/** An attempt's outcome that ends the delivery: `status` with the answer's code (`http_200` and the like). */
function end(status: typeof STATUS.SUCCEEDED | typeof STATUS.FAILED, transition: string) {
  return (d: Delivery, code: string, now: number): Delivery => {
    expect(d, [STATUS.DELIVERING], transition);
    const next = { ...d, status, updatedAt: iso(now) };
    return told(next, attemptEntry(next, code, now));
  };
}
export const succeed = end(STATUS.SUCCEEDED, 'succeed');
export const fail = end(STATUS.FAILED, 'fail');

/** A retryable failure: wait `backoffSeconds` unless this was the last attempt. */
export function retry(d: Delivery, errorCode: string, backoffSeconds: number, now: number): Delivery {
  expect(d, [STATUS.DELIVERING], 'retry');
  const base = { ...d, updatedAt: iso(now) };
  const next: Delivery =
    d.attempts >= DELIVERY_POLICY.attempts
      ? { ...base, status: STATUS.DEAD_LETTER, deadLetterReason: 'attempts_exhausted', nextAttemptAt: null }
      : {
          ...base,
          status: STATUS.RETRY_PENDING,
          nextAttemptAt: iso(now + backoffSeconds * 1000),
          backoffHistory: [...d.backoffHistory, backoffSeconds],
        };
  return told(next, attemptEntry(next, errorCode, now));
}

/**
 * The carrier came back while the record still says DELIVERING: the
 * invocation died or timed out mid-attempt, so the outcome is unknown. A
 * request may have reached the receiver; it counts as a retryable failure.
 */
export function interrupt(d: Delivery, backoffSeconds: number, now: number): Delivery {
  const next = retry(d, 'attempt_interrupted', backoffSeconds, now);
  // How long the request took is unknown: only that its invocation ended before recording it.
  return { ...next, timeline: next.timeline.map((e, i) => (i === next.timeline.length - 1 ? { ...e, ms: null } : e)) };
}

/** A step that made no request: a refusal, an expired hold, a redrive. */
const stepEntry = (kind: TimelineEntry['kind'], d: Delivery, code: string | null, now: number): TimelineEntry => ({
  kind,
  attempt: null,
  at: iso(now),
  status: d.status,
  code,
  ms: null,
  next: null,
});

/** Ended without a request (a refusal, or an expired hold, which was PENDING and so had nothing due): FAILED with `code`, no longer listed. */
function endUnsent(d: Delivery, code: string, now: number): Delivery {
  const next: Delivery = { ...d, status: STATUS.FAILED, deadLetterReason: null, updatedAt: iso(now) };
  return told(next, stepEntry('refused', next, code, now));
}

/** The execution-time re-check failed: no request is made. */
export function refuse(d: Delivery, errorCode: string, now: number): Delivery {
  expect(d, STARTABLE, 'refuse');
  return endUnsent(d, errorCode, now);
}

/** Its message reached the DLQ with attempts left (receives spent without them): the status stays, the reason says so. */
export function strand(d: Delivery, now: number): Delivery {
  expect(d, [...STARTABLE, STATUS.DELIVERING], 'strand');
  return { ...d, deadLetterReason: 'receives_exhausted', updatedAt: iso(now) };
}

/**
 * Held for a paused destination past the hold bound, never sent: FAILED with the safe code `hold_expired`.
 * Not DEAD_LETTER, which contract 3 reserves for the fifth retryable failure; this delivery made no attempt.
 */
export function expireHold(d: Delivery, now: number): Delivery {
  expect(d, [STATUS.PENDING], 'expireHold');
  return endUnsent(d, 'hold_expired', now);
}

/**
 * Its message vanished (outlived the queue's retention, or was purged): the sweeper queues it again, carried by
 * the new message `carrier`, so the old one, should it still turn up, is a duplicate. Status, attempts and
 * backoff stay; a DELIVERING one is then found interrupted by its new carrier, as by its old one.
 */
export function requeue(d: Delivery, carrier: string, now: number): Delivery {
  expect(d, [...STARTABLE, STATUS.DELIVERING], 'requeue');
  if (d.deadLetterReason !== null) throw new TransitionError(`requeue: delivery ${d.deliveryId} is listed as a dead letter`);
  return { ...d, carrier, attemptReceive: null, requeues: d.requeues + 1, updatedAt: iso(now) };
}

/** Ops queue it again, carried by the new message `carrier`; attempts start over. */
export function redrive(d: Delivery, carrier: string, now: number): Delivery {
  if (d.deadLetterReason === null) throw new TransitionError(`redrive: delivery ${d.deliveryId} is ${d.status}, not dead-lettered`);
  const next: Delivery = {
    ...d,
    status: STATUS.PENDING,
    attempts: 0,
    backoffHistory: [],
    nextAttemptAt: null,
    carrier,
    attemptReceive: null,
    deadLetterReason: null,
    redrives: d.redrives + 1,
    updatedAt: iso(now),
  };
  return told(next, stepEntry('redrive', next, null, now));
}
