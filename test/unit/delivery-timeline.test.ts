import { describe, expect, it } from 'vitest';
import { DELIVERY_POLICY } from '#lambdas/webhooks/delivery-policy';
import type { Delivery } from '#lambdas/webhooks/deliveries';
import { TIMELINE_ENTRIES } from '#lambdas/webhooks/delivery-policy';
import { plainItemBytes } from '#data/limits';
import * as state from '#lambdas/webhooks/attempt-rules';
import { CREATED_AT_MS, pendingDelivery } from '../fixtures/delivery-record.js';

/** A delivery's timeline: one entry per outcome, refusal and redrive, written by the transition itself, bounded. */

const T = CREATED_AT_MS;
const iso = (ms: number) => new Date(ms).toISOString();
const base = pendingDelivery;

/** One attempt started at `at` that ends `ms` later with a retryable failure and a wait of `wait` seconds. */
const failOnce = (d: Delivery, at: number, ms: number, wait: number) => state.retry(state.start(d, 'm1', 1, at), 'http_503', wait, at + ms);

describe('a delivery timeline', () => {
  it('fails four times, then succeeds: five entries with start, outcome code, duration and the next attempt', () => {
    let d = base;
    let at = T;
    for (const wait of [30, 60, 120, 240]) {
      d = failOnce(d, at, 150, wait);
      at += 150 + wait * 1000;
    }
    d = state.succeed(state.start(d, 'm1', 1, at), 'http_200', at + 80);
    expect(d.timeline).toEqual([
      { kind: 'attempt', attempt: 1, at: iso(T), status: 'RETRY_PENDING', code: 'http_503', ms: 150, next: iso(T + 150 + 30_000) },
      {
        kind: 'attempt',
        attempt: 2,
        at: iso(T + 30_150),
        status: 'RETRY_PENDING',
        code: 'http_503',
        ms: 150,
        next: iso(T + 30_300 + 60_000),
      },
      {
        kind: 'attempt',
        attempt: 3,
        at: iso(T + 90_300),
        status: 'RETRY_PENDING',
        code: 'http_503',
        ms: 150,
        next: iso(T + 90_450 + 120_000),
      },
      {
        kind: 'attempt',
        attempt: 4,
        at: iso(T + 210_450),
        status: 'RETRY_PENDING',
        code: 'http_503',
        ms: 150,
        next: iso(T + 210_600 + 240_000),
      },
      { kind: 'attempt', attempt: 5, at: iso(T + 450_600), status: 'SUCCEEDED', code: 'http_200', ms: 80, next: null },
    ]);
  });

  it('records a dead letter, its redrive and the attempts after it; refusals and interruptions have no duration', () => {
    let d = base;
    for (let i = 0; i < DELIVERY_POLICY.attempts; i++) d = failOnce(d, T, 10, 30);
    expect(d.timeline.at(-1)).toMatchObject({ attempt: 5, status: 'DEAD_LETTER', code: 'http_503', next: null });
    d = state.redrive(d, 'm2', T + 1000);
    expect(d.timeline.at(-1)).toEqual({
      kind: 'redrive',
      attempt: null,
      at: iso(T + 1000),
      status: 'PENDING',
      code: null,
      ms: null,
      next: null,
    });
    d = state.interrupt(state.start(d, 'm2', 1, T + 2000), 30, T + 60_000);
    expect(d.timeline.at(-1)).toMatchObject({
      kind: 'attempt',
      attempt: 1,
      code: 'attempt_interrupted',
      ms: null,
      status: 'RETRY_PENDING',
    });
    d = state.refuse(d, 'destination_disabled', T + 90_000);
    expect(d.timeline.at(-1)).toEqual({
      kind: 'refused',
      attempt: null,
      at: iso(T + 90_000),
      status: 'FAILED',
      code: 'destination_disabled',
      ms: null,
      next: null,
    });
    expect(state.expireHold(base, T).timeline).toEqual([
      { kind: 'refused', attempt: null, at: iso(T), status: 'FAILED', code: 'hold_expired', ms: null, next: null },
    ]);
  });

  it(`keeps the newest ${TIMELINE_ENTRIES} entries however often it is redriven, each entry at most 135 bytes of item size`, () => {
    let d = base;
    for (let round = 0; round < 4; round++) {
      if (round > 0) d = state.redrive(d, `m${round}`, T);
      for (let i = 0; i < DELIVERY_POLICY.attempts; i++) d = state.retry(state.start(d, 'm', 1, T), 'connection_refused', 3600, T + 10_000);
    }
    expect(d.timeline).toHaveLength(TIMELINE_ENTRIES);
    // The last two rounds: each a redrive, then its five attempts.
    expect(d.timeline.map((e) => e.attempt ?? e.kind)).toEqual(['redrive', 1, 2, 3, 4, 5, 'redrive', 1, 2, 3, 4, 5]);
    // The largest an entry gets: the longest status and a long code, every field set.
    const widest = { ...d.timeline[1]!, status: 'RETRY_PENDING' as const, code: 'location_not_covered', ms: 10_000, next: iso(T) };
    const bytes = plainItemBytes({ timeline: Array.from({ length: TIMELINE_ENTRIES }, () => widest) });
    expect(bytes).toBeLessThanOrEqual(TIMELINE_ENTRIES * 135);
    expect(plainItemBytes({ e: widest }) - 1).toBeLessThanOrEqual(135);
  });
});
