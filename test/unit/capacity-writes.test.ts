import { describe, expect, it } from 'vitest';
import {
  firstWriteBreak,
  groupBreaksAt,
  groupKeyReadsPerRead,
  updatesPerSecondAt,
  writeModel,
  type FeedFigures,
  type UpdateFigures,
  type WritePrices,
  type WriteScenario,
  type WriteStage,
} from '#bench/capacity-writes';
import type { RouteFigures } from '#bench/capacity-model';
import { AWS_DEFAULT_QUOTAS, AWS_QUOTAS } from '#lib/aws-quotas';
import { feedRate, PRODUCER_FEEDS, PRODUCER_LOCATIONS, producerRequestsPerSecond, type Feed } from '#lib/producer-load';
import { PRODUCER_RATE_LIMIT } from '#lib/route-throttles';
import { FUNCTIONS, PRODUCER_UPDATE_SECONDS } from '#lib/functions';
import { PRODUCER_CADENCE_MINUTES, PRODUCER_ROUTES } from '#lambdas/producers/routes';

/** The write side of the capacity model (bench/capacity-writes.ts) on figures chosen here, not measured. */

// Two feeds: a location's day (its own key, a big item) every 5 minutes; a menu patch (the group's key, an event) every 5 minutes.
const DAY: Feed = { name: 'day', operation: 'putShiftqDay', resource: 'sales', perHour: 12, scope: 'location', basis: 'test' };
const PATCH: Feed = { name: 'patch', operation: 'patchMenuStock', perHour: 12, scope: 'location', basis: 'test' };
const update = (keys: UpdateFigures['keys'], items: UpdateFigures['items'], events = 0): UpdateFigures => ({
  keys,
  items,
  billedMs: 50,
  logBytes: 1_000,
  events,
});
const FEEDS: FeedFigures[] = [
  {
    feed: DAY,
    applied: update(
      [
        { key: 'GROUP#<group>', audience: 'group', readUnits: 1, writeUnits: 0 },
        { key: 'LOC#<location>', audience: 'location', readUnits: 0, writeUnits: 10 },
      ],
      [{ id: 'LOC#g#l SHIFTQ#SALES#d', key: 'LOC#<location> SHIFTQ#…', audience: 'location', readUnits: 0, writeUnits: 10 }],
    ),
    // A replay: the refused put still takes its 10 units, and a consistent read tells it apart.
    refused: update(
      [
        { key: 'GROUP#<group>', audience: 'group', readUnits: 1, writeUnits: 0 },
        { key: 'LOC#<location>', audience: 'location', readUnits: 3, writeUnits: 10 },
      ],
      [],
    ),
  },
  {
    feed: PATCH,
    applied: update(
      [
        { key: 'GROUP#<group>', audience: 'group', readUnits: 2, writeUnits: 3 },
        { key: 'OUTBOX#<id>', audience: 'own', readUnits: 0, writeUnits: 2 },
      ],
      [{ id: 'GROUP#g BEVQ_MENU#l', key: 'GROUP#<group> BEVQ_MENU#…', audience: 'group', readUnits: 0, writeUnits: 3 }],
      1,
    ),
    refused: update([{ key: 'GROUP#<group>', audience: 'group', readUnits: 2, writeUnits: 0 }], []),
  },
];
const SCENARIO: WriteScenario = { locations: 10_000, groupLocations: 10_000, refusedShare: 0, revisionShare: 1, destinationsPerEvent: 1 };
const STAGE: WriteStage = {
  name: 'test',
  quotas: AWS_DEFAULT_QUOTAS,
  producerRateLimit: 1_000,
  producerConcurrency: 100,
  warmWriteUnits: 40_000,
  warmReadUnits: 40_000,
  delivererCapacityPerSecond: 10_000,
  receiverErrorRate: 0,
  others: { requestsPerSecond: 0, tableReadUnits: 0, tableWriteUnits: 0, groupKeyReadUnits: 0, deliveriesPerSecond: 0 },
};
const PRICES: WritePrices = {
  writeUnit: 0.625e-6,
  readUnit: 0.125e-6,
  httpApiRequest: 1e-6,
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2e-6,
  logsGb: 0.5,
  delivery: 5e-6,
  memoryMb: 512,
};
const check = (r: ReturnType<typeof writeModel>, start: string) => r.checks.find((c) => c.name.startsWith(start))!;

