import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import {
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
 * The campaign system's campaigns and the POS sync's reviews over HTTP (docs/decisions/producers.md): each in its
 * source's order, read back as customers read them, a refused update changing nothing.
 */

let runtime: LocalRuntime;
/** When the demo seed loads; the updates below are the sources' later observations. */
const SEEDED = Date.UTC(2026, 10, 22, 12, 0, 10);
const NOW = SEEDED + 60 * 60_000;
const clock = manualClock(SEEDED);
const iso = (ms: number) => new Date(ms).toISOString();
let token: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  clock.set(NOW);
  ({ token } = await tokenFor(runtime, { scopes: ['campaigns:read', 'shiftq:read'] }));
});
afterAll(() => runtime?.stop());

const read = async (path: string) => {
  const reply = await call(runtime, `/v1/demo-group${path}`, { token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
};

describe(`the campaign system writes campaigns in order (${ENGINE_NAME})`, () => {
  const campaign = (locationIds: string[], name = 'Feed', extra: object = {}) => ({
    name,
    locationIds,
    startsAt: iso(NOW - 86_400_000),
    endsAt: iso(NOW + 86_400_000),
    ...extra,
  });
  const put = (id: string, sourceMs: number, data: unknown, sequence = 0) =>
    producerCall(runtime, 'campaign-system', 'PUT', `/campaigns/demo-group/${id}`, { sourceTime: iso(sourceMs), sequence, data });
  /** Id → name and status of the campaigns a location shows. */
  const at = async (locationId: string) =>
    Object.fromEntries(
      ((await read(`/${locationId}/campaigns`)).campaigns as { id: string; name: string; status: string }[]).map((c) => [
        c.id,
        `${c.name} (${c.status})`,
      ]),
    );
  /** A campaign's link items: location → the order they carry. */
  const links = async (id: string) =>
    Object.fromEntries(
      (await scanTable(runtime))
        .filter((i) => String(i.SK).startsWith('CAMPAIGN_AT#') && String(i.SK).endsWith(`#${id}`))
        .map((i) => [i.locationId, `${i.sourceMs}/${i.sequence}`]),
    );

  it('applies a newer update, acknowledges a replay and an older one, and an older one never changes links', async () => {
    const t = NOW - 10_000;
    const first = await put('feed', t, campaign(['nyc-midtown', 'denver-union'], 'Feed one'));
    expect([first.status, first.body]).toEqual([200, { outcome: 'applied', records: 1, sourceTime: iso(t), sequence: 0 }]);
    expect((await at('nyc-midtown')).feed).toBe('Feed one (active)');
    // A replay, even with another body, changes nothing.
    expect((await put('feed', t, campaign(['nyc-midtown', 'denver-union'], 'Feed one'))).body.outcome).toBe('duplicate');
    expect((await put('feed', t, campaign(['sydney-harbour'], 'Other'))).body.outcome).toBe('duplicate');

    // Midtown dropped: it disappears from Midtown's campaigns, Denver shows the new state.
    expect((await put('feed', t + 5000, campaign(['denver-union'], 'Feed two', { paused: true }))).body.outcome).toBe('applied');
    expect((await at('nyc-midtown')).feed).toBeUndefined();
    expect((await at('denver-union')).feed).toBe('Feed two (paused)');
    expect((await read('/campaigns')).campaigns.find((c: { id: string }) => c.id === 'feed').locationIds).toEqual(['denver-union']);

    // Older than what is stored, whatever it lists: stale, and every link stays the newer update's.
    expect((await put('feed', t + 1000, campaign(['nyc-midtown', 'denver-union'], 'Old'))).body.outcome).toBe('stale');
    expect(await links('feed')).toEqual({ 'denver-union': `${t + 5000}/0` });
    // The sequence breaks a tie of source times.
    expect((await put('feed', t + 5000, campaign(['nyc-midtown'], 'Feed three'), 1)).body.outcome).toBe('applied');
    expect([(await at('nyc-midtown')).feed, (await at('denver-union')).feed]).toEqual(['Feed three (active)', undefined]);
  });

  it('ends at the newest of concurrent updates, its links exactly, and a retry mends a writer that stopped midway', async () => {
    const lists = [['nyc-midtown'], ['denver-union', 'sydney-harbour'], ['london-soho', 'nyc-midtown'], ['sydney-harbour', 'london-soho']];
    const replies = await Promise.all(
      [5, 2, 7, 0, 6, 3, 1, 4].map((i) => put('racing', NOW - 9000 + i * 1000, campaign(lists[i % 4]!, `Race ${i}`))),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(replies[2]!.body.outcome).toBe('applied');
    expect(await links('racing')).toEqual({ 'london-soho': `${NOW - 2000}/0`, 'sydney-harbour': `${NOW - 2000}/0` });

    // A writer that stopped after the first of its links: the campaign item is still the older one, so the retry is applied.
    const stopped = campaign(['denver-union', 'sydney-harbour'], 'Resumed');
    const order = { sourceMs: NOW - 1000, sequence: 0 };
    const { locationIds: _l, ...shown } = { ...stopped, groupId: 'demo-group', id: 'racing', paused: false };
    await runtime.store.campaigns.putLink({ ...shown, locationId: 'denver-union', position: 0 }, order);
    expect((await put('racing', NOW - 1000, stopped)).body.outcome).toBe('applied');
    expect(await links('racing')).toEqual({ 'denver-union': `${NOW - 1000}/0`, 'sydney-harbour': `${NOW - 1000}/0` });
    expect((await at('sydney-harbour')).racing).toBe('Resumed (active)');
  });

  it('refuses bad updates naming the field, and other producers, changing nothing', async () => {
    const items = async () => (await scanTable(runtime)).filter((i) => String(i.SK).startsWith('CAMPAIGN'));
    const before = [await items(), await at('nyc-midtown'), await read('/campaigns')];
    const ok = campaign(['nyc-midtown']);
    const later = NOW + 1000;
    const cases: [unknown, number, RegExp][] = [
      [{ ...ok, colour: 'red' }, 400, /colour is not allowed/],
      [{ ...ok, groupId: 'demo-group' }, 400, /groupId is not allowed/],
      [{ ...ok, endsAt: ok.startsAt }, 400, /endsAt must be after startsAt/],
      [
        { ...ok, locationIds: ['nyc-midtown', 'nowhere', 'gone'] },
        400,
        /locationIds: unknown locations: demo-group\/gone, demo-group\/nowhere/,
      ],
      [{ ...ok, locationIds: ['nyc-midtown', 'nyc-midtown'] }, 400, /locationIds\.1 is listed twice/],
      [{ ...ok, locationIds: 'nyc-midtown' }, 400, /locationIds must be of type array/],
      [{ ...ok, locationIds: [] }, 400, /locationIds must have at least 1 item/],
      [{ ...ok, paused: 'yes' }, 400, /paused must be of type boolean/],
      [{ ...ok, startsAt: 'tomorrow' }, 400, /startsAt/],
      // 101 beer mugs are 202 UTF-16 units: over the name's 200 characters, however few they look.
      [{ ...ok, name: '🍺'.repeat(101) }, 400, /name must have at most 200 characters/],
      [{ ...ok, name: 'é'.repeat(201) }, 400, /name must have at most 200 characters/],
    ];
    for (const [data, status, message] of cases) {
      const reply = await put('feed', later, data);
      expect([reply.status, reply.body.error?.message], JSON.stringify(data).slice(0, 80)).toEqual([
        status,
        expect.stringMatching(message),
      ]);
    }
    const badId = await producerCall(runtime, 'campaign-system', 'PUT', '/campaigns/demo-group/not%20an%20id', {
      sourceTime: iso(later),
      data: ok,
    });
    expect(badId.status).toBe(404);
    for (const producer of ['pos-sync', 'venue-directory'] as const) {
      const reply = await producerCall(runtime, producer, 'PUT', '/campaigns/demo-group/feed', { sourceTime: iso(later), data: ok });
      expect(reply.status).toBe(403);
    }
    expectUnchanged([await items(), await at('nyc-midtown'), await read('/campaigns')], before);
  });
});

describe(`the POS sync writes reviews in order, each on its own (${ENGINE_NAME})`, () => {
  // A location of its own, without the demo's reviews.
  const PATH = '/shiftq/demo-group/review-bar/reviews';
  beforeAll(async () => {
    const location = {
      name: 'Review Bar',
      locationShortName: 'Reviews',
      timezone: 'Europe/Dublin',
      slug: 'review-bar',
      modulesEnabled: { shiftq: true },
    };
    const reply = await producerCall(runtime, 'venue-directory', 'PUT', '/groups/demo-group/locations/review-bar', {
      sourceTime: iso(NOW),
      data: location,
    });
    expect(reply.body.outcome).toBe('applied');
  });
  const review = (id: string, rating: number, extra: object = {}) => ({
    id,
    provider: 'google',
    rating,
    reviewerName: 'Zoë Müller',
    text: `Rated ${rating}`,
    createdAt: iso(NOW - 86_400_000),
    updatedAt: iso(NOW - 3_600_000),
    reviewUrl: `https://reviews.example.com/google/${id}`,
    ...extra,
  });
  const put = (sourceMs: number, reviews: unknown[], producer: 'pos-sync' | 'campaign-system' = 'pos-sync') =>
    producerCall(runtime, producer, 'PUT', PATH, { sourceTime: iso(sourceMs), data: { reviews } });
  /** The feed's reviews as a customer reads them: id → rating. */
  const served = async () =>
    Object.fromEntries(
      ((await read('/review-bar/shiftq/reviews?limit=50')).reviews as { id: string; rating: number }[]).map((r) => [r.id, r.rating]),
    );

  it("applies a batch review by review: a newer version replaces an older one, and the batch's outcome sums them", async () => {
    const t = NOW - 20_000;
    const first = await put(t, [review('feed-1', 4), review('feed-2', 5)]);
    expect([first.status, first.body]).toEqual([200, { outcome: 'applied', records: 2, sourceTime: iso(t), sequence: 0 }]);
    expect(await served()).toEqual({ 'feed-1': 4, 'feed-2': 5 });
    expect((await put(t, [review('feed-1', 4), review('feed-2', 5)])).body.outcome).toBe('duplicate');

    expect((await put(t + 1000, [review('feed-1', 2)])).body).toMatchObject({ outcome: 'applied', records: 1 });
    // Nothing newer than what is stored: feed-1 older, feed-2 a replay.
    expect((await put(t, [review('feed-1', 5), review('feed-2', 1)])).body.outcome).toBe('stale');
    // One review written is the batch applied, though another in it is older.
    expect((await put(t + 500, [review('feed-1', 5), review('feed-3', 3, { provider: 'yelp' })])).body.outcome).toBe('applied');
    expect(await served()).toEqual({ 'feed-1': 2, 'feed-2': 5, 'feed-3': 3 });
    expect((await read('/review-bar/shiftq/reviews')).capability).toEqual({
      available: true,
      configured: true,
      activeProviders: ['google', 'yelp'],
    });
  });

  it('refuses bad batches naming the field, and other producers, changing nothing', async () => {
    const items = async () => (await scanTable(runtime)).filter((i) => String(i.SK).startsWith('SHIFTQ#REVIEW'));
    const before = [await items(), await served()];
    const later = NOW + 1000;
    const cases: [string, unknown[], number, RegExp][] = [
      ['an unknown field', [review('feed-1', 1, { stars: 1 })], 400, /reviews\.0\.stars is not allowed/],
      ['a wrong type', [review('feed-1', 1), review('feed-2', 'five' as never)], 400, /reviews\.1\.rating must be of type number/],
      ['multi-byte text over its limit', [review('feed-1', 1, { text: '€'.repeat(5001) })], 400, /reviews\.0\.text must have at most 5000/],
      ['a repeated id', [review('feed-1', 1), review('feed-1', 2)], 400, /reviews\.1: id feed-1 repeats/],
      ['updated before created', [review('feed-1', 1, { updatedAt: iso(NOW - 2 * 86_400_000) })], 400, /updatedAt before createdAt/],
      ['no review', [], 400, /reviews must have at least 1 item/],
    ];
    for (const [what, reviews, status, message] of cases) {
      const reply = await put(later, reviews);
      expect([reply.status, reply.body.error?.message], what).toEqual([status, expect.stringMatching(message)]);
    }
    const nowhere = await producerCall(runtime, 'pos-sync', 'PUT', '/shiftq/demo-group/nowhere/reviews', {
      sourceTime: iso(later),
      data: { reviews: [review('feed-1', 1)] },
    });
    expect([nowhere.status, nowhere.body.error.message]).toEqual([404, expect.stringMatching(/nowhere/)]);
    expect((await put(later, [review('feed-1', 1)], 'campaign-system')).status).toBe(403);
    expectUnchanged([await items(), await served()], before);
  });
});
