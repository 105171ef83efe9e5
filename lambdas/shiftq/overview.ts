import type { ShiftqRun } from './store.js';
import { ok } from '#platform/api-handler';
import { activeBusinessDate } from '#contract/business-date';
import type { StoredDay } from './records.js';
import { SHIFTQ_REFRESH, SHIFTQ_REFRESH_KEYS } from '#contract/refresh';
import { clockInsView } from './clock-ins.js';
import { employeesView, posMenuView, reservationsView } from './current-views.js';
import { locationRefOf } from '#domain/sports-day';
import { locationPath } from './dated-reads.js';
import { salesView } from './sales.js';
import { SHIFTQ_ROUTES } from './routes.js';

/** A location's shiftq at a glance: the current business date's figures from every resource, and their links. */

const LOCATION_SHIFTQ = '/v1/{group_id}/{location_id}/shiftq/';
/** The location's sub-resources the overview links, in the routes' order. */
const SUB_RESOURCES = SHIFTQ_ROUTES.flatMap(({ path }) => (path.startsWith(LOCATION_SHIFTQ) ? [path.slice(LOCATION_SHIFTQ.length)] : []));

export const shiftqOverview: ShiftqRun = async (req, deps) => {
  const l = req.location;
  const date = activeBusinessDate(l.timezone, req.now);
  const key = { groupId: l.groupId, locationId: l.id, businessDate: date };
  const [[kitchen, sales, labor, clockIns], posMenu, employees, digest] = await Promise.all([
    deps.store.shiftq.getDatedMany(
      (['kitchenSnapshot', 'sales', 'labor', 'clockIns'] as const).map((kind) => ({ ...key, kind })),
      req.now,
    ) as Promise<[StoredDay['kitchenSnapshot'], StoredDay['sales'], StoredDay['labor'], StoredDay['clockIns']]>,
    deps.store.shiftq.getCurrent(l.groupId, l.id, 'posMenu'),
    deps.store.shiftq.getCurrent(l.groupId, l.id, 'employees'),
    deps.store.shiftq.getCurrent(l.groupId, l.id, 'reservations'),
  ]);
  const snapshot = kitchen?.data ?? null;
  const staff = clockInsView(clockIns?.data ?? null);
  const board = sales ? salesView(sales.data, l.timezone).leaderboard.slice(0, 5) : [];
  const reservationsSummary = reservationsView(digest?.data ?? null, l.name, l.timezone);
  const base = locationPath(req, l);
  return ok(req, {
    location: locationRefOf(l),
    refresh: Object.fromEntries(SHIFTQ_REFRESH_KEYS.map((k) => [k, SHIFTQ_REFRESH[k]])),
    summary: {
      businessDate: date,
      salesUpdatedAt: sales?.data.updatedAt ?? null,
      laborUpdatedAt: labor?.data.updatedAt ?? null,
      top5Leaderboard: board,
      clockedInCount: staff.clockedInCount,
      soldOutItemCount: posMenuView(posMenu?.data ?? null).soldOutItemCount,
      managerOnDutyCount: staff.managerOnDutyCount,
      roleGroupCount: staff.roleCoverage.length,
      newTeamMemberCount: employeesView(employees?.data ?? null, date).newTeamMemberCount,
      reservationDayCount: reservationsSummary.dayCount,
      reservationPartyCount: reservationsSummary.totalParties,
      kitchenReadyQueueCount: snapshot?.queue.readyQueueCount ?? 0,
      kitchenInProgressCount: snapshot?.queue.inProgressCount ?? 0,
      kitchenStationCount: snapshot?.counts.stationCount ?? 0,
      exceptionCounts: staff.exceptionCounts,
      kitchenAvgTicketTimeMinutes: snapshot?.averages.avgKitchenTicketTimeMinutes ?? 0,
      kitchenExpediterAvgTicketTimeMinutes: snapshot?.averages.avgExpediterTicketTimeMinutes ?? 0,
    },
    endpoints: Object.fromEntries(SUB_RESOURCES.map((r) => [r, `${base}/${r}`])),
  });
};
