import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../lambdas/shared/data/deliveries.js';
import * as state from '../../lambdas/webhooks/delivery-state.js';

const base: Delivery = {
  deliveryId: 'dlv_1',
  eventId: 'evt_1',
  eventType: 'bevq.menu.updated',
  destinationId: 'dst_1',
  destinationHost: 'h',
  clientId: 'app_1',
  groupId: 'g',
  locationId: 'l',
  body: '{}',
  status: 'PENDING',
  attempts: 0,
  backoffHistory: [],
  lastErrorCode: null,
  lastHttpStatus: null,
  lastAttemptAt: null,
  nextAttemptAt: null,
  completedAt: null,
  redrives: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const T = Date.UTC(2026, 0, 1);

describe('delivery transitions', () => {
  it('PENDING → DELIVERING → SUCCEEDED', () => {
    const d = state.succeed(state.start(base, 1, T), 204, T);
    expect(d).toMatchObject({ status: 'SUCCEEDED', attempts: 1, lastHttpStatus: 204, lastErrorCode: null, completedAt: new Date(T).toISOString() });
  });
  it('DELIVERING → FAILED on a permanent failure', () => {
    expect(state.fail(state.start(base, 1, T), 'http_401', 401, T)).toMatchObject({ status: 'FAILED', lastErrorCode: 'http_401' });
  });
  it('retries with the given wait until the fifth retryable failure, which dead-letters', () => {
    let d = base;
    for (const [attempt, wait] of [[1, 30], [2, 60], [3, 120], [4, 240]] as const) {
      d = state.retry(state.start(d, attempt, T), 'http_503', 503, wait, T);
      expect(d).toMatchObject({ status: 'RETRY_PENDING', attempts: attempt, nextAttemptAt: new Date(T + wait * 1000).toISOString() });
    }
    d = state.retry(state.start(d, 5, T), 'timeout', null, 480, T);
    expect(d).toMatchObject({ status: 'DEAD_LETTER', attempts: 5, backoffHistory: [30, 60, 120, 240], nextAttemptAt: null, lastErrorCode: 'timeout' });
  });
  it('refuses without a request from PENDING or RETRY_PENDING', () => {
    expect(state.refuse(base, 'destination_disabled', T)).toMatchObject({ status: 'FAILED', lastErrorCode: 'destination_disabled', attempts: 0 });
  });
  it('redrives a dead letter to PENDING with attempts reset', () => {
    const dead = { ...base, status: 'DEAD_LETTER' as const, attempts: 5, backoffHistory: [30, 60, 120, 240] };
    expect(state.redrive(dead, T)).toMatchObject({ status: 'PENDING', attempts: 0, backoffHistory: [], redrives: 1 });
  });
  it('never leaves a terminal state except DEAD_LETTER by redrive', () => {
    for (const status of state.TERMINAL) {
      const d = { ...base, status };
      expect(() => state.start(d, 1, T), status).toThrow(state.TransitionError);
      expect(() => state.refuse(d, 'x', T), status).toThrow(state.TransitionError);
    }
    expect(() => state.succeed(base, 200, T)).toThrow(state.TransitionError);
    expect(() => state.redrive({ ...base, status: 'FAILED' }, T)).toThrow(state.TransitionError);
  });
});
