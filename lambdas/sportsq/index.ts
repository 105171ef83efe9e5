import { apiHandler } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Sports programming: provider environment, packages, exact-date programming and the legacy guide. */
export function createHandler(deps: Deps) {
  return apiHandler('sportsq', operations, deps, reads);
}
