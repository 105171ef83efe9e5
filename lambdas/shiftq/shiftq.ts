import { activeBusinessDate } from '#contract/business-date';
import { SHIFTQ_ROUTES } from './routes.js';
import type { CurrentKind } from './inputs.js';
import { reviewKeys } from './review-records.js';
import { shiftqKeys, type StoredDatedKind } from './records.js';
import { type Operations, type ReadHints, v1Function } from '#platform/api-handler';
import { SHIFTQ_REPOSITORIES, type ShiftqStore } from './store.js';
import { groupPageReads } from '#platform/group-page';
import { shiftqEmployees, shiftqPosMenu, shiftqReservations, shiftqToastReservations } from './current-reads.js';
import { requestedDate, shiftqClockIns, shiftqKitchen, shiftqLabor, shiftqSales } from './dated-reads.js';
import { priorWeekDate } from './sales.js';
import { shiftqGroupLeaderboard } from './group-leaderboard.js';
import { shiftqOverview } from './overview.js';
import { reviewsFirstPage, shiftqReviews } from './reviews.js';

/** Today's business date at the path's location, by the zone this process last saw there. */
const todayAt = ({ timezone, now }: ReadHints) => (timezone === undefined ? undefined : activeBusinessDate(timezone, now));
const path = ({ params }: ReadHints) => [params.group_id!, params.location_id!] as const;
/** The current-state items (replaced on every load) that these routes read, named by the path. */
const current = (hints: ReadHints, ...kinds: CurrentKind[]) => kinds.map((kind) => shiftqKeys.current(...path(hints), kind));
/** Dated items of known dates; an unknown date (no zone seen yet) reads nothing ahead. */
const dated = (hints: ReadHints, ...items: [StoredDatedKind, string | undefined][]) =>
  items.flatMap(([kind, date]) => (date === undefined ? [] : [shiftqKeys.dated(...path(hints), kind, date)]));
const requestedAt = (hints: ReadHints) => {
  const today = todayAt(hints);
  return today === undefined ? undefined : requestedDate(hints.query, today);
};

/** The shiftq routes' operations: each runs in the module named for what it reads, its read-ahead named here. */
export const operations: Operations<typeof SHIFTQ_ROUTES, ShiftqStore> = {
  shiftqOverview: {
    reads: (h) => [
      ...current(h, 'posMenu', 'employees', 'reservations'),
      ...dated(h, ['kitchenSnapshot', todayAt(h)], ['sales', todayAt(h)], ['labor', todayAt(h)], ['clockIns', todayAt(h)]),
    ],
    run: shiftqOverview,
  },
  shiftqSales: {
    reads: (h) => {
      const date = requestedAt(h);
      return dated(h, ['sales', date], ['sales', date && priorWeekDate(date)]);
    },
    run: shiftqSales,
  },
  shiftqLabor: { reads: (h) => dated(h, ['labor', requestedAt(h)], ['sales', requestedAt(h)]), run: shiftqLabor },
  shiftqKitchen: { reads: (h) => dated(h, ['kitchenSnapshot', todayAt(h)], ['kitchenSnapshot', requestedAt(h)]), run: shiftqKitchen },
  shiftqClockIns: { reads: (h) => dated(h, ['clockIns', todayAt(h)]), run: shiftqClockIns },
  shiftqPosMenu: { reads: (h) => current(h, 'posMenu'), run: shiftqPosMenu },
  shiftqEmployees: { reads: (h) => current(h, 'employees'), run: shiftqEmployees },
  shiftqReservations: { reads: (h) => current(h, 'reservations'), run: shiftqReservations },
  shiftqToastReservations: { reads: (h) => current(h, 'reservations'), run: shiftqToastReservations },
  shiftqReviews: { reads: (h) => [reviewKeys.meta(...path(h)), ...reviewsFirstPage(h)], run: shiftqReviews },
  shiftqGroupLeaderboard: { reads: groupPageReads, run: shiftqGroupLeaderboard },
};

/** Staff and operations family: overview, sales, labor, kitchen, staff, reservations, reviews, group leaderboard. */
export const { repositories, createHandler, handler } = v1Function<ShiftqStore>('shiftq', operations, SHIFTQ_ROUTES, SHIFTQ_REPOSITORIES);
