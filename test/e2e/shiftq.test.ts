import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { loadShiftq } from '#lambdas/producers/loads/shiftq';
import { fixtureLocation } from '../fixtures/venues.js';
import { createDb, storeOf } from '#data/store';
import { REPOSITORIES } from '#data/repositories';
import { encodePageToken } from '#lambdas/shiftq/reviews';
import { pageKey } from '#platform/page-cursor';
import { call, manualClock, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

let runtime: LocalRuntime;
let token: string;
const clock = manualClock();
const LOC = '/v1/demo-group/nyc-midtown';
const SUB = ['sales', 'labor', 'kitchen', 'clock-ins', 'pos-menu', 'employees', 'reservations', 'toastReservations', 'reviews'];
const MODULES_ON = { shiftq: true, sportsq: false, matriq: false, campaigns: false, orderboard: false, bevq: false };

async function addLocation(id: string, modules = MODULES_ON) {
  await fixtureLocation(
    runtime.store,
    { groupId: 'demo-group', id, name: `Lab ${id}`, locationShortName: id, timezone: 'America/Chicago', slug: id, modulesEnabled: modules },
    clock.now(),
  );
}

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  ({ token } = await tokenFor(runtime, { scopes: ['shiftq:read'], rateLimitPerMinute: 10_000 }));
});
afterAll(() => runtime?.stop());

describe('every shiftq route', () => {
  it('answers in the envelope with location and its own refresh block', async () => {
    for (const sub of SUB) {
      const reply = await call(runtime, `${LOC}/shiftq/${sub}`, { token });
      expect(reply.status, sub).toBe(200);
      expect(reply.body).toMatchObject({
        ok: true,
        version: 'v1',
        resource: `shiftq/${sub}`,
        groupId: 'demo-group',
        locationId: 'nyc-midtown',
      });
      expect(reply.body.data.refresh, sub).toEqual({ cadence: expect.any(String), description: expect.any(String) });
    }
    const overview = await call(runtime, `${LOC}/shiftq`, { token });
    expect(overview.body.resource).toBe('shiftq');
    expect(overview.body.data.location).toEqual({ id: 'nyc-midtown', name: 'Midtown Taproom', timezone: 'America/New_York' });
    expect(Object.keys(overview.body.data.refresh).sort()).toEqual([
      'clockIns',
      'employees',
      'kitchen',
      'labor',
      'posMenu',
      'reservations',
      'sales',
    ]);
    const board = await call(runtime, '/v1/demo-group/shiftq/group-leaderboard', { token });
    expect(board.status).toBe(200);
    expect(board.body.resource).toBe('shiftq/group-leaderboard');
    expect(board.body).not.toHaveProperty('locationId');
  });

  it('overview counts agree with the sub-resources they summarise', async () => {
    const get = async (sub: string) => (await call(runtime, `${LOC}/shiftq${sub}`, { token })).body.data;
    const [o, sales, labor, kitchen, clockIns, pos, employees, reservations] = await Promise.all(
      ['', '/sales', '/labor', '/kitchen', '/clock-ins', '/pos-menu', '/employees', '/reservations'].map(get),
    );
    const s = o.summary;
    expect(s.businessDate).toBe('20261122');
    expect([sales.businessDate, kitchen.currentBusinessDate, clockIns.businessDate, employees.businessDate]).toEqual(
      Array(4).fill('20261122'),
    );
    expect(s.salesUpdatedAt).toBe(sales.sales.updatedAt);
    expect(s.laborUpdatedAt).toBe(labor.labor.updatedAt);
    expect(s.top5Leaderboard).toEqual(sales.sales.leaderboard.slice(0, 5));
    expect(s.clockedInCount).toBe(clockIns.clockedInCount);
    expect(s.managerOnDutyCount).toBe(clockIns.managerOnDutyCount);
    expect(s.roleGroupCount).toBe(clockIns.roleCoverage.length);
    expect(s.exceptionCounts).toEqual(clockIns.exceptionCounts);
    expect(s.soldOutItemCount).toBe(pos.soldOutItemCount);
    expect(s.newTeamMemberCount).toBe(employees.newTeamMemberCount);
    expect(s.reservationDayCount).toBe(reservations.reservations.dayCount);
    expect(s.reservationPartyCount).toBe(reservations.reservations.totalParties);
    expect(s.kitchenReadyQueueCount).toBe(kitchen.currentSnapshot.queue.readyQueueCount);
    expect(s.kitchenInProgressCount).toBe(kitchen.currentSnapshot.queue.inProgressCount);
    expect(s.kitchenStationCount).toBe(kitchen.currentSnapshot.counts.stationCount);
    expect(s.kitchenAvgTicketTimeMinutes).toBe(kitchen.currentSnapshot.averages.avgKitchenTicketTimeMinutes);
    expect(s.kitchenExpediterAvgTicketTimeMinutes).toBe(kitchen.currentSnapshot.averages.avgExpediterTicketTimeMinutes);
    // The demo data has something to agree on.
    expect(s.clockedInCount).toBeGreaterThan(0);
    expect(Object.values(s.exceptionCounts).some((n) => (n as number) > 0)).toBe(true);
  });
});

