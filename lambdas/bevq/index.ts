import { apiHandler } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Beverage-menu family: group availability, location status and the menu with conditional reads. */
export function createHandler(deps: Deps) {
  return apiHandler('bevq', operations, deps, reads);
}
