import { ASSETS_ROUTES } from '#lambdas/assets/routes';
import { BEVQ_ROUTES } from '#lambdas/bevq/routes';
import { CAMPAIGNS_ROUTES } from '#lambdas/campaigns/routes';
import { MATRIQ_ROUTES } from '#lambdas/matriq/routes';
import { ORDERBOARD_ROUTES } from '#lambdas/orderboard/routes';
import { SHIFTQ_ROUTES } from '#lambdas/shiftq/routes';
import { SPORTSQ_ROUTES } from '#lambdas/sportsq/routes';
import { TOKEN_ROUTES } from '#lambdas/token/routes';
import type { Route } from '#contract/routes';
import { DISCOVERY_ROUTES } from './routes.js';

/**
 * Every route, each family's list in this order (the OpenAPI document's): the discovery function is API Gateway's
 * catch-all, so it resolves them all (404, 405 with Allow) and lists their resources; API Gateway, the local gateway,
 * the OpenAPI document, the throttles and the benches read this list too. Each other function bundles its own list only.
 */
export const ROUTES: readonly Route[] = [
  ...TOKEN_ROUTES,
  ...DISCOVERY_ROUTES,
  ...BEVQ_ROUTES,
  ...SPORTSQ_ROUTES,
  ...MATRIQ_ROUTES,
  ...CAMPAIGNS_ROUTES,
  ...ORDERBOARD_ROUTES,
  ...ASSETS_ROUTES,
  ...SHIFTQ_ROUTES,
];
