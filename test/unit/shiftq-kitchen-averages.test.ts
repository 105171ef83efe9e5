import { describe, expect, it } from 'vitest';
import { businessDayEndMs, businessDayStartMs } from '#contract/business-date';
import type { KitchenInput } from '#lambdas/shiftq/inputs';
import { bucketLabel, kitchenSnapshot } from '#lambdas/shiftq/kitchen-averages';
import { seededRandom } from '#ingest/seeded-random';

const ZONE = 'America/New_York';
const DATE = '20261120';
const START = businessDayStartMs(ZONE, DATE);
const END = businessDayEndMs(ZONE, DATE);
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A random but reproducible kitchen day: stations, tracking choices and tickets with open and done work. */
function randomDay(seed: number): KitchenInput {
  const rand = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const prepIds = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, i) => `prep${i}`);
  const expoIds = Array.from({ length: 1 + Math.floor(rand() * 2) }, (_, i) => `expo${i}`);
  const categories = ['Food', 'Bar', 'Dessert', 'Kids'].slice(0, 1 + Math.floor(rand() * 4));
  const tickets: KitchenInput['tickets'] = Array.from({ length: Math.floor(rand() * 120) }, (_, i) => {
    const fired = START + Math.floor(rand() * (END - START - 3 * 60 * MIN));
    const stations = prepIds.filter(() => rand() < 0.5);
    return {
      id: `t${i}`,
      firedAt: iso(fired),
      salesCategory: pick(categories),
      prep: stations.map((stationId) => ({
        stationId,
        itemCount: 1 + Math.floor(rand() * 9),
        doneAt: rand() < 0.8 ? iso(fired + Math.floor(rand() * 40 * MIN)) : null,
      })),
      expo: [1, 2, 3]
        .filter((level) => level === 1 || rand() < 0.3)
        .filter(() => rand() < 0.85)
        .map((fulfillmentLevel) => ({
          fulfillmentLevel,
          stationId: pick(expoIds),
          itemCount: 1 + Math.floor(rand() * 5),
          clearedAt: rand() < 0.7 ? iso(fired + Math.floor(rand() * 60 * MIN)) : null,
        })),
    };
  });
  return {
    updatedAt: iso(END - MIN),
    status: { state: 'ok', httpStatus: 200 },
    stations: [
      ...prepIds.map((id) => ({ id, name: id.toUpperCase(), kind: 'prep' as const, includeWithExpediter: true, expoRouting: 'expo' })),
      ...expoIds.map((id) => ({ id, name: id.toUpperCase(), kind: 'expediter' as const, includeWithExpediter: true, expoRouting: 'expo' })),
    ],
    trackedPrepStations: rand() < 0.5 ? null : prepIds.filter(() => rand() < 0.7),
    trackedSalesCategories: rand() < 0.5 ? null : categories.filter(() => rand() < 0.7),
    tickets,
  };
}

const close = (actual: number | null, expected: number) => expect(Math.abs((actual ?? NaN) - expected)).toBeLessThanOrEqual(0.0051);

type Row = {
  averageDivisorValue: number;
  ticketCount: number;
  averageTicketTimeMinutes: number | null;
  minTicketTimeMinutes: number | null;
  maxTicketTimeMinutes: number | null;
  averageDivisorField: string;
  averageBasis: string;
};
function checkRow(row: Row) {
  expect(row.averageBasis).toBe('ticket_count');
  expect(row.averageDivisorField).toBe('ticketCount');
  expect(row.averageDivisorValue).toBe(row.ticketCount);
  if (row.ticketCount > 0) {
    expect(row.averageTicketTimeMinutes!).toBeGreaterThanOrEqual(row.minTicketTimeMinutes! - 0.01);
    expect(row.averageTicketTimeMinutes!).toBeLessThanOrEqual(row.maxTicketTimeMinutes! + 0.01);
  }
}

