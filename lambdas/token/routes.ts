import type * as schemas from './schemas.js';
import { familyRoutes, type FamilyRows, TOKEN_PATH } from '#contract/routes';

/** The token family's routes (a route is one row: docs/development.md#adding-a-route). */
export const TOKEN_ROUTES = familyRoutes('token', [
  {
    method: 'POST',
    path: TOKEN_PATH,
    operation: 'issueToken',
    scope: null,
    summary: 'Exchange client credentials for a 24-hour access token',
    mix: 0.2,
    response: 'tokenResponse',
  },
] as const satisfies FamilyRows<typeof schemas>);
