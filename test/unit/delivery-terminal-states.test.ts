import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES } from '#contract/delivery-policy';
import type { Delivery } from '#data/deliveries';
import * as state from '#lambdas/webhooks/delivery-state';

/**
 * Contract 3 ends a delivery in one of three outcomes: SUCCEEDED (2xx), FAILED (permanent failure or the
 * attempt-time re-check) and DEAD_LETTER (the fifth retryable failure). TERMINAL is that list, and no
 * lifecycle transition leaves those statuses; every other status has one.
 */
const base: Delivery = {
  deliveryId: 'dlv_t',
  eventId: 'evt_t',
  eventType: 'bevq.menu.updated',
  destinationId: 'dst_t',
  destinationHost: 'h',
  clientId: 'app_t',
  groupId: 'g',
  locationId: 'l',
  body: '{}',
  status: 'PENDING',
  attempts: 1,
  backoffHistory: [],
  lastErrorCode: null,
  lastHttpStatus: null,
  lastAttemptAt: null,
  nextAttemptAt: null,
  completedAt: null,
  redrives: 0,
  carrier: null,
  attemptReceive: null,
  deadLetterReason: null,
  version: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const T = Date.UTC(2026, 0, 1);

/** Every lifecycle move except the operators' redrive. */
const MOVES: Record<string, (d: Delivery) => Delivery> = {
  start: (d) => state.start(d, 'm', 1, T),
  succeed: (d) => state.succeed(d, 200, T),
  fail: (d) => state.fail(d, 'http_404', 404, T),
  retry: (d) => state.retry(d, 'http_503', 503, 30, T),
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
    expect([...state.TERMINAL].sort()).toEqual(['DEAD_LETTER', 'FAILED', 'SUCCEEDED']);
  });

  it('admit no lifecycle move, and every other status admits one', () => {
    for (const status of DELIVERY_STATUSES) {
      expect(movesFrom(status).length === 0, status).toBe(state.TERMINAL.includes(status));
    }
  });
});
