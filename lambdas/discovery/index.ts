import { apiHandler } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Discovery family; also API Gateway's catch-all, answering 404/405 for unknown paths and methods. */
export function createHandler(deps: Deps) {
  return apiHandler('discovery', operations, deps, reads);
}
