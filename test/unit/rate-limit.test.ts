import { describe, expect, it } from 'vitest';
import { decide } from '#platform/auth';
import { rateWindow } from '#data/rate-counters';

describe('rateWindow', () => {
  it('is the UTC minute containing the instant', () => {
    const w = rateWindow(Date.UTC(2026, 10, 22, 23, 59, 59, 500));
    expect(w.start).toBe('2026-11-22T23:59');
    expect(w.resetSeconds).toBe(1);
    expect(rateWindow(Date.UTC(2026, 10, 23, 0, 0, 0)).start).toBe('2026-11-23T00:00');
    expect(rateWindow(Date.UTC(2026, 10, 23, 0, 0, 0)).resetSeconds).toBe(60);
    expect(rateWindow(Date.UTC(2026, 10, 23, 0, 0, 17, 1)).resetSeconds).toBe(43);
  });
});

describe('decide', () => {
  const window = rateWindow(Date.UTC(2026, 0, 1, 0, 0, 30));

  it('allows up to the limit and reports the remaining quota', () => {
    const d = decide(10, 10, window);
    expect(d.allowed).toBe(true);
    expect(d.headers).toEqual({
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '30',
      'RateLimit-Policy': '10;w=60',
    });
  });

  it('refuses past the limit with Retry-After', () => {
    const d = decide(11, 10, window);
    expect(d.allowed).toBe(false);
    expect(d.headers['Retry-After']).toBe('30');
    expect(d.headers['RateLimit-Remaining']).toBe('0');
  });

  it('raises each alert at exactly one count per window', () => {
    const alerts = Array.from({ length: 30 }, (_, i) => decide(i + 1, 10, window).alert);
    expect(alerts.filter((a) => a === 'warning')).toHaveLength(1);
    expect(alerts.indexOf('warning')).toBe(7); // the 8th request is 80 % of 10
    expect(alerts.filter((a) => a === 'exceeded')).toHaveLength(1);
    expect(alerts.indexOf('exceeded')).toBe(10); // the 11th request is the first refused
  });

  it('rounds the 80 % threshold up for small limits', () => {
    expect(decide(1, 1, window).alert).toBe('warning');
    expect(decide(2, 1, window).alert).toBe('exceeded');
    expect(decide(3, 3, window).alert).toBe('warning');
  });
});
