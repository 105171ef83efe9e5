import { describe, expect, it } from 'vitest';
import type { Delivery } from '#data/deliveries';
import * as state from '#lambdas/webhooks/delivery-state';

/**
 * A delivery whose message reached the DLQ with attempts left (its receives spent without attempts) is
 * stranded: from any status that still expects an attempt, including one that was mid-attempt, it keeps its
 * status and records why, so the redrive can queue it again.
 */
const base: Delivery = {
  deliveryId: 'dlv_s',
  eventId: 'evt_s',
  eventType: 'bevq.menu.updated',
  destinationId: 'dst_s',
  destinationHost: 'h',
  clientId: 'app_s',
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

describe('stranding a delivery with attempts left', () => {
  it.each(['PENDING', 'RETRY_PENDING', 'DELIVERING'] as const)('keeps %s, records receives_exhausted, and can be redriven', (status) => {
    const stranded = state.strand({ ...base, status }, T);
    expect(stranded).toMatchObject({ status, deadLetterReason: 'receives_exhausted', attempts: base.attempts });
    expect(state.redrive(stranded, 'm2', T + 1000)).toMatchObject({ status: 'PENDING', attempts: 0, deadLetterReason: null, carrier: 'm2' });
  });
});
