import { apiHandler } from '../shared/api-handler.js';
import type { Deps } from '../shared/deps.js';
import { operations } from './operations.js';

/** Display devices: gateway, devices, provider availability, Auto Scheduler and its emergency stop. */
export function createHandler(deps: Deps) {
  return apiHandler('matriq', operations, deps);
}
