import { campaignsRepo } from '#data/campaigns';
import { groupsRepo } from '#data/groups';
import { matriqRepo } from '#data/matriq';
import { apiHandler, v1Repositories } from '#platform/api-handler';
import { CAMPAIGNS_ROUTES } from '#contract/routes';
import type { Deps } from '#platform/deps';
import { operations, reads } from './operations.js';

/** Authorization's repositories and this family's: all its bundle carries. */
export const repositories = v1Repositories({ campaigns: campaignsRepo, groups: groupsRepo, matriq: matriqRepo });

/** Campaigns of a group or a location, with display-device status. */
export function createHandler(deps: Deps) {
  return apiHandler('campaigns', operations, deps, { routes: CAMPAIGNS_ROUTES, reads, repositories });
}
