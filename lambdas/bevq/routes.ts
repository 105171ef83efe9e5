import type * as schemas from '#contract/schemas/bevq';
import { familyRoutes, readRow, type FamilyRows } from '#contract/routes';
import { GROUP_PAGE_FIELDS, groupPageQuery } from '#contract/schemas/requests';
import { BEVQ_SCOPE } from '#contract/scopes';
import { MENU_PATH } from '#contract/urls';

/** A beverage-menu read: bevq:read governs it. */
const read = readRow<typeof schemas>(BEVQ_SCOPE);

/** The bevq family's routes (a route is one row: docs/development.md#adding-a-route). */
export const BEVQ_ROUTES = familyRoutes('bevq', [
  read({
    path: '/v1/{group_id}/bevq',
    operation: 'bevqGroup',
    query: groupPageQuery,
    fields: GROUP_PAGE_FIELDS,
    summary: 'Beverage-menu availability across the accessible locations of the group',
    mix: 1,
    response: 'bevqGroupData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/bevq',
    operation: 'bevqLocation',
    summary: "A location's beverage-menu status and menu endpoint",
    mix: 3,
    response: 'bevqLocationData',
  }),
  read({
    path: MENU_PATH,
    operation: 'bevqMenu',
    conditional: true,
    summary: 'The complete beverage menu (ETag; If-None-Match gives 304 when unchanged)',
    mix: 20,
    response: 'bevqMenuData',
  }),
] as const satisfies FamilyRows<typeof schemas>);
