import { shiftqKeys } from '#data/shiftq';
import type { Operations, PathReads } from '#platform/api-handler';
import { shiftqClockIns, shiftqKitchen, shiftqLabor, shiftqSales } from './dated-reads.js';
import { shiftqEmployees, shiftqPosMenu, shiftqReservations, shiftqToastReservations } from './current-reads.js';
import { shiftqGroupLeaderboard } from './group-leaderboard.js';
import { shiftqOverview } from './overview.js';
import { shiftqReviews } from './reviews.js';

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

/** The current-state items (replaced on every load) that these routes read, named by the path. */
const current =
  (...kinds: ('posMenu' | 'employees' | 'reservations')[]) =>
  (p: Record<string, string>) =>
    kinds.map((kind) => shiftqKeys.current(p.group_id!, p.location_id!, kind));
export const reads: PathReads = {
  shiftqOverview: current('posMenu', 'employees', 'reservations'),
  shiftqPosMenu: current('posMenu'),
  shiftqEmployees: current('employees'),
  shiftqReservations: current('reservations'),
  shiftqToastReservations: current('reservations'),
};
