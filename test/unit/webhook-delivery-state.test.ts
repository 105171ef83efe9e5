import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES, TERMINAL_STATUSES } from '#lambdas/webhooks/delivery-policy';
import { lastOutcome, type Delivery } from '#lambdas/webhooks/deliveries';
import * as state from '#lambdas/webhooks/attempt-rules';
import { CREATED_AT_MS, pendingDelivery, withOutcome } from '../fixtures/delivery-record.js';

const base = pendingDelivery;
const T = CREATED_AT_MS;

describe('delivery transitions', () => {
  it('PENDING → DELIVERING → SUCCEEDED, the attempt counted when it starts, by its carrier', () => {
    const started = state.start(base, 'm1', 1, T);
    expect(withOutcome(started)).toMatchObject({ status: 'DELIVERING', attempts: 1, carrier: 'm1', attemptReceive: 1 });
    const d = state.succeed(started, 'http_204', T);
    expect(withOutcome(d)).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 1,
      lastHttpStatus: 204,
      lastErrorCode: null,
      completedAt: new Date(T).toISOString(),
    });
  });
  it('DELIVERING → FAILED on a permanent failure', () => {
    expect(withOutcome(state.fail(state.start(base, 'm1', 1, T), 'http_401', T))).toMatchObject({
      status: 'FAILED',
      lastErrorCode: 'http_401',
    });
  });
  it('retries with the given wait until the fifth retryable failure, which dead-letters', () => {
    let d = base;
    for (const [attempt, wait] of [
      [1, 30],
      [2, 60],
      [3, 120],
      [4, 240],
    ] as const) {
      d = state.retry(state.start(d, 'm1', attempt + 2, T), 'http_503', wait, T);
      expect(withOutcome(d)).toMatchObject({
        status: 'RETRY_PENDING',
        attempts: attempt,
        nextAttemptAt: new Date(T + wait * 1000).toISOString(),
        deadLetterReason: null,
      });
    }
    d = state.retry(state.start(d, 'm1', 9, T), 'timeout', 480, T);
    expect(withOutcome(d)).toMatchObject({
      status: 'DEAD_LETTER',
      attempts: 5,
      backoffHistory: [30, 60, 120, 240],
      nextAttemptAt: null,
      lastErrorCode: 'timeout',
      deadLetterReason: 'attempts_exhausted',
    });
  });
  it('tells the last code and HTTP status from the steps: kept through a redrive, which clears when it ended', () => {
    let d = base;
    for (let attempt = 1; attempt <= 5; attempt++)
      d = state.retry(state.start(d, 'm1', attempt, T), attempt < 5 ? 'http_503' : 'timeout', 30, T);
    expect(lastOutcome(d)).toEqual({ lastErrorCode: 'timeout', lastHttpStatus: null, completedAt: new Date(T).toISOString() });
    const redriven = state.redrive(d, 'm2', T + 1000);
    expect(lastOutcome(redriven)).toEqual({ lastErrorCode: 'timeout', lastHttpStatus: null, completedAt: null });
    const failed = state.fail(state.start(redriven, 'm2', 1, T + 2000), 'http_410', T + 3000);
    expect(lastOutcome(failed)).toEqual({ lastErrorCode: 'http_410', lastHttpStatus: 410, completedAt: new Date(T + 3000).toISOString() });
  });
  it('counts an interrupted attempt as a retryable failure', () => {
    const d = state.interrupt(state.start(base, 'm1', 1, T), 30, T);
    expect(withOutcome(d)).toMatchObject({
      status: 'RETRY_PENDING',
      attempts: 1,
      lastErrorCode: 'attempt_interrupted',
      backoffHistory: [30],
    });
    const fifth = state.interrupt({ ...state.start({ ...base, attempts: 4, status: 'RETRY_PENDING' }, 'm1', 6, T) }, 480, T);
    expect(withOutcome(fifth)).toMatchObject({ status: 'DEAD_LETTER', attempts: 5, deadLetterReason: 'attempts_exhausted' });
  });
  it('refuses without a request from PENDING or RETRY_PENDING', () => {
    expect(withOutcome(state.refuse(base, 'destination_disabled', T))).toMatchObject({
      status: 'FAILED',
      lastErrorCode: 'destination_disabled',
      attempts: 0,
    });
  });
  it('strands a delivery whose receives ran out: the status stays, the reason says so', () => {
    const retrying = state.retry(state.start(base, 'm1', 1, T), 'http_503', 30, T);
    expect(withOutcome(state.strand(retrying, T))).toMatchObject({
      status: 'RETRY_PENDING',
      attempts: 1,
      deadLetterReason: 'receives_exhausted',
    });
    expect(withOutcome(state.strand(base, T))).toMatchObject({ status: 'PENDING', deadLetterReason: 'receives_exhausted' });
    expect(() => state.strand({ ...base, status: 'SUCCEEDED' }, T)).toThrow(state.TransitionError);
    // A stranded delivery that is received again (another message) starts, and is no longer listed.
    expect(withOutcome(state.start(state.strand(base, T), 'm2', 1, T))).toMatchObject({ status: 'DELIVERING', deadLetterReason: null });
  });
  it('redrives a dead letter or a stranded delivery to PENDING with attempts reset, carried by the new message', () => {
    const dead = {
      ...base,
      status: 'DEAD_LETTER' as const,
      attempts: 5,
      backoffHistory: [30, 60, 120, 240],
      carrier: 'm1',
      deadLetterReason: 'attempts_exhausted' as const,
    };
    expect(withOutcome(state.redrive(dead, 'm2', T))).toMatchObject({
      status: 'PENDING',
      attempts: 0,
      backoffHistory: [],
      redrives: 1,
      carrier: 'm2',
      deadLetterReason: null,
    });
    const stranded = state.strand({ ...base, status: 'RETRY_PENDING', attempts: 2, carrier: 'm1' }, T);
    expect(withOutcome(state.redrive(stranded, 'm3', T))).toMatchObject({ status: 'PENDING', attempts: 0, carrier: 'm3' });
  });
  it('requeues a delivery whose message vanished: the new message carries it, status, attempts and backoff kept', () => {
    const retrying = { ...state.retry(state.start(base, 'm1', 1, T), 'http_503', 30, T), attemptReceive: 1 };
    const later = T + 2_160_000;
    expect(withOutcome(state.requeue(retrying, 'm2', later))).toMatchObject({
      status: 'RETRY_PENDING',
      attempts: 1,
      backoffHistory: [30],
      carrier: 'm2',
      attemptReceive: null,
      requeues: 1,
      redrives: 0,
      updatedAt: new Date(later).toISOString(),
    });
    expect(withOutcome(state.requeue(base, 'm2', later))).toMatchObject({ status: 'PENDING', attempts: 0, carrier: 'm2', requeues: 1 });
    // Mid-attempt when its carrier vanished: still DELIVERING, so the new carrier's first receive finds it interrupted.
    const delivering = state.start(base, 'm1', 3, T);
    const requeued = state.requeue(delivering, 'm2', later);
    expect(withOutcome(requeued)).toMatchObject({ status: 'DELIVERING', attempts: 1, carrier: 'm2', attemptReceive: null });
    expect(withOutcome(state.interrupt(requeued, 30, later))).toMatchObject({
      status: 'RETRY_PENDING',
      attempts: 1,
      lastErrorCode: 'attempt_interrupted',
    });
    // Never one that ended, nor one listed as a dead letter (its message is in the DLQ: ops redrive it).
    for (const status of TERMINAL_STATUSES)
      expect(() => state.requeue({ ...base, status }, 'm2', later), status).toThrow(state.TransitionError);
    expect(() => state.requeue(state.strand(retrying, T), 'm2', later)).toThrow(state.TransitionError);
  });
  it('ends a held delivery past its bound as FAILED hold_expired: no attempt, not a dead letter, not redrivable', () => {
    const later = T + 825_000;
    const d = state.expireHold(base, later);
    expect(withOutcome(d)).toMatchObject({
      status: 'FAILED',
      attempts: 0,
      lastErrorCode: 'hold_expired',
      lastHttpStatus: null,
      deadLetterReason: null,
      completedAt: new Date(later).toISOString(),
      updatedAt: new Date(later).toISOString(),
    });
    expect(() => state.redrive(d, 'm2', later)).toThrow(state.TransitionError);
    // Only a delivery still waiting for its first attempt is held: anything else has moved on.
    for (const status of ['DELIVERING', 'RETRY_PENDING', ...TERMINAL_STATUSES] as const) {
      expect(() => state.expireHold({ ...base, status }, later), status).toThrow(state.TransitionError);
    }
  });
  it('reaches DEAD_LETTER only by the fifth retryable failure (contract 3), whatever the state and the transition', () => {
    const statuses = ['PENDING', 'DELIVERING', 'RETRY_PENDING', 'SUCCEEDED', 'FAILED', 'DEAD_LETTER'] as const;
    const transitions: Record<string, (d: Delivery) => Delivery> = {
      start: (d) => state.start(d, 'm9', 9, T),
      succeed: (d) => state.succeed(d, 'http_200', T),
      fail: (d) => state.fail(d, 'http_404', T),
      retry: (d) => state.retry(d, 'http_503', 30, T),
      interrupt: (d) => state.interrupt(d, 30, T),
      refuse: (d) => state.refuse(d, 'destination_disabled', T),
      strand: (d) => state.strand(d, T),
      expireHold: (d) => state.expireHold(d, T),
      requeue: (d) => state.requeue(d, 'm9', T),
    };
    let deadLetters = 0;
    for (const status of statuses) {
      for (let attempts = 0; attempts <= 5; attempts++) {
        // A DEAD_LETTER input is one already dead-lettered; the rest are not listed.
        const d: Delivery = { ...base, status, attempts, deadLetterReason: status === 'DEAD_LETTER' ? 'attempts_exhausted' : null };
        for (const [name, apply] of Object.entries(transitions)) {
          let next: Delivery;
          try {
            next = apply(d);
          } catch (err) {
            expect(err, `${name} from ${status}`).toBeInstanceOf(state.TransitionError);
            continue;
          }
          if (next.status === 'DEAD_LETTER' && status !== 'DEAD_LETTER') {
            deadLetters++;
            expect(['retry', 'interrupt'], `${name} from ${status} with ${attempts} attempts`).toContain(name);
            expect(next.attempts, `${name} from ${status}`).toBe(5);
          }
        }
      }
    }
    // retry and interrupt from DELIVERING with 5 attempts started.
    expect(deadLetters).toBe(2);
  });
  it('never leaves a terminal state except a dead letter by redrive', () => {
    for (const status of TERMINAL_STATUSES) {
      const d = { ...base, status };
      expect(() => state.start(d, 'm1', 1, T), status).toThrow(state.TransitionError);
      expect(() => state.refuse(d, 'x', T), status).toThrow(state.TransitionError);
    }
    expect(() => state.start({ ...base, status: 'DELIVERING' }, 'm1', 1, T)).toThrow(state.TransitionError);
    expect(() => state.succeed(base, 'http_200', T)).toThrow(state.TransitionError);
    expect(() => state.redrive({ ...base, status: 'FAILED' }, 'm2', T)).toThrow(state.TransitionError);
    expect(() => state.requeue({ ...base, status: 'SUCCEEDED' }, 'm2', T)).toThrow(state.TransitionError);
  });
});

