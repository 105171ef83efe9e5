import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignsFile, loadCampaigns } from '#lambdas/producers/loads/campaigns';
import { loadMatriq, matriqFile } from '#lambdas/producers/loads/matriq';
import { publishMenu } from '#lambdas/webhooks/publish';
import { loadShiftq } from '#lambdas/producers/loads/shiftq';
import { loadSports, sportsFile } from '#lambdas/producers/loads/sports';
import { AdminInputError } from '#domain/inputs';
import { loadVenues, venueFile } from '#lambdas/producers/loads/venues';
import { fixtureGroup, fixtureLocation } from '../fixtures/venues.js';
import { createDb, type Db } from '#data/store';
import { DYNAMODB_LIMITS, plainItemBytes, StorageLimitError } from '#data/limits';
import type { LocalStore } from '#local/repositories';
import { reviewKeys } from '#lambdas/shiftq/review-records';
import { menuInput } from '#contract/schemas/bevq';
import { CURRENT_KINDS, DATED_KINDS, reviewsInput, SHIFTQ_INPUTS } from '#lambdas/shiftq/inputs';
import type { LocalRuntime } from '#local/runtime';
import { arbitraryFromSchema } from '../support/schema-arbitrary.js';
import { ENGINE_NAME, expectUnchanged, manualClock, scanTable, startTestRuntime } from '../support/runtime.js';

/**
 * What the validators accept, the table stores and gives back, on either
 * engine. Inputs come from the ingest and publish schemas, hostile in size
 * (full-length strings of 1- to 4-byte characters, long arrays), in Unicode
 * (astral characters, NUL, lone surrogates) and in numbers (bounds, long
 * fractions, tiny magnitudes); each goes through the code path ops use. Every
 * attempt must be stored and read back equal, or refused with a clear error
 * (the validator's AdminInputError, the store's StorageLimitError) with
 * nothing changed. An engine error or any other exception fails the property.
 */

const SEED = 20_261_122;
const GROUP = 'limits-group';
const LOCATION = 'limits-location';
const clock = manualClock();
let runtime: LocalRuntime;
let store: LocalStore;
let db: Db;

beforeAll(async () => {
  runtime = await startTestRuntime({ seed: false, clock });
  store = runtime.store;
  db = createDb(runtime.tableName, runtime.dynamo);
  await fixtureGroup(store, { groupId: GROUP, name: 'Limits' }, clock.now());
  await fixtureLocation(
    store,
    {
      groupId: GROUP,
      id: LOCATION,
      name: 'Limits',
      locationShortName: 'L',
      timezone: 'America/New_York',
      slug: 'limits',
      modulesEnabled: { bevq: true, sportsq: true, matriq: true, shiftq: true, campaigns: true },
    },
    clock.now(),
  );
});
afterAll(async () => {
  await runtime?.stop();
});

type Outcome = 'stored' | 'refused by validation' | 'refused by the store';

/**
 * One property over a write path: `state` reads everything the path may
 * write; `write` runs it and returns what `state` must then match.
 */
async function holds<T>(
  arbitrary: fc.Arbitrary<T>,
  numRuns: number,
  path: { state(): Promise<unknown>; write(input: T, before: any): Promise<unknown> },
) {
  const outcomes: Record<Outcome, number> = { stored: 0, 'refused by validation': 0, 'refused by the store': 0 };
  await fc.assert(
    fc.asyncProperty(arbitrary, async (input) => {
      const before = await path.state();
      let outcome: Outcome = 'stored';
      let expected: unknown;
      try {
        expected = await path.write(input, before);
      } catch (err) {
        // Anything but the two clear refusals (an engine error, a crash) fails the property.
        if (err instanceof StorageLimitError) outcome = 'refused by the store';
        else if (err instanceof AdminInputError) outcome = 'refused by validation';
        else throw err;
      }
      const after = await path.state();
      if (outcome === 'stored') expect(after).toMatchObject(expected as object);
      else expectUnchanged(after, before);
      outcomes[outcome]++;
    }),
    // No shrinking: inputs are large; the seed and the reported path replay a failure.
    { seed: SEED, numRuns, endOnFailure: true },
  );
  return outcomes;
}

