import { sportsRepo } from '#data/sports';
import { apiHandler, v1Repositories } from '#platform/api-handler';
import { SPORTSQ_ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories({ sports: sportsRepo });

/** Sports programming: provider environment, packages, exact-date programming and the legacy guide. */
export function createHandler(deps: Deps) {
  return apiHandler('sportsq', operations, deps, { routes: SPORTSQ_ROUTES, reads, repositories });
}
