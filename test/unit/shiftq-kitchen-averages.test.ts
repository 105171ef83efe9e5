import { describe, expect, it } from 'vitest';
import { businessDayEndMs, businessDayStartMs } from '#contract/business-date';
import type { KitchenInput } from '#contract/schemas/shiftq-inputs';
import { bucketLabel, kitchenSnapshot } from '#domain/kitchen-averages';
import { seededRandom } from '#domain/seeded-random';

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

/** Independent restatement of 2.4's rules, ticket by ticket. */
function reference(day: KitchenInput) {
  const trackedPrep = new Set(day.trackedPrepStations ?? day.stations.filter((s) => s.kind === 'prep').map((s) => s.id));
  const inScope = day.tickets.filter((t) => day.trackedSalesCategories === null || day.trackedSalesCategories.includes(t.salesCategory));
  const prepTimes: number[] = [];
  const expoTimes: number[] = [];
  const clearTimes: number[] = [];
  const byStation = new Map<string, number[]>();
  const byCategory = new Map<string, number[]>();
  for (const t of inScope) {
    const fired = Date.parse(t.firedAt);
    const tracked = t.prep.filter((p) => trackedPrep.has(p.stationId));
    for (const p of tracked) if (p.doneAt) byStation.set(p.stationId, [...(byStation.get(p.stationId) ?? []), (Date.parse(p.doneAt) - fired) / MIN]);
    if (tracked.length && tracked.every((p) => p.doneAt)) {
      const time = (Math.max(...tracked.map((p) => Date.parse(p.doneAt!))) - fired) / MIN;
      prepTimes.push(time);
      byCategory.set(t.salesCategory, [...(byCategory.get(t.salesCategory) ?? []), time]);
    }
    const level1 = t.expo.find((e) => e.fulfillmentLevel === 1);
    if (level1?.clearedAt) {
      expoTimes.push((Date.parse(level1.clearedAt) - fired) / MIN);
      const done = t.prep.filter((p) => p.doneAt).map((p) => Date.parse(p.doneAt!));
      clearTimes.push(Math.max(0, Date.parse(level1.clearedAt) - (done.length ? Math.max(...done) : fired)) / MIN);
    }
  }
  return { prepTimes, expoTimes, clearTimes, byStation, byCategory };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const close = (actual: number | null, expected: number) => expect(Math.abs((actual ?? NaN) - expected)).toBeLessThanOrEqual(0.0051);

type Row = { averageDivisorValue: number; ticketCount: number; averageTicketTimeMinutes: number | null; minTicketTimeMinutes: number | null; maxTicketTimeMinutes: number | null; averageDivisorField: string; averageBasis: string };
function checkRow(row: Row) {
  expect(row.averageBasis).toBe('ticket_count');
  expect(row.averageDivisorField).toBe('ticketCount');
  expect(row.averageDivisorValue).toBe(row.ticketCount);
  if (row.ticketCount > 0) {
    expect(row.averageTicketTimeMinutes!).toBeGreaterThanOrEqual(row.minTicketTimeMinutes! - 0.01);
    expect(row.averageTicketTimeMinutes!).toBeLessThanOrEqual(row.maxTicketTimeMinutes! + 0.01);
  }
}

describe('kitchen averages over random ticket sets (seeded)', () => {
  const seeds = Array.from({ length: 60 }, (_, i) => 1000 + i * 7919);

  it.each(seeds)('seed %i: divisors are ticket counts and every average matches the rules', (seed) => {
    const day = randomDay(seed);
    const ref = reference(day);
    const snap = kitchenSnapshot(day, DATE, ZONE);
    const { averages: a, counts: c } = snap;

    expect(a.avgKitchenTicketTimeDivisorValue).toBe(c.prepTicketCount);
    expect(c.prepTicketCount).toBe(ref.prepTimes.length);
    if (ref.prepTimes.length) close(a.avgKitchenTicketTimeMinutes, mean(ref.prepTimes));
    else expect(a.avgKitchenTicketTimeMinutes).toBeNull();

    expect(a.avgExpediterTicketTimeDivisorValue).toBe(c.expediterTicketCount);
    expect(c.expediterTicketCount).toBe(ref.expoTimes.length);
    if (ref.expoTimes.length) close(a.avgExpediterTicketTimeMinutes, mean(ref.expoTimes));
    else expect(a.avgExpediterTicketTimeMinutes).toBeNull();

    // Rule 3: present always, null exactly when no level-1 expo ticket was cleared.
    expect(a).toHaveProperty('avgExpoClearMinutes');
    if (ref.clearTimes.length) close(a.avgExpoClearMinutes, mean(ref.clearTimes));
    else expect(a.avgExpoClearMinutes).toBeNull();

    for (const row of snap.stationTicketAverages) {
      checkRow(row);
      const times = ref.byStation.get(row.stationGuid)!;
      expect(row.ticketCount).toBe(times.length);
      close(row.averageTicketTimeMinutes, mean(times));
    }
    expect(snap.stationTicketAverages.length).toBe(ref.byStation.size);
    for (const row of snap.salesCategoryTicketAverages) {
      checkRow(row);
      close(row.averageTicketTimeMinutes, mean(ref.byCategory.get(row.salesCategory)!));
    }
    const sum = (rows: { ticketCount: number }[]) => rows.reduce((n, r) => n + r.ticketCount, 0);
    expect(sum(snap.salesCategoryTicketAverages)).toBe(c.prepTicketCount);
    expect(sum(snap.expediterTicketAverages.filter((r) => r.fulfillmentLevel === 1))).toBe(c.expediterTicketCount);
    snap.expediterTicketAverages.forEach(checkRow);

    expect(sum(snap.timeBuckets)).toBe(c.prepTicketCount);
    expect(c.timeBucketCount).toBe(snap.timeBuckets.length);
    expect(c.thirtyMinuteBucketCount).toBe(snap.timeBuckets.length);
    for (const b of snap.timeBuckets) {
      checkRow(b);
      expect(b.bucketEndMs - b.bucketStartMs).toBe(15 * MIN);
      expect(b.bucketStartMs % (15 * MIN)).toBe(0);
      expect(b).toHaveProperty('avgExpoClearMinutes');
      expect(b.bucketLabel).toMatch(/^\d{1,2}:\d{2} [AP]M – \d{1,2}:\d{2} [AP]M$/);
      [...b.stationTicketAverages, ...b.salesCategoryTicketAverages, ...b.expediterTicketAverages].forEach(checkRow);
      expect(sum(b.salesCategoryTicketAverages)).toBe(b.ticketCount);
    }
    // Rule 2: bucket averages are recomputable from their own ticketCount-weighted sums; rowCount plays no part.
    const weighted = snap.timeBuckets.filter((b) => b.ticketCount > 0).reduce((n, b) => n + b.averageTicketTimeMinutes! * b.ticketCount, 0);
    if (c.prepTicketCount) expect(Math.abs(weighted / c.prepTicketCount - a.avgKitchenTicketTimeMinutes!)).toBeLessThanOrEqual(0.01);
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
    expect(b.stationTicketAverages.map((r) => r.averageTicketTimeMinutes)).toEqual(a.stationTicketAverages.map((r) => r.averageTicketTimeMinutes));
    expect(b.timeBuckets.map((r) => r.averageTicketTimeMinutes)).toEqual(a.timeBuckets.map((r) => r.averageTicketTimeMinutes));
    if (a.counts.prepTicketCount) expect(b.counts.prepRowCount).toBeGreaterThan(a.counts.prepRowCount);
  });
});

describe('kitchen averages, worked examples', () => {
  const stations: KitchenInput['stations'] = [
    { id: 'grill', name: 'Grill', kind: 'prep', includeWithExpediter: true, expoRouting: 'expo' },
    { id: 'fry', name: 'Fry', kind: 'prep', includeWithExpediter: true, expoRouting: 'expo' },
    { id: 'expo', name: 'Expo', kind: 'expediter', includeWithExpediter: true, expoRouting: 'expo' },
  ];
  const t0 = START + 60 * MIN;
  const base: KitchenInput = { updatedAt: iso(t0 + 120 * MIN), status: { state: 'ok', httpStatus: 200 }, stations, trackedPrepStations: null, trackedSalesCategories: null, tickets: [] };

  it('divides by tickets, not by item rows: a 10-item ticket counts once', () => {
    const snap = kitchenSnapshot(
      {
        ...base,
        tickets: [
          { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [{ stationId: 'grill', itemCount: 10, doneAt: iso(t0 + 10 * MIN) }], expo: [] },
          { id: 'b', firedAt: iso(t0), salesCategory: 'Food', prep: [{ stationId: 'grill', itemCount: 1, doneAt: iso(t0 + 20 * MIN) }], expo: [] },
        ],
      },
      DATE,
      ZONE,
    );
    expect(snap.averages.avgKitchenTicketTimeMinutes).toBe(15);
    expect(snap.counts).toMatchObject({ prepTicketCount: 2, prepRowCount: 11 });
    expect(snap.stationTicketAverages[0]).toMatchObject({ stationGuid: 'grill', ticketCount: 2, rowCount: 11, averageTicketTimeMinutes: 15, averageDivisorValue: 2 });
  });

  it('times a ticket to its last tracked station and leaves unfinished tickets in progress', () => {
    const snap = kitchenSnapshot(
      {
        ...base,
        tickets: [
          { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [{ stationId: 'grill', itemCount: 1, doneAt: iso(t0 + 6 * MIN) }, { stationId: 'fry', itemCount: 1, doneAt: iso(t0 + 9 * MIN) }], expo: [{ fulfillmentLevel: 1, stationId: 'expo', itemCount: 2, clearedAt: null }] },
          { id: 'b', firedAt: iso(t0), salesCategory: 'Food', prep: [{ stationId: 'grill', itemCount: 1, doneAt: null }], expo: [] },
        ],
      },
      DATE,
      ZONE,
    );
    expect(snap.averages.avgKitchenTicketTimeMinutes).toBe(9);
    expect(snap.queue).toEqual({ inProgressCount: 1, readyQueueCount: 1, oldestReadyMinutes: 111 });
    expect(snap.averages.avgExpoClearMinutes).toBeNull();
    expect(snap.averages.avgExpediterTicketTimeMinutes).toBeNull();
  });

  it('honours tracked stations and sales categories', () => {
    const tickets: KitchenInput['tickets'] = [
      { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [{ stationId: 'grill', itemCount: 1, doneAt: iso(t0 + 4 * MIN) }, { stationId: 'fry', itemCount: 1, doneAt: iso(t0 + 30 * MIN) }], expo: [] },
      { id: 'b', firedAt: iso(t0), salesCategory: 'Bar', prep: [{ stationId: 'grill', itemCount: 1, doneAt: iso(t0 + 8 * MIN) }], expo: [] },
    ];
    const snap = kitchenSnapshot({ ...base, tickets, trackedPrepStations: ['grill'], trackedSalesCategories: ['Food'] }, DATE, ZONE);
    expect(snap.averages.avgKitchenTicketTimeMinutes).toBe(4);
    expect(snap).toMatchObject({ selectionMode: 'selected', trackAllPrepStations: false, trackedPrepStations: ['grill'], trackedSalesCategories: ['Food'], availableSalesCategories: ['Bar', 'Food'] });
  });

  it('reports expo clear time from the moment the food was ready, and the error only on error', () => {
    const ticket = { id: 'a', firedAt: iso(t0), salesCategory: 'Food', prep: [{ stationId: 'grill', itemCount: 1, doneAt: iso(t0 + 10 * MIN) }], expo: [{ fulfillmentLevel: 1, stationId: 'expo', itemCount: 1, clearedAt: iso(t0 + 13 * MIN) }] };
    const ok = kitchenSnapshot({ ...base, tickets: [ticket] }, DATE, ZONE);
    expect(ok.averages).toMatchObject({ avgExpediterTicketTimeMinutes: 13, avgExpoClearMinutes: 3, avgExpediterTicketTimeDivisorValue: 1 });
    expect(ok.timeBuckets[0]!.avgExpoClearMinutes).toBe(3);
    expect(ok.status).toEqual({ state: 'ok', httpStatus: 200 });
    const failed = kitchenSnapshot({ ...base, tickets: [ticket], status: { state: 'error', httpStatus: 502, error: 'upstream timeout' } }, DATE, ZONE);
    expect(failed.status).toEqual({ state: 'error', httpStatus: 502, error: 'upstream timeout' });
  });

  it('labels buckets in local time, also across a DST change', () => {
    expect(bucketLabel('America/New_York', Date.UTC(2026, 10, 20, 21, 15))).toBe('4:15 PM – 4:30 PM');
    expect(bucketLabel('Asia/Kathmandu', Date.UTC(2026, 10, 20, 3, 0))).toBe('8:45 AM – 9:00 AM');
    // 2026-11-01 01:45 EDT is followed by 01:00 EST: the label shows the repeated wall-clock hour.
    expect(bucketLabel('America/New_York', Date.UTC(2026, 10, 1, 5, 45))).toBe('1:45 AM – 1:00 AM');
  });
});