/**
 * Invariants of 2.4 that hold for any day, whatever a ticket's time is
 * measured from: the expected values come from the snapshot's own other
 * fields or from the input, never from a second implementation.
 */
describe('kitchen averages over random ticket sets (seeded)', () => {
  const seeds = Array.from({ length: 60 }, (_, i) => 1000 + i * 7919);

  it.each(seeds)('seed %i: divisors are ticket counts, nested rows add up, buckets are aligned quarter hours', (seed) => {
    const day = randomDay(seed);
    const snap = kitchenSnapshot(day, DATE, ZONE);
    const { averages: a, counts: c } = snap;

    // Rule 1: the top-level divisors are the ticket counts, and no more tickets than were fired.
    expect(a.avgKitchenTicketTimeDivisorValue).toBe(c.prepTicketCount);
    expect(a.avgExpediterTicketTimeDivisorValue).toBe(c.expediterTicketCount);
    expect(c.prepTicketCount).toBeLessThanOrEqual(day.tickets.length);
    expect(c.expediterTicketCount).toBeLessThanOrEqual(day.tickets.length);
    expect(a.avgKitchenTicketTimeMinutes === null).toBe(c.prepTicketCount === 0);
    expect(a.avgExpediterTicketTimeMinutes === null).toBe(c.expediterTicketCount === 0);

    // Rule 3: present always; null when the input has no cleared expo ticket at all.
    expect(a).toHaveProperty('avgExpoClearMinutes');
    if (!day.tickets.some((t) => t.expo.some((e) => e.clearedAt !== null))) expect(a.avgExpoClearMinutes).toBeNull();

    const sum = (rows: { ticketCount: number }[]) => rows.reduce((n, r) => n + r.ticketCount, 0);
    snap.stationTicketAverages.forEach(checkRow);
    snap.salesCategoryTicketAverages.forEach(checkRow);
    snap.expediterTicketAverages.forEach(checkRow);
    // A ticket has one sales category and at most one level-1 expo entry: those rows partition the tickets.
    expect(sum(snap.salesCategoryTicketAverages)).toBe(c.prepTicketCount);
    expect(sum(snap.expediterTicketAverages.filter((r) => r.fulfillmentLevel === 1))).toBe(c.expediterTicketCount);

    expect(sum(snap.timeBuckets)).toBe(c.prepTicketCount);
    expect(c.timeBucketCount).toBe(snap.timeBuckets.length);
    expect(c.thirtyMinuteBucketCount).toBe(snap.timeBuckets.length);
    const starts = snap.timeBuckets.map((b) => b.bucketStartMs);
    expect(starts).toEqual([...new Set(starts)].sort((x, y) => x - y));
    for (const b of snap.timeBuckets) {
      checkRow(b);
      expect(b.bucketEndMs - b.bucketStartMs).toBe(15 * MIN);
      // New York's offset is whole hours, so a UTC quarter hour is a local one.
      expect(b.bucketStartMs % (15 * MIN)).toBe(0);
      expect(b).toHaveProperty('avgExpoClearMinutes');
      expect(b.bucketLabel).toMatch(/^\d{1,2}:\d{2} [AP]M – \d{1,2}:\d{2} [AP]M$/);
      [...b.stationTicketAverages, ...b.salesCategoryTicketAverages, ...b.expediterTicketAverages].forEach(checkRow);
      expect(sum(b.salesCategoryTicketAverages)).toBe(b.ticketCount);
    }
    // Rule 2: the day's average is the buckets' averages weighted by their own ticketCount; rowCount plays no part.
    const weighted = snap.timeBuckets.filter((b) => b.ticketCount > 0).reduce((n, b) => n + b.averageTicketTimeMinutes! * b.ticketCount, 0);
    if (c.prepTicketCount) expect(Math.abs(weighted / c.prepTicketCount - a.avgKitchenTicketTimeMinutes!)).toBeLessThanOrEqual(0.01);
  });

  it.each(seeds.slice(0, 20))('seed %i: a sales-category row is the day tracked for that category alone', (seed) => {
    const day = { ...randomDay(seed), trackedSalesCategories: null };
    for (const row of kitchenSnapshot(day, DATE, ZONE).salesCategoryTicketAverages) {
      const alone = kitchenSnapshot({ ...day, trackedSalesCategories: [row.salesCategory] }, DATE, ZONE);
      expect(alone.counts.prepTicketCount).toBe(row.ticketCount);
      close(alone.averages.avgKitchenTicketTimeMinutes, row.averageTicketTimeMinutes);
    }
  });

  it.each(seeds.slice(0, 20))('seed %i: the order tickets arrive in changes nothing', (seed) => {
    const day = randomDay(seed);
    expect(kitchenSnapshot({ ...day, tickets: [...day.tickets].reverse() }, DATE, ZONE)).toEqual(kitchenSnapshot(day, DATE, ZONE));
  });

  it.each(seeds.slice(0, 20))('seed %i: item volume (rowCount) changes no average', (seed) => {
    const day = randomDay(seed);
    const heavy: KitchenInput = {
      ...day,
      tickets: day.tickets.map((t) => ({
        ...t,
        prep: t.prep.map((p) => ({ ...p, itemCount: p.itemCount * 7 + 3 })),
        expo: t.expo.map((e) => ({ ...e, itemCount: e.itemCount * 5 })),
      })),
    };
    const a = kitchenSnapshot(day, DATE, ZONE);
    const b = kitchenSnapshot(heavy, DATE, ZONE);
    expect(b.averages).toEqual(a.averages);
    expect(b.stationTicketAverages.map((r) => r.averageTicketTimeMinutes)).toEqual(
      a.stationTicketAverages.map((r) => r.averageTicketTimeMinutes),
    );
    expect(b.timeBuckets.map((r) => r.averageTicketTimeMinutes)).toEqual(a.timeBuckets.map((r) => r.averageTicketTimeMinutes));
    if (a.counts.prepTicketCount) expect(b.counts.prepRowCount).toBeGreaterThan(a.counts.prepRowCount);
  });
});

