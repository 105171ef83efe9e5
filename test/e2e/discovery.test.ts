import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { call, manualClock, startTestRuntime, tokenFor } from '../support/runtime.js';

let runtime: LocalRuntime;
const clock = manualClock();

/** A GET with the Host header the client chooses (fetch may not set Host, so this goes through node:http). */
function getWithHost(path: string, host: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any; text: string }>(
    (resolve, reject) => {
      const req = request(`${runtime.url}${path}`, { headers: { ...headers, Host: host } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), text }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
});
afterAll(() => runtime?.stop());

const ALL_SCOPES = [
  'locations:read',
  'sportsq:read',
  'shiftq:read',
  'matriq:read',
  'matriq:ai-scheduler:stop',
  'campaigns:read',
  'orderboard:read',
  'bevq:read',
] as const;

describe('GET /v1/{group_id}/locations', () => {
  it('returns the exact envelope, the token block and every accessible location', async () => {
    const { token, app } = await tokenFor(runtime, { scopes: [...ALL_SCOPES], rateLimitPerMinute: 120 });
    const reply = await call(runtime, '/v1/demo-group/locations', { token });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['data', 'generatedAt', 'groupId', 'ok', 'resource', 'version']);
    expect(reply.body).toMatchObject({ ok: true, version: 'v1', resource: 'locations', groupId: 'demo-group' });
    expect(reply.body.generatedAt).toBe(new Date(clock.now()).toISOString());
    expect(reply.body.data.token).toEqual({
      scopeType: 'group',
      scopes: [...ALL_SCOPES],
      rateLimitPerMinute: 120,
      expiresAt: null,
      accessTokenExpiresAt: new Date(clock.now() + 86_400_000).toISOString(),
      credentialType: 'client_credentials',
      status: 'active',
      tokenPrefix: '',
    });
    expect(reply.body.data.refresh).toEqual({ cadence: 'on_demand', description: expect.any(String) });
    const ids = reply.body.data.locations.map((l: { id: string }) => l.id);
    expect(ids).toEqual(['denver-union', 'london-soho', 'nyc-midtown', 'sydney-harbour']);
    const london = reply.body.data.locations.find((l: { id: string }) => l.id === 'london-soho');
    expect(london).toMatchObject({
      name: 'Soho Alehouse',
      locationShortName: 'Soho',
      timezone: 'Europe/London',
      slug: 'soho-alehouse',
      status: 'active',
      modulesEnabled: { shiftq: true, sportsq: true, matriq: true, campaigns: false, orderboard: true, bevq: true },
    });
    const root = `${runtime.url}/v1/demo-group/london-soho`;
    expect(london.endpoints).toEqual({
      root,
      modules: `${root}/modules`,
      shiftq: `${root}/shiftq`,
      sportsq: `${root}/sportsq`,
      matriq: `${root}/matriq`,
    });
    expect(london.resources).toEqual(expect.arrayContaining(['location', 'modules']));
    expect(app.allowedLocationIds).toBeNull();
  });

  it("builds absolute URLs from the API's own domain, never from the Host header the client sent", async () => {
    const { token } = await tokenFor(runtime);
    const reply = await getWithHost('/v1/demo-group/locations', 'api.example.test:8443', { Authorization: `Bearer ${token}` });
    expect(reply.status).toBe(200);
    expect(reply.body.data.locations[0].endpoints.root).toBe(`${runtime.url}/v1/demo-group/denver-union`);
    expect(reply.text).not.toContain('api.example.test');
  });

  it('shows a location-scoped token only its locations', async () => {
    const { token } = await tokenFor(runtime, { allowedLocationIds: ['sydney-harbour', 'nyc-midtown'] });
    const reply = await call(runtime, '/v1/demo-group/locations', { token });
    expect(reply.body.data.locations.map((l: { id: string }) => l.id)).toEqual(['nyc-midtown', 'sydney-harbour']);
    expect(reply.body.data.token.scopeType).toBe('location');
    expect(reply.body.data.token.allowedLocationIds).toEqual(['sydney-harbour', 'nyc-midtown']);
  });

  it('lists only the resources the token may read at each location', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['locations:read'] });
    const reply = await call(runtime, '/v1/demo-group/locations', { token });
    for (const location of reply.body.data.locations) expect(location.resources).toEqual(['modules', 'location']);
  });
});

