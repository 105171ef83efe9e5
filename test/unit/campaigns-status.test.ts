import { describe, expect, it } from 'vitest';
import { campaignStatusOf } from '#lambdas/campaigns/campaigns';

const c = (paused = false) => ({ startsAt: '2026-11-10T00:00:00Z', endsAt: '2026-11-20T00:00:00Z', paused });

describe('campaign status', () => {
  it.each([
    ['2026-11-09T23:59:59Z', false, 'scheduled'],
    ['2026-11-10T00:00:00Z', false, 'active'],
    ['2026-11-19T23:59:59Z', false, 'active'],
    ['2026-11-20T00:00:00Z', false, 'ended'],
    ['2026-11-15T00:00:00Z', true, 'paused'],
    ['2026-11-01T00:00:00Z', true, 'paused'],
    ['2026-11-21T00:00:00Z', true, 'ended'],
  ])('at %s (paused %s) → %s', (at, paused, status) => expect(campaignStatusOf(c(paused), Date.parse(at))).toBe(status));
});
