import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { PRODUCERS } from '#lambdas/producers/routes';
import { MAX_SOURCE_AHEAD_MS } from '#lambdas/producers/producers';
import { demoKitchenDay } from '#ingest/shiftq-demo-data';
import { demoSportsFile } from '#local/seed-venue-modules';
import { businessDayEndMs } from '#contract/business-date';
import {
  adminCall,
  call,
  ENGINE_NAME,
  expectUnchanged,
  manualClock,
  producerCall,
  scanTable,
  startTestRuntime,
  tokenFor,
} from '../support/runtime.js';

/**
 * The producer API over HTTP (docs/decisions/producers.md): each producer's key held to its policy in the
 * synthesized stack, every update in its source's order, a refused one changing nothing.
 */

let runtime: LocalRuntime;
/** When the demo seed loads: its data's source time. The updates below are the source's later observations. */
const SEEDED = Date.UTC(2026, 10, 22, 12, 0, 10);
const NOW = SEEDED + 60 * 60_000;
const clock = manualClock(SEEDED);
const LOCATION = '/demo-group/nyc-midtown';
const DAY = '20261121';
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  clock.set(NOW);
});
afterAll(() => runtime?.stop());

const sales = (netSales: number) => ({
  updatedAt: iso(NOW - 60_000),
  currency: 'USD',
  grossSales: netSales,
  netSales,
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
const putSales = (netSales: number, sourceMs: number, sequence?: number) =>
  producerCall(runtime, 'pos-sync', 'PUT', `/shiftq${LOCATION}/sales/${DAY}`, {
    sourceTime: iso(sourceMs),
    ...(sequence === undefined ? {} : { sequence }),
    data: sales(netSales),
  });

/** The day's net sales as a customer reads them. */
async function servedNetSales(): Promise<unknown> {
  const { token } = await tokenFor(runtime, { scopes: ['shiftq:read'] });
  const reply = await call(runtime, `/v1${LOCATION}/shiftq/sales?businessDate=${DAY}`, { token });
  expect(reply.status).toBe(200);
  return reply.body.data.sales?.netSales ?? null;
}

/** The table's items below the location's shiftq keys, for "changes nothing". */
const shiftqItems = async () =>
  (await scanTable(runtime)).filter((i) => String(i.PK) === 'LOC#demo-group#nyc-midtown' && String(i.SK).startsWith('SHIFTQ#'));

describe(`producer updates in their source's order (${ENGINE_NAME})`, () => {
  it('applies a newer update, acknowledges a replay and an older one, and never lets them overwrite', async () => {
    const t = NOW - 10 * 60_000;
    expect((await putSales(100, t)).body).toMatchObject({ outcome: 'applied', records: 1, sourceTime: iso(t), sequence: 0 });
    expect(await servedNetSales()).toBe(100);

    expect((await putSales(100, t)).body.outcome).toBe('duplicate');
    // A different body under the same order is the same update as far as order goes: it changes nothing.
    expect((await putSales(999, t)).body.outcome).toBe('duplicate');
    expect((await putSales(50, t - 1)).body.outcome).toBe('stale');
    expect(await servedNetSales()).toBe(100);

    // The sequence breaks a tie of source times.
    expect((await putSales(200, t, 1)).body.outcome).toBe('applied');
    expect((await putSales(150, t, 0)).body.outcome).toBe('stale');
    expect(await servedNetSales()).toBe(200);
  });

  it('ends at the newest of concurrent updates, whatever order they arrive in', async () => {
    const base = NOW - 5 * 60_000;
    const order = [7, 2, 9, 0, 5, 3, 8, 1, 6, 4];
    const replies = await Promise.all(order.map((i) => putSales(1000 + i, base + i * 1000)));
    for (const reply of replies) expect(['applied', 'stale']).toContain(reply.body.outcome);
    expect(replies[order.indexOf(9)]!.body.outcome).toBe('applied');
    expect(await servedNetSales()).toBe(1009);
  });

  it("keeps a kitchen day's snapshot with the tickets it was computed from", async () => {
    const zone = 'America/New_York';
    const until = businessDayEndMs(zone, DAY);
    const days = [1, 2, 3, 4].map((seed) => demoKitchenDay(zone, DAY, 20 + seed * 5, until, seed));
    const replies = await Promise.all(
      days.map((data, i) =>
        producerCall(runtime, 'pos-sync', 'PUT', `/shiftq${LOCATION}/kitchen/${DAY}`, { sourceTime: iso(NOW - 60_000 + i), data }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(replies[3]!.body).toMatchObject({ outcome: 'applied', records: days[3]!.tickets.length });
    const items = await shiftqItems();
    const tickets = items.find((i) => i.SK === `SHIFTQ#KITCHEN#${DAY}`)!;
    const snapshot = items.find((i) => i.SK === `SHIFTQ#KITCHEN_SNAPSHOT#${DAY}`)!;
    expect([tickets.sourceMs, snapshot.sourceMs]).toEqual([NOW - 60_000 + 3, NOW - 60_000 + 3]);
  });

  it('replaces a current resource by the same rule', async () => {
    const path = `/shiftq${LOCATION}/employees`;
    const employees = (name: string) => ({
      updatedAt: iso(NOW - 60_000),
      employees: [{ id: 'e-1', displayName: name, jobCodes: ['server'], hiredOn: '2025-01-15' }],
      jobs: [{ code: 'server', title: 'Server', roleGroup: 'Front of house' }],
    });
    const first = await producerCall(runtime, 'pos-sync', 'PUT', path, { sourceTime: iso(NOW - 1000), data: employees('Zoë Müller') });
    expect(first.status, first.text).toBe(200);
    expect(first.body.outcome).toBe('applied');
    const older = await producerCall(runtime, 'pos-sync', 'PUT', path, { sourceTime: iso(NOW - 2000), data: employees('Old') });
    expect(older.body.outcome).toBe('stale');
    const stored = (await runtime.store.shiftq.getCurrent('demo-group', 'nyc-midtown', 'employees'))!;
    expect(JSON.stringify(stored.data)).toContain('Zoë Müller');
  });
});

describe(`who may write (${ENGINE_NAME})`, () => {
  const update = { sourceTime: iso(NOW), data: sales(1) };
  const path = `/shiftq${LOCATION}/sales/${DAY}`;

  it('refuses a request without a producer key, with the admin key, or with another producer key, as API Gateway does', async () => {
    const before = await shiftqItems();
    for (const key of [
      '',
      'not-a-key',
      runtime.adminKey,
      ...PRODUCERS.filter((p) => p !== 'pos-sync').map((p) => runtime.producerKeys[p]),
    ]) {
      const reply = await producerCall(runtime, { key }, 'PUT', path, update);
      expect([reply.status, reply.body]).toEqual([403, { message: 'Forbidden' }]);
    }
    expectUnchanged(await shiftqItems(), before);
  });

  it("holds a producer to its own routes: pos-sync's key reaches no other path below /producer", async () => {
    const reply = await producerCall(runtime, 'pos-sync', 'PUT', `/sports${LOCATION}/providers`, update);
    expect(reply.status).toBe(403);
    // Inside its routes, a path that names nothing is the function's 404.
    const unknown = await producerCall(runtime, 'pos-sync', 'PUT', `/shiftq${LOCATION}/payroll/${DAY}`, update);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });
});

describe(`bad updates change nothing (${ENGINE_NAME})`, () => {
  const path = `/shiftq${LOCATION}/sales/${DAY}`;
  const kitchenPath = `/shiftq${LOCATION}/kitchen/${DAY}`;
  const kitchenDay = () => demoKitchenDay('America/New_York', DAY, 3, NOW);
  const cases: [string, string, unknown, number, RegExp][] = [
    ['malformed JSON', path, '{"sourceTime":', 400, /JSON/i],
    ['no source time', path, { data: sales(1) }, 400, /sourceTime/],
    ['an unknown field', path, { sourceTime: iso(NOW), data: sales(1), extra: true }, 400, /extra/],
    ['a source time far ahead', path, { sourceTime: iso(NOW + MAX_SOURCE_AHEAD_MS + 1000), data: sales(1) }, 400, /ahead/],
    ['a negative sequence', path, { sourceTime: iso(NOW), sequence: -1, data: sales(1) }, 400, /sequence/],
    ['a fractional sequence', path, { sourceTime: iso(NOW), sequence: 1.5, data: sales(1) }, 400, /sequence/],
    ['an impossible date', `/shiftq${LOCATION}/sales/20261131`, { sourceTime: iso(NOW), data: sales(1) }, 400, /businessDate/],
    ['a date not yet started', `/shiftq${LOCATION}/sales/20261123`, { sourceTime: iso(NOW), data: sales(1) }, 400, /not started/],
    ['a date past retention', `/shiftq${LOCATION}/sales/20251120`, { sourceTime: iso(NOW), data: sales(1) }, 400, /retention/],
    ['a wrong type in the data', path, { sourceTime: iso(NOW), data: { ...sales(1), netSales: 'lots' } }, 400, /netSales/],
    [
      'a current resource below a date',
      `/shiftq${LOCATION}/employees/${DAY}`,
      { sourceTime: iso(NOW), data: {} },
      404,
      /No producer resource/,
    ],
    ['a dated resource without a date', `/shiftq${LOCATION}/sales`, { sourceTime: iso(NOW), data: sales(1) }, 404, /No producer resource/],
    ['an unknown location', `/shiftq/demo-group/nowhere/sales/${DAY}`, { sourceTime: iso(NOW), data: sales(1) }, 404, /nowhere/],
    // The kitchen's status is the upstream fetch as the producer saw it: never made up when absent.
    [
      'a kitchen day without its fetch status',
      kitchenPath,
      { sourceTime: iso(NOW), data: { ...kitchenDay(), status: undefined } },
      400,
      /status/,
    ],
    [
      'a failed fetch without its error',
      kitchenPath,
      { sourceTime: iso(NOW), data: { ...kitchenDay(), status: { state: 'error', httpStatus: 503 } } },
      400,
      /error/,
    ],
  ];

  it.each(cases)('%s: a clear refusal', async (_, at, body, status, message) => {
    const before = await shiftqItems();
    const reply = await producerCall(runtime, 'pos-sync', 'PUT', at, body);
    expect(reply.status, reply.text).toBe(status);
    expect(reply.body.error.message).toMatch(message);
    expectUnchanged(await shiftqItems(), before);
  });

  it('refuses a method its policy does not allow, as API Gateway does', async () => {
    const reply = await producerCall(runtime, 'pos-sync', 'POST', path, { sourceTime: iso(NOW), data: sales(1) });
    expect(reply.status).toBe(403);
  });
});

describe(`the venue directory writes groups and locations (${ENGINE_NAME})`, () => {
  const location = (name: string) => ({
    name,
    locationShortName: 'Harbour',
    timezone: 'Australia/Sydney',
    slug: 'harbour-bar',
    modulesEnabled: { shiftq: true },
  });
  const put = (path: string, sourceMs: number, data: unknown, producer: 'venue-directory' | 'pos-sync' = 'venue-directory') =>
    producerCall(runtime, producer, 'PUT', path, { sourceTime: iso(sourceMs), data });
  const listed = async () => (await adminCall(runtime, 'GET', '/groups/feed-group/locations')).body.locations;

  it('creates a group and its location, keeps the newer of two updates, and the admin API lists them', async () => {
    expect((await put('/groups/feed-group', NOW - 2000, { name: 'Feed Group' })).body.outcome).toBe('applied');
    expect((await put('/groups/feed-group/locations/harbour-bar', NOW - 2000, location('Harbour Bar'))).body.outcome).toBe('applied');
    expect((await put('/groups/feed-group/locations/harbour-bar', NOW - 1000, location('Harbour Bar & Grill'))).body.outcome).toBe(
      'applied',
    );
    expect((await put('/groups/feed-group/locations/harbour-bar', NOW - 1500, location('Old Name'))).body.outcome).toBe('stale');
    expect(await listed()).toEqual([
      expect.objectContaining({
        id: 'harbour-bar',
        name: 'Harbour Bar & Grill',
        modulesEnabled: expect.objectContaining({ shiftq: true, bevq: false }),
      }),
    ]);
  });

  it("refuses an operator's edit over a later update of the directory with 409, changing nothing", async () => {
    expect((await put('/groups/feed-group/locations/harbour-bar', NOW + 60_000, location('From The Directory'))).body.outcome).toBe(
      'applied',
    );
    const edit = await adminCall(runtime, 'PUT', '/groups/feed-group/locations/harbour-bar', location('Operator Edit'));
    expect([edit.status, edit.body.error.code]).toEqual([409, 'conflict']);
    expect((await listed())[0].name).toBe('From The Directory');
  });

  it('refuses a location of an unknown group, an unknown field and another producer, writing nothing', async () => {
    const before = await scanTable(runtime);
    const unknownGroup = await put('/groups/no-such-group/locations/x', NOW, location('X'));
    expect([unknownGroup.status, unknownGroup.body.error.message]).toEqual([400, 'group no-such-group does not exist']);
    const extra = await put('/groups/feed-group/locations/harbour-bar', NOW + 120_000, { ...location('X'), groupId: 'other' });
    expect([extra.status, extra.body.error.message]).toEqual([400, expect.stringMatching(/groupId/)]);
    const wrongProducer = await put('/groups/feed-group', NOW + 120_000, { name: 'X' }, 'pos-sync');
    expect(wrongProducer.status).toBe(403);
    expectUnchanged(await scanTable(runtime), before);
  });
});

describe(`the sports sync writes schedules, environments and viewing data (${ENGINE_NAME})`, () => {
  const DATE = '2026-11-24';
  const demo = demoSportsFile(SEEDED);
  const event = { ...demo.schedules![0]!.events[0]!, id: 'feed-event-1' };
  const environment = demo.environments![0]!;
  const { groupId: _g, locationId: _l, ...environmentData } = environment;
  const put = (path: string, sourceMs: number, data: unknown) =>
    producerCall(runtime, 'sports-sync', 'PUT', path, { sourceTime: iso(sourceMs), data });

  it("keeps a date's newer schedule and refuses viewing data naming an event it lacks", async () => {
    expect((await put(`/sports/schedules/${DATE}`, NOW - 2000, { events: [event] })).body.outcome).toBe('applied');
    expect((await put(`/sports/schedules/${DATE}`, NOW - 3000, { events: [] })).body.outcome).toBe('stale');
    expect((await runtime.store.sports.getSchedule(DATE))!.events.map((e) => e.id)).toEqual(['feed-event-1']);

    const options = (eventId: string) => ({ options: { [eventId]: [] } });
    const at = `/sports/${environment.groupId}/${environment.locationId}/viewing/${DATE}`;
    const unknown = await put(at, NOW, options('not-scheduled'));
    expect([unknown.status, unknown.body.error.message]).toEqual([
      400,
      expect.stringMatching(/not in that date's schedule: not-scheduled/),
    ]);
    expect((await put(at, NOW, options('feed-event-1'))).body.outcome).toBe('applied');
  });

  it("replaces a location's environment in order, and refuses one whose programming package is not among its packages", async () => {
    const at = `/sports/${environment.groupId}/${environment.locationId}/environment`;
    const observed = NOW - 5000;
    expect((await put(at, observed, environmentData)).body.outcome).toBe('applied');
    expect((await put(at, observed, environmentData)).body.outcome).toBe('duplicate');
    const wrong = await put(at, NOW + 1000, { ...environmentData, programmingPackageId: 'no-such-package' });
    expect([wrong.status, wrong.body.error.message]).toEqual([400, expect.stringMatching(/programmingPackageId no-such-package/)]);
    const named = await put(at, NOW + 1000, { ...environmentData, groupId: environment.groupId });
    expect([named.status, named.body.error.message]).toEqual([400, expect.stringMatching(/groupId/)]);
    const nowhere = await put(`/sports/${environment.groupId}/nowhere/environment`, NOW + 1000, environmentData);
    expect(nowhere.status).toBe(404);
    const stored = (await runtime.store.sports.getProvider(environment.groupId, environment.locationId))!;
    expect(stored).not.toHaveProperty('sourceMs');
    // Dated by its source's observation, not its arrival: the health rules compare viewing data with the lineup.
    expect(stored.updatedAt).toBe(iso(observed));
    expect(stored.packages).toEqual(environmentData.packages.map((p) => expect.objectContaining({ id: p.id })));
  });

  it('refuses an impossible date and keeps each producer on its own routes', async () => {
    const impossible = await put('/sports/schedules/2026-02-30', NOW, { events: [] });
    expect([impossible.status, impossible.body.error.message]).toEqual([400, expect.stringMatching(/date/)]);
    const posSync = await producerCall(runtime, 'pos-sync', 'PUT', `/sports/schedules/${DATE}`, {
      sourceTime: iso(NOW),
      data: { events: [] },
    });
    expect(posSync.status).toBe(403);
    const sportsOnShiftq = await producerCall(runtime, 'sports-sync', 'PUT', `/shiftq${LOCATION}/sales/${DAY}`, {
      sourceTime: iso(NOW),
      data: sales(1),
    });
    expect(sportsOnShiftq.status).toBe(403);
  });
});
