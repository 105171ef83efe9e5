import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { call, manualClock, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

// 2026-11-22 12:00 UTC: business date 2026-11-22 at every demo location (seed: schedules 11-21..11-24).
const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
let runtime: LocalRuntime;
let token: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  ({ token } = await tokenFor(runtime, { scopes: ['sportsq:read'] }));
});
afterAll(() => runtime?.stop());

const get = (path: string, t = token) => call(runtime, `/v1/demo-group/${path}`, { token: t });

describe('GET sportsq/{YYYY-MM-DD}', () => {
  it('returns the exact date with both healths, stable ids, viewing options and logo URLs', async () => {
    const reply = await get('nyc-midtown/sportsq/2026-11-22');
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toBe('sportsq/2026-11-22');
    const data = reply.body.data;
    expect(data.location).toEqual({ groupId: 'demo-group', locationId: 'nyc-midtown', timezone: 'America/New_York' });
    expect(data.date).toBe('2026-11-22');
    expect(data.health.schedule).toEqual({ status: 'AVAILABLE', eventCount: 3 });
    expect(data.health.providerAvailability).toMatchObject({
      status: 'AVAILABLE',
      requestedDate: '2026-11-22',
      effectiveDate: '2026-11-22',
      freshness: 'EXACT_DATE',
      providerCount: 1,
      viewingOptionCount: 3,
    });
    const ids = data.events.map((e: { id: string }) => e.id);
    expect(ids).toContain('20261122-nfl-nyg-dal');
    const nfl = data.events.find((e: { id: string }) => e.id === '20261122-nfl-nyg-dal');
    expect(nfl.league.imageUrl).toBe(`${runtime.url}/v1/assets/sports-logo/nfl.svg`);
    expect(nfl.participants[0].imageUrl).toBe(`${runtime.url}/v1/assets/sports-logo/team-badge.png`);
    expect(nfl.viewingOptions).toEqual([
      {
        provider: { id: 'directv', name: 'DIRECTV', type: 'satellite' },
        network: { id: 'fox', name: 'FOX', type: 'broadcast' },
        channel: '5',
        available: true,
      },
    ]);
    // Stable: the same id on a second read.
    const again = await get('nyc-midtown/sportsq/2026-11-22');
    expect(again.body.data.events.map((e: { id: string }) => e.id)).toEqual(ids);
  });

  it.each([
    ['2026-02-30', 'not a real calendar date'],
    ['2026-2-3', 'YYYY-MM-DD'],
    ['20260203', 'YYYY-MM-DD'],
    ['2026-13-01', 'not a real calendar date'],
    ['2025-02-29', 'not a real calendar date'],
    ['2026-02-03T00:00', 'YYYY-MM-DD'],
    ['today', 'YYYY-MM-DD'],
  ])('refuses %s with 400', async (date, message) => {
    const reply = await get(`nyc-midtown/sportsq/${date}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('invalid_request');
    expect(reply.body.error.message).toContain(message);
  });

  it('answers 404 for an encoded slash, which API Gateway decodes into another path before routing', async () => {
    const reply = await get('nyc-midtown/sportsq/2026%2F02%2F03');
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('not_found');
  });

  it('accepts a leap day', async () => {
    const reply = await get('nyc-midtown/sportsq/2028-02-29');
    expect(reply.status).toBe(200);
    expect(reply.body.data.health.schedule.status).toBe('SCHEDULE_DATA_UNAVAILABLE');
  });

  it('checks access before the date (403 for a token without the scope, even on a bad date)', async () => {
    const { token: other } = await tokenFor(runtime, { scopes: ['matriq:read'] });
    expect((await get('nyc-midtown/sportsq/2026-02-30', other)).status).toBe(403);
    expect((await call(runtime, '/v1/demo-group/nyc-midtown/sportsq/2026-02-30')).status).toBe(401);
  });

  it('never falls back to another day: a date without schedule or viewing data reports it', async () => {
    const reply = await get('nyc-midtown/sportsq/2026-12-25');
    const data = reply.body.data;
    expect(data.events).toEqual([]);
    expect(data.updatedAt).toBeNull();
    expect(data.health.schedule).toEqual({ status: 'SCHEDULE_DATA_UNAVAILABLE', eventCount: 0 });
    // Midtown's newest viewing data is 11-23: reported as stale, never used.
    expect(data.health.providerAvailability).toMatchObject({
      status: 'PROVIDER_DATA_UNAVAILABLE',
      freshness: 'STALE_DATE',
      effectiveDate: '2026-11-23',
      viewingOptionCount: 0,
    });
  });

  it('a valid schedule without the exact date viewing data is PROVIDER_DATA_UNAVAILABLE, options empty', async () => {
    const reply = await get('nyc-midtown/sportsq/2026-11-24');
    const data = reply.body.data;
    expect(data.health.schedule).toEqual({ status: 'AVAILABLE', eventCount: 3 });
    expect(data.health.providerAvailability).toMatchObject({
      status: 'PROVIDER_DATA_UNAVAILABLE',
      freshness: 'STALE_DATE',
      effectiveDate: '2026-11-23',
    });
    expect(data.events.every((e: { viewingOptions: unknown[] }) => e.viewingOptions.length === 0)).toBe(true);
  });

  it('never falls back to another location: Soho has no viewing data at all', async () => {
    const reply = await get('london-soho/sportsq/2026-11-22');
    const data = reply.body.data;
    expect(data.health.schedule.status).toBe('AVAILABLE');
    expect(data.health.providerAvailability).toMatchObject({
      status: 'PROVIDER_DATA_UNAVAILABLE',
      freshness: 'MISSING',
      effectiveDate: null,
    });
    expect(data.events.every((e: { viewingOptions: unknown[] }) => e.viewingOptions.length === 0)).toBe(true);
  });

  it('reports a provider outage as PROVIDER_DATA_PARTIAL', async () => {
    const reply = await get('denver-union/sportsq/2026-11-22');
    expect(reply.body.data.health.providerAvailability).toMatchObject({
      status: 'PROVIDER_DATA_PARTIAL',
      freshness: 'EXACT_DATE',
      providerCount: 2,
    });
  });

  it('writes nothing on any read', async () => {
    const before = (await scanTable(runtime)).filter((i) => !String(i.PK).startsWith('RATE')).length;
    await get('nyc-midtown/sportsq/2026-02-30');
    await get('nyc-midtown/sportsq/2026-11-22');
    const after = (await scanTable(runtime)).filter((i) => !String(i.PK).startsWith('RATE')).length;
    expect(after).toBe(before);
  });
});

describe('GET sportsq/provider and sportsq/packages', () => {
  it("gives the provider environment with today's availability", async () => {
    const reply = await get('nyc-midtown/sportsq/provider');
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toBe('sportsq/provider');
    const { availability, providers, regionalSportsNetworks } = reply.body.data;
    expect(availability).toMatchObject({
      status: 'AVAILABLE',
      requestedDate: '2026-11-22',
      freshness: 'EXACT_DATE',
      packageCount: 3,
      channelCount: 3,
    });
    expect(providers[0]).toEqual({
      id: 'directv',
      name: 'DIRECTV',
      type: 'satellite',
      available: true,
      availabilityState: 'ACTIVE',
      lineupId: 'directv-nyc-midtown',
      market: 'NYC',
      channels: expect.any(Array),
    });
    expect(regionalSportsNetworks).toEqual([{ id: 'msg', name: 'MSG Network', channel: '634' }]);
  });

  it('keeps the legacy catalog and adds the canonical projection', async () => {
    const reply = await get('nyc-midtown/sportsq/packages');
    const data = reply.body.data;
    expect(data.catalog[0]).toEqual({
      packageKey: 'sports-pack',
      label: 'Sports Pack',
      logo: `${runtime.url}/v1/assets/sports-logo/directv.svg`,
      category: 'programming',
      selected: true,
    });
    expect(data.selectedPackageKeys).toEqual(['sports-pack', 'nfl-sunday-ticket']);
    expect(data.canonical.location).toEqual({ groupId: 'demo-group', locationId: 'nyc-midtown' });
    expect(data.canonical.availability).toEqual({
      status: 'AVAILABLE',
      requestedDate: '2026-11-22',
      effectiveDate: '2026-11-22',
      freshness: 'EXACT_DATE',
    });
    expect(data.canonical.programmingPackage).toEqual({
      id: 'sports-pack',
      name: 'Sports Pack',
      imageUrl: `${runtime.url}/v1/assets/sports-logo/directv.svg`,
    });
    expect(data.canonical.packages).toHaveLength(3);
  });

  it('Soho: provider environment present, viewing data missing', async () => {
    const reply = await get('london-soho/sportsq/provider');
    expect(reply.body.data.availability).toMatchObject({
      status: 'PROVIDER_DATA_UNAVAILABLE',
      freshness: 'MISSING',
      effectiveDate: null,
      providerCount: 1,
    });
  });
});

describe('GET sportsq (legacy guide)', () => {
  it('defaults to the business date and lists channels from that date only', async () => {
    const reply = await get('nyc-midtown/sportsq');
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toBe('sportsq');
    const data = reply.body.data;
    expect(data.date).toBe('2026-11-22');
    expect(data.guide.scheduleStatus).toBe('AVAILABLE');
    expect(data.guide.listings).toHaveLength(3);
    expect(data.networkCatalog.map((n: { networkId: string }) => n.networkId)).toEqual(['espn', 'fox', 'nbcsn']);
  });

  it('takes ?date= and refuses impossible ones', async () => {
    const stale = await get('nyc-midtown/sportsq?date=2026-11-24');
    expect(stale.body.data.guide.providerStatus).toBe('PROVIDER_DATA_UNAVAILABLE');
    expect(stale.body.data.guide.listings.every((l: { channels: unknown[] }) => l.channels.length === 0)).toBe(true);
    for (const bad of ['2026-02-30', '2026-2-3', '20260203']) {
      const reply = await get(`nyc-midtown/sportsq?date=${bad}`);
      expect(reply.status, bad).toBe(400);
    }
  });
});
