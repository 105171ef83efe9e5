import { ADMIN_ROUTES } from '#contract/admin-routes';
import { ROUTES, type Route } from '#contract/routes';

/**
 * The expected mix of requests, as relative weights per route operation of the route table (normalised by
 * `mixShare`): menu syncs and today's sports programming dominate, tokens are taken once a day per application.
 * An expectation, not a measurement: the capacity model (bench/capacity-model.ts) and the gateway's per-route
 * throttles both derive from it, so a new route without a weight fails the synth and the bench.
 */
export const ROUTE_MIX: Readonly<Record<string, number>> = {
  issueToken: 0.2,
  openapi: 0.1,
  listLocations: 3,
  groupModules: 1,
  locationModules: 2,
  locationSummary: 3,
  bevqGroup: 1,
  bevqLocation: 3,
  bevqMenu: 20,
  sportsGuide: 3,
  sportsProvider: 2,
  sportsPackages: 2,
  sportsProgramming: 10,
  matriqOverview: 3,
  matriqGateway: 1,
  matriqDevices: 2,
  matriqProviderAvailable: 1,
  providerAvailableAlias: 0.5,
  matriqAiScheduler: 1,
  matriqEmergencyStop: 0.05,
  groupCampaigns: 1,
  locationCampaigns: 3,
  orderboard: 1,
  sportsLogo: 2,
  shiftqOverview: 5,
  shiftqSales: 6,
  shiftqLabor: 5,
  shiftqKitchen: 8,
  shiftqClockIns: 3,
  shiftqPosMenu: 2,
  shiftqEmployees: 2,
  shiftqReservations: 2,
  shiftqToastReservations: 0.5,
  shiftqReviews: 2,
  shiftqGroupLeaderboard: 1,
};

/** The share of all requests a route takes in the mix (0 to 1). */
export function mixShare(route: Pick<Route, 'operation'>): number {
  const weight = ROUTE_MIX[route.operation];
  if (weight === undefined)
    throw new Error(`ROUTE_MIX (lib/route-throttles.ts) has no weight for ${route.operation}: give every route one`);
  const total = ROUTES.reduce((sum, r) => sum + (ROUTE_MIX[r.operation] ?? 0), 0);
  return weight / total;
}

export type Throttle = { rateLimit: number; burstLimit: number };

/** What a stage says it serves: the mix at `requestsPerSecond`, and any one route at least `perRouteFloor` a second. */
export type StageCapacity = { requestsPerSecond: number; perRouteFloor: number };

/** Each route's rate is the mix's at capacity times this: a shift of the mix within a quarter never meets a gateway throttle. */
const MIX_HEADROOM = 1.25;
/** A bucket holds two seconds of its rate (as the stages' single throttle did), never more than the account's burst. */
const BURST_SECONDS = 2;

/**
 * Routes outside the mix (the admin API, its console prefix, their catch-alls, ANY on the token path and `$default`):
 * operators' tools and wrong paths, each held to a small bucket of its own (the stage's default route throttle).
 */
export const OTHER_ROUTE_THROTTLE: Throttle = { rateLimit: 10, burstLimit: 20 };
/** How many such routes the stack builds (lib/constructs/api.ts): each admin route twice, two admin catch-alls, ANY /oauth/token, `$default`. */
export const OTHER_ROUTE_COUNT = ADMIN_ROUTES.length * 2 + 4;

export const routeKeyOf = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * Each route's API Gateway throttle, from the mix and the stage's capacity: the larger of the mix's rate with
 * headroom and the floor. The floor is what bounds one application's limit (60 × floor a minute, `rateLimitCeiling`
 * in lambdas/admin/apps.ts), so an application at its own limit meets the service's 429 with Retry-After on any
 * route before a gateway throttle; traffic in the mix up to the capacity meets neither.
 */
export function routeThrottles(capacity: StageCapacity, accountBurst: number): Record<string, Throttle> {
  return Object.fromEntries(
    ROUTES.map((route) => {
      const rateLimit = Math.max(capacity.perRouteFloor, Math.ceil(mixShare(route) * capacity.requestsPerSecond * MIX_HEADROOM));
      return [routeKeyOf(route), { rateLimit, burstLimit: Math.min(accountBurst, BURST_SECONDS * rateLimit) }];
    }),
  );
}

/** Every route's steady rate added up, the routes outside the mix included: what the account's throttle must leave room for. */
export function throttleSum(throttles: Record<string, Throttle>): number {
  return Object.values(throttles).reduce((sum, t) => sum + t.rateLimit, 0) + OTHER_ROUTE_COUNT * OTHER_ROUTE_THROTTLE.rateLimit;
}
