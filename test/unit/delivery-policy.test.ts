import { describe, expect, it } from 'vitest';
import {
  backoffBounds,
  backoffSeconds,
  DELIVERY_POLICY,
  DERIVED,
  jitteredBackoffSeconds,
  scaledTimings,
} from '#lambdas/webhooks/delivery-policy';
import { seededRandom } from '#ingest/seeded-random';
import { WEBHOOK_QUEUES } from '#lambdas/webhooks/queues';
import { DELIVERY_RETENTION_SECONDS } from '#lambdas/webhooks/deliveries';
import { HOLD_BOUND_SECONDS } from '#lambdas/webhooks/pause';

describe('the delivery policy (contract 6.6, 8)', () => {
  it('makes five attempts, waiting 10 s for each receiver', () => {
    expect(DELIVERY_POLICY.attempts).toBe(5);
    expect(DELIVERY_POLICY.attemptTimeoutSeconds).toBe(10);
  });
  it('bases the backoff on 30 s, doubling: 30, 60, 120, 240 for the four retries five attempts allow', () => {
    expect([1, 2, 3, 4].map(backoffSeconds)).toEqual([30, 60, 120, 240]);
  });
  it('doubles at most five times (contract 6.6): 30 → 960 s, then no further, so the 3,600 s cap is never reached', () => {
    expect(DELIVERY_POLICY.maxDoublings).toBe(5);
    // 30 × 2^4 = 480; 30 × 2^5 = 960, the fifth and last doubling.
    expect(backoffSeconds(5)).toBe(480);
    expect(backoffSeconds(6)).toBe(960);
    // Not 1,920 (a sixth doubling) nor 3,600 (the cap): the base stays 960.
    expect(backoffSeconds(7)).toBe(960);
    expect(backoffSeconds(30)).toBe(960);
    expect(Math.max(...Array.from({ length: 40 }, (_, i) => backoffSeconds(i + 1)))).toBe(960);
  });
  it('refuses impossible attempt numbers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => backoffSeconds(bad)).toThrow(RangeError);
      expect(() => jitteredBackoffSeconds(bad)).toThrow(RangeError);
    }
  });
});

describe('jittered backoff', () => {
  const SAMPLES = 20_000;
  const draw = (attempt: number, seed: number) => {
    const random = seededRandom(seed);
    return Array.from({ length: SAMPLES }, () => jitteredBackoffSeconds(attempt, random));
  };

  it('waits [base, 1.5 × base], whole seconds: 30–45, 60–90, 120–180, 240–360 s for the four retries', () => {
    expect([1, 2, 3, 4].map(backoffBounds)).toEqual([
      { min: 30, max: 45 },
      { min: 60, max: 90 },
      { min: 120, max: 180 },
      { min: 240, max: 360 },
    ]);
  });

  it('waits 480–720 s at the fifth base and 960–1,440 s from the sixth on: never over five doublings × 1.5', () => {
    // 480 × 1.5 = 720; 960 × 1.5 = 1,440, under the 3,600 s cap.
    expect(backoffBounds(5)).toEqual({ min: 480, max: 720 });
    for (let attempt = 6; attempt <= 12; attempt++) expect(backoffBounds(attempt), `attempt ${attempt}`).toEqual({ min: 960, max: 1440 });
  });

  it('draws every wait inside its range, reaching both ends, for attempts 1–12', () => {
    // The contract's reading, by hand: [base, 1.5 × base] with base 30 · 2^min(n−1, 5).
    const ranges = [[30, 45], [60, 90], [120, 180], [240, 360], [480, 720], ...Array.from({ length: 7 }, () => [960, 1440])];
    ranges.forEach(([min, max], i) => {
      const attempt = i + 1;
      const waits = draw(attempt, attempt);
      expect(Math.min(...waits), `attempt ${attempt}`).toBe(min);
      expect(Math.max(...waits), `attempt ${attempt}`).toBe(max);
      expect(waits.every((w) => Number.isInteger(w) && w >= min! && w <= max!)).toBe(true);
    });
  });

  it('holds the bounds at the edges of the random source (0, just under 1, and a source misbehaving with 1)', () => {
    for (const attempt of [1, 2, 3, 4, 9]) {
      const { min, max } = backoffBounds(attempt);
      expect(jitteredBackoffSeconds(attempt, () => 0)).toBe(min);
      expect(jitteredBackoffSeconds(attempt, () => 1 - Number.EPSILON)).toBe(max);
      expect(jitteredBackoffSeconds(attempt, () => 1)).toBe(max);
      expect(jitteredBackoffSeconds(attempt, () => -0.5)).toBe(min);
    }
  });

  it('spreads over every whole second of the range, evenly, with the mean at 1.25 × base', () => {
    for (const attempt of [1, 2, 3, 4]) {
      const waits = draw(attempt, 100 + attempt);
      const { min, max } = backoffBounds(attempt);
      const seconds = max - min + 1;
      const counts = new Map<number, number>();
      for (const w of waits) counts.set(w, (counts.get(w) ?? 0) + 1);
      // Every second in the range is drawn, none much more often than its share.
      expect(counts.size, `attempt ${attempt}`).toBe(seconds);
      const share = SAMPLES / seconds;
      for (const n of counts.values()) expect(Math.abs(n - share) / share).toBeLessThan(0.35);
      const mean = waits.reduce((a, b) => a + b, 0) / SAMPLES;
      expect(Math.abs(mean - 1.25 * backoffSeconds(attempt)) / backoffSeconds(attempt), `attempt ${attempt}`).toBeLessThan(0.01);
      // Half the waits past the middle of the range: deliveries that failed together come back spread across it.
      const middle = (min + max) / 2;
      expect(Math.abs(waits.filter((w) => w > middle).length / SAMPLES - 0.5)).toBeLessThan(0.03);
    }
  });

  it('spreads a burst: 1,000 deliveries failing in the same second retry over the whole range, not in one second', () => {
    const waits = draw(1, 7).slice(0, 1000);
    const busiest = Math.max(...[...new Set(waits)].map((w) => waits.filter((x) => x === w).length));
    expect(new Set(waits).size).toBe(16);
    expect(busiest).toBeLessThan(100);
  });
});

