import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { operations } from './operations.js';

/** Staff and operations family: overview, sales, labor, kitchen, staff, reservations, reviews, group leaderboard. */
export function createHandler(deps: Deps) {
  return apiHandler('shiftq', operations, deps);
}
