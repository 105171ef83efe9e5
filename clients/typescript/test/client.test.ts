import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { adminCall, manualClock, newApp, startTestRuntime } from '../../../test/support/runtime.js';
import {
  ApiError,
  createCustomerApiClient,
  memoryDedupe,
  memoryMenuStore,
  receiveMenuEvent,
  reconcileMenus,
  signTestPayload,
  syncMenu,
  type CustomerApiOptions,
} from '../src/index.js';

/** The kit against the real local runtime over HTTP; the runtime and the client share one hand-moved clock. */
let runtime: LocalRuntime;
const clock = manualClock();

beforeAll(async () => {
  runtime = await startTestRuntime({ clock, sweepEveryMs: 24 * 3_600_000 });
});
afterAll(() => runtime?.stop());

type Seen = {
  method: string;
  path: string;
  status: number;
  authorization: string | null;
  ifNoneMatch: string | null;
  retryAfter: string | null;
  requestId: string | null;
};

/** A client of a new application whose every request is recorded, and whose waits move the shared clock. */
async function kit(
  app: Parameters<typeof newApp>[1] = {},
  options: Partial<CustomerApiOptions> & { answer?: (request: Request) => Response | undefined } = {},
) {
  const { clientId, clientSecret } = await newApp(runtime, app);
  const seen: Seen[] = [];
  const waits: number[] = [];
  const client = createCustomerApiClient({
    baseUrl: runtime.url,
    clientId,
    clientSecret,
    now: () => clock.now(),
    sleep: async (ms) => {
      waits.push(ms);
      clock.advance(ms);
    },
    fetch: async (request) => {
      const response = options.answer?.(request) ?? (await fetch(request));
      const h = (name: string) => response.headers.get(name);
      seen.push({
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        authorization: request.headers.get('authorization'),
        ifNoneMatch: request.headers.get('if-none-match'),
        retryAfter: h('retry-after'),
        requestId: h('x-request-id'),
      });
      return response;
    },
    ...options,
  });
  const exchanges = () => seen.filter((s) => s.path === '/oauth/token').length;
  return { client, seen, waits, exchanges, clientId };
}

const LOCATIONS = { params: { path: { group_id: 'demo-group' } } } as const;
const nextMinute = (plusMs: number) => clock.set(Math.ceil(clock.now() / 60_000) * 60_000 + plusMs);

describe('tokens', () => {
  it('exchanges once for many calls, concurrent ones sharing the one exchange', async () => {
    const { client, seen, exchanges } = await kit();
    const replies = await Promise.all(Array.from({ length: 5 }, () => client.api.GET('/v1/{group_id}/locations', LOCATIONS)));
    for (let i = 0; i < 3; i++) await client.api.GET('/v1/{group_id}/locations', LOCATIONS);
    expect(replies.map((r) => r.data?.ok)).toEqual([true, true, true, true, true]);
    expect(exchanges()).toBe(1);
    const bearers = new Set(seen.filter((s) => s.path !== '/oauth/token').map((s) => s.authorization));
    expect([bearers.size, seen.length]).toEqual([1, 9]);
  });

  it('renews a few minutes before expiry, not earlier', async () => {
    const { client, seen, exchanges } = await kit({}, { renewBeforeMs: 5 * 60_000 });
    const first = await client.token();
    clock.advance(86_400_000 - 6 * 60_000);
    await client.api.GET('/v1/{group_id}/locations', LOCATIONS);
    expect(exchanges()).toBe(1);
    clock.advance(2 * 60_000); // 4 minutes left: inside the renewal margin
    const [a, b] = await Promise.all([
      client.api.GET('/v1/{group_id}/locations', LOCATIONS),
      client.api.GET('/v1/{group_id}/locations', LOCATIONS),
    ]);
    expect([a.response.status, b.response.status, exchanges()]).toEqual([200, 200, 2]);
    expect(seen.at(-1)!.authorization).not.toBe(`Bearer ${first}`);
  });

  it('drops a token the service refuses as expired and repeats the request once with a new one', async () => {
    const frozen = clock.now();
    // The client's clock stands still (a process that slept) while the service's passes the token's expiry.
    const { client, seen, exchanges } = await kit({}, { now: () => frozen });
    await client.token();
    clock.advance(86_400_000 + 60_000);
    const reply = await client.api.GET('/v1/{group_id}/locations', LOCATIONS);
    expect([reply.response.status, exchanges()]).toEqual([200, 2]);
    expect(seen.filter((s) => s.path !== '/oauth/token').map((s) => s.status)).toEqual([403, 200]);
  });

  it('throws the token endpoint refusal as an ApiError with its OAuth code and request id', async () => {
    const client = createCustomerApiClient({ baseUrl: runtime.url, clientId: 'app_nobody', clientSecret: 'x'.repeat(43) });
    const error = await client.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_client' });
    expect((error as ApiError).requestId).toMatch(/\S/);
  });
});