describe('what the policy implies for the functions and queues', () => {
  it('lets an invocation outlive its slowest attempt with room to record the outcome', () => {
    expect(DERIVED.functionTimeoutSeconds).toBeGreaterThanOrEqual(DELIVERY_POLICY.attemptTimeoutSeconds + DELIVERY_POLICY.outcomeSeconds);
    expect(DERIVED.startBudgetSeconds).toBeLessThan(DERIVED.functionTimeoutSeconds);
  });
  it('keeps the queue visibility at least six times the function timeout (AWS guidance for SQS event sources)', () => {
    expect(WEBHOOK_QUEUES.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * DERIVED.functionTimeoutSeconds);
  });
  it("redrives after the policy's attempts plus the headroom for receives without one", () => {
    expect(WEBHOOK_QUEUES.maxReceiveCount).toBe(DELIVERY_POLICY.attempts + DELIVERY_POLICY.receiveHeadroom);
    expect(WEBHOOK_QUEUES.maxReceiveCount).toBeGreaterThan(DELIVERY_POLICY.attempts);
  });
  it('looks again for an early message within seconds, far sooner than the visibility timeout', () => {
    expect(DELIVERY_POLICY.lookAgainSeconds).toBeGreaterThanOrEqual(1);
    expect(DELIVERY_POLICY.lookAgainSeconds).toBeLessThanOrEqual(10);
    expect(DELIVERY_POLICY.lookAgainSeconds * 10).toBeLessThanOrEqual(WEBHOOK_QUEUES.visibilityTimeoutSeconds);
  });
  it('holds a paused delivery as long as its attempts could have taken, at the longest waits', () => {
    // Four waits at their longest, 45 + 90 + 180 + 360 = 675, and five invocations of 10 + 10 + 10 = 30: 675 + 150 = 825 s.
    expect(DERIVED.retrySpanSeconds).toBe(825);
    expect(HOLD_BOUND_SECONDS).toBe(825);
  });
  it("ends a hold well inside a delivery record's lifetime, so the ended record stays in the history", () => {
    // 30 days = 2,592,000 s.
    expect(DELIVERY_RETENTION_SECONDS).toBe(2_592_000);
    expect(HOLD_BOUND_SECONDS).toBeLessThan(DELIVERY_RETENTION_SECONDS);
  });
});

describe('scaledTimings', () => {
  it('is the policy itself at scale 1', () => {
    const t = scaledTimings(1);
    expect(t.attemptTimeoutMs).toBe(10_000);
    expect(t.functionTimeoutMs).toBe(DERIVED.functionTimeoutSeconds * 1000);
    expect(t.visibilityTimeoutSeconds).toBe(WEBHOOK_QUEUES.visibilityTimeoutSeconds);
    expect([30, 60, 120, 240, 45].map(t.backoffVisibilitySeconds)).toEqual([30, 60, 120, 240, 45]);
    expect(t.lookAgainVisibilitySeconds).toBe(DELIVERY_POLICY.lookAgainSeconds);
  });
  it('shrinks every wait alike, in whole seconds where SQS counts seconds', () => {
    const t = scaledTimings(0.01);
    expect(t.attemptTimeoutMs).toBe(100);
    expect(t.functionTimeoutMs).toBe(DERIVED.functionTimeoutSeconds * 10);
    expect(t.visibilityTimeoutSeconds).toBe(2); // 180 s × 0.01
    expect(scaledTimings(0.001).visibilityTimeoutSeconds).toBe(1); // never 0: a receive always hides its message
    expect(t.visibilityTimeoutSeconds * 1000).toBeGreaterThanOrEqual(t.functionTimeoutMs);
    expect([30, 60, 120, 240].map(t.backoffVisibilitySeconds)).toEqual([0, 1, 1, 2]);
    expect(t.lookAgainVisibilitySeconds).toBe(1); // never 0: an early message is hidden for a moment, not spun on
    expect(t.lookAgainVisibilitySeconds).toBeLessThan(t.visibilityTimeoutSeconds);
  });
});