describe('shiftq/kitchen', () => {
  it('returns the current snapshot and exactly the requested earlier date, with the 15-minute alias', async () => {
    const reply = await call(runtime, `${LOC}/shiftq/kitchen?businessDate=20261121`, { token });
    const d = reply.body.data;
    expect(d).toMatchObject({
      currentBusinessDate: '20261122',
      requestedBusinessDate: '20261121',
      bucketAvailable: true,
      bucketUnavailableReason: null,
      retentionDays: 366,
    });
    expect(d.requestedBucket.businessDate).toBe('20261121');
    expect(d.requestedBucket.dateKey).toBe('2026-11-21');
    expect(d.currentSnapshot.businessDate).toBe('20261122');
    expect(d.thirtyMinuteBuckets).toEqual(d.requestedBucket.timeBuckets);
    expect(d.requestedBucket.timeBuckets.length).toBeGreaterThan(10);
    expect(d.requestedBucket.bucketIntervalMinutes).toBe(15);
    expect(d.latestMetadata).toMatchObject({
      businessDate: '20261122',
      liveBusinessDate: '20261122',
      bucketIntervalMinutes: 15,
      lastStatus: 'ok',
      averageBasis: 'ticket_count',
    });
    expect(d.latestMetadata).not.toHaveProperty('lastError');
    expect(d.latestMetadata.avgKitchenTicketTimeDivisorValue).toBe(d.currentSnapshot.counts.prepTicketCount);
    expect(d.endpoints).toEqual({
      current: `${runtime.url}${LOC}/shiftq/kitchen`,
      byBusinessDate: `${runtime.url}${LOC}/shiftq/kitchen?businessDate=20261121`,
    });
    const bucket = d.requestedBucket.timeBuckets[0];
    expect(bucket.bucketLabel).toMatch(/^\d{1,2}:\d{2} [AP]M – \d{1,2}:\d{2} [AP]M$/);
    expect(bucket).toHaveProperty('avgExpoClearMinutes');
  });

  it('says a date without data has none, and never substitutes another date or location', async () => {
    const reply = await call(runtime, `${LOC}/shiftq/kitchen?businessDay=20261110`, { token });
    const d = reply.body.data;
    expect(d).toMatchObject({
      requestedBusinessDate: '20261110',
      bucketAvailable: false,
      bucketUnavailableReason: 'no_data',
      requestedBucket: null,
      thirtyMinuteBuckets: [],
    });
    expect(d.currentSnapshot.businessDate).toBe('20261122');
    const future = await call(runtime, `${LOC}/shiftq/kitchen?businessDate=20261130`, { token });
    expect(future.body.data).toMatchObject({ bucketAvailable: false, bucketUnavailableReason: 'no_data' });
  });

  it('reports an upstream error with error present only then', async () => {
    await addLocation('kitchen-error');
    const date = '20261122';
    await loadShiftq(
      runtime.store,
      {
        groupId: 'demo-group',
        locationId: 'kitchen-error',
        entries: [
          {
            kind: 'kitchen',
            businessDate: date,
            data: {
              updatedAt: new Date(clock.now()).toISOString(),
              status: { state: 'error', httpStatus: 503, error: 'POS kitchen feed unavailable' },
              stations: [{ id: 'grill', name: 'Grill', kind: 'prep' }],
              tickets: [],
            },
          },
        ],
      },
      clock.now(),
    );
    const d = (await call(runtime, '/v1/demo-group/kitchen-error/shiftq/kitchen', { token })).body.data;
    expect(d.currentSnapshot.status).toEqual({ state: 'error', httpStatus: 503, error: 'POS kitchen feed unavailable' });
    expect(d.latestMetadata).toMatchObject({ lastStatus: 'error', lastHttpStatus: 503, lastError: 'POS kitchen feed unavailable' });
    expect(d.currentSnapshot.averages.avgExpoClearMinutes).toBeNull();
    expect(d.currentSnapshot.averages.avgKitchenTicketTimeMinutes).toBeNull();
  });

  it('serves the snapshot stored when the tickets were loaded, one beside every kitchen day with its expiry', async () => {
    const url = `${LOC}/shiftq/kitchen?businessDate=20261121`;
    const before = (await call(runtime, url, { token })).body.data;
    expect(before.bucketAvailable).toBe(true);
    const snapshotItems = (await scanTable(runtime)).filter((i) => String(i.SK).startsWith('SHIFTQ#KITCHEN_SNAPSHOT#'));
    const rawItems = (await scanTable(runtime)).filter((i) => String(i.SK).startsWith('SHIFTQ#KITCHEN#'));
    expect(snapshotItems.map((i) => `${i.PK} ${String(i.SK).split('#')[2]} ${i.ttl}`).sort()).toEqual(
      rawItems.map((i) => `${i.PK} ${String(i.SK).split('#')[2]} ${i.ttl}`).sort(),
    );
  });
});

