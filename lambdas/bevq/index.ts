import { groupsRepo } from '#data/groups';
import { menusRepo } from '#data/menus';
import { apiHandler, v1Repositories } from '#platform/api-handler';
import { BEVQ_ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories({ groups: groupsRepo, menus: menusRepo });

/** Beverage-menu family: group availability, location status and the menu with conditional reads. */
export function createHandler(deps: Deps) {
  return apiHandler('bevq', operations, deps, { routes: BEVQ_ROUTES, reads, repositories });
}
