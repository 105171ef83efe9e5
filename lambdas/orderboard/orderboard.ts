import { ok, type Operations, v1Function } from '#platform/api-handler';
import { ORDERBOARD_REFRESH } from '#contract/refresh';
import { locationRefOf } from '#domain/sports-day';
import { ORDERBOARD_ROUTES } from './routes.js';

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

/** Order-board placeholder. */
export const { repositories, createHandler, handler } = v1Function('orderboard', operations, ORDERBOARD_ROUTES);