describe('sales and labor', () => {
  it('covers exactly the requested date, with the prior-week compare labelled by its own date', async () => {
    const d = (await call(runtime, `${LOC}/shiftq/sales?businessDate=20261121`, { token })).body.data;
    expect(d).toMatchObject({ businessDate: '20261121', available: true, unavailableReason: null });
    expect(d.compare).toMatchObject({ basis: 'same_weekday_prior_week', businessDate: '20261114', available: true });
    expect(d.compare.netSalesChange).toBeCloseTo(d.sales.netSales - d.compare.netSales, 2);
    const none = (await call(runtime, `${LOC}/shiftq/sales?businessDate=20261101`, { token })).body.data;
    expect(none).toMatchObject({ businessDate: '20261101', available: false, unavailableReason: 'no_data', sales: null });
    const labor = (await call(runtime, `${LOC}/shiftq/labor?businessDay=20261120`, { token })).body.data;
    expect(labor).toMatchObject({ businessDate: '20261120', available: true });
    expect(labor.labor.laborPercent).toBeGreaterThan(0);
  });

  it('refuses malformed, impossible and conflicting dates with 400', async () => {
    for (const q of [
      'businessDate=20260230',
      'businessDay=20261301',
      'businessDate=2026-11-20',
      'businessDate=1122',
      'businessDate=20261120&businessDay=20261121',
      'businessDate=20261120&businessDate=20261121',
    ]) {
      for (const sub of ['sales', 'labor', 'kitchen']) {
        const reply = await call(runtime, `${LOC}/shiftq/${sub}?${q}`, { token });
        expect(reply.status, `${sub}?${q}`).toBe(400);
        expect(reply.body.error.code).toBe('invalid_request');
      }
    }
  });
});

