import { reviewsRepo } from '#data/reviews';
import { shiftqRepo } from '#data/shiftq';
import { apiHandler, v1Repositories } from '#platform/api-handler';
import { SHIFTQ_ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories({ reviews: reviewsRepo, shiftq: shiftqRepo });

/** Staff and operations family: overview, sales, labor, kitchen, staff, reservations, reviews, group leaderboard. */
export function createHandler(deps: Deps) {
  return apiHandler('shiftq', operations, deps, { routes: SHIFTQ_ROUTES, reads, repositories });
}