const nowIso = () => new Date(clock.now()).toISOString();
const lastBy = <T>(items: T[], key: (item: T) => string) => new Map(items.map((item) => [key(item), item]));

describe(`storage limits on ${ENGINE_NAME}`, () => {
  it('stores an item of exactly 400 KB as measured, multi-byte text, numbers, lists and maps included, and refuses one byte more', async () => {
    const Key = { PK: 'LIMITS#exact', SK: 'ITEM' };
    const base = {
      ...Key,
      text: '😀€é'.repeat(20_000),
      numbers: [0, -1, 1.5, 123, 1e-130, 1e15, Number.MAX_SAFE_INTEGER],
      map: { a: true, b: null, c: ['x'] },
    };
    const exact = { ...base, pad: 'x'.repeat(DYNAMODB_LIMITS.itemBytes - plainItemBytes({ ...base, pad: '' })) };
    expect(plainItemBytes(exact)).toBe(DYNAMODB_LIMITS.itemBytes);
    await db.doc.send(new PutCommand({ TableName: runtime.tableName, Item: exact }));
    expect((await db.doc.send(new GetCommand({ TableName: runtime.tableName, Key, ConsistentRead: true }))).Item).toEqual(exact);

    const over = { ...exact, pad: `${exact.pad}x` };
    await expect(db.doc.send(new PutCommand({ TableName: runtime.tableName, Item: over }))).rejects.toMatchObject({
      status: 413,
      code: 'payload_too_large',
    });
    expect((await db.doc.send(new GetCommand({ TableName: runtime.tableName, Key, ConsistentRead: true }))).Item).toEqual(exact);
  });

  it('stores keys of exactly 2,048 and 1,024 bytes in multi-byte text, and refuses longer or empty ones', async () => {
    const pk = `LIMITS#${'€'.repeat(680)}`; // 7 + 2,040 bytes
    const sk = '😀'.repeat(256); // 1,024 bytes
    const put = (Item: Record<string, unknown>) => db.doc.send(new PutCommand({ TableName: runtime.tableName, Item }));
    await put({ PK: `${pk}x`, SK: sk, GSI1PK: `${pk}y`, GSI1SK: sk });
    expect((await db.doc.send(new GetCommand({ TableName: runtime.tableName, Key: { PK: `${pk}x`, SK: sk } }))).Item?.SK).toBe(sk);
    for (const Item of [
      { PK: `${pk}€`, SK: 's' },
      { PK: 'LIMITS#k', SK: `${sk}x` },
      { PK: 'LIMITS#k', SK: 's', GSI1PK: `${pk}xx` },
      { PK: 'LIMITS#k', SK: 's', GSI1SK: '' },
      { PK: '', SK: 's' },
    ]) {
      await expect(put(Item)).rejects.toBeInstanceOf(StorageLimitError);
    }
    await expect(db.doc.send(new GetCommand({ TableName: runtime.tableName, Key: { PK: `${pk}€`, SK: 's' } }))).rejects.toBeInstanceOf(
      StorageLimitError,
    );
    expect((await db.doc.send(new GetCommand({ TableName: runtime.tableName, Key: { PK: 'LIMITS#k', SK: 's' } }))).Item).toBeUndefined();
  });

  it('measures an item of many short strings and whole numbers too: past 400 KB it is refused, and nothing is stored', async () => {
    const Key = { PK: 'LIMITS#many', SK: 'ITEM' };
    // 2,000 attributes of 250-character names and values, each short alone: about 1 MB together.
    const many = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`${i}`.padStart(250, 'a'), i % 2 ? 'v'.repeat(250) : i]));
    await expect(db.doc.send(new PutCommand({ TableName: runtime.tableName, Item: { ...Key, ...many } }))).rejects.toMatchObject({
      status: 413,
      code: 'payload_too_large',
    });
    expect((await db.doc.send(new GetCommand({ TableName: runtime.tableName, Key, ConsistentRead: true }))).Item).toBeUndefined();
  });

  it('refuses numbers DynamoDB cannot store exactly before sending them', async () => {
    for (const n of [1e-131, 5e-324, -1e-200]) {
      await expect(
        db.doc.send(new PutCommand({ TableName: runtime.tableName, Item: { PK: 'LIMITS#n', SK: String(n), n } })),
      ).rejects.toBeInstanceOf(StorageLimitError);
    }
  });

  it('refuses a whole load when one of its items could not be stored: nothing of it is written', async () => {
    const astral = (n: number) => '😀'.repeat(n / 2); // n UTF-16 code units, 2n bytes
    const small = { date: '2026-12-01', events: [] };
    const huge = {
      date: '2026-12-02',
      events: Array.from({ length: 300 }, (_, i) => ({
        id: `big-${i}`,
        name: astral(200),
        startsAt: '2026-12-02T20:00:00Z',
        sport: { id: 's', name: astral(200) },
        league: { id: 'l', name: astral(200), abbreviation: astral(200) },
        participants: [],
        venue: { id: 'v', name: astral(200), city: astral(200), state: astral(200), country: astral(200), indoor: true },
      })),
    };
    const devices = Array.from({ length: 500 }, (_, i) => ({
      id: `d${i}`,
      name: astral(200),
      type: astral(200),
      zone: astral(200),
      lastSeenAt: null,
    }));
    const noise = (n: number) => randomBytes(n).toString('base64').slice(0, n); // incompressible
    const reservations = {
      venueLabel: 'V',
      asOf: nowIso(),
      days: ['2026-11-22', '2026-11-23'].map((dayKey) => ({
        dayKey,
        label: dayKey,
        items: Array.from({ length: 1000 }, (_, i) => ({
          id: `r${i}`,
          displayTime: '19:00',
          guestName: 'G',
          partySize: 2,
          notes: noise(500),
        })),
      })),
    };
    const loads = [
      () => loadSports(store, { schedules: [small, huge] }, clock.now()),
      () =>
        loadMatriq(
          store,
          {
            locations: [
              {
                groupId: GROUP,
                locationId: LOCATION,
                gateway: { id: 'g', name: 'G', model: 'M', firmwareVersion: '1', lastSeenAt: null },
                devices,
                scheduler: { deviceIds: [], running: false },
              },
            ],
          },
          clock.now(),
        ),
      () =>
        loadShiftq(
          store,
          {
            groupId: GROUP,
            locationId: LOCATION,
            entries: [
              { kind: 'employees', data: { updatedAt: nowIso(), employees: [], jobs: [] } },
              { kind: 'reservations', data: reservations },
            ],
          },
          clock.now(),
        ),
    ];
    const before = await scanTable(runtime);
    for (const load of loads) await expect(load()).rejects.toThrow(/too large to store/);
    expectUnchanged(await scanTable(runtime), before);
  });

  it('menu publish: what the schema accepts is stored and read back, or refused clearly', async () => {
    const outcomes = await holds(arbitraryFromSchema(menuInput, { maxArray: 14, overrides: { sectionId: fc.constant(undefined) } }), 40, {
      state: async () => (await store.menus.get(GROUP, LOCATION))?.menu ?? null,
      write: async (menu) => (await publishMenu(runtime.deps, { groupId: GROUP, locationId: LOCATION, menu })).menu,
    });
    expect(outcomes.stored).toBeGreaterThan(0);
    expect(outcomes['refused by the store']).toBeGreaterThan(0);
  });

  it('sports load: schedules, provider environments and viewing days', async () => {
    const [viewDate, ...scheduleDates] = ['2026-11-19', '2026-11-20', '2026-11-21'];
    const eventIds = ['ev-1', 'ev-2', 'ev-3'];
    // Viewing data names events of its date's schedule: one stored beforehand.
    const event = (id: string) => ({
      id,
      name: id,
      startsAt: '2026-11-19T20:00:00Z',
      sport: { id: 's', name: 'S' },
      league: { id: 'l', name: 'L', abbreviation: 'L' },
      participants: [],
      venue: { id: 'v', name: 'V', city: '', state: '', country: '', indoor: true },
    });
    await loadSports(store, { schedules: [{ date: viewDate, events: eventIds.map(event) }] }, clock.now());
    // Cross-references the schema cannot say are made to hold: one schedule per date, a package that exists.
    const arbitrary = arbitraryFromSchema(sportsFile, {
      maxArray: 24,
      arrayCaps: { schedules: 2, environments: 1, viewing: 1 },
      overrides: {
        groupId: fc.constant(GROUP),
        locationId: fc.constant(LOCATION),
        date: fc.constantFrom(...scheduleDates),
        'options{}': fc.constantFrom(...eventIds),
      },
    }).map((file: any) => ({
      schedules: file.schedules && [...lastBy(file.schedules, (s: { date: string }) => s.date).values()],
      environments: file.environments?.map((e: any) => {
        const packages = [...lastBy(e.packages, (p: { id: string }) => p.id).values()];
        return { ...e, packages, programmingPackageId: packages[0]?.id ?? null };
      }),
      viewing: file.viewing?.map((v: object) => ({ ...v, date: viewDate })),
    }));
    const outcomes = await holds(arbitrary, 20, {
      state: async () => ({
        schedules: await Promise.all(scheduleDates.map((d) => store.sports.getSchedule(d))),
        provider: await store.sports.getProvider(GROUP, LOCATION),
        viewing: await store.sports.viewingAtOrBefore(GROUP, LOCATION, viewDate),
      }),
      write: async (input, before) => {
        // Each load is a newer observation of the source than the last (the CLI stamps its own time).
        clock.advance(1);
        await loadSports(store, input, clock.now());
        const file = v.parse(sportsFile, input);
        const updatedAt = nowIso();
        const schedules = lastBy(file.schedules, (s) => s.date);
        return {
          schedules: scheduleDates.map((d, i) => (schedules.has(d) ? { ...schedules.get(d), updatedAt } : before.schedules[i])),
          provider: file.environments.length ? { ...file.environments.at(-1), updatedAt } : before.provider,
          viewing: file.viewing.length ? { ...file.viewing.at(-1), updatedAt } : before.viewing,
        };
      },
    });
    expect(outcomes.stored).toBeGreaterThan(0);
  });

  it('display-device load: gateway, devices and Auto Scheduler state', async () => {
    const arbitrary = arbitraryFromSchema(matriqFile, {
      maxArray: 24,
      overrides: { groupId: fc.constant(GROUP), locationId: fc.constant(LOCATION), businessDay: fc.constant('20261121') },
    }).map((file: any) => ({
      locations: file.locations.map((l: any) => {
        const devices = l.devices.map((d: { id: string }, i: number) => ({ ...d, id: `${i}-${d.id}`.slice(0, 200) }));
        return { ...l, devices, scheduler: { ...l.scheduler, deviceIds: devices.slice(0, 3).map((d: { id: string }) => d.id) } };
      }),
    }));
    const outcomes = await holds(arbitrary, 25, {
      state: () => store.matriq.get(GROUP, LOCATION),
      write: async (input) => {
        // Each load is a newer observation of the source than the last (the CLI stamps its own time).
        clock.advance(1);
        await loadMatriq(store, input, clock.now());
        const { scheduler, ...rest } = v.parse(matriqFile, input).locations.at(-1)!;
        return { ...rest, updatedAt: nowIso(), scheduler: { ...scheduler, statusUpdatedAt: nowIso() } };
      },
    });
    expect(outcomes.stored).toBeGreaterThan(0);
  });

  it('campaigns load', async () => {
    const ids = ['c-1', 'c-2', 'c-3'];
    const arbitrary = arbitraryFromSchema(campaignsFile, {
      maxArray: 4,
      overrides: { groupId: fc.constant(GROUP), id: fc.constantFrom(...ids), locationIds: fc.constant([LOCATION]) },
    }).map((file: any) => ({
      campaigns: [...lastBy(file.campaigns, (c: { id: string }) => c.id).values()].map((c: any) => ({
        ...c,
        endsAt: new Date(Date.parse(c.startsAt) + 86_400_000).toISOString(),
      })),
    }));
    const outcomes = await holds(arbitrary, 20, {
      state: async () => Object.fromEntries((await store.campaigns.list(GROUP)).map((c) => [c.id, c])),
      write: async (input, before) => {
        clock.advance(1);
        await loadCampaigns(store, input, clock.now());
        const written = v.parse(campaignsFile, input).campaigns.map((c) => [c.id, { ...c, updatedAt: nowIso() }]);
        return { ...before, ...Object.fromEntries(written) };
      },
    });
    expect(outcomes.stored).toBeGreaterThan(0);
  });

  it('shiftq load: dated and current-state resources (gzipped) and reviews', async () => {
    const businessDate = '20261120';
    const schemas = SHIFTQ_INPUTS;
    const entry = fc.oneof(
      ...DATED_KINDS.map((kind) =>
        fc.record({
          kind: fc.constant(kind),
          businessDate: fc.constant(businessDate),
          data: arbitraryFromSchema(schemas[kind], { maxArray: 30 }),
        }),
      ),
      ...CURRENT_KINDS.map((kind) => fc.record({ kind: fc.constant(kind), data: arbitraryFromSchema(schemas[kind], { maxArray: 30 }) })),
      fc.record({
        kind: fc.constant('reviews' as const),
        data: arbitraryFromSchema(reviewsInput, { maxArray: 8 }).map((d: any) => ({
          reviews: d.reviews.map((r: any) => ({ ...r, updatedAt: r.createdAt })),
        })),
      }),
    );
    const arbitrary = fc.array(entry, { minLength: 1, maxLength: 3 }).map((entries) => ({ groupId: GROUP, locationId: LOCATION, entries }));
    const range = reviewKeys.range(null, null);
    const state = async () => ({
      dated: Object.fromEntries(
        await Promise.all(
          DATED_KINDS.map(async (k) => [k, (await store.shiftq.getDated(GROUP, LOCATION, k, businessDate, clock.now()))?.data ?? null]),
        ),
      ),
      current: Object.fromEntries(
        await Promise.all(CURRENT_KINDS.map(async (k) => [k, (await store.shiftq.getCurrent(GROUP, LOCATION, k))?.data ?? null])),
      ),
      reviews: Object.fromEntries(
        (
          await store.reviews.page(GROUP, LOCATION, {
            low: range.low,
            high: range.high,
            after: null,
            limit: 1000,
            filter: { minRating: null, maxRating: null, provider: null },
          })
        ).reviews.map((r) => [`${new Date(r.createdAt).toISOString()}#${r.id}`, r]),
      ),
    });
    const outcomes = await holds(arbitrary, 30, {
      state,
      write: async (input, before) => {
        // Each load is a newer observation of the source than the last (the CLI stamps its own time).
        clock.advance(1);
        await loadShiftq(store, input, clock.now());
        const expected = structuredClone(before);
        for (const e of input.entries) {
          if (e.kind === 'reviews') {
            for (const r of v.parse(reviewsInput, e.data).reviews) expected.reviews[`${new Date(r.createdAt).toISOString()}#${r.id}`] = r;
          } else (e.kind in expected.dated ? expected.dated : expected.current)[e.kind] = v.parse(schemas[e.kind], e.data);
        }
        return expected;
      },
    });
    expect(outcomes.stored).toBeGreaterThan(0);
  });

  it('venues load: groups and locations', async () => {
    const arbitrary = arbitraryFromSchema(venueFile, {
      maxArray: 3,
      overrides: {
        groupId: fc.constantFrom('venue-a', 'venue-b'),
        id: fc.constantFrom('loc-a', 'loc-b'),
        timezone: fc.constantFrom('America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'),
      },
    });
    const keys = ['venue-a', 'venue-b'].flatMap((g) => ['loc-a', 'loc-b'].map((l) => [g, l] as const));
    const outcomes = await holds(arbitrary, 15, {
      state: async () => ({
        groups: await Promise.all(['venue-a', 'venue-b'].map((g) => store.groups.get(g, { consistent: true }))),
        locations: await Promise.all(keys.map(([g, l]) => store.locations.get(g, l))),
      }),
      write: async (input, before) => {
        await loadVenues(store, input, clock.now());
        const file = v.parse(venueFile, input);
        const groups = lastBy(file.groups, (g) => g.groupId);
        const locations = lastBy(
          file.groups.flatMap((g) => g.locations.map((l) => ({ ...l, groupId: g.groupId }))),
          (l) => `${l.groupId}/${l.id}`,
        );
        return {
          groups: ['venue-a', 'venue-b'].map((g, i) => (groups.has(g) ? { groupId: g, name: groups.get(g)!.name } : before.groups[i])),
          locations: keys.map(([g, l], i) => locations.get(`${g}/${l}`) ?? before.locations[i]),
        };
      },
    });
    expect(outcomes.stored).toBeGreaterThan(0);
  });
});
