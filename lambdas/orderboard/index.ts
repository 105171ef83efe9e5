import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { operations } from './operations.js';

/** Order-board placeholder. */
export function createHandler(deps: Deps) {
  return apiHandler('orderboard', operations, deps);
}
