import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { call, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * Contract 9 keeps legacy routes and aliases and gives no dates for their end (9.8): a stage that sets them has
 * every legacy route answer with Deprecation (RFC 9745) and Sunset (RFC 8594); one that does not sends neither.
 */
const LOC = '/v1/demo-group/nyc-midtown';
const DEPRECATED_AT = '2027-01-31T00:00:00Z';
const SUNSET_AT = '2027-07-31';
const LEGACY = [`${LOC}/matriq/providerAvailable`, `${LOC}/providerAvailable`];
const CANONICAL = [`${LOC}/matriq`, `${LOC}/matriq/devices`];

let dated: LocalRuntime;
let undated: LocalRuntime;
beforeAll(async () => {
  [dated, undated] = await Promise.all([
    startTestRuntime({ config: { legacyDeprecatedAt: DEPRECATED_AT, legacySunsetAt: SUNSET_AT } }),
    startTestRuntime(),
  ]);
});
afterAll(async () => {
  await Promise.all([dated?.stop(), undated?.stop()]);
});

describe('legacy routes (contract 9)', () => {
  it('are marked in the route table: the sports guide, provider availability and its alias, the reservations alias', () => {
    expect(ROUTES.filter((r) => r.legacy).map((r) => r.path.replace('/v1/{group_id}/{location_id}/', ''))).toEqual([
      'sportsq',
      'matriq/providerAvailable',
      'providerAvailable',
      'shiftq/toastReservations',
    ]);
  });

  it('answer with Deprecation and Sunset once the stage dates them, and the canonical routes never do', async () => {
    const { token } = await tokenFor(dated, { scopes: ['matriq:read'] });
    for (const path of LEGACY) {
      const reply = await call(dated, path, { token });
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get('deprecation'), path).toBe(`@${Date.parse(DEPRECATED_AT) / 1000}`);
      expect(reply.headers.get('sunset'), path).toBe('Sat, 31 Jul 2027 00:00:00 GMT');
    }
    for (const path of CANONICAL) {
      const reply = await call(dated, path, { token });
      expect(reply.status, path).toBe(200);
      expect([reply.headers.get('deprecation'), reply.headers.get('sunset')], path).toEqual([null, null]);
    }
  });

  it('send neither header while the stage sets no date', async () => {
    const { token } = await tokenFor(undated, { scopes: ['matriq:read'] });
    for (const path of LEGACY) {
      const reply = await call(undated, path, { token });
      expect(reply.status, path).toBe(200);
      expect([reply.headers.get('deprecation'), reply.headers.get('sunset')], path).toEqual([null, null]);
    }
  });
});
