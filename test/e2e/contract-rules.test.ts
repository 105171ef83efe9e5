import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '#domain/crypto';
import { isLocationRoute, type Route } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { SCOPES, type Scope } from '#contract/scopes';
import { createApp } from '#lambdas/admin/apps';
import { publishMenu } from '#lambdas/webhooks/publish';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { controlledResolver } from '../fixtures/webhook-receiver.js';
import { call, exchange, manualClock, startTestRuntime, tokenFor, type Reply } from '../support/runtime.js';

/**
 * Contract 5.3 (scopes and locations), 5.4 (independent credentials), 7.1
 * (statuses) and 8 (the per-application rate limit), over real HTTP against
 * the local runtime. The scope rules are walked over the route table itself,
 * so a new route is covered the day it is declared; the contract's own list
 * is asserted beside it, so the table cannot quietly drop or re-scope a route.
 */

const ADMIN_KEY = 'contract-rules-admin-key-0123';
// 15 s into a UTC minute on the demo data's sports date: a window's end is 45 s away.
const START = Date.UTC(2026, 10, 22, 12, 0, 15);
const clock = manualClock(START);
const dns = controlledResolver({ 'hooks.example.test': ['93.184.216.34'] });

let runtime: LocalRuntime;

beforeAll(async () => {
  // No webhook event source: the destination made below is only a holder of a signing secret, never delivered to.
  runtime = await startTestRuntime({ clock, adminKey: ADMIN_KEY, resolver: dns.resolver, deliverWebhooks: false });
  // Every route of the location must answer 200 to a token that may read it, the menu included.
  await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'nyc-midtown', menu: sampleMenu() });
});
afterAll(() => runtime?.stop());

/** Path parameters from the demo data: nyc-midtown has every module, and the clock's day is a date with programming. */
const PARAMS: Record<string, string> = { group_id: 'demo-group', location_id: 'nyc-midtown', date: '2026-11-22' };

function pathOf(route: Pick<Route, 'path'>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    // A route with a parameter named nowhere here must get a value before it can be covered.
    if (!(name in PARAMS)) throw new Error(`no demo value for path parameter {${name}} of ${route.path}`);
    return PARAMS[name]!;
  });
}

function request(route: Pick<Route, 'method' | 'path'>, token: string): Promise<Reply> {
  const init = route.method === 'POST' ? { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } } : {};
  return call(runtime, pathOf(route), { token, ...init });
}

/** Every authenticated /v1 route of the table. */
const SCOPED = ROUTES.filter((r): r is Route & { scope: Scope } => r.path.startsWith('/v1/') && r.scope !== null);
const label = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** Tokens by the scopes they hold, each of an application of its own (a rate limit no test here comes near). */
const tokens = new Map<string, Promise<string>>();
function tokenWith(scopes: readonly Scope[], allowedLocationIds?: string[]): Promise<string> {
  const key = `${[...scopes].sort().join(' ')}|${allowedLocationIds?.join(',') ?? '*'}`;
  if (!tokens.has(key)) {
    tokens.set(
      key,
      tokenFor(runtime, { scopes: [...scopes], ...(allowedLocationIds ? { allowedLocationIds } : {}) }).then((t) => t.token),
    );
  }
  return tokens.get(key)!;
}
const allBut = (scope: Scope) => SCOPES.filter((s) => s !== scope);

