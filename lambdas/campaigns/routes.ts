import type * as schemas from './schemas.js';
import { familyRoutes, readRow, type FamilyRows } from '#contract/routes';
import { GROUP_PAGE_FIELDS, groupPageQuery } from '#contract/schemas/requests';

/** A campaigns read: campaigns:read governs it. */
const read = readRow<typeof schemas>('campaigns:read');

/** The campaigns family's routes (a route is one row: docs/development.md#adding-a-route). */
export const CAMPAIGNS_ROUTES = familyRoutes('campaigns', [
  read({
    path: '/v1/{group_id}/campaigns',
    operation: 'groupCampaigns',
    query: groupPageQuery,
    fields: GROUP_PAGE_FIELDS,
    summary: 'Campaigns across the accessible campaign-enabled locations of the group',
    mix: 1,
    response: 'groupCampaignsData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/campaigns',
    operation: 'locationCampaigns',
    summary: "A location's campaigns and its display-device status",
    mix: 3,
    response: 'locationCampaignsData',
  }),
] as const satisfies FamilyRows<typeof schemas>);
