import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { loadShiftq } from '#lambdas/producers/loads/shiftq';
import { fixtureLocation } from '../fixtures/venues.js';
import { parseCompactDate, zonedTimeToUtcMs } from '#contract/business-date';
import { encodeBody, retentionEndMs } from '#lambdas/shiftq/records';
import { demoKitchenDay } from '#ingest/shiftq-demo-data';
import { call, manualClock, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

let runtime: LocalRuntime;
const START = Date.UTC(2026, 10, 22, 12, 0, 10);
const clock = manualClock(START);

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
});
afterAll(() => runtime?.stop());

/** Sets the clock to a local wall time and returns a token issued then (tokens live 24 hours). */
async function at(zone: string, date: string, hour: number, minute: number) {
  clock.set(zonedTimeToUtcMs(zone, parseCompactDate(date)!, hour, minute));
  return (await tokenFor(runtime, { scopes: ['shiftq:read'] })).token;
}

const ZONES = {
  'nyc-midtown': 'America/New_York',
  'london-soho': 'Europe/London',
  'sydney-harbour': 'Australia/Sydney',
  'denver-union': 'America/Denver',
} as const;

describe('current business date: 03:30 belongs to the previous day, 04:01 starts the next', () => {
  const cases: [keyof typeof ZONES, string, string, string][] = [
    // [location, calendar date, business date at 03:30, at 04:01]
    ['nyc-midtown', '20261122', '20261121', '20261122'],
    ['london-soho', '20261122', '20261121', '20261122'],
    ['sydney-harbour', '20261122', '20261121', '20261122'],
    ['denver-union', '20260115', '20260114', '20260115'],
    // DST changes: New York springs forward 2026-03-08 and falls back 2026-11-01; London springs forward 2026-03-29;
    // Sydney falls back 2026-04-05 and springs forward 2026-10-04.
    ['nyc-midtown', '20260308', '20260307', '20260308'],
    ['nyc-midtown', '20261101', '20261031', '20261101'],
    ['london-soho', '20260329', '20260328', '20260329'],
    ['sydney-harbour', '20260405', '20260404', '20260405'],
    ['sydney-harbour', '20261004', '20261003', '20261004'],
  ];

  it.each(cases)('%s on %s', async (location, date, early, late) => {
    const zone = ZONES[location];
    const base = `/v1/demo-group/${location}/shiftq`;
    for (const [hour, minute, expected] of [
      [3, 30, early],
      [4, 0, early],
      [4, 1, late],
    ] as const) {
      const token = await at(zone, date, hour, minute);
      const kitchen = await call(runtime, `${base}/kitchen`, { token });
      expect(kitchen.body.data.currentBusinessDate, `${hour}:${minute}`).toBe(expected);
      expect(kitchen.body.data.requestedBusinessDate).toBe(expected);
      const [sales, overview, clockIns] = await Promise.all([
        call(runtime, `${base}/sales`, { token }),
        call(runtime, base, { token }),
        call(runtime, `${base}/clock-ins`, { token }),
      ]);
      expect(sales.body.data.businessDate).toBe(expected);
      expect(overview.body.data.summary.businessDate).toBe(expected);
      expect(clockIns.body.data.businessDate).toBe(expected);
    }
  });

  it('treats the repeated 01:30 of a fall-back night as the previous business date', async () => {
    const token = await at('America/New_York', '20261101', 1, 30);
    const reply = await call(runtime, '/v1/demo-group/nyc-midtown/shiftq/kitchen', { token });
    expect(reply.body.data.currentBusinessDate).toBe('20261031');
  });
});

