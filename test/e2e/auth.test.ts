import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '#lambdas/admin/apps';
import type { LocalRuntime } from '#local/runtime';
import { call, manualClock, startTestRuntime, tokenFor } from '../support/runtime.js';

let runtime: LocalRuntime;
const clock = manualClock();

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
});
afterAll(() => runtime?.stop());

const LOCATIONS = '/v1/demo-group/locations';

describe('bearer authentication on /v1', () => {
  it('401 without a token, with a bare Bearer challenge', async () => {
    const reply = await call(runtime, LOCATIONS);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="customer-api"');
    expect(reply.body.error.code).toBe('invalid_token');
    expect(reply.body.error.requestId).toBe(reply.headers.get('x-request-id'));
  });

  it('401 invalid_token for garbage, malformed and unknown tokens', async () => {
    for (const authorization of [
      'Bearer not-a-real-token-at-all-1234',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Bearer a b c',
      `Bearer ${'A'.repeat(5000)}`,
      'Bearer \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9',
    ]) {
      const reply = await call(runtime, LOCATIONS, { headers: { Authorization: authorization } });
      expect(reply.status, authorization.slice(0, 20)).toBe(401);
      expect(reply.body.error.code).toBe('invalid_token');
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="customer-api", error="invalid_token"');
    }
  });

  it('403 token_expired once the 24 hours have passed', async () => {
    const { token } = await tokenFor(runtime);
    clock.advance(86_400_000 - 1000);
    expect((await call(runtime, LOCATIONS, { token })).status).toBe(200);
    clock.advance(1000);
    const reply = await call(runtime, LOCATIONS, { token });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('token_expired');
  });

  it('403 token_revoked immediately after the application is revoked, for every outstanding token', async () => {
    const first = await tokenFor(runtime);
    const { exchange } = await import('../support/runtime.js');
    const second = (await exchange(runtime, first.clientId, first.clientSecret)).access_token;
    expect((await call(runtime, LOCATIONS, { token: first.token })).status).toBe(200);
    await runtime.deps.store.apps.revoke(first.clientId, new Date(clock.now()).toISOString());
    for (const token of [first.token, second]) {
      const reply = await call(runtime, LOCATIONS, { token });
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('token_revoked');
    }
  });

  it('403 application_expired when the application passes its expiry', async () => {
    const { token } = await tokenFor(runtime, { expiresAt: new Date(clock.now() + 60_000).toISOString() });
    expect((await call(runtime, LOCATIONS, { token })).status).toBe(200);
    clock.advance(60_000);
    expect((await call(runtime, LOCATIONS, { token })).body.error.code).toBe('application_expired');
  });

  it('403 insufficient_scope with an RFC 6750 challenge naming the scope', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    const reply = await call(runtime, LOCATIONS, { token });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('insufficient_scope');
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="customer-api", error="insufficient_scope", scope="locations:read"');
  });
});

describe('group and location boundaries', () => {
  it('another group is 403 whether or not it exists, with identical bodies', async () => {
    await runtime.deps.store.groups.put({ groupId: 'other-group', name: 'Other', createdAt: new Date(clock.now()).toISOString() });
    const { token } = await tokenFor(runtime);
    const existing = await call(runtime, '/v1/other-group/locations', { token });
    const missing = await call(runtime, '/v1/no-such-group/locations', { token });
    const existingLocation = await call(runtime, '/v1/other-group/nyc-midtown', { token });
    for (const reply of [existing, missing, existingLocation]) {
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('group_not_allowed');
      expect(reply.body.error.message).toBe(existing.body.error.message);
    }
  });

  it('a location-scoped token gets 403 for other locations, existing or not, and 200 for its own', async () => {
    const { token } = await tokenFor(runtime, { allowedLocationIds: ['london-soho'] });
    expect((await call(runtime, '/v1/demo-group/london-soho', { token })).status).toBe(200);
    for (const path of ['/v1/demo-group/nyc-midtown', '/v1/demo-group/nowhere', '/v1/demo-group/nyc-midtown/modules']) {
      const reply = await call(runtime, path, { token });
      expect(reply.status, path).toBe(403);
      expect(reply.body.error.code).toBe('location_not_allowed');
    }
  });

  it('a group token gets 404 for an unknown location of its own group', async () => {
    const { token } = await tokenFor(runtime);
    const reply = await call(runtime, '/v1/demo-group/nowhere', { token });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('not_found');
  });

  it('checks the scope before the ids, so a scope-less token learns nothing about ids', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    for (const path of ['/v1/other-group/locations', '/v1/demo-group/nowhere', '/v1/demo-group/nyc-midtown']) {
      expect((await call(runtime, path, { token })).body.error.code, path).toBe('insufficient_scope');
    }
  });
});

describe('legacy bearer credentials', () => {
  it('work until revoked and describe themselves in the token block', async () => {
    const { app, legacyCredential } = await createApp(
      runtime.store,
      { groupId: 'demo-group', name: 'Legacy', scopes: ['locations:read'] },
      clock.now(),
      'legacy_bearer',
    );
    clock.advance(90 * 86_400_000);
    const reply = await call(runtime, LOCATIONS, { token: legacyCredential! });
    expect(reply.status).toBe(200);
    expect(reply.body.data.token).toMatchObject({
      credentialType: 'legacy_bearer',
      accessTokenExpiresAt: null,
      tokenPrefix: legacyCredential!.slice(0, 11),
      status: 'active',
    });
    expect(legacyCredential!.startsWith(reply.body.data.token.tokenPrefix)).toBe(true);
    await runtime.deps.store.apps.revoke(app.clientId, new Date(clock.now()).toISOString());
    expect((await call(runtime, LOCATIONS, { token: legacyCredential! })).body.error.code).toBe('token_revoked');
  });
});

describe('unknown routes and methods', () => {
  it('404 in the error shape for unknown paths, 405 with Allow for known paths', async () => {
    const { token } = await tokenFor(runtime);
    const unknown = await call(runtime, '/v1/demo-group/nyc-midtown/nope/deeper', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ ok: false, version: 'v1', error: { code: 'not_found', status: 404 } });
    const root = await call(runtime, '/');
    expect(root.status).toBe(404);
    const wrongMethod = await call(runtime, LOCATIONS, { token, method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(wrongMethod.body.error.code).toBe('method_not_allowed');
    const post = await call(runtime, LOCATIONS, { token, method: 'POST', body: '{"x":1}' });
    expect(post.status).toBe(405);
  });
});