describe('5.3: every /v1 route refuses a token without its scope or its location', () => {
  it('walks a table that holds the authenticated routes of every module', () => {
    // A filter that matched nothing would make every test below vacuous.
    expect(SCOPED.length).toBeGreaterThanOrEqual(30);
    expect(new Set(SCOPED.map((r) => r.scope))).toEqual(new Set(SCOPES));
  });

  it.each(SCOPED.map((r) => [label(r), r] as const))(
    '%s: 200 with its scope alone, 403 insufficient_scope with every other scope',
    async (_, route) => {
      const [own, others] = await Promise.all([tokenWith([route.scope]), tokenWith(allBut(route.scope))]);
      const [allowed, refused] = await Promise.all([request(route, own), request(route, others)]);
      expect(allowed.status, 'the path filled from the demo data is served').toBe(200);

      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer realm="customer-api", error="insufficient_scope", scope="${route.scope}"`,
      );
      expect(refused.text).not.toContain('Midtown Taproom');
    },
  );

  it.each(SCOPED.filter(isLocationRoute).map((r) => [label(r), r] as const))(
    '%s: 403 location_not_allowed for a token of every scope scoped to another location',
    async (_, route) => {
      const reply = await request(route, await tokenWith(SCOPES, ['denver-union']));
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('location_not_allowed');
      expect(reply.text).not.toContain('Midtown Taproom');
    },
  );

  /** The contract's section 4 and 5.3, written out: these routes and scopes are the contract's, whatever the table says. */
  const CONTRACT: [Route['method'], string, Scope][] = [
    ['GET', '/v1/{group_id}/{location_id}/matriq', 'matriq:read'],
    ['GET', '/v1/{group_id}/{location_id}/matriq/gateway', 'matriq:read'],
    ['GET', '/v1/{group_id}/{location_id}/matriq/devices', 'matriq:read'],
    ['GET', '/v1/{group_id}/{location_id}/matriq/providerAvailable', 'matriq:read'],
    ['GET', '/v1/{group_id}/{location_id}/providerAvailable', 'matriq:read'],
    ['GET', '/v1/{group_id}/{location_id}/matriq/aiScheduler', 'matriq:read'],
    ['POST', '/v1/{group_id}/{location_id}/matriq/aiScheduler/emergency-stop', 'matriq:ai-scheduler:stop'],
    ['GET', '/v1/{group_id}/campaigns', 'campaigns:read'],
    ['GET', '/v1/{group_id}/{location_id}/campaigns', 'campaigns:read'],
    ['GET', '/v1/{group_id}/{location_id}/orderboard', 'orderboard:read'],
    ['GET', '/v1/{group_id}/{location_id}/sportsq', 'sportsq:read'],
    ['GET', '/v1/{group_id}/{location_id}/sportsq/provider', 'sportsq:read'],
    ['GET', '/v1/{group_id}/{location_id}/sportsq/packages', 'sportsq:read'],
    ['GET', '/v1/{group_id}/{location_id}/sportsq/{date}', 'sportsq:read'],
  ];

  it.each(CONTRACT.map(([method, path, scope]) => [`${method} ${path}`, scope, { method, path }] as const))(
    '%s is in the table under %s, and is served and refused by it',
    async (_, scope, route) => {
      expect(SCOPED.find((r) => r.method === route.method && r.path === route.path)?.scope).toBe(scope);
      const [own, others] = await Promise.all([tokenWith([scope]), tokenWith(allBut(scope))]);
      const [allowed, refused] = await Promise.all([request(route, own), request(route, others)]);
      expect(allowed.status).toBe(200);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_scope']);
    },
  );
});

describe('7.1: the statuses of every /v1 route', () => {
  /** A bearer string the service stored as a credential that expired a second ago (found by hash, as older tokens are). */
  async function expiredCredential(): Promise<string> {
    const { clientId } = await tokenFor(runtime, { scopes: [...SCOPES] });
    const token = randomBytes(32).toString('base64url');
    await runtime.store.credentials.put({
      tokenHash: sha256Hex(token),
      clientId,
      groupId: 'demo-group',
      credentialType: 'client_credentials',
      issuedAt: new Date(clock.now() - 86_400_000).toISOString(),
      expiresAt: new Date(clock.now() - 1000).toISOString(),
    });
    return token;
  }
  let expired: string;
  let revoked: string;
  let full: string;
  beforeAll(async () => {
    expired = await expiredCredential();
    const app = await tokenFor(runtime, { scopes: [...SCOPES] });
    await runtime.store.apps.revoke(app.clientId, new Date(clock.now()).toISOString());
    revoked = app.token;
    full = await tokenWith(SCOPES);
  });

  it.each(SCOPED.map((r) => [label(r), r] as const))(
    '%s: 401 without or with an unknown token, 403 expired or revoked, 404 for an unknown location',
    async (_, route) => {
      const init = route.method === 'POST' ? { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } } : {};
      // Independent requests, sent together.
      const [none, unknown, late, gone, missing] = await Promise.all([
        call(runtime, pathOf(route), init),
        request(route, randomBytes(32).toString('base64url')),
        request(route, expired),
        request(route, revoked),
        isLocationRoute(route) ? call(runtime, pathOf(route).replace('/nyc-midtown', '/nowhere'), { token: full, ...init }) : null,
      ]);
      expect([none.status, none.body.error.code]).toEqual([401, 'invalid_token']);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="customer-api"');
      expect([unknown.status, unknown.body.error.code]).toEqual([401, 'invalid_token']);
      expect([late.status, late.body.error.code]).toEqual([403, 'token_expired']);
      expect([gone.status, gone.body.error.code]).toEqual([403, 'token_revoked']);
      if (missing) expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
      else expect(isLocationRoute(route)).toBe(false);
    },
  );
});

describe('5.4: each credential only where it belongs', () => {
  const LOCATIONS = '/v1/demo-group/locations';
  const tokenRequest = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    call(runtime, '/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...form }).toString(),
    });

  it('refuses a client secret as a Bearer token with 401; the same application is served with its access token', async () => {
    const app = await tokenFor(runtime, { scopes: ['locations:read'] });
    expect((await call(runtime, LOCATIONS, { token: app.token })).status).toBe(200);
    const reply = await call(runtime, LOCATIONS, { token: app.clientSecret });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('invalid_token');
  });

  it("refuses a webhook signing secret as a Bearer token with 401, and at the token endpoint as the application's secret", async () => {
    const app = await tokenFor(runtime, { scopes: ['locations:read', 'bevq:read'] });
    const added = await fetch(`${runtime.url}/admin/v1/destinations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        clientId: app.clientId,
        name: 'Menu hook',
        url: 'https://hooks.example.test/menu',
        locationIds: ['nyc-midtown'],
      }),
    });
    expect(added.status).toBe(201);
    const { signingSecret } = (await added.json()) as { signingSecret: string };
    expect(signingSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const reply = await call(runtime, LOCATIONS, { token: signingSecret });
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe('invalid_token');
    const exchanged = await tokenRequest({ client_id: app.clientId, client_secret: signingSecret });
    expect([exchanged.status, exchanged.body.error]).toEqual([401, 'invalid_client']);
    expect(exchanged.body.access_token).toBeUndefined();
  });

  it('refuses an access token sent as client_secret at the token endpoint with invalid_client', async () => {
    const app = await tokenFor(runtime, { scopes: ['locations:read'] });
    for (const auth of ['post', 'basic'] as const) {
      const reply =
        auth === 'post'
          ? await tokenRequest({ client_id: app.clientId, client_secret: app.token })
          : await tokenRequest({}, { Authorization: `Basic ${Buffer.from(`${app.clientId}:${app.token}`).toString('base64')}` });
      expect([reply.status, reply.body.error], auth).toEqual([401, 'invalid_client']);
      expect(reply.body.access_token).toBeUndefined();
    }
    // The real secret still works: the refusal was the credential's, not the application's.
    expect((await exchange(runtime, app.clientId, app.clientSecret)).access_token).toEqual(expect.any(String));
  });

  it('refuses a legacy bearer credential at the token endpoint, however it is presented, while it still reads the API', async () => {
    const { app, legacyCredential } = await createApp(
      runtime.store,
      { groupId: 'demo-group', name: 'Legacy', scopes: ['locations:read'] },
      clock.now(),
      'legacy_bearer',
    );
    expect(legacyCredential).toMatch(/^lgcy_/);
    expect((await call(runtime, LOCATIONS, { token: legacyCredential! })).status).toBe(200);
    // The credential is no client secret: refused as one, by either client authentication; a Bearer header is no client authentication at all.
    for (const [how, reply, expected] of [
      ['as client_secret', await tokenRequest({ client_id: app.clientId, client_secret: legacyCredential! }), [401, 'invalid_client']],
      [
        'in Basic',
        await tokenRequest({}, { Authorization: `Basic ${Buffer.from(`${app.clientId}:${legacyCredential}`).toString('base64')}` }),
        [401, 'invalid_client'],
      ],
      [
        'as Bearer',
        await tokenRequest({ client_id: app.clientId }, { Authorization: `Bearer ${legacyCredential}` }),
        [400, 'invalid_request'],
      ],
    ] as const) {
      expect([reply.status, reply.body.error], how).toEqual(expected);
      expect(reply.body.access_token, how).toBeUndefined();
    }
    // Still a working credential where it belongs.
    expect((await call(runtime, LOCATIONS, { token: legacyCredential! })).status).toBe(200);
  });
});

