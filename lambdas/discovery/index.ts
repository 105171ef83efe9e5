import { groupsRepo } from '#data/groups';
import { apiHandler, v1Repositories } from '#platform/api-handler';
import { ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories({ groups: groupsRepo });

/** Discovery family; also API Gateway's catch-all, answering 404/405 for unknown paths and methods. */
export function createHandler(deps: Deps) {
  return apiHandler('discovery', operations, deps, { routes: ROUTES, reads, repositories });
}
