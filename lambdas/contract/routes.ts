import type { GenericSchema } from 'valibot';
import { MODULES, type Module, type Scope } from './scopes.js';
import type { ParameterRules } from './schemas/requests.js';

/**
 * A /v1 route, one row holding every fact about it. Each family declares its rows in its own room
 * (lambdas/<family>/routes.ts, beside the schemas they name); the discovery room gathers them all
 * (lambdas/discovery/all-routes.ts), and API Gateway (lib/), the local gateway, each family Lambda's dispatch,
 * the OpenAPI document, the throttles and the capacity model derive from them (docs/development.md#adding-a-route).
 */
export type Route = {
  method: 'GET' | 'POST';
  /** API Gateway resource path; `{name}` is a path parameter. */
  path: string;
  /** The Lambda that serves it: set once per list by familyRoutes. */
  family: Family;
  /** Unique name; the family's implementation of the route. */
  operation: string;
  /** Bearer scope required; null for the unauthenticated routes. */
  scope: Scope | null;
  /** One line for the OpenAPI document. */
  summary: string;
  /** Its relative weight in the expected traffic mix: the throttles and the capacity model derive from it (lib/route-throttles.ts). */
  mix: number;
  /**
   * The export name of its JSON answer's schema in the family's schema module (the envelope's `data`, or the token
   * endpoint's body); absent for a route that serves a document or files of its own. A name, type-checked against
   * that module, so a function's bundle carries a word rather than the schema: only the OpenAPI document reads it.
   */
  response?: string;
  query?: ParameterRules;
  /** Path-parameter rules (OpenAPI documents them); a breaking value gets 400, after authorization. */
  params?: ParameterRules;
  /** Optional JSON request body (OpenAPI requestBody); the operation parses it with parseJsonBody and accepts Idempotency-Key. */
  body?: GenericSchema;
  /** What each field of its query, path parameters and body means, for the OpenAPI document. */
  fields?: Readonly<Record<string, string>>;
  /** Media types of a route that serves files instead of the JSON envelope. */
  produces?: readonly string[];
  /** Sends an ETag and answers 304 to a matching If-None-Match (OpenAPI documents the 304). */
  conditional?: true;
  /** A legacy route or alias the contract keeps (section 9): it carries Deprecation and Sunset once a stage sets their dates. */
  legacy?: true;
};

/** A row as its family's list declares it: the list names the family, and `response` one of the schema module's exports. */
export type FamilyRows<Schemas = Record<never, never>> = readonly (Omit<Route, 'family' | 'response'> & {
  response?: keyof Schemas & string;
})[];

/**
 * A family's rows as routes, each keeping its literal path and scope, so an operation's request type follows its row
 * (lambdas/platform/api-handler.ts): `familyRoutes('bevq', [...] as const satisfies FamilyRows<typeof schemas>)`.
 */
export function familyRoutes<const F extends Family, const R extends FamilyRows<never>>(family: F, rows: R) {
  return rows.map((row) => ({ ...row, family })) as unknown as { readonly [K in keyof R]: R[K] & { family: F } };
}

/** A family's read row: `GET` under the family's read scope, keeping the row's literal types (`readRow<typeof schemas>(BEVQ_SCOPE)`). */
export const readRow =
  <Schemas>(scope: Scope) =>
  <const R extends Omit<FamilyRows<Schemas>[number], 'method' | 'scope'>>(row: R) =>
    ({ method: 'GET', ...row, scope }) as const;

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

/** What the pipeline needs of a route beyond its row: worked out once, when a function starts, not per request. */
export type RouteFacts = { atLocation: boolean; module: Module | null; resource: string };

export const withFacts = <R extends Route>(route: R): R & RouteFacts => ({
  ...route,
  atLocation: isLocationRoute(route),
  module: moduleOfRoute(route),
  resource: resourceName(route),
});
