import { describe, expect, it } from 'vitest';
import { answerTo, keep } from '#console/pending-sign-in';
import { HOME, PAGES, hrefOf, routeOf, type Page } from '#console/routes';

/** The console's addresses and the route kept beside the PKCE state across the hosted UI's redirect. */
describe('console routes', () => {
  it('every page, and every application, destination, delivery and dead letter, has an address that reads back as itself', () => {
    const routes = [
      ...Object.keys(PAGES).map((page) => ({ page: page as Page })),
      { page: 'applications' as const, id: 'app_1' },
      { page: 'destinations' as const, id: 'dst_1' },
      { page: 'destinations' as const, id: 'dst_1', delivery: 'dlv_1' },
      { page: 'dead-letters' as const, id: 'dlv_2' },
      // An id with characters a path would split on stays one id.
      { page: 'applications' as const, id: 'a/b c#d' },
    ];
    for (const route of routes) expect(routeOf(hrefOf(route))).toEqual(route);
    expect(hrefOf({ page: 'destinations', id: 'dst_1', delivery: 'dlv_1' })).toBe('#/destinations/dst_1/deliveries/dlv_1');
  });

  it('an address that names no page is no route', () => {
    for (const hash of [
      '',
      '#',
      '#/',
      '#/nowhere',
      '#/menus/x',
      '#/audit/x',
      '#/applications/a/deliveries/d',
      '#/destinations/%E0%A4%A',
      '#/destinations/a/b',
    ])
      expect(routeOf(hash), hash).toBeNull();
  });

  it('the route kept beside the PKCE state comes back with the verifier when the state matches, and only then', () => {
    const stored = keep({ verifier: 'v', state: 's', route: '#/destinations/dst_1' });
    expect(answerTo(stored, 's')).toEqual({ verifier: 'v', route: '#/destinations/dst_1' });
    expect(() => answerTo(stored, 'other')).toThrow('does not match this tab');
    expect(() => answerTo(stored, null)).toThrow('does not match this tab');
    expect(answerTo(null, 's')).toBeNull();
  });

  it('a kept route that names no page lands on the first page', () => {
    for (const route of ['', 'javascript:alert(1)', '#/nowhere', '//evil.example/'])
      expect(answerTo(keep({ verifier: 'v', state: 's', route }), 's')).toEqual({ verifier: 'v', route: hrefOf(HOME) });
  });
});