describe('reservations and alias', () => {
  it('share one shape under two resource names, with asOfLabel on the main resource', async () => {
    const main = (await call(runtime, `${LOC}/shiftq/reservations`, { token })).body;
    const alias = (await call(runtime, `${LOC}/shiftq/toastReservations`, { token })).body;
    expect(main.resource).toBe('shiftq/reservations');
    expect(alias.resource).toBe('shiftq/toastReservations');
    expect(main.data.source).toBe('pos_reservations_digest');
    expect(alias.data.source).toBe('pos_reservations_digest');
    expect(main.data.reservations.asOfLabel).toMatch(/^As of /);
    const { asOfLabel: _label, ...rest } = main.data.reservations;
    expect(alias.data.reservations).toEqual(rest);
    const r = main.data.reservations;
    expect(r.dayCount).toBe(r.days.length);
    expect(r.totalParties).toBe(r.days.reduce((n: number, d: { items: unknown[] }) => n + d.items.length, 0));
    expect(r.totalCovers).toBe(r.days.reduce((n: number, d: { covers: number }) => n + d.covers, 0));
  });
});

describe('refusals', () => {
  it('refuses a token without shiftq:read on every route', async () => {
    const { token: other } = await tokenFor(runtime, { scopes: ['locations:read', 'bevq:read'] });
    for (const path of [`${LOC}/shiftq`, ...SUB.map((s) => `${LOC}/shiftq/${s}`), '/v1/demo-group/shiftq/group-leaderboard']) {
      const reply = await call(runtime, path, { token: other });
      expect(reply.status, path).toBe(403);
      expect(reply.body.error.code).toBe('insufficient_scope');
    }
  });

  it('refuses locations outside the token, unknown locations and locations without shiftq', async () => {
    const { token: scoped } = await tokenFor(runtime, { scopes: ['shiftq:read'], allowedLocationIds: ['nyc-midtown'] });
    expect((await call(runtime, '/v1/demo-group/london-soho/shiftq/kitchen', { token: scoped })).body.error.code).toBe(
      'location_not_allowed',
    );
    expect((await call(runtime, '/v1/demo-group/london-soho/shiftq/reviews', { token: scoped })).status).toBe(403);
    expect((await call(runtime, '/v1/demo-group/nowhere/shiftq/sales', { token })).status).toBe(404);
    expect((await call(runtime, '/v1/other-group/nyc-midtown/shiftq/sales', { token })).body.error.code).toBe('group_not_allowed');
    await addLocation('no-shiftq', { ...MODULES_ON, shiftq: false });
    expect((await call(runtime, '/v1/demo-group/no-shiftq/shiftq/sales', { token })).body.error.code).toBe('module_not_enabled');
  });
});