/**
 * A delivery whose message reached the DLQ with attempts left (its receives spent without attempts) is
 * stranded: from any status that still expects an attempt, including one that was mid-attempt, it keeps its
 * status and records why, so the redrive can queue it again.
 */
describe('stranding a delivery with attempts left', () => {
  it.each(['PENDING', 'RETRY_PENDING', 'DELIVERING'] as const)('keeps %s, records receives_exhausted, and can be redriven', (status) => {
    const stranded = state.strand({ ...base, status }, T);
    expect(withOutcome(stranded)).toMatchObject({ status, deadLetterReason: 'receives_exhausted', attempts: base.attempts });
    expect(withOutcome(state.redrive(stranded, 'm2', T + 1000))).toMatchObject({
      status: 'PENDING',
      attempts: 0,
      deadLetterReason: null,
      carrier: 'm2',
    });
  });
});

/**
 * Contract 3 ends a delivery in one of three outcomes: SUCCEEDED (2xx), FAILED (permanent failure or the
 * attempt-time re-check) and DEAD_LETTER (the fifth retryable failure). TERMINAL_STATUSES is that list, and no
 * lifecycle transition leaves those statuses; every other status has one.
 */
/** Every lifecycle move except the operators' redrive. */
const MOVES: Record<string, (d: Delivery) => Delivery> = {
  start: (d) => state.start(d, 'm', 1, T),
  succeed: (d) => state.succeed(d, 'http_200', T),
  fail: (d) => state.fail(d, 'http_404', T),
  retry: (d) => state.retry(d, 'http_503', 30, T),
  refuse: (d) => state.refuse(d, 'destination_disabled', T),
  strand: (d) => state.strand(d, T),
  expireHold: (d) => state.expireHold(d, T),
};
const movesFrom = (status: Delivery['status']) =>
  Object.keys(MOVES).filter((name) => {
    try {
      MOVES[name]!({ ...base, status });
      return true;
    } catch (err) {
      expect(err).toBeInstanceOf(state.TransitionError);
      return false;
    }
  });

describe('terminal delivery statuses (contract 3)', () => {
  it('are exactly the three outcomes', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(['DEAD_LETTER', 'FAILED', 'SUCCEEDED']);
  });

  it('admit no lifecycle move, and every other status admits one', () => {
    for (const status of DELIVERY_STATUSES) {
      expect(movesFrom(status).length === 0, status).toBe(TERMINAL_STATUSES.includes(status));
    }
  });
});
