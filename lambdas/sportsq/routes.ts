import type * as schemas from '#contract/schemas/sportsq';
import { familyRoutes, readRow, type FamilyRows } from '#contract/routes';
import { guideQuery, programmingDateParams } from '#contract/schemas/requests';

/** A sportsq route: a read that sportsq:read governs. */
const read = readRow<typeof schemas>('sportsq:read');

/** The sportsq family's routes (a route is one row: docs/development.md#adding-a-route). */
export const SPORTSQ_ROUTES = familyRoutes('sportsq', [
  read({
    path: '/v1/{group_id}/{location_id}/sportsq',
    operation: 'sportsGuide',
    legacy: true,
    query: guideQuery,
    fields: { date: 'Guide date YYYY-MM-DD; default: the current business date at the location' },
    summary: 'Legacy sports guide for one date (default: the current business date); retained for existing integrations',
    mix: 3,
    response: 'guideData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/sportsq/provider',
    operation: 'sportsProvider',
    summary: "The location's sports provider environment and today's provider-availability health",
    mix: 2,
    response: 'providerData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/sportsq/packages',
    operation: 'sportsPackages',
    summary: 'Legacy package catalog plus the canonical packages projection',
    mix: 2,
    response: 'packagesData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/sportsq/{date}',
    operation: 'sportsProgramming',
    params: programmingDateParams,
    fields: { date: 'Programming date YYYY-MM-DD' },
    summary: 'Programming for exactly one date (YYYY-MM-DD) with schedule and provider health; never another day',
    mix: 10,
    response: 'programmingData',
  }),
] as const satisfies FamilyRows<typeof schemas>);
