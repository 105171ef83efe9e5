import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '#contract/scopes';
import type { Location } from '#data/locations';
import type { LocalRuntime } from '#local/runtime';
import { call, ENGINE_NAME, startTestRuntime, tokenFor } from '../support/runtime.js';

/** Group lists page by location: `limit`, a signed `cursor`, `data.nextCursor` absent on the last page (docs/decisions/paging.md). */

const GROUP = 'paged-group';
const BIG = 'big-group';
const SCOPES = ['locations:read', 'campaigns:read', 'shiftq:read', 'bevq:read'] as const;
const ids = Array.from({ length: 7 }, (_, i) => `venue-${String(i + 1).padStart(2, '0')}`);

let runtime: LocalRuntime;
let token: string;

const locationOf = (groupId: string, id: string, at: string): Location => ({
  groupId,
  id,
  name: `Venue ${id}`,
  locationShortName: id,
  timezone: 'America/Chicago',
  slug: id,
  status: 'active',
  modulesEnabled: Object.fromEntries(MODULES.map((m) => [m, true])) as Location['modulesEnabled'],
  createdAt: at,
});

beforeAll(async () => {
  runtime = await startTestRuntime();
  const at = new Date(runtime.deps.clock.now()).toISOString();
  for (const groupId of [GROUP, BIG]) await runtime.store.groups.put({ groupId, name: groupId, createdAt: at });
  await Promise.all(ids.map((id) => runtime.store.locations.put(locationOf(GROUP, id, at))));
  // 501 locations: one more than the default page.
  const big = Array.from({ length: 501 }, (_, i) => `site-${String(i).padStart(4, '0')}`);
  for (let i = 0; i < big.length; i += 50)
    await Promise.all(big.slice(i, i + 50).map((id) => runtime.store.locations.put(locationOf(BIG, id, at))));
  ({ token } = await tokenFor(runtime, { groupId: GROUP, scopes: [...SCOPES] }));
});
afterAll(() => runtime?.stop());

/** Every page of a list, following nextCursor. */
async function allPages(path: string, bearer: string, limit?: number) {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ ...(limit ? { limit: String(limit) } : {}), ...(cursor ? { cursor } : {}) });
    const reply = await call(runtime, `${path}?${query.toString()}`, { token: bearer });
    expect(reply.status).toBe(200);
    pages.push(reply.body.data);
    cursor = reply.body.data.nextCursor;
  } while (cursor && pages.length < 20);
  return pages;
}

