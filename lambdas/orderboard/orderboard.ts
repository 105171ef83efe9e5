import { ok, apiHandler, type Operations, v1Repositories } from '#platform/api-handler';
import { ORDERBOARD_REFRESH } from '#contract/refresh';
import { locationRefOf } from '#domain/sports-day';
import { ORDERBOARD_ROUTES } from './routes.js';
import { defaultDeps, type Deps } from '#platform/deps';

export const operations: Operations<typeof ORDERBOARD_ROUTES> = {
  orderboard: {
    async run(req) {
      return ok(req, {
        location: locationRefOf(req.location),
        refresh: ORDERBOARD_REFRESH,
        status: 'coming_soon' as const,
        message: 'Order-board resources are coming soon; orderboard:read will grant them without a new scope.',
      });
    },
  },
};

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories();

/** Order-board placeholder. */
export function createHandler(deps: Deps) {
  return apiHandler('orderboard', operations, deps, { routes: ORDERBOARD_ROUTES, repositories });
}

/** The Lambda entry (lib/functions.ts). */
export const handler = createHandler(defaultDeps(repositories));
