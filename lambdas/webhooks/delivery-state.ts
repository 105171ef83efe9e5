import type { Delivery, DeliveryStatus } from '../shared/data/deliveries.js';
import { MAX_ATTEMPTS } from '../shared/backoff.js';

/**
 * The delivery lifecycle (contract 3), one function per transition:
 *
 *   PENDING ─start→ DELIVERING ─succeed→ SUCCEEDED
 *   RETRY_PENDING ─start→ DELIVERING ─fail→ FAILED          (non-retryable status)
 *                                    ─retry→ RETRY_PENDING  (retryable, attempts < 5)
 *                                    ─retry→ DEAD_LETTER    (fifth retryable failure)
 *   PENDING | RETRY_PENDING ─refuse→ FAILED                 (destination/app re-check fails; no request)
 *   DEAD_LETTER ─redrive→ PENDING                           (ops; attempts start again)
 */

export const TERMINAL: readonly DeliveryStatus[] = ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'];

export class TransitionError extends Error {}

function expect(delivery: Delivery, from: readonly DeliveryStatus[], transition: string) {
  if (!from.includes(delivery.status)) {
    throw new TransitionError(`${transition}: delivery ${delivery.deliveryId} is ${delivery.status}`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An attempt begins. DELIVERING again after a crash mid-attempt is allowed: the message came back. */
export function start(d: Delivery, attempt: number, now: number): Delivery {
  expect(d, ['PENDING', 'RETRY_PENDING', 'DELIVERING'], 'start');
  return { ...d, status: 'DELIVERING', attempts: attempt, lastAttemptAt: iso(now), updatedAt: iso(now), nextAttemptAt: null };
}

export function succeed(d: Delivery, httpStatus: number, now: number): Delivery {
  expect(d, ['DELIVERING'], 'succeed');
  return { ...d, status: 'SUCCEEDED', lastErrorCode: null, lastHttpStatus: httpStatus, updatedAt: iso(now), completedAt: iso(now) };
}

export function fail(d: Delivery, errorCode: string, httpStatus: number | null, now: number): Delivery {
  expect(d, ['DELIVERING'], 'fail');
  return { ...d, status: 'FAILED', lastErrorCode: errorCode, lastHttpStatus: httpStatus, updatedAt: iso(now), completedAt: iso(now) };
}

/** A retryable failure: wait `backoffSeconds` unless this was the last attempt. */
export function retry(d: Delivery, errorCode: string, httpStatus: number | null, backoffSeconds: number, now: number): Delivery {
  expect(d, ['DELIVERING'], 'retry');
  const base = { ...d, lastErrorCode: errorCode, lastHttpStatus: httpStatus, updatedAt: iso(now) };
  if (d.attempts >= MAX_ATTEMPTS) return { ...base, status: 'DEAD_LETTER', completedAt: iso(now), nextAttemptAt: null };
  return {
    ...base,
    status: 'RETRY_PENDING',
    nextAttemptAt: iso(now + backoffSeconds * 1000),
    backoffHistory: [...d.backoffHistory, backoffSeconds],
  };
}

/** The execution-time re-check failed: no request is made. */
export function refuse(d: Delivery, errorCode: string, now: number): Delivery {
  expect(d, ['PENDING', 'RETRY_PENDING', 'DELIVERING'], 'refuse');
  return { ...d, status: 'FAILED', lastErrorCode: errorCode, lastHttpStatus: null, updatedAt: iso(now), completedAt: iso(now) };
}

export function redrive(d: Delivery, now: number): Delivery {
  expect(d, ['DEAD_LETTER'], 'redrive');
  return {
    ...d,
    status: 'PENDING',
    attempts: 0,
    backoffHistory: [],
    nextAttemptAt: null,
    completedAt: null,
    redrives: d.redrives + 1,
    updatedAt: iso(now),
  };
}
