import { shiftqKeys, type StoredDatedKind } from '#data/shiftq';
import { activeBusinessDate } from '#contract/business-date';
import type { CurrentKind } from '#contract/schemas/shiftq-inputs';
import { reviewKeys } from '#data/reviews';
import type { Operations, PathReads, ReadHints } from '#platform/api-handler';
import { groupPageReads } from '#platform/group-page';
import { requestedDate, shiftqClockIns, shiftqKitchen, shiftqLabor, shiftqSales } from './dated-reads.js';
import { priorWeekDate } from './sales-compare.js';
import { shiftqEmployees, shiftqPosMenu, shiftqReservations, shiftqToastReservations } from './current-reads.js';
import { shiftqGroupLeaderboard } from './group-leaderboard.js';
import { shiftqOverview } from './overview.js';
import { reviewsFirstPage, shiftqReviews } from './reviews.js';

/** The shiftq routes' operations, each in the module named for what it reads. */
export const operations: Operations = {
  shiftqOverview,
  shiftqSales,
  shiftqLabor,
  shiftqKitchen,
  shiftqClockIns,
  shiftqPosMenu,
  shiftqEmployees,
  shiftqReservations,
  shiftqToastReservations,
  shiftqReviews,
  shiftqGroupLeaderboard,
};

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

export const reads: PathReads = {
  shiftqOverview: (h) => [
    ...current(h, 'posMenu', 'employees', 'reservations'),
    ...dated(h, ...(['kitchenSnapshot', 'sales', 'labor', 'clockIns'] as const).map((kind): [StoredDatedKind, string | undefined] => [kind, todayAt(h)])),
  ],
  shiftqSales: (h) => {
    const date = requestedAt(h);
    return dated(h, ['sales', date], ['sales', date && priorWeekDate(date)]);
  },
  shiftqLabor: (h) => dated(h, ['labor', requestedAt(h)], ['sales', requestedAt(h)]),
  shiftqKitchen: (h) => dated(h, ['kitchenSnapshot', todayAt(h)], ['kitchenSnapshot', requestedAt(h)]),
  shiftqClockIns: (h) => dated(h, ['clockIns', todayAt(h)]),
  shiftqPosMenu: (h) => current(h, 'posMenu'),
  shiftqEmployees: (h) => current(h, 'employees'),
  shiftqReservations: (h) => current(h, 'reservations'),
  shiftqToastReservations: (h) => current(h, 'reservations'),
  shiftqReviews: (h) => [reviewKeys.meta(...path(h)), ...reviewsFirstPage(h)],
  shiftqGroupLeaderboard: groupPageReads,
};
