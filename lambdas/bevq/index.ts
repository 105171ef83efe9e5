import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { operations } from './operations.js';

/** Beverage-menu family: group availability, location status and the menu with conditional reads. */
export function createHandler(deps: Deps) {
  return apiHandler('bevq', operations, deps);
}