describe('modules and the location root', () => {
  it('GET /v1/{group_id}/modules lists each module with its accessible locations', async () => {
    const { token } = await tokenFor(runtime, {
      scopes: ['locations:read', 'bevq:read'],
      allowedLocationIds: ['london-soho', 'denver-union'],
    });
    const reply = await call(runtime, '/v1/demo-group/modules', { token });
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toBe('modules');
    expect(reply.body.locationId).toBeUndefined();
    expect(reply.body.data.group).toEqual({ id: 'demo-group', name: 'Demo Hospitality Group' });
    expect(reply.body.data.modules.bevq).toEqual({ scope: 'bevq:read', granted: true, locationIds: ['denver-union', 'london-soho'] });
    expect(reply.body.data.modules.campaigns).toEqual({ scope: 'campaigns:read', granted: false, locationIds: ['denver-union'] });
    expect(reply.body.data.modules.orderboard.locationIds).toEqual(['london-soho']);
  });

  it('GET /v1/{group_id}/{location_id}/modules reports enabled, granted and resources per module', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['locations:read', 'matriq:read'] });
    const reply = await call(runtime, '/v1/demo-group/sydney-harbour/modules', { token });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ resource: 'modules', groupId: 'demo-group', locationId: 'sydney-harbour' });
    expect(reply.body.data.location).toEqual({ id: 'sydney-harbour', name: 'Harbour Bar', timezone: 'Australia/Sydney' });
    expect(reply.body.data.modulesEnabled.matriq).toBe(false);
    expect(reply.body.data.modules.matriq).toMatchObject({ enabled: false, granted: true, resources: [] });
  });

  it('GET /v1/{group_id}/{location_id} is the location summary behind endpoints.root', async () => {
    const { token } = await tokenFor(runtime);
    const list = await call(runtime, '/v1/demo-group/locations', { token });
    const nyc = list.body.data.locations.find((l: { id: string }) => l.id === 'nyc-midtown');
    const reply = await call(runtime, new URL(nyc.endpoints.root).pathname, { token });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ resource: 'location', groupId: 'demo-group', locationId: 'nyc-midtown' });
    expect(reply.body.data.location).toEqual({
      id: 'nyc-midtown',
      name: 'Midtown Taproom',
      locationShortName: 'Midtown',
      timezone: 'America/New_York',
      slug: 'midtown-taproom',
      status: 'active',
    });
    expect(reply.body.data.endpoints).toEqual(nyc.endpoints);
    expect(reply.body.data.resources).toEqual(nyc.resources);
  });
});

describe('GET /v1/openapi.json', () => {
  it('serves the OpenAPI 3.1 document without a token, covering every route', async () => {
    const reply = await call(runtime, '/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    expect(reply.body.servers).toEqual([{ url: runtime.url }]);
    const { ROUTES } = await import('#lambdas/discovery/all-routes');
    for (const route of ROUTES) {
      expect(reply.body.paths[route.path]?.[route.method.toLowerCase()]?.operationId, route.path).toBe(route.operation);
    }
  });

  it("serves the artefact generated outside the function, byte for byte the generator's document for this base URL", async () => {
    const reply = await call(runtime, '/v1/openapi.json');
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('cache-control')).toBe('public, max-age=300');
    const { openApiDocument } = await import('#lib/openapi');
    expect(reply.text).toBe(JSON.stringify(openApiDocument(runtime.url)));
  });

  it('never takes its server URL from a spoofed Host: the cached document is the same for every caller', async () => {
    const honest = await call(runtime, '/v1/openapi.json');
    const spoofed = await getWithHost('/v1/openapi.json', 'evil.example');
    expect(spoofed.status).toBe(200);
    expect(spoofed.body.servers).toEqual([{ url: runtime.url }]);
    expect(spoofed.text).not.toContain('evil.example');
    // Served to shared caches for five minutes: byte for byte what any other caller gets.
    expect(spoofed.headers['cache-control']).toBe('public, max-age=300');
    expect(spoofed.text).toBe(honest.text);
    // The one request header it depends on (the scheme, set by the gateway over any a client sent) is named in Vary.
    expect(
      String(spoofed.headers.vary)
        .split(/\s*,\s*/)
        .map((h) => h.toLowerCase()),
    ).toContain('x-forwarded-proto');
    expect(honest.headers.get('vary')?.toLowerCase()).toContain('x-forwarded-proto');
  });
});
