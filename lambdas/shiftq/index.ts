import { apiHandler } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Staff and operations family: overview, sales, labor, kitchen, staff, reservations, reviews, group leaderboard. */
export function createHandler(deps: Deps) {
  return apiHandler('shiftq', operations, deps, reads);
}
