import { ADMIN_ROUTES } from '#contract/admin-routes';
import type { Route } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { PRODUCER_PROXY_PATH } from '#lambdas/producers/routes';
import { PRODUCER_LOCATIONS, producerRequestsPerSecond } from './producer-load.js';

/**
 * The share of all requests a route takes in the expected mix (0 to 1): each row's `mix` weight over all of them.
 * An expectation, not a measurement: menu syncs and today's sports programming dominate, tokens are taken once a day
 * per application. The capacity model (bench/capacity-model.ts) and the gateway's per-route throttles both derive from it.
 */
export function mixShare(route: Pick<Route, 'mix'>): number {
  return route.mix / ROUTES.reduce((sum, r) => sum + r.mix, 0);
}

export type Throttle = { rateLimit: number; burstLimit: number };

/** What a stage says it serves: the mix at `requestsPerSecond`, and any one route at least `perRouteFloor` a second. */
export type StageCapacity = { requestsPerSecond: number; perRouteFloor: number };

/** Each route's rate is the mix's at capacity times this: a shift of the mix within a quarter never meets a gateway throttle. */
const MIX_HEADROOM = 1.25;
/** A bucket holds two seconds of its rate (as the stages' single throttle did), never more than the account's burst. */
const BURST_SECONDS = 2;

/**
 * The producer route's steady rate: what the producers send at the contract's cadences to the platform's 10,000
 * locations (PRODUCER_FEEDS in lib/producer-load.ts, the capacity model's write side: 449 updates a second), with the
 * mix's quarter of headroom (562 a second), so a producer meets the gateway's 429 only past the load the stack is
 * sized for. In every stage alike, outside the mix: no customer sends it, and a producer's schedule does not follow a
 * stage's capacity. The producer function's reservation derives from it.
 */
export const PRODUCER_RATE_LIMIT = Math.ceil(producerRequestsPerSecond(PRODUCER_LOCATIONS) * MIX_HEADROOM);
/** The producer API's one route (lib/constructs/api.ts), throttled on its own. */
export const PRODUCER_ROUTE_KEY = `ANY ${PRODUCER_PROXY_PATH}`;

/**
 * Routes outside the mix and the producers' (the admin API, its console prefix, their catch-alls, ANY on the token
 * path and `$default`): operators' tools and wrong paths, each held to a small bucket of its own (the stage's
 * default route throttle).
 */
export const OTHER_ROUTE_THROTTLE: Throttle = { rateLimit: 10, burstLimit: 20 };
/** How many such routes the stack builds (lib/constructs/api.ts): each admin route, the admin and console catch-alls, ANY /oauth/token, `$default`. */
export const OTHER_ROUTE_COUNT = ADMIN_ROUTES.length + 4;

export const routeKeyOf = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * Each route's API Gateway throttle, from the mix and the stage's capacity: the larger of the mix's rate with
 * headroom and the floor. The floor is what bounds one application's limit (60 × floor a minute, `rateLimitCeiling`
 * in lambdas/admin/apps.ts), so an application at its own limit meets the service's 429 with Retry-After on any
 * route before a gateway throttle; traffic in the mix up to the capacity meets neither. The producer route has its
 * own, PRODUCER_RATE_LIMIT.
 */
export function routeThrottles(capacity: StageCapacity, accountBurst: number): Record<string, Throttle> {
  const at = (rateLimit: number): Throttle => ({ rateLimit, burstLimit: Math.min(accountBurst, BURST_SECONDS * rateLimit) });
  const mix = ROUTES.map((route): [string, Throttle] => [
    routeKeyOf(route),
    at(Math.max(capacity.perRouteFloor, Math.ceil(mixShare(route) * capacity.requestsPerSecond * MIX_HEADROOM))),
  ]);
  return Object.fromEntries([...mix, [PRODUCER_ROUTE_KEY, at(PRODUCER_RATE_LIMIT)]]);
}

/** Every route's steady rate added up, the producers' and the routes outside the mix included: what the account's throttle must leave room for. */
export function throttleSum(throttles: Record<string, Throttle>): number {
  return Object.values(throttles).reduce((sum, t) => sum + t.rateLimit, 0) + OTHER_ROUTE_COUNT * OTHER_ROUTE_THROTTLE.rateLimit;
}
