import type * as schemas from '#contract/schemas/discovery';
import { familyRoutes, readRow, type FamilyRows } from '#contract/routes';
import { GROUP_PAGE_FIELDS, groupPageQuery } from '#contract/schemas/requests';

/** A read of the locations and their modules: locations:read governs it. */
const read = readRow<typeof schemas>('locations:read');

/** The discovery family's routes (a route is one row: docs/development.md#adding-a-route). */
export const DISCOVERY_ROUTES = familyRoutes('discovery', [
  {
    method: 'GET',
    path: '/v1/openapi.json',
    operation: 'openapi',
    scope: null,
    summary: 'This OpenAPI 3.1 document',
    mix: 0.1,
  },
  read({
    path: '/v1/{group_id}/locations',
    operation: 'listLocations',
    query: groupPageQuery,
    fields: GROUP_PAGE_FIELDS,
    summary: 'Accessible locations, enabled modules, granted resources and the token block',
    mix: 3,
    response: 'locationsData',
  }),
  read({
    path: '/v1/{group_id}/modules',
    operation: 'groupModules',
    query: groupPageQuery,
    fields: GROUP_PAGE_FIELDS,
    summary: 'Modules of the group and which accessible locations have each enabled',
    mix: 1,
    response: 'groupModulesData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/modules',
    operation: 'locationModules',
    summary: "A location's modules, whether each is granted, and its granted resources",
    mix: 2,
    response: 'locationModulesData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}',
    operation: 'locationSummary',
    summary: 'Location summary (the `root` endpoint)',
    mix: 3,
    response: 'locationSummaryData',
  }),
] as const satisfies FamilyRows<typeof schemas>);
