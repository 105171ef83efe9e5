import { describe, expect, it } from 'vitest';
import { rateHeaders, refusedHeaders } from '#platform/auth';
import { LEASE_MS, leaseSize, type LeaseInputs, rateWindow, STRANDED_SHARE } from '#data/rate-counters';

describe('rateWindow', () => {
  it('is the UTC minute containing the instant', () => {
    const w = rateWindow(Date.UTC(2026, 10, 22, 23, 59, 59, 500));
    expect(w.start).toBe('2026-11-22T23:59');
    expect(w.resetSeconds).toBe(1);
    expect(w.endMs).toBe(Date.UTC(2026, 10, 23, 0, 0, 0));
    expect(rateWindow(Date.UTC(2026, 10, 23, 0, 0, 0)).start).toBe('2026-11-23T00:00');
    expect(rateWindow(Date.UTC(2026, 10, 23, 0, 0, 0)).resetSeconds).toBe(60);
    expect(rateWindow(Date.UTC(2026, 10, 23, 0, 0, 17, 1)).resetSeconds).toBe(43);
  });
});

describe('rate headers', () => {
  const window = rateWindow(Date.UTC(2026, 0, 1, 0, 0, 30));

  it('report the limit, what is left of what this instance saw counted, and the reset', () => {
    expect(rateHeaders(10, 10, window)).toEqual({
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '30',
      'RateLimit-Policy': '10;w=60',
    });
    expect(rateHeaders(10, 3, window)['RateLimit-Remaining']).toBe('7');
    // A count past a lowered limit shows nothing left, never a negative.
    expect(rateHeaders(10, 14, window)['RateLimit-Remaining']).toBe('0');
  });

  it('refuse with Retry-After at the window end and nothing remaining', () => {
    const h = refusedHeaders(10, window);
    expect(h['Retry-After']).toBe('30');
    expect(h['RateLimit-Remaining']).toBe('0');
    expect(h['RateLimit-Reset']).toBe('30');
  });
});

describe('leaseSize', () => {
  const steady: LeaseInputs = { ratePerMs: 0.05, share: 1, limit: 60_000, seen: 1_000, warnAt: 48_000, msLeft: 30_000 };

  it('claims what this instance admits in a lease life at its observed rate', () => {
    expect(leaseSize(steady)).toBe(0.05 * LEASE_MS);
  });

  it('is one unit with nothing observed, and never less', () => {
    expect(leaseSize({ ...steady, ratePerMs: 0 })).toBe(1);
    expect(leaseSize({ ...steady, seen: 60_000 })).toBe(1);
  });

  it("never holds more than this instance's share of the stranded share of the limit", () => {
    const fast = { ...steady, ratePerMs: 100 };
    expect(leaseSize(fast)).toBe(60_000 * STRANDED_SHARE);
    expect(leaseSize({ ...fast, share: 0.25 })).toBe(60_000 * STRANDED_SHARE * 0.25);
  });

  it("shrinks with the window's time left, to one unit at its end", () => {
    expect(leaseSize({ ...steady, msLeft: 400 })).toBe(20);
    expect(leaseSize({ ...steady, msLeft: 10 })).toBe(1);
    const sizes = [2_000, 1_000, 500, 100, 20].map((msLeft) => leaseSize({ ...steady, msLeft }));
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
  });

  it('takes at most an eighth of what was left, so the quota runs out one unit at a time', () => {
    const fast = { ...steady, ratePerMs: 100, warnAt: null };
    expect(leaseSize({ ...fast, seen: 59_920 })).toBe(10);
    expect(leaseSize({ ...fast, seen: 59_990 })).toBe(1);
    for (let seen = 59_000; seen < 60_000; seen++)
      expect(leaseSize({ ...fast, seen })).toBeLessThanOrEqual(Math.max(1, (60_000 - seen) / 8));
  });

  it('never reaches past the 80 % mark from below it: the mark is always the first unit of a lease', () => {
    const fast = { ...steady, ratePerMs: 100 };
    expect(leaseSize({ ...fast, seen: 47_990 })).toBe(9);
    expect(leaseSize({ ...fast, seen: 47_999 })).toBe(600);
    for (let seen = 47_000; seen < 47_999; seen++) expect(seen + leaseSize({ ...fast, seen })).toBeLessThan(48_000);
  });
});
