import { describe, expect, it } from 'vitest';
import { ATTEMPT_TIMEOUT_MS, backoffSeconds, MAX_ATTEMPTS, visibilitySeconds } from '../../lambdas/shared/backoff.js';

describe('backoffSeconds', () => {
  it('starts at 30 s and doubles: 30, 60, 120, 240 for the four retries five attempts allow', () => {
    expect([1, 2, 3, 4].map(backoffSeconds)).toEqual([30, 60, 120, 240]);
    expect(MAX_ATTEMPTS).toBe(5);
  });
  it('is capped at 3,600 s', () => {
    expect(backoffSeconds(7)).toBe(1920);
    expect(backoffSeconds(8)).toBe(3600);
    expect(backoffSeconds(30)).toBe(3600);
  });
  it('refuses impossible attempt numbers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => backoffSeconds(bad)).toThrow(RangeError);
  });
  it('turns a nominal wait into a visibility timeout, scaled only where configured', () => {
    expect(visibilitySeconds(30, 1)).toBe(30);
    expect(visibilitySeconds(3600, 1)).toBe(3600);
    expect([30, 60, 120, 240].map((s) => visibilitySeconds(s, 0.01))).toEqual([0, 1, 1, 2]);
  });
  it('waits 10 s for a receiver', () => expect(ATTEMPT_TIMEOUT_MS).toBe(10_000));
});
