import { describe, expect, it } from 'vitest';
import type { App } from '#data/apps';
import { appIneligibility, coveredLocationIds, covers } from '#lambdas/webhooks/fan-out';
import { deliveryIdOf, menuEventId, payloadOf, testEventId } from '#lambdas/webhooks/messages';

const app = (over: Partial<App> = {}): App => ({
  clientId: 'app_1',
  groupId: 'g',
  name: 'A',
  scopes: ['bevq:read'],
  allowedLocationIds: null,
  rateLimitPerMinute: 600,
  ownerEmail: null,
  status: 'active',
  credentialType: 'client_credentials',
  tokenPrefix: '',
  expiresAt: null,
  createdAt: '2026-01-01T00:00:00Z',
  ...over,
});
const NOW = Date.UTC(2026, 5, 1);

describe('application eligibility (6.5 rule 1)', () => {
  it('takes only active, unexpired client_credentials applications holding bevq:read', () => {
    expect(appIneligibility(app(), NOW)).toBeNull();
    expect(appIneligibility(null, NOW)).toBe('application_removed');
    expect(appIneligibility(app({ credentialType: 'legacy_bearer' }), NOW)).toBe('legacy_credential');
    expect(appIneligibility(app({ status: 'revoked' }), NOW)).toBe('application_revoked');
    expect(appIneligibility(app({ expiresAt: '2026-05-31T23:59:59Z' }), NOW)).toBe('application_inactive');
    expect(appIneligibility(app({ scopes: ['locations:read'] }), NOW)).toBe('application_without_bevq');
  });
});

describe('coverage (6.5 rule 3)', () => {
  it('a location-scoped application covers only its location', () => {
    const scoped = app({ allowedLocationIds: ['l1'] });
    expect(covers({ groupId: 'g', locationIds: null }, scoped, 'g', 'l1')).toBe(true);
    expect(covers({ groupId: 'g', locationIds: null }, scoped, 'g', 'l2')).toBe(false);
  });
  it('a group application without allowlist covers current and future locations', () => {
    expect(coveredLocationIds({ locationIds: null }, app())).toBeNull();
    expect(covers({ groupId: 'g', locationIds: null }, app(), 'g', 'opened-next-year')).toBe(true);
    expect(covers({ groupId: 'g', locationIds: null }, app(), 'other-group', 'l1')).toBe(false);
  });
  it('a selected-location subscription never widens', () => {
    const d = { groupId: 'g', locationIds: ['l1'] };
    expect(covers(d, app(), 'g', 'l1')).toBe(true);
    expect(covers(d, app(), 'g', 'l2')).toBe(false);
  });
  it('"all authorized locations" of an allowlisted application means only the allowlist, narrowed further by a selection', () => {
    const listed = app({ allowedLocationIds: ['l1', 'l2'] });
    expect(coveredLocationIds({ locationIds: null }, listed)).toEqual(['l1', 'l2']);
    expect(coveredLocationIds({ locationIds: ['l2', 'l3'] }, listed)).toEqual(['l2']);
  });
});

describe('event identity', () => {
  it('is deterministic for group, location and revision', () => {
    expect(menuEventId('g', 'l', 'r1')).toBe(menuEventId('g', 'l', 'r1'));
    expect(menuEventId('g', 'l', 'r1')).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(
      new Set([menuEventId('g', 'l', 'r1'), menuEventId('g', 'l', 'r2'), menuEventId('g', 'l2', 'r1'), menuEventId('g2', 'l', 'r1')]).size,
    ).toBe(4);
    expect(deliveryIdOf('evt_a', 'dst_b')).toBe(deliveryIdOf('evt_a', 'dst_b'));
    expect(deliveryIdOf('evt_a', 'dst_b')).not.toBe(deliveryIdOf('evt_a', 'dst_c'));
    expect(testEventId()).not.toBe(testEventId());
  });
  it('builds the 6.3 payload: test flag only on tests, no menu data', () => {
    const facts = { eventId: 'evt_1', occurredAt: '2026-01-01T00:00:00.000Z', groupId: 'g 1', locationId: 'l', revision: 'r' };
    expect(JSON.parse(payloadOf({ ...facts, eventType: 'bevq.menu.updated' }))).toEqual({
      ...facts,
      eventType: 'bevq.menu.updated',
      resource: '/v1/g%201/l/bevq/menu',
    });
    expect(JSON.parse(payloadOf({ ...facts, revision: '', eventType: 'customer_api.webhook.test' }))).toMatchObject({
      test: true,
      revision: '',
    });
  });
});
