import type { GenericSchema } from 'valibot';
import { moduleOfScope, type Module, type Scope } from './scopes.js';
import * as requests from './schemas/requests.js';
import type { ParameterRules } from './schemas/requests.js';

/**
 * The route table, declared once, as data. API Gateway (lib/), the local
 * gateway, each family Lambda's dispatch, the OpenAPI document and the
 * discovery `resources` list are all derived from it. It names the request
 * rules each function validates; the response schemas, which only the
 * OpenAPI document needs, are in schemas/responses.ts.
 */
export type Route = {
  method: 'GET' | 'POST';
  /** API Gateway resource path; `{name}` is a path parameter. */
  path: string;
  /** The Lambda that serves it. */
  family: Family;
  /** Unique name; the family's implementation of the route. */
  operation: string;
  /** Bearer scope required; null for the unauthenticated routes. */
  scope: Scope | null;
  summary: string;
  query?: ParameterRules;
  /** Path-parameter rules (OpenAPI documents them); a breaking value gets 400, after authorization. */
  params?: ParameterRules;
  /** Optional JSON request body (OpenAPI requestBody); the operation parses it with parseJsonBody and accepts Idempotency-Key. */
  body?: GenericSchema;
  /** Media types of a route that serves files instead of the JSON envelope. */
  produces?: readonly string[];
  /** Sends an ETag and answers 304 to a matching If-None-Match (OpenAPI documents the 304). */
  conditional?: true;
};

export const FAMILIES = ['token', 'discovery', 'bevq', 'sportsq', 'matriq', 'campaigns', 'orderboard', 'assets', 'shiftq'] as const;
export type Family = (typeof FAMILIES)[number];

/**
 * The family API Gateway's `$default` route reaches: every path and method
 * no route matches. Its function alone resolves every route (a wrong method
 * anywhere is its 405); each other function knows only its own routes.
 */
export const CATCH_ALL_FAMILY: Family = 'discovery';

export const TOKEN_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/oauth/token',
    family: 'token',
    operation: 'issueToken',
    scope: null,
    summary: 'Exchange client credentials for a 24-hour access token',
  },
];

export const DISCOVERY_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/openapi.json',
    family: 'discovery',
    operation: 'openapi',
    scope: null,
    summary: 'This OpenAPI 3.1 document',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/locations',
    family: 'discovery',
    operation: 'listLocations',
    scope: 'locations:read',
    summary: 'Accessible locations, enabled modules, granted resources and the token block',
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/modules',
    family: 'discovery',
    operation: 'groupModules',
    scope: 'locations:read',
    summary: 'Modules of the group and which accessible locations have each enabled',
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/modules',
    family: 'discovery',
    operation: 'locationModules',
    scope: 'locations:read',
    summary: "A location's modules, whether each is granted, and its granted resources",
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}',
    family: 'discovery',
    operation: 'locationSummary',
    scope: 'locations:read',
    summary: 'Location summary (the `root` endpoint)',
  },
];

export const BEVQ_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/{group_id}/bevq',
    family: 'bevq',
    operation: 'bevqGroup',
    scope: 'bevq:read',
    summary: 'Beverage-menu availability across the accessible locations of the group',
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/bevq',
    family: 'bevq',
    operation: 'bevqLocation',
    scope: 'bevq:read',
    summary: "A location's beverage-menu status and menu endpoint",
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/bevq/menu',
    family: 'bevq',
    operation: 'bevqMenu',
    scope: 'bevq:read',
    summary: 'The complete beverage menu (ETag; If-None-Match gives 304 when unchanged)',
    conditional: true,
  },
];

export const SPORTSQ_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq',
    family: 'sportsq',
    operation: 'sportsGuide',
    scope: 'sportsq:read',
    summary: 'Legacy sports guide for one date (default: the current business date); retained for existing integrations',
    query: requests.guideQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/provider',
    family: 'sportsq',
    operation: 'sportsProvider',
    scope: 'sportsq:read',
    summary: "The location's sports provider environment and today's provider-availability health",
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/packages',
    family: 'sportsq',
    operation: 'sportsPackages',
    scope: 'sportsq:read',
    summary: 'Legacy package catalog plus the canonical packages projection',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/{date}',
    family: 'sportsq',
    operation: 'sportsProgramming',
    scope: 'sportsq:read',
    summary: 'Programming for exactly one date (YYYY-MM-DD) with schedule and provider health; never another day',
    params: requests.programmingDateParams,
  },
];

export const MATRIQ_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq',
    family: 'matriq',
    operation: 'matriqOverview',
    scope: 'matriq:read',
    summary: 'Display-device overview: device ids, provider count, Auto Scheduler published/running',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/gateway',
    family: 'matriq',
    operation: 'matriqGateway',
    scope: 'matriq:read',
    summary: "The location's device gateway and its health",
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/devices',
    family: 'matriq',
    operation: 'matriqDevices',
    scope: 'matriq:read',
    summary: 'Display devices and their health',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/providerAvailable',
    family: 'matriq',
    operation: 'matriqProviderAvailable',
    scope: 'matriq:read',
    summary: 'Provider availability for the active business date (legacy compatibility shape)',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/providerAvailable',
    family: 'matriq',
    operation: 'providerAvailableAlias',
    scope: 'matriq:read',
    summary: 'Direct alias of matriq/providerAvailable',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler',
    family: 'matriq',
    operation: 'matriqAiScheduler',
    scope: 'matriq:read',
    summary: 'Auto Scheduler state, the current published draft and the emergency-stop action',
  },
  {
    method: 'POST',
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler/emergency-stop',
    family: 'matriq',
    operation: 'matriqEmergencyStop',
    scope: 'matriq:ai-scheduler:stop',
    summary: 'Queue an emergency stop of the Auto Scheduler (Idempotency-Key supported)',
    body: requests.emergencyStopBody,
  },
];

