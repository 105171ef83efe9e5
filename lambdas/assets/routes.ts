import { familyRoutes, type FamilyRows } from '#contract/routes';
import { sportsLogoParams } from '#contract/schemas/requests';
import { SPORTS_LOGO_PATH } from '#contract/urls';

/** The assets family's routes (a route is one row: docs/development.md#adding-a-route). */
export const ASSETS_ROUTES = familyRoutes('assets', [
  {
    method: 'GET',
    path: SPORTS_LOGO_PATH,
    operation: 'sportsLogo',
    scope: null,
    params: sportsLogoParams,
    fields: { name: 'Logo file name, e.g. nfl.svg' },
    produces: ['image/svg+xml', 'image/png'],
    conditional: true,
    summary: 'A sports logo image (public; long-lived cache, ETag)',
    mix: 2,
  },
] as const satisfies FamilyRows);
