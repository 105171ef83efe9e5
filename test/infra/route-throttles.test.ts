import { describe, expect, it } from 'vitest';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { AWS_DEFAULT_QUOTAS, AWS_QUOTAS } from '#lib/aws-quotas';
import {
  mixShare,
  OTHER_ROUTE_COUNT,
  OTHER_ROUTE_THROTTLE,
  PRODUCER_RATE_LIMIT,
  PRODUCER_ROUTE_KEY,
  routeKeyOf,
  throttleSum,
} from '#lib/route-throttles';
import { STAGE_TABLE, STAGES, throttlesOf } from '#lib/stages';
import { PRODUCER_LOCATIONS, producerRequestsPerSecond } from '#lib/producer-load';
import { rateLimitCeiling } from '#lambdas/admin/apps';

/** The gateway's per-route throttles, derived from the route mix and each stage's capacity (lib/route-throttles.ts). */
describe('per-route throttles', () => {
  it("give every route its row's share of the mix, and the shares make the whole", () => {
    for (const route of ROUTES) expect(mixShare(route), route.operation).toBeGreaterThan(0);
    expect(ROUTES.reduce((sum, r) => sum + mixShare(r), 0)).toBeCloseTo(1, 12);
    const bevqMenu = ROUTES.find((r) => r.operation === 'bevqMenu')!;
    expect(mixShare(bevqMenu)).toBe(bevqMenu.mix / ROUTES.reduce((sum, r) => sum + r.mix, 0));
  });

  for (const stage of STAGES) {
    it(`${stage}: add up within AWS's default API Gateway account quota, and give every route at least the mix at the stage's capacity`, () => {
      const row = STAGE_TABLE[stage];
      const { routes, default: others } = throttlesOf(row);
      const accountRps = AWS_DEFAULT_QUOTAS.apiThrottleQuota;
      const sum = Object.values(routes).reduce((n, t) => n + t.rateLimit, 0) + OTHER_ROUTE_COUNT * others.rateLimit;
      expect(throttleSum(routes)).toBe(sum);
      expect(sum).toBeLessThanOrEqual(accountRps);
      for (const route of ROUTES) {
        const throttle = routes[routeKeyOf(route)]!;
        expect(throttle.rateLimit, route.operation).toBeGreaterThanOrEqual(mixShare(route) * row.capacity.requestsPerSecond);
        // An application at the most the stage gives one is refused by the service (429, Retry-After) before this throttle.
        expect(rateLimitCeiling(row.capacity.perRouteFloor) / 60, route.operation).toBeLessThanOrEqual(throttle.rateLimit);
        expect(throttle.burstLimit).toBeGreaterThanOrEqual(throttle.rateLimit);
        expect(throttle.burstLimit).toBeLessThanOrEqual(AWS_QUOTAS.apiGatewayAccountBurst.default);
      }
      expect(others).toEqual(OTHER_ROUTE_THROTTLE);
    });
  }

  it("give the producer route its own throttle in every stage, the producers' feeds at 10,000 locations with a quarter's headroom, counted in the sum", () => {
    const load = producerRequestsPerSecond(PRODUCER_LOCATIONS);
    expect(PRODUCER_RATE_LIMIT).toBe(Math.ceil(load * 1.25));
    for (const stage of STAGES) {
      const { routes } = throttlesOf(STAGE_TABLE[stage]);
      const producer = routes[PRODUCER_ROUTE_KEY]!;
      expect(producer.rateLimit, stage).toBe(PRODUCER_RATE_LIMIT);
      expect(producer.rateLimit, stage).toBeGreaterThan(load);
      expect(producer.burstLimit, stage).toBeGreaterThanOrEqual(producer.rateLimit);
      expect(producer.burstLimit, stage).toBeLessThanOrEqual(AWS_QUOTAS.apiGatewayAccountBurst.default);
      const { [PRODUCER_ROUTE_KEY]: _producer, ...mix } = routes;
      expect(throttleSum(routes) - throttleSum(mix), stage).toBe(producer.rateLimit);
    }
  });
});
