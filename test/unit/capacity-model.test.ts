import { describe, expect, it } from 'vitest';
import {
  attemptsPerSecond,
  audienceOf,
  counterWritesPerSecond,
  firstBreak,
  inFlightMessages,
  itemName,
  keyName,
  model,
  type DeliveryFigures,
  type RouteFigures,
  type Scenario,
  type StageInputs,
} from '#bench/capacity-model';
import { backoffBounds } from '#lambdas/webhooks/delivery-policy';
import { appKeys } from '#data/apps';
import { groupPartition } from '#data/store';
import { AWS_DEFAULT_QUOTAS } from '#lib/aws-quotas';

/** The capacity model's formulas (bench/capacity-model.ts) on figures chosen here, not measured. */
const ROUTE: RouteFigures = {
  routeKey: 'GET /v1/{group_id}/{location_id}/bevq/menu',
  share: 1,
  billedMs: 20,
  memoryMb: 512,
  logBytes: 700,
  responseBytes: 1_500,
  keys: [
    { key: 'APP#<app>', audience: 'application', readUnits: 1, writeUnits: 0 },
    { key: 'GROUP#<group>', audience: 'group', readUnits: 2, writeUnits: 0 },
  ],
  hotKeys: [
    { key: 'APP#<app>', audience: 'application', readUnits: 1, writeUnits: 0 },
    { key: 'GROUP#<group>', audience: 'group', readUnits: 3, writeUnits: 0 },
  ],
  items: [
    { id: 'APP#c1 APP', key: 'APP#<app> APP', audience: 'application', readUnits: 1, writeUnits: 0 },
    { id: 'GROUP#g1 GROUP', key: 'GROUP#<group> GROUP', audience: 'group', readUnits: 1, writeUnits: 0 },
    { id: 'GROUP#g1 BEVQ_HEAD#l1', key: 'GROUP#<group> BEVQ_HEAD#…', audience: 'location', readUnits: 1, writeUnits: 0 },
  ],
  // The hot group: its group item once a request, and two locations' heads (a page), each a unit.
  hotItems: [
    { id: 'APP#c2 APP', key: 'APP#<app> APP', audience: 'application', readUnits: 1, writeUnits: 0 },
    { id: 'GROUP#g2 GROUP', key: 'GROUP#<group> GROUP', audience: 'group', readUnits: 1, writeUnits: 0 },
    { id: 'GROUP#g2 BEVQ_HEAD#l1', key: 'GROUP#<group> BEVQ_HEAD#…', audience: 'group', readUnits: 1, writeUnits: 0 },
    { id: 'GROUP#g2 BEVQ_HEAD#l2', key: 'GROUP#<group> BEVQ_HEAD#…', audience: 'group', readUnits: 1, writeUnits: 0 },
  ],
};
const DELIVERY: DeliveryFigures = {
  keys: [
    { key: 'DELIVERY#<id>', audience: 'own', readUnits: 1, writeUnits: 2 },
    { key: 'DEST#<app>', audience: 'application', readUnits: 1, writeUnits: 1 },
  ],
  sqsRequests: 0.2,
  trips: 4,
  logBytes: 0,
  sentBytes: 0,
  memoryMb: 1024,
};
const STAGE: StageInputs = {
  name: 'test',
  quotas: AWS_DEFAULT_QUOTAS,
  routeThrottles: { [ROUTE.routeKey]: { rateLimit: 1_000_000, burstLimit: 2_000_000 } },
  perRouteFloor: 250,
  delivererConcurrency: 100,
  reservedConcurrency: 102,
  warmThroughput: { readUnitsPerSecond: 40_000, writeUnitsPerSecond: 10_000 },
};
const SCENARIO: Scenario = {
  readsPerSecond: 1_000,
  deliveriesPerSecond: 100,
  hotTenantShare: 0.2,
  hotGroupLocations: 10_000,
  receiverMs: 200,
  receiverErrorRate: 0.01,
};
const PRICES = { perMillionReads: 1, perMillionDeliveries: 1, readUnit: 0.125e-6, writeUnit: 0.625e-6 };