describe('exact business dates', () => {
  beforeAll(async () => {
    clock.set(START);
    await fixtureLocation(
      runtime.store,
      {
        groupId: 'demo-group',
        id: 'date-lab',
        name: 'Date Lab',
        locationShortName: 'Lab',
        timezone: 'America/New_York',
        slug: 'date-lab',
        modulesEnabled: { shiftq: true, sportsq: false, matriq: false, campaigns: false, orderboard: false, bevq: false },
      },
      clock.now(),
    );
    const sales = (netSales: number) => ({
      updatedAt: new Date(START).toISOString(),
      currency: 'USD',
      grossSales: 1000,
      netSales,
      discounts: 10,
      voids: 5,
      refunds: 0,
      tax: 0,
      tips: 0,
      orderCount: 10,
      guestCount: 12,
    });
    await loadShiftq(
      runtime.store,
      {
        groupId: 'demo-group',
        locationId: 'date-lab',
        entries: [
          { kind: 'sales', businessDate: '20261121', data: sales(111) },
          { kind: 'sales', businessDate: '20261122', data: sales(222) },
          { kind: 'kitchen', businessDate: '20251121', data: demoKitchenDay('America/New_York', '20251121', 40, START) },
        ],
      },
      clock.now(),
    );
  });

  it('serves the data of the business date in force, on each side of 04:01', async () => {
    let token = await at('America/New_York', '20261122', 3, 30);
    expect((await call(runtime, '/v1/demo-group/date-lab/shiftq/sales', { token })).body.data.sales.netSales).toBe(111);
    token = await at('America/New_York', '20261122', 4, 1);
    expect((await call(runtime, '/v1/demo-group/date-lab/shiftq/sales', { token })).body.data.sales.netSales).toBe(222);
  });

  it('accepts businessDay as an alias, and both names when they agree', async () => {
    const token = await at('America/New_York', '20261122', 12, 0);
    for (const q of ['businessDay=20261121', 'businessDate=20261121', 'businessDate=20261121&businessDay=20261121']) {
      const d = (await call(runtime, `/v1/demo-group/date-lab/shiftq/sales?${q}`, { token })).body.data;
      expect(d, q).toMatchObject({ businessDate: '20261121', available: true });
      expect(d.sales.netSales).toBe(111);
    }
  });

  it('never falls back to another date, location or the latest snapshot', async () => {
    const token = await at('America/New_York', '20261123', 12, 0);
    // 20261123 has no data here, although 20261122 does and other locations have data for 20261123's neighbours.
    const d = (await call(runtime, '/v1/demo-group/date-lab/shiftq/sales', { token })).body.data;
    expect(d).toMatchObject({ businessDate: '20261123', available: false, unavailableReason: 'no_data', sales: null });
    const k = (await call(runtime, '/v1/demo-group/date-lab/shiftq/kitchen', { token })).body.data;
    expect(k).toMatchObject({ currentSnapshot: null, latestMetadata: null, requestedBucket: null, bucketAvailable: false });
  });

  it('keeps a kitchen day for 366 days and no longer (day 366 vs 367), by the stored TTL', async () => {
    const items = await scanTable(runtime);
    const stored = items.find((i) => i.PK === 'LOC#demo-group#date-lab' && i.SK === 'SHIFTQ#KITCHEN#20251121');
    expect(stored?.ttl).toBe(retentionEndMs('America/New_York', '20251121') / 1000);
    // The TTL is the end of business date 20261122 (366 days later): 04:01 EST on 2026-11-23.
    expect(new Date(stored!.ttl * 1000).toISOString()).toBe('2026-11-23T09:01:00.000Z');

    let token = await at('America/New_York', '20261122', 12, 0);
    const day366 = (await call(runtime, '/v1/demo-group/date-lab/shiftq/kitchen?businessDate=20251121', { token })).body.data;
    expect(day366).toMatchObject({ bucketAvailable: true, bucketUnavailableReason: null, retentionDays: 366 });
    expect(day366.requestedBucket.businessDate).toBe('20251121');
    expect(day366.requestedBucket.counts.sourceTicketCount).toBe(40);
    const day367 = (await call(runtime, '/v1/demo-group/date-lab/shiftq/kitchen?businessDate=20251120', { token })).body.data;
    expect(day367).toMatchObject({ bucketAvailable: false, bucketUnavailableReason: 'expired', requestedBucket: null });

    token = await at('America/New_York', '20261123', 4, 0);
    expect((await call(runtime, '/v1/demo-group/date-lab/shiftq/kitchen?businessDate=20251121', { token })).body.data.bucketAvailable).toBe(
      true,
    );
    token = await at('America/New_York', '20261123', 4, 1);
    const gone = (await call(runtime, '/v1/demo-group/date-lab/shiftq/kitchen?businessDate=20251121', { token })).body.data;
    expect(gone).toMatchObject({
      currentBusinessDate: '20261123',
      bucketAvailable: false,
      bucketUnavailableReason: 'expired',
      requestedBucket: null,
    });
  });

  it('never serves an item whose TTL has passed, before the table deletes it', async () => {
    clock.set(START);
    const body = encodeBody({
      updatedAt: new Date(START).toISOString(),
      currency: 'USD',
      grossSales: 1,
      netSales: 1,
      discounts: 0,
      voids: 0,
      refunds: 0,
      tax: 0,
      tips: 0,
      orderCount: 1,
      guestCount: 1,
      hourly: [],
      categories: [],
      employees: [],
    });
    await runtime.store.shiftq.putDated(
      'demo-group',
      'date-lab',
      'sales',
      '20261115',
      { body, ttl: Math.floor(START / 1000) - 1, loadedAt: new Date(START).toISOString() },
      { sourceMs: START, sequence: 0 },
    );
    expect((await scanTable(runtime)).some((i) => i.SK === 'SHIFTQ#SALES#20261115')).toBe(true);
    const token = await at('America/New_York', '20261122', 12, 0);
    const d = (await call(runtime, '/v1/demo-group/date-lab/shiftq/sales?businessDate=20261115', { token })).body.data;
    expect(d).toMatchObject({ available: false, sales: null });
  });

  it('refuses to load a day already past retention', async () => {
    clock.set(START);
    await expect(
      loadShiftq(
        runtime.store,
        {
          groupId: 'demo-group',
          locationId: 'date-lab',
          entries: [{ kind: 'kitchen', businessDate: '20251120', data: demoKitchenDay('America/New_York', '20251120', 5, START) }],
        },
        clock.now(),
      ),
    ).rejects.toThrow(/retention/);
  });
});