/**
 * Worked by hand from 2.4 (ticket-based averages, each row divided by its own
 * ticketCount, rowCount never a divisor, avgExpoClearMinutes null without a
 * cleared expo ticket, 15-minute buckets) and docs/decisions/shiftq.md (a
 * ticket's prep time runs from fired to its last tracked station done; a
 * ticket's bucket is the quarter hour it was fired in). The arithmetic is
 * beside each expectation; every result is exact to two decimals.
 */
describe('kitchen averages, worked examples', () => {
  const stations: KitchenInput['stations'] = [
    { id: 'grill', name: 'Grill', kind: 'prep', includeWithExpediter: true, expoRouting: 'expo' },
    { id: 'fry', name: 'Fry', kind: 'prep', includeWithExpediter: true, expoRouting: 'expo' },
    { id: 'expo', name: 'Expo', kind: 'expediter', includeWithExpediter: true, expoRouting: 'expo' },
  ];
  const t0 = START + 60 * MIN;
  const base: KitchenInput = {
    updatedAt: iso(t0 + 120 * MIN),
    status: { state: 'ok', httpStatus: 200 },
    stations,
    trackedPrepStations: null,
    trackedSalesCategories: null,
    tickets: [],
  };
  const prep = (stationId: string, doneAfterMin: number | null, itemCount = 1, from = t0) => ({
    stationId,
    itemCount,
    doneAt: doneAfterMin === null ? null : iso(from + doneAfterMin * MIN),
  });
  const expo = (fulfillmentLevel: number, clearedAfterMin: number | null, from = t0) => ({
    fulfillmentLevel,
    stationId: 'expo',
    itemCount: 1,
    clearedAt: clearedAfterMin === null ? null : iso(from + clearedAfterMin * MIN),
  });

  it('divides by tickets, not by item rows: a 10-item ticket counts once', () => {
    const snap = kitchenSnapshot(
      {
        ...base,
        tickets: [
          { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', 10, 10)], expo: [] },
          { id: 'b', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', 20, 1)], expo: [] },
        ],
      },
      DATE,
      ZONE,
    );
    // (10 + 20) / 2 tickets = 15; by rows it would be (10×10 + 20×1) / 11 = 10.91.
    expect(snap.averages.avgKitchenTicketTimeMinutes).toBe(15);
    // rows: 10 + 1 = 11.
    expect(snap.counts).toMatchObject({ prepTicketCount: 2, prepRowCount: 11 });
    expect(snap.stationTicketAverages[0]).toMatchObject({
      stationGuid: 'grill',
      ticketCount: 2,
      rowCount: 11,
      averageTicketTimeMinutes: 15,
      averageDivisorValue: 2,
    });
  });

  it('averages several tickets: 10, 11, 11 and 11 minutes', () => {
    const snap = kitchenSnapshot(
      {
        ...base,
        tickets: [10, 11, 11, 11].map((m, i) => ({
          id: `t${i}`,
          firedAt: iso(t0),
          salesCategory: 'Food',
          prep: [prep('grill', m)],
          expo: [],
        })),
      },
      DATE,
      ZONE,
    );
    // (10 + 11 + 11 + 11) / 4 = 43 / 4 = 10.75; min 10, max 11.
    expect(snap.averages).toMatchObject({ avgKitchenTicketTimeMinutes: 10.75, avgKitchenTicketTimeDivisorValue: 4 });
    expect(snap.stationTicketAverages[0]).toMatchObject({
      averageTicketTimeMinutes: 10.75,
      minTicketTimeMinutes: 10,
      maxTicketTimeMinutes: 11,
      ticketCount: 4,
    });
  });

  it('times a ticket to its last tracked station and leaves unfinished tickets in progress', () => {
    const snap = kitchenSnapshot(
      {
        ...base,
        tickets: [
          { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', 6), prep('fry', 9)], expo: [expo(1, null)] },
          { id: 'b', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', null)], expo: [] },
        ],
      },
      DATE,
      ZONE,
    );
    // a: grill at 6, fry at 9 → done at max(6, 9) = 9; b is not done, so not averaged: 9 / 1 = 9.
    expect(snap.averages.avgKitchenTicketTimeMinutes).toBe(9);
    // b in progress; a ready (prep done, expo not cleared) since t0 + 9, read at t0 + 120: 120 − 9 = 111.
    expect(snap.queue).toEqual({ inProgressCount: 1, readyQueueCount: 1, oldestReadyMinutes: 111 });
    // Nothing cleared at expo.
    expect(snap.averages.avgExpoClearMinutes).toBeNull();
    expect(snap.averages.avgExpediterTicketTimeMinutes).toBeNull();
  });

  it('honours tracked stations and sales categories', () => {
    const tickets: KitchenInput['tickets'] = [
      { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', 4), prep('fry', 30)], expo: [] },
      { id: 'b', firedAt: iso(t0), salesCategory: 'Bar', prep: [prep('grill', 8)], expo: [] },
    ];
    const snap = kitchenSnapshot({ ...base, tickets, trackedPrepStations: ['grill'], trackedSalesCategories: ['Food'] }, DATE, ZONE);
    // Only Food (a) and only grill: a is done when grill is, at 4 (fry's 30 untracked): 4 / 1 = 4.
    expect(snap.averages.avgKitchenTicketTimeMinutes).toBe(4);
    expect(snap).toMatchObject({
      selectionMode: 'selected',
      trackAllPrepStations: false,
      trackedPrepStations: ['grill'],
      trackedSalesCategories: ['Food'],
      availableSalesCategories: ['Bar', 'Food'],
    });
  });

  it('gives each station, sales category and expediter level the average of its own tickets', () => {
    const snap = kitchenSnapshot(
      {
        ...base,
        tickets: [
          { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', 6), prep('fry', 9)], expo: [expo(1, 12), expo(2, 15)] },
          { id: 'b', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', 8)], expo: [expo(1, 11)] },
          { id: 'c', firedAt: iso(t0), salesCategory: 'Bar', prep: [prep('fry', 4)], expo: [expo(1, null)] },
        ],
      },
      DATE,
      ZONE,
    );
    // Tickets: a 9 (its later station), b 8, c 4 → (9 + 8 + 4) / 3 = 21 / 3 = 7.
    expect(snap.averages).toMatchObject({ avgKitchenTicketTimeMinutes: 7, avgKitchenTicketTimeDivisorValue: 3 });
    // Level 1 cleared: a 12, b 11 (c not cleared) → (12 + 11) / 2 = 11.5.
    expect(snap.averages).toMatchObject({ avgExpediterTicketTimeMinutes: 11.5, avgExpediterTicketTimeDivisorValue: 2 });
    // Clear after ready: a 12 − 9 = 3, b 11 − 8 = 3 → (3 + 3) / 2 = 3.
    expect(snap.averages.avgExpoClearMinutes).toBe(3);
    expect(snap.counts).toMatchObject({ prepTicketCount: 3, expediterTicketCount: 2 });
    const station = (id: string) => snap.stationTicketAverages.find((r) => r.stationGuid === id);
    // grill: a 6, b 8 → 14 / 2 = 7; fry: a 9, c 4 → 13 / 2 = 6.5.
    expect(station('grill')).toMatchObject({
      ticketCount: 2,
      averageTicketTimeMinutes: 7,
      minTicketTimeMinutes: 6,
      maxTicketTimeMinutes: 8,
    });
    expect(station('fry')).toMatchObject({
      ticketCount: 2,
      averageTicketTimeMinutes: 6.5,
      minTicketTimeMinutes: 4,
      maxTicketTimeMinutes: 9,
    });
    const category = (c: string) => snap.salesCategoryTicketAverages.find((r) => r.salesCategory === c);
    // Food: a 9, b 8 → 17 / 2 = 8.5; Bar: c 4 → 4 / 1 = 4.
    expect(category('Food')).toMatchObject({ ticketCount: 2, averageTicketTimeMinutes: 8.5 });
    expect(category('Bar')).toMatchObject({ ticketCount: 1, averageTicketTimeMinutes: 4 });
    const level = (n: number) => snap.expediterTicketAverages.find((r) => r.fulfillmentLevel === n);
    // Level 1: 23 / 2 = 11.5 as above; level 2: a alone, 15 / 1 = 15.
    expect(level(1)).toMatchObject({ stationGuid: 'expo', ticketCount: 2, averageTicketTimeMinutes: 11.5 });
    expect(level(2)).toMatchObject({ stationGuid: 'expo', ticketCount: 1, averageTicketTimeMinutes: 15 });
  });

  it('puts each ticket in the local quarter hour it was fired in', () => {
    // 2026-11-20 is EST (UTC−5): 22:00 UTC is 5:00 PM local.
    const at = (h: number, m: number, s = 0) => Date.UTC(2026, 10, 20, h, m, s);
    const ticket = (id: string, fired: number, minutes: number) => ({
      id,
      firedAt: iso(fired),
      salesCategory: 'Food',
      prep: [prep('grill', minutes, 1, fired)],
      expo: [],
    });
    const snap = kitchenSnapshot(
      {
        ...base,
        updatedAt: iso(at(23, 30)),
        tickets: [
          ticket('a', at(22, 7), 6),
          ticket('b', at(22, 14, 59), 10),
          ticket('c', at(22, 15), 12),
          ticket('d', at(22, 29), 20),
          ticket('e', at(22, 30), 5),
        ],
      },
      DATE,
      ZONE,
    );
    expect(
      snap.timeBuckets.map((b) => ({
        start: b.bucketStartIso,
        end: b.bucketEndIso,
        label: b.bucketLabel,
        tickets: b.ticketCount,
        avg: b.averageTicketTimeMinutes,
      })),
    ).toEqual([
      // 5:07 and 5:14:59 PM: (6 + 10) / 2 = 8.
      { start: '2026-11-20T22:00:00.000Z', end: '2026-11-20T22:15:00.000Z', label: '5:00 PM – 5:15 PM', tickets: 2, avg: 8 },
      // 5:15 (its start belongs to it) and 5:29 PM: (12 + 20) / 2 = 16.
      { start: '2026-11-20T22:15:00.000Z', end: '2026-11-20T22:30:00.000Z', label: '5:15 PM – 5:30 PM', tickets: 2, avg: 16 },
      // 5:30 PM: 5 / 1 = 5.
      { start: '2026-11-20T22:30:00.000Z', end: '2026-11-20T22:45:00.000Z', label: '5:30 PM – 5:45 PM', tickets: 1, avg: 5 },
    ]);
    // The day: (6 + 10 + 12 + 20 + 5) / 5 = 53 / 5 = 10.6, over 3 buckets.
    expect(snap.averages.avgKitchenTicketTimeMinutes).toBe(10.6);
    expect(snap.counts).toMatchObject({ timeBucketCount: 3, thirtyMinuteBucketCount: 3 });
    expect(snap.bucketIntervalMinutes).toBe(15);
  });

  it('reports expo clear time from the moment the food was ready, and the error only on error', () => {
    const ticket = { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [prep('grill', 10)], expo: [expo(1, 13)] };
    const ok = kitchenSnapshot({ ...base, tickets: [ticket] }, DATE, ZONE);
    // Fired → cleared 13; ready at 10, cleared at 13: 13 − 10 = 3.
    expect(ok.averages).toMatchObject({ avgExpediterTicketTimeMinutes: 13, avgExpoClearMinutes: 3, avgExpediterTicketTimeDivisorValue: 1 });
    expect(ok.timeBuckets[0]!.avgExpoClearMinutes).toBe(3);
    expect(ok.status).toEqual({ state: 'ok', httpStatus: 200 });
    const failed = kitchenSnapshot(
      { ...base, tickets: [ticket], status: { state: 'error', httpStatus: 502, error: 'upstream timeout' } },
      DATE,
      ZONE,
    );
    expect(failed.status).toEqual({ state: 'error', httpStatus: 502, error: 'upstream timeout' });
  });

  it('has no averages and a present, null expo clear time on a day without tickets', () => {
    const snap = kitchenSnapshot(base, DATE, ZONE);
    // 0 tickets: no divisor, so no average rather than an invented 0.
    expect(snap.averages).toMatchObject({
      avgKitchenTicketTimeMinutes: null,
      avgKitchenTicketTimeDivisorValue: 0,
      avgExpediterTicketTimeMinutes: null,
      avgExpediterTicketTimeDivisorValue: 0,
      avgExpoClearMinutes: null,
    });
    expect(snap.counts).toMatchObject({ prepTicketCount: 0, prepRowCount: 0, expediterTicketCount: 0, timeBucketCount: 0 });
    expect(snap.timeBuckets).toEqual([]);
  });

  it('labels buckets in local time, also across a DST change', () => {
    expect(bucketLabel('America/New_York', Date.UTC(2026, 10, 20, 21, 15))).toBe('4:15 PM – 4:30 PM');
    // Kathmandu is UTC+5:45: 03:00 UTC is 8:45 AM.
    expect(bucketLabel('Asia/Kathmandu', Date.UTC(2026, 10, 20, 3, 0))).toBe('8:45 AM – 9:00 AM');
    // 2026-11-01 01:45 EDT is followed by 01:00 EST: the label shows the repeated wall-clock hour.
    expect(bucketLabel('America/New_York', Date.UTC(2026, 10, 1, 5, 45))).toBe('1:45 AM – 1:00 AM');
  });
});