describe('retries', () => {
  it('waits what a 429 Retry-After asks, then succeeds in the next rate-limit window', async () => {
    nextMinute(20_000);
    const { client, seen, waits } = await kit({ rateLimitPerMinute: 2 });
    for (let i = 0; i < 3; i++) expect((await client.api.GET('/v1/{group_id}/locations', LOCATIONS)).response.status).toBe(200);
    const statuses = seen.filter((s) => s.path !== '/oauth/token').map((s) => s.status);
    expect(statuses).toEqual([200, 200, 429, 200]);
    const limited = seen.find((s) => s.status === 429)!;
    expect(waits).toEqual([Number(limited.retryAfter) * 1000]);
  });

  it('gives up with an ApiError (status, code, message, request id, Retry-After) when the wait would overspend the budget', async () => {
    nextMinute(20_000);
    const { client, seen, waits } = await kit({ rateLimitPerMinute: 1 }, { retry: { maxWaitMs: 10_000 } });
    await client.api.GET('/v1/{group_id}/locations', LOCATIONS);
    const error = (await client.api.GET('/v1/{group_id}/locations', LOCATIONS).catch((e: unknown) => e)) as ApiError;
    const limited = seen.at(-1)!;
    expect(error).toBeInstanceOf(ApiError);
    expect([error.status, error.code, error.retryAfterSeconds, error.requestId]).toEqual([
      429,
      'rate_limited',
      Number(limited.retryAfter),
      limited.requestId,
    ]);
    expect(error.message).toMatch(/\S/);
    expect(waits).toEqual([]);
  });

  it('repeats a safe request after a 5xx with a backoff, and never repeats a POST', async () => {
    let failNext = true;
    const answer = (request: Request) => {
      if (request.method !== 'GET' || !failNext) return undefined;
      failNext = false;
      return new Response('', { status: 503 });
    };
    const { client, seen, waits } = await kit({ rateLimitPerMinute: 2 }, { answer });
    expect((await client.api.GET('/v1/{group_id}/locations', LOCATIONS)).response.status).toBe(200);
    expect(waits.length).toBe(1);
    expect(waits[0]).toBeGreaterThan(0);
    await client.api.GET('/v1/{group_id}/locations', LOCATIONS); // the second counted: the quota is spent
    const stop = '/v1/{group_id}/{location_id}/matriq/aiScheduler/emergency-stop' as const;
    const error = await client.api
      .POST(stop, { params: { path: { group_id: 'demo-group', location_id: 'nyc-midtown' } }, body: {} })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(seen.filter((s) => s.method === 'POST' && s.path !== '/oauth/token').map((s) => s.status)).toEqual([429]);
    expect(waits.length).toBe(1);
  });

  it('throws other refusals at once as ApiError with the contract code', async () => {
    const { client, seen } = await kit({ scopes: ['locations:read'] });
    const error = (await client.api
      .GET('/v1/{group_id}/{location_id}/bevq/menu', { params: { path: { group_id: 'demo-group', location_id: 'nyc-midtown' } } })
      .catch((e: unknown) => e)) as ApiError;
    expect([error.status, error.code, error.requestId]).toEqual([403, 'insufficient_scope', seen.at(-1)!.requestId]);
  });
});

