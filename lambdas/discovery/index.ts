import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { operations } from './operations.js';

/** Discovery family; also API Gateway's catch-all, answering 404/405 for unknown paths and methods. */
export function createHandler(deps: Deps) {
  return apiHandler('discovery', operations, deps);
}
