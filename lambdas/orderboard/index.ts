import { apiHandler } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { operations } from './operations.js';

/** Order-board placeholder. */
export function createHandler(deps: Deps) {
  return apiHandler('orderboard', operations, deps);
}
