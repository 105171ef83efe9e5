import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { operations } from './operations.js';

/** Campaigns of a group or a location, with display-device status. */
export function createHandler(deps: Deps) {
  return apiHandler('campaigns', operations, deps);
}
