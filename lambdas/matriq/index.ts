import { matriqRepo } from '#data/matriq';
import { sportsRepo } from '#data/sports';
import { apiHandler, v1Repositories } from '#platform/api-handler';
import { MATRIQ_ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories({ matriq: matriqRepo, sports: sportsRepo });

/** Display devices: gateway, devices, provider availability, Auto Scheduler and its emergency stop. */
export function createHandler(deps: Deps) {
  return apiHandler('matriq', operations, deps, { routes: MATRIQ_ROUTES, reads, repositories });
}