describe('the capacity model', () => {
  it('names a key by its prefix and whose it is, and keeps shared keys as they are', () => {
    expect(audienceOf(appKeys.app('c1').PK)).toBe('application');
    expect(audienceOf(groupPartition('g1'))).toBe('group');
    expect(audienceOf('SPORTS_SCHEDULE')).toBe('everyone');
    expect(audienceOf('DELIVERY#dlv_1')).toBe('own');
    expect(keyName(groupPartition('g1'))).toBe('GROUP#<group>');
    expect(keyName('SPORTS_SCHEDULE')).toBe('SPORTS_SCHEDULE');
    expect(itemName(groupPartition('g1'), 'BEVQ_HEAD#l1')).toBe('GROUP#<group> BEVQ_HEAD#…');
    expect(itemName(groupPartition('g1'), 'GROUP')).toBe('GROUP#<group> GROUP');
  });

  it("takes one item's rate as the hard limit: distinct items of one key never add up", () => {
    const r = model(SCENARIO, STAGE, [ROUTE], DELIVERY, PRICES);
    // The group's key takes 3 units a hot request; each of its items one, never the sum of the two heads.
    expect(r.hottest.read).toEqual({ key: 'GROUP#<group>', units: 200 * 3 });
    expect(r.hottestItem.read.units).toBe(200);
    expect(['APP#<app> APP', 'GROUP#<group> GROUP', 'GROUP#<group> BEVQ_HEAD#…']).toContain(r.hottestItem.read.key);
  });

  it("counts a retried delivery's attempts and the messages its backoff holds in flight", () => {
    expect(attemptsPerSecond(1_000, 0)).toBe(1_000);
    expect(attemptsPerSecond(1_000, 0.01)).toBeCloseTo(1_000 * (1 + 0.01 + 0.01 ** 2 + 0.01 ** 3 + 0.01 ** 4), 9);
    // No failures: only the batch being attempted is in flight.
    expect(inFlightMessages(1_000, 0, 0.25)).toBe(250);
    const first = backoffBounds(1);
    expect(inFlightMessages(1_000, 0.01, 0.25)).toBeGreaterThan(250 + 10 * ((first.min + first.max) / 2));
  });

  it('writes the rate counter once a lease, not once a request', () => {
    // One instance at 250 requests a second under a limit of 15,000 a minute: leases of 150 (1 % of the limit).
    expect(counterWritesPerSecond(250, 1, 15_000)).toBeCloseTo(250 / 150, 9);
    // More instances share the stranded 1 %: smaller leases, more claims.
    expect(counterWritesPerSecond(250, 5, 15_000)).toBeCloseTo(250 / 30, 9);
  });

  it("puts the hot tenant's share on its group's key, and spreads it over the applications it needs", () => {
    const r = model(SCENARIO, STAGE, [ROUTE], DELIVERY, PRICES);
    expect(r.hotTenant).toEqual({ readsPerSecond: 200, applications: 1, perApplication: 200 });
    expect(r.hottest.read).toEqual({ key: 'GROUP#<group>', units: 200 * 3 });
    // The table: 80 % of reads in typical groups (3 units), 20 % in the hot one (4), and 2 read units a delivery.
    expect(r.table.readUnits).toBeCloseTo(1_000 * (0.8 * 3 + 0.2 * 4) + 100 * 2, 6);
    expect(r.lambdaConcurrency).toBeGreaterThanOrEqual(1_000 * 0.02);
    // Ten times the tenant needs eight applications of 250 a second.
    expect(model({ ...SCENARIO, readsPerSecond: 10_000 }, STAGE, [ROUTE], DELIVERY, PRICES).hotTenant.applications).toBe(8);
  });

  it('sees the backlog grow once attempts pass what the deliverer instances attempt a second', () => {
    const capacity = model(SCENARIO, STAGE, [ROUTE], DELIVERY, PRICES).deliveries.capacityPerSecond;
    expect(capacity).toBeCloseTo((100 * 10) / ((200 + 4 * 5 + 20) / 1000), 6);
    const over = model({ ...SCENARIO, deliveriesPerSecond: capacity * 2 }, STAGE, [ROUTE], DELIVERY, PRICES);
    expect(over.deliveries.backlogGrowthPerSecond).toBeGreaterThan(capacity * 0.9);
    expect(over.deliveries.lagSeconds).toBe(Infinity);
    expect(over.checks.find((c) => c.name === 'deliverer attempts a second')!.used).toBeGreaterThan(capacity);
  });

  it("bounds each GSI's load by who queries it, and says where a launch at that load needs it pre-warmed", () => {
    // The menu route's family queries no index: GSI1's reads are the fan-out's (2 units a delivery: its pages query GSI1), GSI2's and
    // GSI3's none (the sweeper and the admin API query them, outside the load); GSI1's and GSI2's writes are at most
    // the table's, GSI3's one a delivery (its entry is written when the record is created, never again).
    const r = model(SCENARIO, STAGE, [ROUTE], DELIVERY, PRICES);
    expect(r.indexes.map((i) => i.name)).toEqual(['GSI1', 'GSI2', 'GSI3']);
    expect(r.indexes.map((i) => i.readUnits)).toEqual([100 * 2, 0, 0]);
    expect(r.indexes.map((i) => i.writeUnits)).toEqual([r.table.writeUnits, r.table.writeUnits, SCENARIO.deliveriesPerSecond]);
    for (const index of r.indexes) expect(index.needsPrewarming).toBe(false);
    // Past a new index's 4,000 write units a second (1,500 deliveries of 3 write units), GSI1 and GSI2 need it; GSI3 at 1,500 does not.
    const busy = model({ ...SCENARIO, deliveriesPerSecond: 1_500 }, STAGE, [ROUTE], DELIVERY, PRICES);
    expect(busy.table.writeUnits).toBeGreaterThan(4_000);
    expect(busy.indexes.map((i) => i.needsPrewarming)).toEqual([true, true, false]);
  });

  it('finds the first limit a growing load meets, held or in one sudden step, and what a client then sees', () => {
    // In one step the hot group's key (3 units a hot request) passes one partition's 3,000 at 1,000 hot requests,
    // 5,000 reads in all, until DynamoDB splits it.
    const step = firstBreak({ ...SCENARIO, deliveriesPerSecond: 0 }, STAGE, [ROUTE], DELIVERY, PRICES, { onset: true });
    expect(step.check?.name).toBe('hottest key reads before a split (GROUP#<group>)');
    expect(step.readsPerSecond).toBeCloseTo(5_000, 0);
    expect(step.check?.sees).toMatch(/^503 `service_unavailable` with Retry-After.*split for heat/);
    // Held, each item takes 1 unit a hot request (3,000 hot requests, 15,000 reads) and the table 3.2 units a read
    // (40,000 at 12,500 reads): the account's 10,000 requests a second bind first.
    const held = firstBreak({ ...SCENARIO, deliveriesPerSecond: 0 }, STAGE, [ROUTE], DELIVERY, PRICES);
    expect(held.check?.name).toBe('API Gateway account throttle');
    expect(held.readsPerSecond).toBeCloseTo(10_000, 0);
    // A new table's warm throughput (12,000 read units a second) binds in a step on an unwarmed table: 3,750 reads of 3.2 units.
    const cold = firstBreak({ ...SCENARIO, deliveriesPerSecond: 0 }, { ...STAGE, warmThroughput: undefined }, [ROUTE], DELIVERY, PRICES, {
      onset: true,
    });
    expect(cold.check?.name).toBe('table read units at launch (warm throughput)');
    expect(cold.readsPerSecond).toBeCloseTo(3_750, 0);
    // A route throttle below that binds first, with the gateway's bare 429.
    const tight = { ...STAGE, routeThrottles: { [ROUTE.routeKey]: { rateLimit: 2_000, burstLimit: 4_000 } } };
    const gateway = firstBreak({ ...SCENARIO, deliveriesPerSecond: 0 }, tight, [ROUTE], DELIVERY, PRICES);
    expect(gateway.readsPerSecond).toBeCloseTo(2_000, 0);
    expect(gateway.check?.sees).toMatch(/bare 429/);
  });
});