describe('the menu sync (receiver rule 6)', () => {
  const publish = (price?: number) => adminCall(runtime, 'PUT', '/menus/demo-group/denver-union', sampleMenu({ price }));

  it('stores the ETag and revision on 200, sends If-None-Match, keeps the copy on 304, replaces it after a publish', async () => {
    expect((await publish()).status).toBe(200);
    const { client, seen } = await kit({ scopes: ['bevq:read'] });
    const store = memoryMenuStore();
    const first = await syncMenu(client, 'demo-group', 'denver-union', store);
    expect(first.changed).toBe(true);
    expect([seen.at(-1)!.ifNoneMatch, first.copy.etag]).toEqual([null, expect.stringMatching(/^(W\/)?".+"$/)]);
    expect(first.copy.revision).toBe(first.copy.menu.revision);

    const again = await syncMenu(client, 'demo-group', 'denver-union', store);
    expect([again.changed, seen.at(-1)!.status, seen.at(-1)!.ifNoneMatch]).toEqual([false, 304, first.copy.etag]);
    expect(again.copy).toEqual(first.copy);

    expect((await publish(9.25)).status).toBe(200); // a new price: a new revision
    const changed = await syncMenu(client, 'demo-group', 'denver-union', store);
    expect([changed.changed, seen.at(-1)!.status]).toEqual([true, 200]);
    expect(changed.copy.revision).not.toBe(first.copy.revision);
    expect(await store.get('demo-group', 'denver-union')).toEqual(changed.copy);
  });

  it('reconciles every published menu of the group: 200s the first time, then only 304s', async () => {
    expect((await publish()).status).toBe(200);
    expect((await adminCall(runtime, 'PUT', '/menus/demo-group/nyc-midtown', sampleMenu())).status).toBe(200);
    const { client, seen } = await kit({ scopes: ['bevq:read'] });
    const store = memoryMenuStore();
    const first = await reconcileMenus(client, 'demo-group', store);
    expect(first.map((r) => r.locationId).sort()).toEqual(['denver-union', 'nyc-midtown']);
    expect(first.every((r) => r.changed)).toBe(true);
    const reads = seen.length;
    const second = await reconcileMenus(client, 'demo-group', store);
    expect(second).toEqual(first.map((r) => ({ ...r, changed: false })));
    expect(
      seen
        .slice(reads)
        .filter((s) => s.path.endsWith('/bevq/menu'))
        .map((s) => s.status),
    ).toEqual([304, 304]);
  });

  it('receiveMenuEvent: verifies, checks the scope, dedupes and syncs in one call', async () => {
    expect((await publish()).status).toBe(200);
    const { client, seen } = await kit({ scopes: ['bevq:read'] });
    const store = memoryMenuStore();
    const dedupe = memoryDedupe();
    const secret = 'whsec-test';
    const event = {
      eventId: `evt_${clock.now()}`,
      eventType: 'bevq.menu.updated' as const,
      occurredAt: new Date(clock.now()).toISOString(),
      groupId: 'demo-group',
      locationId: 'denver-union',
      revision: 'r1',
      resource: '/v1/demo-group/denver-union/bevq/menu',
    };
    const delivery = await signTestPayload(secret, event, { timestamp: Math.floor(clock.now() / 1000) });
    const receive = (rawBody: string, headers = delivery.headers) =>
      receiveMenuEvent({ secret, headers, rawBody, scope: { groupId: 'demo-group' }, dedupe, client, store, now: () => clock.now() });

    const first = await receive(delivery.body);
    expect(first).toMatchObject({ status: 200, outcome: 'synced', sync: { changed: true } });
    expect(await receive(delivery.body)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(await receive(` ${delivery.body}`)).toEqual({ status: 401, outcome: 'rejected', reason: 'signature_mismatch' });
    const menuReads = seen.filter((s) => s.path === event.resource).length;

    const elsewhere = await signTestPayload(
      secret,
      { ...event, eventId: 'evt_2', resource: 'https://evil.example/menu' },
      { timestamp: Math.floor(clock.now() / 1000) },
    );
    expect(await receive(elsewhere.body, elsewhere.headers)).toMatchObject({ status: 403, outcome: 'out_of_scope', reason: 'resource' });
    const next = await signTestPayload(secret, { ...event, eventId: 'evt_3' }, { timestamp: Math.floor(clock.now() / 1000) });
    expect(await receive(next.body, next.headers)).toMatchObject({ status: 200, outcome: 'synced', sync: { changed: false } });
    expect(
      seen
        .filter((s) => s.path === event.resource)
        .map((s) => s.status)
        .slice(menuReads),
    ).toEqual([304]);
  });
});
