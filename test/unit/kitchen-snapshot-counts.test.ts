import { describe, expect, it } from 'vitest';
import { businessDayStartMs } from '#contract/business-date';
import type { KitchenInput } from '#lambdas/shiftq/inputs';
import { kitchenSnapshot } from '#lambdas/shiftq/kitchen-averages';

/**
 * The snapshot's queue, counts, divisor names and status of contract 2.4, on a small day worked out by
 * hand: each ticket is in one state only, so every count below is the number of tickets in that state.
 */
const ZONE = 'America/New_York';
const DATE = '20261120';
const MIN = 60_000;
const F = businessDayStartMs(ZONE, DATE) + 10 * 60 * MIN;
const at = (minutes: number) => new Date(F + minutes * MIN).toISOString();

const day = (status: KitchenInput['status'] = { state: 'ok', httpStatus: 200 }): KitchenInput => ({
  updatedAt: at(30),
  status,
  stations: [
    { id: 'grill', name: 'Grill', kind: 'prep', includeWithExpediter: true, expoRouting: 'expo' },
    { id: 'pass', name: 'Pass', kind: 'expediter', includeWithExpediter: false, expoRouting: 'window' },
    { id: 'fry', name: 'Fry', kind: 'prep', includeWithExpediter: false, expoRouting: 'expo' },
  ],
  trackedPrepStations: null,
  trackedSalesCategories: null,
  tickets: [
    // Cleared: prep done, both expo levels cleared.
    {
      id: 'cleared',
      firedAt: at(0),
      salesCategory: 'Food',
      prep: [
        { stationId: 'grill', itemCount: 2, doneAt: at(10) },
        { stationId: 'fry', itemCount: 1, doneAt: at(12) },
      ],
      expo: [
        { fulfillmentLevel: 1, stationId: 'pass', itemCount: 3, clearedAt: at(15) },
        { fulfillmentLevel: 2, stationId: 'pass', itemCount: 3, clearedAt: at(20) },
      ],
    },
    // Ready since minute 5 and minute 10: prep done, level 1 not cleared.
    {
      id: 'ready-early',
      firedAt: at(1),
      salesCategory: 'Food',
      prep: [{ stationId: 'grill', itemCount: 1, doneAt: at(5) }],
      expo: [{ fulfillmentLevel: 1, stationId: 'pass', itemCount: 1, clearedAt: null }],
    },
    {
      id: 'ready-late',
      firedAt: at(2),
      salesCategory: 'Bar',
      prep: [{ stationId: 'grill', itemCount: 1, doneAt: at(10) }],
      expo: [{ fulfillmentLevel: 1, stationId: 'pass', itemCount: 1, clearedAt: null }],
    },
    // In progress: a tracked prep station not done yet.
    { id: 'cooking', firedAt: at(3), salesCategory: 'Food', prep: [{ stationId: 'grill', itemCount: 1, doneAt: null }], expo: [] },
    // No kitchen work at all: neither in progress, ready, cleared nor an expediter ticket.
    { id: 'drinks-only', firedAt: at(4), salesCategory: 'Bar', prep: [], expo: [] },
  ],
});

describe('kitchen snapshot counts (2.4)', () => {
  const snapshot = kitchenSnapshot(day(), DATE, ZONE);

  it('counts tickets in progress and ready, and how long the oldest ready one has waited', () => {
    expect(snapshot.queue).toEqual({ inProgressCount: 1, readyQueueCount: 2, oldestReadyMinutes: 25 });
  });

  it('counts cleared tickets, tickets with expediter work and distinct fulfillment levels', () => {
    expect(snapshot.counts).toMatchObject({
      clearedTicketCount: 1,
      expediterSourceTicketCount: 3,
      expediterLevelCount: 2,
      sourceTicketCount: 5,
    });
  });

  it('lists the prep stations only, with their configuration, and counts them', () => {
    expect(snapshot.availablePrepStations).toEqual([
      { id: 'grill', name: 'Grill', includeWithExpediter: true, expoRouting: 'expo' },
      { id: 'fry', name: 'Fry', includeWithExpediter: false, expoRouting: 'expo' },
    ]);
    expect(snapshot.counts.stationCount).toBe(2);
  });

  it('names the ticket-count basis and the count each day average divides by (rule 1)', () => {
    expect(snapshot.averages).toMatchObject({
      averageBasis: 'ticket_count',
      avgKitchenTicketTimeDivisorField: 'prepTicketCount',
      avgKitchenTicketTimeDivisorValue: snapshot.counts.prepTicketCount,
      avgExpediterTicketTimeDivisorField: 'expediterTicketCount',
      avgExpediterTicketTimeDivisorValue: snapshot.counts.expediterTicketCount,
    });
    expect(snapshot.counts).toMatchObject({ prepTicketCount: 3, expediterTicketCount: 1 });
  });
});

describe('kitchen status (2.4, 7.3): error present only on error', () => {
  it('drops an error text from a healthy status', () => {
    expect(kitchenSnapshot(day({ state: 'ok', httpStatus: 200, error: 'earlier failure' }), DATE, ZONE).status).toEqual({
      state: 'ok',
      httpStatus: 200,
    });
  });
  it('keeps the error of a failed fetch', () => {
    expect(kitchenSnapshot(day({ state: 'error', httpStatus: 502, error: 'upstream 502' }), DATE, ZONE).status).toEqual({
      state: 'error',
      httpStatus: 502,
      error: 'upstream 502',
    });
  });
});
