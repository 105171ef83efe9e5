import type * as schemas from './schemas.js';
import { familyRoutes, readRow, type FamilyRows } from '#contract/routes';
import { GROUP_PAGE_FIELDS, REVIEW_PAGE_LIMIT, businessDateQuery, groupPageQuery, reviewsQuery } from '#contract/schemas/requests';

/** `businessDate` and its alias, as the sales, labor and kitchen reads take them. */
const BY_BUSINESS_DATE = {
  query: businessDateQuery,
  fields: { businessDate: 'Business date YYYYMMDD; default: the current business date', businessDay: 'Alias of businessDate' },
};

/**
 * A shiftq route: a read that shiftq:read governs. The contract does not name the reviews' scope; they are
 * staff-and-operations data, so it governs them too.
 */
const read = readRow<typeof schemas>('shiftq:read');

/** The shiftq family's routes (a route is one row: docs/development.md#adding-a-route). */
export const SHIFTQ_ROUTES = familyRoutes('shiftq', [
  read({
    path: '/v1/{group_id}/{location_id}/shiftq',
    operation: 'shiftqOverview',
    summary: 'Overview: summary counts of the current business date (2.3)',
    mix: 5,
    response: 'overviewData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/sales',
    operation: 'shiftqSales',
    ...BY_BUSINESS_DATE,
    summary: 'Sales snapshot of a business date with a same-weekday prior-week compare',
    mix: 6,
    response: 'salesData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/labor',
    operation: 'shiftqLabor',
    ...BY_BUSINESS_DATE,
    summary: 'Labor summary of a business date',
    mix: 5,
    response: 'laborData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/kitchen',
    operation: 'shiftqKitchen',
    ...BY_BUSINESS_DATE,
    summary: 'Kitchen ticket averages: current snapshot and the requested business date (2.4)',
    mix: 8,
    response: 'kitchenData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/clock-ins',
    operation: 'shiftqClockIns',
    summary: 'Clock-ins, role coverage and attendance exceptions of the current business date',
    mix: 3,
    response: 'clockInsData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/pos-menu',
    operation: 'shiftqPosMenu',
    summary: 'POS menu with its stock overlay',
    mix: 2,
    response: 'posMenuData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/employees',
    operation: 'shiftqEmployees',
    summary: 'Employee, job, shift and time-entry collections',
    mix: 2,
    response: 'employeesData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/reservations',
    operation: 'shiftqReservations',
    summary: 'Reservations from the POS reservation digest (2.5)',
    mix: 2,
    response: 'reservationsData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/toastReservations',
    operation: 'shiftqToastReservations',
    legacy: true,
    summary: 'Alias of shiftq/reservations (2.5)',
    mix: 0.5,
    response: 'reservationsData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/shiftq/reviews',
    operation: 'shiftqReviews',
    query: reviewsQuery,
    fields: {
      limit: `Page size ${REVIEW_PAGE_LIMIT.min}-${REVIEW_PAGE_LIMIT.max}, default ${REVIEW_PAGE_LIMIT.default}`,
      pageToken: 'Opaque nextPageToken of the previous page, with the same filters',
      minRating: 'Lowest rating, 1-5',
      maxRating: 'Highest rating, 1-5',
      createdFrom: 'First local calendar day (YYYY-MM-DD) of createdAt, inclusive',
      createdTo: 'Last local calendar day (YYYY-MM-DD) of createdAt, inclusive',
    },
    summary: 'Provider-neutral reviews, newest first, with bounded filters and opaque signed page tokens (2.6)',
    mix: 2,
    response: 'reviewsData',
  }),
  read({
    path: '/v1/{group_id}/shiftq/group-leaderboard',
    operation: 'shiftqGroupLeaderboard',
    query: groupPageQuery,
    fields: GROUP_PAGE_FIELDS,
    summary: 'Accessible locations ranked by net sales and lowest labor, discounts and voids percentages (2.7)',
    mix: 1,
    response: 'groupLeaderboardData',
  }),
] as const satisfies FamilyRows<typeof schemas>);