export const CAMPAIGNS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/{group_id}/campaigns',
    family: 'campaigns',
    operation: 'groupCampaigns',
    scope: 'campaigns:read',
    summary: 'Campaigns across the accessible campaign-enabled locations of the group',
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/campaigns',
    family: 'campaigns',
    operation: 'locationCampaigns',
    scope: 'campaigns:read',
    summary: "A location's campaigns and its display-device status",
  },
];

export const ORDERBOARD_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/orderboard',
    family: 'orderboard',
    operation: 'orderboard',
    scope: 'orderboard:read',
    summary: 'Order-board placeholder (coming soon)',
  },
];

export const ASSETS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/assets/sports-logo/{name}',
    family: 'assets',
    operation: 'sportsLogo',
    scope: null,
    summary: 'A sports logo image (public; long-lived cache, ETag)',
    params: requests.sportsLogoParams,
    produces: ['image/svg+xml', 'image/png'],
    conditional: true,
  },
];

export const SHIFTQ_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq',
    family: 'shiftq',
    operation: 'shiftqOverview',
    scope: 'shiftq:read',
    summary: 'Overview: summary counts of the current business date (2.3)',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/sales',
    family: 'shiftq',
    operation: 'shiftqSales',
    scope: 'shiftq:read',
    summary: 'Sales snapshot of a business date with a same-weekday prior-week compare',
    query: requests.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/labor',
    family: 'shiftq',
    operation: 'shiftqLabor',
    scope: 'shiftq:read',
    summary: 'Labor summary of a business date',
    query: requests.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/kitchen',
    family: 'shiftq',
    operation: 'shiftqKitchen',
    scope: 'shiftq:read',
    summary: 'Kitchen ticket averages: current snapshot and the requested business date (2.4)',
    query: requests.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/clock-ins',
    family: 'shiftq',
    operation: 'shiftqClockIns',
    scope: 'shiftq:read',
    summary: 'Clock-ins, role coverage and attendance exceptions of the current business date',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/pos-menu',
    family: 'shiftq',
    operation: 'shiftqPosMenu',
    scope: 'shiftq:read',
    summary: 'POS menu with its stock overlay',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/employees',
    family: 'shiftq',
    operation: 'shiftqEmployees',
    scope: 'shiftq:read',
    summary: 'Employee, job, shift and time-entry collections',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/reservations',
    family: 'shiftq',
    operation: 'shiftqReservations',
    scope: 'shiftq:read',
    summary: 'Reservations from the POS reservation digest (2.5)',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/toastReservations',
    family: 'shiftq',
    operation: 'shiftqToastReservations',
    scope: 'shiftq:read',
    summary: 'Alias of shiftq/reservations (2.5)',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/reviews',
    family: 'shiftq',
    operation: 'shiftqReviews',
    // The contract does not name this scope; reviews are staff-and-operations data, so shiftq:read governs them.
    scope: 'shiftq:read',
    summary: 'Provider-neutral reviews, newest first, with bounded filters and opaque signed page tokens (2.6)',
    query: requests.reviewsQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/shiftq/group-leaderboard',
    family: 'shiftq',
    operation: 'shiftqGroupLeaderboard',
    scope: 'shiftq:read',
    summary: 'Accessible locations ranked by net sales and lowest labor, discounts and voids percentages (2.7)',
    query: requests.groupPageQuery,
  },
];

/** Every route, in the order above: API Gateway, the local gateway, OpenAPI and discovery read this; a family's function bundles only its own list. */
// A pure call, so a bundle that never reads ROUTES drops it (a spread would be kept: it runs iterators).
export const ROUTES: readonly Route[] = /* @__PURE__ */ ([] as Route[]).concat(TOKEN_ROUTES, DISCOVERY_ROUTES, BEVQ_ROUTES, SPORTSQ_ROUTES, MATRIQ_ROUTES, CAMPAIGNS_ROUTES, ORDERBOARD_ROUTES, ASSETS_ROUTES, SHIFTQ_ROUTES);

const LOCATION_PREFIX = '/v1/{group_id}/{location_id}';

/** Path parameters that hold ids: a segment breaking the id rule (lambdas/contract/ids.ts) names nothing, so 404. */
export const ID_PARAMS = ['group_id', 'location_id'] as const;

export function isLocationRoute(route: Route): boolean {
  return route.path === LOCATION_PREFIX || route.path.startsWith(`${LOCATION_PREFIX}/`);
}

/** The module a route belongs to, or null for discovery and unauthenticated routes. */
export function moduleOfRoute(route: Route): Module | null {
  return route.scope ? moduleOfScope(route.scope) : null;
}

/** The envelope/discovery resource name: the path below the location (or group), e.g. `shiftq/kitchen`. */
export function resourceName(route: Route): string {
  const below = route.path.replace(/^\/v1\/\{group_id\}(\/\{location_id\})?\/?/, '');
  return below === '' ? 'location' : below;
}

export function routesOf(family: Family): Route[] {
  return ROUTES.filter((r) => r.family === family);
}