describe(`group lists page by location (${ENGINE_NAME})`, () => {
  it('walks /locations in pages of `limit`, in id order, each location once, the last page without nextCursor', async () => {
    const pages = await allPages(`/v1/${GROUP}/locations`, token, 3);
    expect(pages.map((p) => p.locations.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((p) => p.locations.map((l: { id: string }) => l.id))).toEqual(ids);
    expect(pages.slice(0, -1).every((p) => typeof p.nextCursor === 'string')).toBe(true);
    expect(pages.at(-1)).not.toHaveProperty('nextCursor');
  });

  it('pages /modules, /campaigns, /bevq and the shiftq group leaderboard over the same locations', async () => {
    const modules = await allPages(`/v1/${GROUP}/modules`, token, 4);
    expect(modules.map((p) => p.modules.shiftq.locationIds)).toEqual([ids.slice(0, 4), ids.slice(4)]);
    const campaigns = await allPages(`/v1/${GROUP}/campaigns`, token, 5);
    expect(campaigns.map((p) => p.locations.map((l: { id: string }) => l.id))).toEqual([ids.slice(0, 5), ids.slice(5)]);
    const menus = await allPages(`/v1/${GROUP}/bevq`, token, 2);
    expect(menus.map((p) => p.locations.map((l: { id: string }) => l.id))).toEqual([
      ids.slice(0, 2),
      ids.slice(2, 4),
      ids.slice(4, 6),
      ids.slice(6),
    ]);
    const leaderboard = await allPages(`/v1/${GROUP}/shiftq/group-leaderboard`, token, 6);
    expect(leaderboard.map((p) => p.locationEndpoints.map((l: { id: string }) => l.id))).toEqual([ids.slice(0, 6), ids.slice(6)]);
  });

  it('answers a group of up to 500 locations on one default page, as before paging; the 501st starts a second page', async () => {
    const { token: big } = await tokenFor(runtime, { groupId: BIG, scopes: ['locations:read'] });
    const small = await call(runtime, `/v1/${GROUP}/locations`, { token });
    expect(small.body.data.locations).toHaveLength(ids.length);
    expect(small.body.data).not.toHaveProperty('nextCursor');
    const pages = await allPages(`/v1/${BIG}/locations`, big);
    expect(pages.map((p) => p.locations.length)).toEqual([500, 1]);
    expect(pages[1].locations[0].id).toBe('site-0500');
  });

  it('sends a full default page gzipped to a client that accepts it: a fraction of 512 KB on the wire', async () => {
    const { token: big } = await tokenFor(runtime, { groupId: BIG, scopes: ['locations:read'] });
    // node:http decodes nothing: these are the bytes the gateway sent.
    const wire = await new Promise<{ encoding?: string; bytes: Buffer }>((resolve, reject) => {
      request(`${runtime.url}/v1/${BIG}/locations`, { headers: { Authorization: `Bearer ${big}`, 'Accept-Encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(wire.encoding).toBe('gzip');
    const json = gunzipSync(wire.bytes);
    expect(JSON.parse(json.toString('utf8')).data.locations).toHaveLength(500);
    expect(wire.bytes.length).toBeLessThan(512 * 1024);
    expect(wire.bytes.length).toBeLessThan(json.length / 5);
  });

  it('gives a location-scoped token only its locations, page by page', async () => {
    const { token: scoped } = await tokenFor(runtime, {
      groupId: GROUP,
      scopes: ['locations:read'],
      allowedLocationIds: [ids[1]!, ids[5]!],
    });
    const pages = await allPages(`/v1/${GROUP}/locations`, scoped, 3);
    expect(pages.flatMap((p) => p.locations.map((l: { id: string }) => l.id))).toEqual([ids[1], ids[5]]);
  });

  it('refuses a cursor that was altered, made for another list or another group, with 400 and no data', async () => {
    const first = await call(runtime, `/v1/${GROUP}/locations?limit=2`, { token });
    const cursor: string = first.body.data.nextCursor;
    const [payload, signature] = cursor.split('.');
    const altered = `${Buffer.from(Buffer.from(payload!, 'base64url').toString('utf8').replace(ids[1]!, ids[4]!)).toString('base64url')}.${signature}`;
    const { token: big } = await tokenFor(runtime, { groupId: BIG, scopes: ['locations:read'] });
    for (const [path, bearer, bad] of [
      [`/v1/${GROUP}/locations`, token, altered],
      [`/v1/${GROUP}/locations`, token, `${payload}.${'A'.repeat(signature!.length)}`],
      [`/v1/${GROUP}/locations`, token, 'not-a-cursor'],
      [`/v1/${GROUP}/modules`, token, cursor],
      [`/v1/${BIG}/locations`, big, cursor],
    ] as const) {
      const reply = await call(runtime, `${path}?cursor=${encodeURIComponent(bad)}`, { token: bearer });
      expect([reply.status, reply.body.error.code]).toEqual([400, 'invalid_request']);
      expect(reply.body.error.message).toMatch(/^Query parameter cursor/);
    }
  });

  it.each(['0', '1001', '-3', '2.5', 'ten', ''])('refuses limit=%s with 400', async (limit) => {
    const reply = await call(runtime, `/v1/${GROUP}/locations?limit=${limit}`, { token });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'invalid_request']);
    expect(reply.body.error.message).toMatch(/^Query parameter limit/);
  });

  it('refuses an oversized cursor with 400', async () => {
    const reply = await call(runtime, `/v1/${GROUP}/locations?cursor=${'x'.repeat(1025)}`, { token });
    expect([reply.status, reply.body.error.code]).toEqual([400, 'invalid_request']);
  });
});
