import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { ENGINE_NAME, call, manualClock, producerCall, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * The POS sync's reviews over HTTP (docs/decisions/producers.md): each in its
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
  ({ token } = await tokenFor(runtime, { scopes: ['shiftq:read'] }));
});
afterAll(() => runtime?.stop());

const read = async (path: string) => {
  const reply = await call(runtime, `/v1/demo-group${path}`, { token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
};

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
    expect([await items(), await served()]).toEqual(before);
  });
});
