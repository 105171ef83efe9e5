import type * as schemas from './schemas.js';
import { familyRoutes, type FamilyRows } from '#contract/routes';

/** The orderboard family's routes (a route is one row: docs/development.md#adding-a-route). */
export const ORDERBOARD_ROUTES = familyRoutes('orderboard', [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/orderboard',
    operation: 'orderboard',
    scope: 'orderboard:read',
    summary: 'Order-board placeholder (coming soon)',
    mix: 1,
    response: 'orderboardData',
  },
] as const satisfies FamilyRows<typeof schemas>);
