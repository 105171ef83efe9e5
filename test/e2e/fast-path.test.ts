import { randomUUID } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintAccessToken, sha256Hex } from '#domain/crypto';
import { businessDateAt } from '#domain/sports-day';
import { publishMenu } from '#lambdas/webhooks/publish';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { dynamoCallLog, roundTrips, type LoggedCall } from '../support/call-log.js';
import { call, manualClock, startTestRuntime, tokenFor, rateCount } from '../support/runtime.js';

/**
 * The /v1 fast path, read from the engine's call log: which DynamoDB calls
 * were in flight together (support/call-log.ts). A structural check, not a
 * timing one: calls that overlap went in one round trip, a call started only
 * after another ended is a later one. How fast is the bench's business.
 */

let runtime: LocalRuntime;
let log: ReturnType<typeof dynamoCallLog>;
beforeAll(async () => {
  // Only requests call DynamoDB here: neither the sweeper's schedule nor the webhook event source (the menu's event) runs, so
  // no call of theirs joins the log of a request. A still clock: the rate counts compared below stay in one window.
  runtime = await startTestRuntime({ clock: manualClock(), sweepEveryMs: 24 * 3_600_000, deliverWebhooks: false });
  await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'denver-union', menu: sampleMenu() });
  log = dynamoCallLog(runtime);
});
afterAll(async () => {
  log?.stop();
  await runtime?.stop();
});

const recorded = (run: () => Promise<unknown>): Promise<LoggedCall[]> => log.during(run);
/** The calls of a request but the rate counter's claim, which a request makes beside them only when its function's lease is spent. */
const withoutClaim = (calls: LoggedCall[]) =>
  calls
    .map((c) => c.name)
    .filter((name) => name !== 'UpdateItem')
    .sort();

const MENU = '/v1/demo-group/denver-union/bevq/menu';

