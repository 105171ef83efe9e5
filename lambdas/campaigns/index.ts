import { apiHandler } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Campaigns of a group or a location, with display-device status. */
export function createHandler(deps: Deps) {
  return apiHandler('campaigns', operations, deps, reads);
}
