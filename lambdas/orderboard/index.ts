import { apiHandler, v1Repositories } from '#platform/api-handler';
import { ORDERBOARD_ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { operations } from './operations.js';

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories();

/** Order-board placeholder. */
export function createHandler(deps: Deps) {
  return apiHandler('orderboard', operations, deps, { routes: ORDERBOARD_ROUTES, repositories });
}