describe('8: one quota per application and UTC minute, across endpoints and tokens', () => {
  const ENDPOINTS = ['/v1/demo-group/locations', '/v1/demo-group/nyc-midtown/sportsq/provider', '/v1/demo-group/nyc-midtown/bevq/menu'];

  it('spends the quota on three endpoints, refuses the next request anywhere with Retry-After to the minute, for every token, and serves again in the next minute', async () => {
    // Pinned 15 s into a minute later than anything above: 45 s to the window's end.
    clock.set(START + 60 * 60_000);
    const LIMIT = 6;
    const first = await tokenFor(runtime, { scopes: ['locations:read', 'sportsq:read', 'bevq:read'], rateLimitPerMinute: LIMIT });
    const second = (await exchange(runtime, first.clientId, first.clientSecret)).access_token;

    const remaining: string[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const reply = await call(runtime, ENDPOINTS[i % 3]!, { token: first.token });
      expect(reply.status, ENDPOINTS[i % 3]).toBe(200);
      expect(reply.headers.get('ratelimit-limit')).toBe('6');
      expect(reply.headers.get('ratelimit-reset')).toBe('45');
      expect(reply.headers.get('ratelimit-policy')).toBe('6;w=60');
      expect(reply.headers.get('retry-after')).toBeNull();
      remaining.push(reply.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);

    // The 7th, on an endpoint not used yet, then on each used one, from either token.
    const refusedPaths = ['/v1/demo-group/nyc-midtown/sportsq/packages', ...ENDPOINTS];
    for (const [i, path] of refusedPaths.entries()) {
      const token = i % 2 ? second : first.token;
      const limited = await call(runtime, path, { token });
      expect(limited.status, path).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toBe('45');
      expect(limited.headers.get('ratelimit-limit')).toBe('6');
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('ratelimit-reset')).toBe('45');
    }
    // A token issued now adds nothing.
    const third = (await exchange(runtime, first.clientId, first.clientSecret)).access_token;
    expect((await call(runtime, ENDPOINTS[0]!, { token: third })).status).toBe(429);

    // Later in the same minute: still refused, Retry-After counting down to its end.
    clock.advance(30_000);
    const later = await call(runtime, ENDPOINTS[1]!, { token: second });
    expect([later.status, later.headers.get('retry-after')]).toEqual([429, '15']);

    // Into the next UTC minute (1 s past its start): a fresh quota.
    clock.advance(16_000);
    const fresh = await call(runtime, ENDPOINTS[2]!, { token: second });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ratelimit-remaining')).toBe('5');
    expect(fresh.headers.get('ratelimit-reset')).toBe('59');
    expect(fresh.headers.get('retry-after')).toBeNull();
    const again = await call(runtime, ENDPOINTS[0]!, { token: first.token });
    expect([again.status, again.headers.get('ratelimit-remaining')]).toEqual([200, '4']);
  });
});