describe("the producers' declared load (lib/producer-load.ts)", () => {
  it("gives every feed a producer route, every route but a group's rename a feed, and the contract's cadences to the clocked classes' feeds", () => {
    const operations = new Set(PRODUCER_ROUTES.map((r) => r.operation));
    for (const feed of PRODUCER_FEEDS) expect(operations.has(feed.operation), feed.name).toBe(true);
    const fed = new Set(PRODUCER_FEEDS.map((f) => f.operation));
    expect([...operations].filter((o) => !fed.has(o))).toEqual(['putGroup']);
    const sales = PRODUCER_FEEDS.find((f) => f.name === 'sales')!;
    expect(sales.perHour).toBe(60 / PRODUCER_CADENCE_MINUTES['pos-sync']!);
  });

  it('adds the feeds up to the requests a second, linear in the locations, and the route throttle and reservation derive from it', () => {
    const at = producerRequestsPerSecond(PRODUCER_LOCATIONS);
    expect(at).toBeCloseTo(
      PRODUCER_FEEDS.reduce((n, f) => n + feedRate(f, PRODUCER_LOCATIONS), 0),
      9,
    );
    // The schedule is one for every location: it does not grow with them.
    const platform = PRODUCER_FEEDS.filter((f) => f.scope === 'platform').reduce((n, f) => n + f.perHour / 3600, 0);
    expect(producerRequestsPerSecond(2 * PRODUCER_LOCATIONS) - platform).toBeCloseTo(2 * (at - platform), 9);
    expect(PRODUCER_RATE_LIMIT).toBe(Math.ceil(at * 1.25));
    expect(FUNCTIONS['producer-api'].reservedConcurrency).toBe(Math.ceil(PRODUCER_RATE_LIMIT * PRODUCER_UPDATE_SECONDS));
  });
});

