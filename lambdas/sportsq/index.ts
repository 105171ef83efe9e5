import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { operations } from './operations.js';

/** Sports programming: provider environment, packages, exact-date programming and the legacy guide. */
export function createHandler(deps: Deps) {
  return apiHandler('sportsq', operations, deps);
}