describe('shiftq/group-leaderboard', () => {
  it('ranks the accessible locations four ways and lists only their endpoints', async () => {
    const d = (await call(runtime, '/v1/demo-group/shiftq/group-leaderboard', { token })).body.data;
    const all = await runtime.store.locations.list('demo-group');
    expect(d.locationEndpoints.map((e: { id: string }) => e.id)).toEqual(all.filter((l) => l.modulesEnabled.shiftq).map((l) => l.id));
    expect(d.locationEndpoints.find((e: { id: string }) => e.id === 'nyc-midtown')).toEqual({
      id: 'nyc-midtown',
      name: 'Midtown Taproom',
      shiftq: `${runtime.url}${LOC}/shiftq`,
      sales: `${runtime.url}${LOC}/shiftq/sales`,
    });
    expect(d.count).toBe(4);
    const ids = (rows: { locationId: string }[]) => rows.map((r) => r.locationId);
    const net = d.leaderboard.byNetSales;
    expect(net.map((r: { netSales: number }) => r.netSales)).toEqual(
      [...net.map((r: { netSales: number }) => r.netSales)].sort((a, b) => b - a),
    );
    for (const [key, field] of [
      ['byLowestLaborPercent', 'laborPercent'],
      ['byLowestDiscountsPercent', 'discountsPercent'],
      ['byLowestVoidsPercent', 'voidsPercent'],
    ] as const) {
      const values = d.leaderboard[key].map((r: Record<string, number>) => r[field]);
      expect(values).toEqual([...values].sort((a: number, b: number) => a - b));
      expect(ids(d.leaderboard[key]).sort()).toEqual(ids(net).sort());
    }
    // Each location's figures are its own current business date's sales.
    const sydney = net.find((r: { locationId: string }) => r.locationId === 'sydney-harbour');
    const sales = (await call(runtime, '/v1/demo-group/sydney-harbour/shiftq/sales', { token })).body.data;
    expect(sydney).toMatchObject({
      businessDate: sales.businessDate,
      netSales: sales.sales.netSales,
      discountsPercent: sales.sales.discountsPercent,
    });
    expect(sydney.businessDate).toBe('20261122');
  });

  it('shows a location-scoped token only its locations', async () => {
    const { token: scoped } = await tokenFor(runtime, { scopes: ['shiftq:read'], allowedLocationIds: ['london-soho', 'denver-union'] });
    const d = (await call(runtime, '/v1/demo-group/shiftq/group-leaderboard', { token: scoped })).body.data;
    expect(d.locationEndpoints.map((e: { id: string }) => e.id)).toEqual(['denver-union', 'london-soho']);
    expect(d.leaderboard.byNetSales.map((r: { locationId: string }) => r.locationId).sort()).toEqual(['denver-union', 'london-soho']);
    expect(d.count).toBe(2);
  });
});

