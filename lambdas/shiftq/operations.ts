import type { Operations } from '#platform/api-handler';
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
