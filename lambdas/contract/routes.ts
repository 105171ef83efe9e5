import type { GenericSchema } from 'valibot';
import { BEVQ_SCOPE, MODULES, type Module, type Scope } from './scopes.js';
import * as requests from './schemas/requests.js';
import type { ParameterRules } from './schemas/requests.js';

/**
 * The route table, declared once, as data. API Gateway (lib/), the local
 * gateway, each family Lambda's dispatch, the OpenAPI document and the
 * discovery `resources` list are all derived from it. It names the request
 * rules each function validates; the response schemas and the summaries,
 * which only the OpenAPI document needs, are in schemas/responses.ts and
 * route-summaries.ts.
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
  query?: ParameterRules;
  /** Path-parameter rules (OpenAPI documents them); a breaking value gets 400, after authorization. */
  params?: ParameterRules;
  /** Optional JSON request body (OpenAPI requestBody); the operation parses it with parseJsonBody and accepts Idempotency-Key. */
  body?: GenericSchema;
  /** Media types of a route that serves files instead of the JSON envelope. */
  produces?: readonly string[];
  /** Sends an ETag and answers 304 to a matching If-None-Match (OpenAPI documents the 304). */
  conditional?: true;
  /** A legacy route or alias the contract keeps (section 9): it carries Deprecation and Sunset once a stage sets their dates. */
  legacy?: true;
};

export const FAMILIES = ['token', 'discovery', 'bevq', 'sportsq', 'matriq', 'campaigns', 'orderboard', 'assets', 'shiftq'] as const;
export type Family = (typeof FAMILIES)[number];

/**
 * The family API Gateway's `$default` route reaches: every path and method
 * no route matches. Its function alone resolves every route (a wrong method
 * anywhere is its 405); each other function knows only its own routes.
 */
export const CATCH_ALL_FAMILY: Family = 'discovery';

/**
 * The token endpoint. Its path also has an ANY route to the token function (lib/constructs/api.ts, the local
 * gateway), so a wrong method is answered in the OAuth error shape (RFC 6749 5.2) rather than the /v1 one.
 */
export const TOKEN_PATH = '/oauth/token';

/** @public read by name, with every family's list, in test/unit/routes.test.ts */
export const TOKEN_ROUTES = [
  {
    method: 'POST',
    path: TOKEN_PATH,
    family: 'token',
    operation: 'issueToken',
    scope: null,
  },
] as const satisfies readonly Route[];

/** @public read by name, with every family's list, in test/unit/routes.test.ts */
export const DISCOVERY_ROUTES = [
  {
    method: 'GET',
    path: '/v1/openapi.json',
    family: 'discovery',
    operation: 'openapi',
    scope: null,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/locations',
    family: 'discovery',
    operation: 'listLocations',
    scope: 'locations:read',
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/modules',
    family: 'discovery',
    operation: 'groupModules',
    scope: 'locations:read',
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/modules',
    family: 'discovery',
    operation: 'locationModules',
    scope: 'locations:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}',
    family: 'discovery',
    operation: 'locationSummary',
    scope: 'locations:read',
  },
] as const satisfies readonly Route[];

export const BEVQ_ROUTES = [
  {
    method: 'GET',
    path: '/v1/{group_id}/bevq',
    family: 'bevq',
    operation: 'bevqGroup',
    scope: BEVQ_SCOPE,
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/bevq',
    family: 'bevq',
    operation: 'bevqLocation',
    scope: BEVQ_SCOPE,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/bevq/menu',
    family: 'bevq',
    operation: 'bevqMenu',
    scope: BEVQ_SCOPE,
    conditional: true,
  },
] as const satisfies readonly Route[];

export const SPORTSQ_ROUTES = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq',
    family: 'sportsq',
    operation: 'sportsGuide',
    legacy: true,
    scope: 'sportsq:read',
    query: requests.guideQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/provider',
    family: 'sportsq',
    operation: 'sportsProvider',
    scope: 'sportsq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/packages',
    family: 'sportsq',
    operation: 'sportsPackages',
    scope: 'sportsq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/{date}',
    family: 'sportsq',
    operation: 'sportsProgramming',
    scope: 'sportsq:read',
    params: requests.programmingDateParams,
  },
] as const satisfies readonly Route[];

export const MATRIQ_ROUTES = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq',
    family: 'matriq',
    operation: 'matriqOverview',
    scope: 'matriq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/gateway',
    family: 'matriq',
    operation: 'matriqGateway',
    scope: 'matriq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/devices',
    family: 'matriq',
    operation: 'matriqDevices',
    scope: 'matriq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/providerAvailable',
    family: 'matriq',
    operation: 'matriqProviderAvailable',
    legacy: true,
    scope: 'matriq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/providerAvailable',
    family: 'matriq',
    operation: 'providerAvailableAlias',
    legacy: true,
    scope: 'matriq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler',
    family: 'matriq',
    operation: 'matriqAiScheduler',
    scope: 'matriq:read',
  },
  {
    method: 'POST',
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler/emergency-stop',
    family: 'matriq',
    operation: 'matriqEmergencyStop',
    scope: 'matriq:ai-scheduler:stop',
    body: requests.emergencyStopBody,
  },
] as const satisfies readonly Route[];