describe('authorize and read in one round trip', () => {
  // First in this file: before any token is issued there is no token key, and a token of the named shape is nobody's.
  it('refuses a named token before any token was ever issued, reading only for the key', async () => {
    const shaped = `demo-app.${Math.floor(runtime.deps.clock.now() / 1000) + 60}.${randomBytes(32).toString('base64url')}.${randomBytes(16).toString('base64url')}`;
    const seen = await recorded(() =>
      call(runtime, MENU, { token: shaped }).then((r) => expect([r.status, r.body.error.code]).toEqual([401, 'invalid_token'])),
    );
    expect(seen.map((c) => c.name)).toEqual(['GetItem']);
  });

  it('reads a path-keyed resource with one BatchGetItem, the counter claim beside it when the lease is spent: one round trip', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    await call(runtime, MENU, { token }); // the token key is read once per process; the first claim is of one unit
    const claiming = await recorded(() => call(runtime, MENU, { token }).then((r) => expect(r.status).toBe(200)));
    expect(claiming.map((c) => c.name).sort()).toEqual(['BatchGetItem', 'UpdateItem']);
    expect(roundTrips(claiming)).toBe(1);
    // That claim took a lease of several units: the next request is admitted from it, with the read alone.
    const leased = await recorded(() => call(runtime, MENU, { token }).then((r) => expect(r.status).toBe(200)));
    expect(leased.map((c) => c.name)).toEqual(['BatchGetItem']);
    expect(roundTrips(leased)).toBe(1);
  });

  it('takes one round trip more for a legacy credential, which must be found by hash first', async () => {
    const { clientId, app } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    const legacy = randomBytes(32).toString('base64url');
    await runtime.store.credentials.put({
      tokenHash: sha256Hex(legacy),
      clientId,
      groupId: app.groupId,
      credentialType: 'client_credentials',
      issuedAt: new Date(runtime.deps.clock.now()).toISOString(),
      expiresAt: new Date(runtime.deps.clock.now() + 3_600_000).toISOString(),
    });
    const seen = await recorded(() => call(runtime, MENU, { token: legacy }).then((r) => expect(r.status).toBe(200)));
    expect(seen.map((c) => c.name)).toEqual(['GetItem', expect.any(String), expect.any(String)]);
    expect(roundTrips(seen)).toBe(2);
  });

  it('lists a group in one round trip: the query runs beside authorization', async () => {
    const { token } = await tokenFor(runtime);
    await call(runtime, '/v1/demo-group/locations', { token }); // each function reads the token key versions once, then at most every 10 s
    const seen = await recorded(() => call(runtime, '/v1/demo-group/locations', { token }).then((r) => expect(r.status).toBe(200)));
    expect(withoutClaim(seen)).toEqual(['BatchGetItem', 'Query']);
    expect(roundTrips(seen)).toBe(1);
  });

  it("reads a date-keyed day in one round trip once the location's zone is known, and answers by the zone read with the request", async () => {
    const { token } = await tokenFor(runtime, { scopes: ['sportsq:read'] });
    // A location no request of this process has named (a suite may share the process), so its zone is unseen.
    const unseen = `unseen-${randomUUID().slice(0, 8)}`;
    const sydney = (await runtime.store.locations.get('demo-group', 'sydney-harbour'))!;
    await runtime.store.locations.put({ ...sydney, id: unseen, slug: unseen });
    const path = `/v1/demo-group/${unseen}/sportsq/provider`;
    // The family's function reads the token key versions once (another location: this one's zone stays unseen).
    await call(runtime, '/v1/demo-group/nyc-midtown/sportsq/provider', { token });
    // This process has not seen the location yet: its day is read after authorization.
    const first = await recorded(() => call(runtime, path, { token }).then((r) => expect(r.status).toBe(200)));
    expect(roundTrips(first)).toBe(2);
    const warm = await recorded(() => call(runtime, path, { token }).then((r) => expect(r.status).toBe(200)));
    expect(withoutClaim(warm)).toEqual(['BatchGetItem', 'Query']);
    expect(roundTrips(warm)).toBe(1);

    // The zone moves far enough that today is another date there: the guess misses, the answer follows the location as read now.
    const location = (await runtime.store.locations.get('demo-group', 'sydney-harbour'))!;
    const guide = '/v1/demo-group/sydney-harbour/sportsq';
    const before = await call(runtime, guide, { token });
    // UTC+14 and UTC−11 are 25 hours apart: at least one of them is on another date than the location now.
    const zone = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'].find(
      (z) => businessDateAt({ timezone: z }, runtime.deps.clock.now()).calendarDate !== before.body.data.date,
    )!;
    await runtime.store.locations.put({ ...location, timezone: zone });
    try {
      let after: Awaited<ReturnType<typeof call>> | undefined;
      const moved = await recorded(async () => void (after = await call(runtime, guide, { token })));
      expect(after!.status).toBe(200);
      expect(after!.body.data.settings.timezone).toBe(zone);
      expect(after!.body.data.date).not.toBe(before.body.data.date);
      expect(roundTrips(moved)).toBe(2);
    } finally {
      await runtime.store.locations.put(location);
    }
  });

  it('reads nothing ahead for input that breaks a rule: the 400 comes after authorization', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['sportsq:read'] });
    const guide = '/v1/demo-group/sydney-harbour/sportsq';
    await call(runtime, guide, { token });
    const seen = await recorded(() =>
      call(runtime, `${guide}?date=2026-02-30`, { token }).then((r) =>
        expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']),
      ),
    );
    expect(withoutClaim(seen)).toEqual(['BatchGetItem']);
  });

  it('hands nothing read ahead to a token of another group', async () => {
    const at = new Date(runtime.deps.clock.now()).toISOString();
    await runtime.store.groups.put({ groupId: 'rival-group', name: 'Rival', createdAt: at });
    const seeded = (await runtime.store.locations.get('demo-group', 'nyc-midtown'))!;
    await runtime.store.locations.put({ ...seeded, groupId: 'rival-group', id: 'rival-pub', name: 'Rival Pub' });
    const { token } = await tokenFor(runtime);
    const seen = await recorded(() =>
      call(runtime, '/v1/rival-group/locations', { token }).then((r) => {
        expect([r.status, r.body.error.code]).toEqual([403, 'group_not_allowed']);
        expect(r.text).not.toContain('rival-pub');
      }),
    );
    // The rival group's list was read ahead (the token's signature held), and dropped.
    expect(seen.map((c) => c.name)).toContain('Query');
  });

  it.each([
    ['/v1/demo-group/campaigns', 'campaigns:read'],
    ['/v1/demo-group/shiftq/group-leaderboard', 'shiftq:read'],
  ] as const)('reads %s in at most two round trips', async (path, scope) => {
    const { token } = await tokenFor(runtime, { scopes: [scope] });
    await call(runtime, path, { token });
    const seen = await recorded(() => call(runtime, path, { token }).then((r) => expect(r.status).toBe(200)));
    expect(roundTrips(seen)).toBeLessThanOrEqual(2);
    expect(roundTrips(seen)).toBeGreaterThanOrEqual(1);
  });

  it("reads a location's first page of reviews in one round trip, dated ones once its zone is known; a later page in two", async () => {
    const { token } = await tokenFor(runtime, { scopes: ['shiftq:read'] });
    const reviews = '/v1/demo-group/denver-union/shiftq/reviews';
    // Once per process: the location's zone and the page-token key, both kept from here on.
    const first = await call(runtime, `${reviews}?limit=1`, { token });
    expect(first.body.data.page.nextPageToken).toEqual(expect.any(String));

    const undated = await recorded(() =>
      call(runtime, `${reviews}?minRating=1&limit=1`, { token }).then((r) => expect(r.status).toBe(200)),
    );
    expect(withoutClaim(undated)).toEqual(['BatchGetItem', 'Query']);
    expect(roundTrips(undated)).toBe(1);
    const dated = await recorded(() =>
      call(runtime, `${reviews}?createdFrom=2020-01-01&createdTo=2020-03-01`, { token }).then((r) => expect(r.status).toBe(200)),
    );
    expect(roundTrips(dated)).toBe(1);
    // A later page starts where its token says, known only once the token is read with the request.
    const next = await recorded(() =>
      call(runtime, `${reviews}?limit=1&pageToken=${encodeURIComponent(first.body.data.page.nextPageToken)}`, { token }).then((r) =>
        expect(r.status).toBe(200),
      ),
    );
    expect(roundTrips(next)).toBe(2);
  });

  it('refuses a token nobody issued from memory: nothing read, no rate limit spent', async () => {
    const { token, clientId } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    await call(runtime, MENU, { token });
    const [id, exp, , tag] = token.split('.');
    const forged = `${id}.${exp}.${randomBytes(32).toString('base64url')}.${tag}`;
    const altered = `${id}.${Number(exp) + 3600}.${token.split('.')[2]}.${tag}`;
    const before = await rateCount(runtime, clientId);
    for (const bad of [forged, altered]) {
      const seen = await recorded(() =>
        call(runtime, MENU, { token: bad }).then((r) => expect([r.status, r.body.error.code]).toEqual([401, 'invalid_token'])),
      );
      expect(seen).toEqual([]);
    }
    expect(await rateCount(runtime, clientId)).toBe(before);
  });

  it('refuses an expired token of ours from memory, before the counter', async () => {
    const { clientId } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    const key = await runtime.store.tokenKeys.signingKey(runtime.deps.clock.now());
    const expired = mintAccessToken(key, clientId, Math.floor(runtime.deps.clock.now() / 1000) - 1);
    await runtime.store.credentials.put({
      tokenHash: sha256Hex(expired),
      clientId,
      groupId: 'demo-group',
      credentialType: 'client_credentials',
      issuedAt: new Date(runtime.deps.clock.now() - 86_400_000).toISOString(),
      expiresAt: new Date((Math.floor(runtime.deps.clock.now() / 1000) - 1) * 1000).toISOString(),
    });
    const before = await rateCount(runtime, clientId);
    const seen = await recorded(() =>
      call(runtime, MENU, { token: expired }).then((r) => expect([r.status, r.body.error.code]).toEqual([403, 'token_expired'])),
    );
    expect(seen).toEqual([]);
    expect(await rateCount(runtime, clientId)).toBe(before);
  });
});
