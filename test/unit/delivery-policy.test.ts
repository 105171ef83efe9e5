import { describe, expect, it } from 'vitest';
import { backoffSeconds, DELIVERY_POLICY, DERIVED, scaledTimings } from '#contract/delivery-policy';
import { WEBHOOK_QUEUES } from '#contract/queues';

describe('the delivery policy (contract 6.6, 8)', () => {
  it('makes five attempts, waiting 10 s for each receiver', () => {
    expect(DELIVERY_POLICY.attempts).toBe(5);
    expect(DELIVERY_POLICY.attemptTimeoutSeconds).toBe(10);
  });
  it('backs off from 30 s, doubling: 30, 60, 120, 240 for the four retries five attempts allow', () => {
    expect([1, 2, 3, 4].map(backoffSeconds)).toEqual([30, 60, 120, 240]);
  });
  it('caps the backoff at 3,600 s', () => {
    expect(backoffSeconds(7)).toBe(1920);
    expect(backoffSeconds(8)).toBe(3600);
    expect(backoffSeconds(30)).toBe(3600);
  });
  it('refuses impossible attempt numbers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => backoffSeconds(bad)).toThrow(RangeError);
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
  it('bounds attempts in flight: concurrency × batch size', () => {
    expect(DERIVED.maxConcurrency * DELIVERY_POLICY.batchSize).toBeLessThanOrEqual(DELIVERY_POLICY.maxAttemptsInFlight);
    expect(DERIVED.maxConcurrency).toBeGreaterThanOrEqual(2); // the event source's minimum
  });
});

describe('scaledTimings', () => {
  it('is the policy itself at scale 1', () => {
    const t = scaledTimings(1);
    expect(t.attemptTimeoutMs).toBe(10_000);
    expect(t.functionTimeoutMs).toBe(DERIVED.functionTimeoutSeconds * 1000);
    expect(t.visibilityTimeoutSeconds).toBe(WEBHOOK_QUEUES.visibilityTimeoutSeconds);
    expect([1, 2, 3, 4].map(t.backoffVisibilitySeconds)).toEqual([30, 60, 120, 240]);
  });
  it('shrinks every wait alike, in whole seconds where SQS counts seconds', () => {
    const t = scaledTimings(0.01);
    expect(t.attemptTimeoutMs).toBe(100);
    expect(t.functionTimeoutMs).toBe(DERIVED.functionTimeoutSeconds * 10);
    expect(t.visibilityTimeoutSeconds).toBe(2); // 180 s × 0.01
    expect(scaledTimings(0.001).visibilityTimeoutSeconds).toBe(1); // never 0: a receive always hides its message
    expect(t.visibilityTimeoutSeconds * 1000).toBeGreaterThanOrEqual(t.functionTimeoutMs);
    expect([1, 2, 3, 4].map(t.backoffVisibilitySeconds)).toEqual([0, 1, 1, 2]);
  });
});