describe('shiftq/reviews', () => {
  const PROVIDERS = ['google', 'yelp', 'tripadvisor', 'opentable'] as const;
  const base = Date.UTC(2026, 10, 1, 12);
  const reviews = Array.from({ length: 47 }, (_, i) => {
    // Pairs share a createdAt, so ties must be ordered without loss.
    const createdAt = new Date(base + Math.floor(i / 2) * 3_600_000 * 7).toISOString();
    return {
      id: `r${String(i).padStart(2, '0')}`,
      provider: PROVIDERS[i % 4]!,
      rating: 1 + (i % 5),
      reviewerName: `Reviewer ${i}`,
      text: `Review ${i}`,
      createdAt,
      updatedAt: createdAt,
      reviewUrl: `https://reviews.example.com/${i}`,
    };
  });

  beforeAll(async () => {
    await addLocation('reviews-a');
    await addLocation('reviews-b');
    for (const locationId of ['reviews-a', 'reviews-b']) {
      await loadShiftq(
        runtime.store,
        { groupId: 'demo-group', locationId, entries: [{ kind: 'reviews', data: { reviews } }] },
        clock.now(),
      );
    }
  });

  async function walk(query: string, limit: number) {
    const seen: string[] = [];
    let pageToken: string | null = null;
    let pages = 0;
    do {
      const q: string = `limit=${limit}${query ? `&${query}` : ''}${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
      const reply = await call(runtime, `/v1/demo-group/reviews-a/shiftq/reviews?${q}`, { token });
      expect(reply.status).toBe(200);
      const { page, reviews: items } = reply.body.data;
      expect(page.count).toBe(items.length);
      expect(page.limit).toBe(limit);
      expect(page.hasMore).toBe(page.nextPageToken !== null);
      seen.push(...items.map((r: { id: string }) => r.id));
      pageToken = page.nextPageToken;
      pages++;
      expect(pages).toBeLessThan(100);
    } while (pageToken);
    return { seen, pages };
  }

  const newestFirst = (list: typeof reviews) =>
    [...list].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)).map((r) => r.id);

  it('walks every review exactly once, newest first, across pages', async () => {
    const { seen, pages } = await walk('', 10);
    expect(pages).toBe(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(newestFirst(reviews));
    const single = await walk('', 47);
    expect(single.pages).toBe(1);
  });

  it('walks a filtered set exactly once', async () => {
    const { seen } = await walk('minRating=3&maxRating=4&provider=tripadvisor', 2);
    expect(seen).toEqual(newestFirst(reviews.filter((r) => r.rating >= 3 && r.rating <= 4 && r.provider === 'tripadvisor')));
    expect(seen.length).toBeGreaterThan(2);
    const ranged = await walk('createdFrom=2026-11-03&createdTo=2026-11-05', 3);
    // Local calendar days in America/Chicago (UTC-5 in November after the DST end, UTC-6 later).
    const from = Date.UTC(2026, 10, 3, 6);
    const to = Date.UTC(2026, 10, 6, 6);
    expect(ranged.seen).toEqual(newestFirst(reviews.filter((r) => Date.parse(r.createdAt) >= from && Date.parse(r.createdAt) < to)));
  });

  it('shows reviewer names only where the provider permits, with attribution', async () => {
    const items = (await call(runtime, '/v1/demo-group/reviews-a/shiftq/reviews?limit=8', { token })).body.data.reviews;
    for (const r of items) {
      const source = reviews.find((s) => s.id === r.id)!;
      expect(r.reviewerDisplayName).toEqual(
        ['google', 'tripadvisor'].includes(r.provider) ? source.reviewerName : expect.stringMatching(/ reviewer$/),
      );
      expect(r.attribution.provider).toBe(r.provider);
      expect(r.workflow).toEqual({ status: 'NEW' });
      expect(r.response).toEqual({ state: 'NONE' });
    }
    expect(items.some((r: { provider: string }) => r.provider === 'yelp')).toBe(true);
    const d = (await call(runtime, '/v1/demo-group/reviews-a/shiftq/reviews', { token })).body.data;
    expect(d.capability).toEqual({ available: true, configured: true, activeProviders: ['google', 'opentable', 'tripadvisor', 'yelp'] });
    expect(d.location).toEqual({ groupId: 'demo-group', locationId: 'reviews-a', name: 'Lab reviews-a' });
  });

  it('refuses tampered, forged and foreign page tokens without showing any review', async () => {
    const first = (await call(runtime, '/v1/demo-group/reviews-a/shiftq/reviews?limit=5', { token })).body.data.page
      .nextPageToken as string;
    const [payload, signature] = first.split('.') as [string, string];
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const retargeted = Buffer.from(JSON.stringify({ ...body, l: 'reviews-b' })).toString('base64url');
    const attempts = [
      ['/v1/demo-group/reviews-b/shiftq/reviews?limit=5', first],
      ['/v1/demo-group/reviews-a/shiftq/reviews?limit=5&minRating=2', first],
      ['/v1/demo-group/reviews-b/shiftq/reviews?limit=5', `${retargeted}.${signature}`],
      ['/v1/demo-group/reviews-a/shiftq/reviews?limit=5', `${payload}.${signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`],
      [
        '/v1/demo-group/reviews-a/shiftq/reviews?limit=5',
        encodePageToken('not-the-server-key', { groupId: 'demo-group', locationId: 'reviews-a', filters: body.f, after: body.a }),
      ],
      ['/v1/demo-group/reviews-a/shiftq/reviews?limit=5', 'garbage'],
    ] as const;
    for (const [path, pageToken] of attempts) {
      const reply = await call(runtime, `${path}&pageToken=${encodeURIComponent(pageToken)}`, { token });
      expect(reply.status, pageToken).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
      expect(reply.text).not.toContain('Reviewer');
    }
  });

  it('signs with one key shared by every instance when PAGE_TOKEN_KEY is unset', async () => {
    expect(runtime.deps.config.pageTokenKey).toBe('');
    const first = await pageKey(runtime.deps);
    // Another Lambda instance: its own store object over the same table.
    const other = await pageKey({ config: runtime.deps.config, store: storeOf(createDb(runtime.tableName, runtime.dynamo), REPOSITORIES) });
    expect(other).toBe(first);
    expect(first.length).toBeGreaterThanOrEqual(43);
    expect(await pageKey({ config: { ...runtime.deps.config, pageTokenKey: 'configured' }, store: runtime.store })).toBe('configured');
  });

  it('refuses out-of-bounds filters with 400', async () => {
    for (const q of [
      'limit=0',
      'limit=51',
      'limit=abc',
      'minRating=0',
      'maxRating=6',
      'minRating=4&maxRating=2',
      'provider=facebook',
      'createdFrom=2026-02-30',
      'createdFrom=2026-11-10&createdTo=2026-11-01',
      'createdFrom=2025-01-01&createdTo=2026-11-01',
      `pageToken=${'x'.repeat(1100)}`,
    ]) {
      const reply = await call(runtime, `/v1/demo-group/reviews-a/shiftq/reviews?${q}`, { token });
      expect(reply.status, q).toBe(400);
    }
  });

  it('says a location without reviews is not configured', async () => {
    await addLocation('reviews-none');
    const d = (await call(runtime, '/v1/demo-group/reviews-none/shiftq/reviews', { token })).body.data;
    expect(d.capability).toEqual({ available: false, configured: false, activeProviders: [] });
    expect(d.page).toEqual({ limit: 20, count: 0, nextPageToken: null, hasMore: false });
  });
});

describe('ingest', () => {
  const now = () => clock.now();
  const good = {
    kind: 'sales',
    businessDate: '20261122',
    data: {
      updatedAt: '2026-11-22T12:00:00Z',
      currency: 'USD',
      grossSales: 10,
      netSales: 9,
      discounts: 1,
      voids: 0,
      refunds: 0,
      tax: 0,
      tips: 0,
      orderCount: 1,
      guestCount: 1,
    },
  };
  const kitchen = (tickets: unknown[]) => ({
    kind: 'kitchen',
    businessDate: '20261122',
    data: {
      updatedAt: '2026-11-22T12:00:00Z',
      status: { state: 'ok', httpStatus: 200 },
      stations: [{ id: 'grill', name: 'Grill', kind: 'prep' }],
      tickets,
    },
  });

  it.each([
    ['an impossible date', [{ ...good, businessDate: '20260230' }]],
    ['a date that has not started', [{ ...good, businessDate: '20261123' }]],
    ['a date past retention', [{ ...good, businessDate: '20251120' }]],
    ['a missing businessDate', [{ ...good, businessDate: undefined }]],
    ['a businessDate on current-state data', [{ kind: 'posMenu', businessDate: '20261122', data: {} }]],
    ['a wrong type', [{ ...good, data: { ...good.data, grossSales: 'ten' } }]],
    [
      'an unknown station',
      [
        good,
        kitchen([
          { id: 't1', firedAt: '2026-11-22T11:00:00Z', salesCategory: 'Food', prep: [{ stationId: 'oven', itemCount: 1, doneAt: null }] },
        ]),
      ],
    ],
    [
      'a ticket outside the business day',
      [good, kitchen([{ id: 't1', firedAt: '2026-11-22T08:00:00Z', salesCategory: 'Food', prep: [] }])],
    ],
    [
      'a ticket done before it fired',
      [
        good,
        kitchen([
          {
            id: 't1',
            firedAt: '2026-11-22T11:00:00Z',
            salesCategory: 'Food',
            prep: [{ stationId: 'grill', itemCount: 1, doneAt: '2026-11-22T10:00:00Z' }],
          },
        ]),
      ],
    ],
    ['an unknown kind', [{ kind: 'payroll', data: {} }]],
  ])('refuses %s and writes nothing', async (_name, entries) => {
    await addLocation('ingest-lab');
    const before = (await scanTable(runtime)).length;
    await expect(
      loadShiftq(runtime.store, { groupId: 'demo-group', locationId: 'ingest-lab', entries: entries as never }, now()),
    ).rejects.toThrow();
    expect((await scanTable(runtime)).length).toBe(before);
  });

  it('refuses an unknown location', async () => {
    await expect(
      loadShiftq(runtime.store, { groupId: 'demo-group', locationId: 'nowhere', entries: [good as never] }, now()),
    ).rejects.toThrow(/does not exist/);
  });
});