describe("the capacity model's write side", () => {
  it('takes each feed at its rate: requests, units by feed and producer, the table', () => {
    const r = writeModel(FEEDS, SCENARIO, STAGE, PRICES);
    const rate = (10_000 * 12) / 3600;
    expect(r.requestsPerSecond).toBeCloseTo(2 * rate, 9);
    expect(r.byFeed.map((f) => [f.feed.name, f.writeUnits, f.readUnits])).toEqual([
      ['day', 10 * rate, 1 * rate],
      ['patch', 5 * rate, 2 * rate],
    ]);
    expect(r.byProducer).toEqual([{ producer: 'pos-sync', requestsPerSecond: 2 * rate, writeUnits: 15 * rate, readUnits: 3 * rate }]);
    expect(r.table).toEqual({ writeUnits: 15 * rate, readUnits: 3 * rate });
  });

  it('doubles with the locations: requests, units, concurrency, events, cost; the cost a location stays', () => {
    const one = writeModel(FEEDS, SCENARIO, STAGE, PRICES);
    const two = writeModel(FEEDS, { ...SCENARIO, locations: 20_000, groupLocations: 20_000 }, STAGE, PRICES);
    expect(two.requestsPerSecond).toBeCloseTo(2 * one.requestsPerSecond, 9);
    expect(two.table.writeUnits).toBeCloseTo(2 * one.table.writeUnits, 9);
    expect(two.table.readUnits).toBeCloseTo(2 * one.table.readUnits, 9);
    expect(two.concurrency).toBeCloseTo(2 * one.concurrency, 9);
    expect(two.deliveriesPerSecond).toBeCloseTo(2 * one.deliveriesPerSecond, 9);
    expect(two.monthlyCost).toBeCloseTo(2 * one.monthlyCost, 6);
    expect(two.costPerLocationMonth.total).toBeCloseTo(one.costPerLocationMonth.total, 12);
  });

  it("puts each key at its audience's rate: a location's, the largest group's, an update's own", () => {
    const r = writeModel(FEEDS, { ...SCENARIO, groupLocations: 500 }, STAGE, PRICES);
    const key = (name: string) => r.byKey.find((k) => k.key === name)!;
    const perLocation = 12 / 3600;
    expect(key('LOC#<location>').writeUnits).toBeCloseTo(10 * perLocation, 12);
    expect(key('GROUP#<group>').writeUnits).toBeCloseTo(500 * 3 * perLocation, 9);
    expect(key('GROUP#<group>').readUnits).toBeCloseTo(500 * (1 + 2) * perLocation, 9);
    expect(key('GROUP#<group>')).toMatchObject({ writers: ['patch'], readers: ['day'], producers: ['pos-sync'] });
    expect(key('OUTBOX#<id>')).toMatchObject({ requestsPerSecond: 1, writeUnits: 2 });
    expect(r.groupKeyPerLocation.writeUnits).toBeCloseTo(3 * perLocation, 12);
    // One item is one location's: its updates' rate, whatever the group.
    expect(r.hottestItemWrite.key).toBe('LOC#<location> SHIFTQ#…');
    expect(r.hottestItemWrite.units).toBeCloseTo(10 * perLocation, 12);
  });

  it('counts a refused update at its share: its conditional writes still take their units, its consistent read more', () => {
    const refused = writeModel(FEEDS, { ...SCENARIO, refusedShare: 0.5 }, STAGE, PRICES);
    const rate = (10_000 * 12) / 3600;
    // The day's refused put takes the same 10 units; the patch's refusal writes nothing.
    expect(refused.byFeed[0]!.writeUnits).toBeCloseTo(10 * rate, 9);
    expect(refused.byFeed[0]!.readUnits).toBeCloseTo((0.5 * 1 + 0.5 * 4) * rate, 9);
    expect(refused.byFeed[1]!.writeUnits).toBeCloseTo(0.5 * 5 * rate, 9);
    expect(refused.eventsPerSecond).toBeCloseTo(0.5 * rate, 9);
  });

  it("fans a new revision's event out to the group's destinations, at the stated share of patches", () => {
    const rate = (10_000 * 12) / 3600;
    expect(writeModel(FEEDS, { ...SCENARIO, destinationsPerEvent: 3 }, STAGE, PRICES).deliveriesPerSecond).toBeCloseTo(3 * rate, 9);
    expect(writeModel(FEEDS, { ...SCENARIO, revisionShare: 0.25 }, STAGE, PRICES).deliveriesPerSecond).toBeCloseTo(0.25 * rate, 9);
  });

  it('prices a location a month from the list prices: gateway, Lambda GB-s, units, logs, deliveries', () => {
    const r = writeModel(FEEDS, SCENARIO, STAGE, PRICES);
    const month = 30 * 24 * 3600;
    const rate = (10_000 * 12) / 3600;
    const parts = r.costPerLocationMonth.parts;
    expect(parts.gateway).toBeCloseTo((2 * rate * PRICES.httpApiRequest * month) / 10_000, 12);
    expect(parts.lambda).toBeCloseTo((2 * rate * (0.5 * 0.05 * PRICES.lambdaGbSecond + PRICES.lambdaRequest) * month) / 10_000, 12);
    expect(parts.dynamodb).toBeCloseTo(((15 * rate * PRICES.writeUnit + 3 * rate * PRICES.readUnit) * month) / 10_000, 12);
    expect(parts.deliveries).toBeCloseTo((rate * PRICES.delivery * month) / 10_000, 12);
    expect(r.costPerLocationMonth.total).toBeCloseTo(
      Object.values(parts).reduce((a, b) => a + b, 0),
      12,
    );
  });

  it('adds the customers at the stage capacity to the shared limits: the account throttle, the table, the group key', () => {
    const others = {
      requestsPerSecond: 5_000,
      tableReadUnits: 20_000,
      tableWriteUnits: 3_000,
      groupKeyReadUnits: 2_000,
      deliveriesPerSecond: 0,
    };
    const alone = writeModel(FEEDS, SCENARIO, STAGE, PRICES);
    const r = writeModel(FEEDS, SCENARIO, { ...STAGE, others }, PRICES);
    expect(check(r, 'API Gateway account').used).toBeCloseTo(alone.requestsPerSecond + 5_000, 9);
    expect(check(r, 'table write units (on-demand').used).toBeCloseTo(alone.table.writeUnits + 3_000, 9);
    expect(check(r, "the largest group's key reads").used).toBeCloseTo(
      alone.byKey.find((k) => k.audience === 'group')!.readUnits + 2_000,
      9,
    );
    expect(check(r, 'producer route throttle').used).toBe(alone.requestsPerSecond);
  });

  it('breaks first where a named limit is crossed, and the group size at which the group key passes a partition', () => {
    const perLocation = ((12 / 3600) * 15 * 1) / 1; // units a location a second of both feeds
    // The route throttle alone binds: 2 updates every 5 min a location → 1,000/s at 150,000 locations.
    const big = {
      ...STAGE,
      producerConcurrency: 1e9,
      warmWriteUnits: 1e9,
      warmReadUnits: 1e9,
      quotas: { ...AWS_DEFAULT_QUOTAS, tableWriteQuota: 1e9, tableReadQuota: 1e9, apiThrottleQuota: 1e9 },
    };
    const held = firstWriteBreak(FEEDS, SCENARIO, big, PRICES);
    expect(held.check!.name).toMatch(/producer route throttle/);
    expect(held.locations).toBeCloseTo((1_000 * 3600) / (2 * 12), -1);
    // The table's write quota first, when it is the smaller.
    const table = firstWriteBreak(FEEDS, SCENARIO, { ...big, quotas: { ...big.quotas, tableWriteQuota: 1_000 } }, PRICES);
    expect(table.check!.name).toMatch(/table write units \(on-demand/);
    expect(table.locations).toBeCloseTo(1_000 / perLocation, -1);
    // A sudden step meets the group key's write units before a split: 3 units a patch, 12 an hour, one group of them all.
    const step = firstWriteBreak(FEEDS, { ...SCENARIO, groupLocations: 1e9 }, big, PRICES, { onset: true });
    expect(step.check!.name).toMatch(/largest group's key writes/);
    expect(step.locations).toBeCloseTo(AWS_QUOTAS.dynamoPartitionWriteUnits.default / ((3 * 12) / 3600), -1);
    const r = writeModel(FEEDS, SCENARIO, STAGE, PRICES);
    expect(groupBreaksAt(r.groupKeyPerLocation.writeUnits, 1_000)).toBeCloseTo(step.locations, -1);
    expect(groupBreaksAt(0.1, 3_000, 2_000)).toBeCloseTo(10_000, 9);
    expect(groupBreaksAt(0, 1_000)).toBe(Infinity);
  });

  it("leaves to the customers what they pass alone, and finds the producers' own first limit", () => {
    const others = { ...STAGE.others, tableReadUnits: 50_000 };
    const b = firstWriteBreak(FEEDS, SCENARIO, { ...STAGE, others }, PRICES);
    expect(b.withoutProducers.map((c) => c.name)).toEqual([expect.stringMatching(/table read units \(on-demand/)]);
    expect(b.check!.name).not.toMatch(/table read units \(on-demand/);
  });

  it("takes the customers' reads of the hot group's key from the routes' units there, and the AWS estimate of updates at a concurrency", () => {
    const route = (share: number, units: number): RouteFigures => ({
      routeKey: 'r',
      share,
      billedMs: 1,
      memoryMb: 512,
      logBytes: 0,
      responseBytes: 0,
      keys: [],
      hotKeys: [
        { key: 'GROUP#<group>', audience: 'group', readUnits: units, writeUnits: 0 },
        { key: 'APP#<app>', audience: 'application', readUnits: 7, writeUnits: 0 },
      ],
      items: [],
      hotItems: [],
    });
    expect(groupKeyReadsPerRead([route(0.5, 4), route(0.5, 2)], 0.2)).toBeCloseTo(0.2 * 3, 12);
    expect(updatesPerSecondAt(16, 40)).toBe(400);
  });
});
