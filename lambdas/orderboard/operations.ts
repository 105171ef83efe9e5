import type { Operations } from '#platform/api-handler';
import { ok } from '#platform/envelope';
import { ORDERBOARD_REFRESH } from '#contract/refresh';
import { locationRefOf } from '#domain/sports-day';

export const operations: Operations = {
  async orderboard(req) {
    return ok(req, {
      location: locationRefOf(req.location!),
      refresh: ORDERBOARD_REFRESH,
      status: 'coming_soon' as const,
      message: 'Order-board resources are coming soon; orderboard:read will grant them without a new scope.',
    });
  },
};
