import { apiHandler } from '#platform/api-handler';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Display devices: gateway, devices, provider availability, Auto Scheduler and its emergency stop. */
export function createHandler(deps: Deps) {
  return apiHandler('matriq', operations, deps, reads);
}