export const CAMPAIGNS_ROUTES = [
  {
    method: 'GET',
    path: '/v1/{group_id}/campaigns',
    family: 'campaigns',
    operation: 'groupCampaigns',
    scope: 'campaigns:read',
    query: requests.groupPageQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/campaigns',
    family: 'campaigns',
    operation: 'locationCampaigns',
    scope: 'campaigns:read',
  },
] as const satisfies readonly Route[];

export const ORDERBOARD_ROUTES = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/orderboard',
    family: 'orderboard',
    operation: 'orderboard',
    scope: 'orderboard:read',
  },
] as const satisfies readonly Route[];

export const ASSETS_ROUTES = [
  {
    method: 'GET',
    path: '/v1/assets/sports-logo/{name}',
    family: 'assets',
    operation: 'sportsLogo',
    scope: null,
    params: requests.sportsLogoParams,
    produces: ['image/svg+xml', 'image/png'],
    conditional: true,
  },
] as const satisfies readonly Route[];

export const SHIFTQ_ROUTES = [
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq',
    family: 'shiftq',
    operation: 'shiftqOverview',
    scope: 'shiftq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/sales',
    family: 'shiftq',
    operation: 'shiftqSales',
    scope: 'shiftq:read',
    query: requests.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/labor',
    family: 'shiftq',
    operation: 'shiftqLabor',
    scope: 'shiftq:read',
    query: requests.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/kitchen',
    family: 'shiftq',
    operation: 'shiftqKitchen',
    scope: 'shiftq:read',
    query: requests.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/clock-ins',
    family: 'shiftq',
    operation: 'shiftqClockIns',
    scope: 'shiftq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/pos-menu',
    family: 'shiftq',
    operation: 'shiftqPosMenu',
    scope: 'shiftq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/employees',
    family: 'shiftq',
    operation: 'shiftqEmployees',
    scope: 'shiftq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/reservations',
    family: 'shiftq',
    operation: 'shiftqReservations',
    scope: 'shiftq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/toastReservations',
    family: 'shiftq',
    operation: 'shiftqToastReservations',
    legacy: true,
    scope: 'shiftq:read',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/reviews',
    family: 'shiftq',
    operation: 'shiftqReviews',
    // The contract does not name this scope; reviews are staff-and-operations data, so shiftq:read governs them.
    scope: 'shiftq:read',
    query: requests.reviewsQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/shiftq/group-leaderboard',
    family: 'shiftq',
    operation: 'shiftqGroupLeaderboard',
    scope: 'shiftq:read',
    query: requests.groupPageQuery,
  },
] as const satisfies readonly Route[];

/** Every route, in the order above: API Gateway, the local gateway, OpenAPI and discovery read this; a family's function bundles only its own list. */
// A pure call, so a bundle that never reads ROUTES drops it (a spread would be kept: it runs iterators).
export const ROUTES: readonly Route[] = /* @__PURE__ */ ([] as Route[]).concat(
  TOKEN_ROUTES,
  DISCOVERY_ROUTES,
  BEVQ_ROUTES,
  SPORTSQ_ROUTES,
  MATRIQ_ROUTES,
  CAMPAIGNS_ROUTES,
  ORDERBOARD_ROUTES,
  ASSETS_ROUTES,
  SHIFTQ_ROUTES,
);

const LOCATION_PREFIX = '/v1/{group_id}/{location_id}';
/** The paths of location routes, as a type: the location itself and every path below it. */
export type LocationPath = typeof LOCATION_PREFIX | `${typeof LOCATION_PREFIX}/${string}`;

/** Path parameters that hold ids: a segment breaking the id rule (lambdas/contract/ids.ts) names nothing, so 404. */
export const ID_PARAMS = ['group_id', 'location_id'] as const;

export function isLocationRoute(route: Route): boolean {
  return route.path === LOCATION_PREFIX || route.path.startsWith(`${LOCATION_PREFIX}/`);
}

/**
 * The module a route belongs to, the one its scope reads (so a location without that module refuses it), or null
 * for discovery and unauthenticated routes.
 */
export function moduleOfRoute(route: Route): Module | null {
  const prefix = route.scope?.split(':')[0];
  return prefix !== undefined && (MODULES as readonly string[]).includes(prefix) ? (prefix as Module) : null;
}

/** The envelope/discovery resource name: the path below the location (or group), e.g. `shiftq/kitchen`. */
export function resourceName(route: Route): string {
  const below = route.path.replace(/^\/v1\/\{group_id\}(\/\{location_id\})?\/?/, '');
  return below === '' ? 'location' : below;
}
