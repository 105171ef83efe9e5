import type { ShiftqDeps, ShiftqRun } from './store.js';
import { ok, type LocationRequest } from '#platform/api-handler';
import { activeBusinessDate } from '#contract/business-date';
import { SHIFTQ_REFRESH } from '#contract/refresh';
import { employeesView, posMenuView, reservationsView } from './current-views.js';
import { locationRefOf } from '#domain/sports-day';

/** The routes that read one location's current state, replaced on every load: POS menu, employees, reservations. */

export const shiftqPosMenu: ShiftqRun = async (req, deps) => {
  const l = req.location;
  const stored = await deps.store.shiftq.getCurrent(l.groupId, l.id, 'posMenu');
  return ok(req, {
    location: locationRefOf(l),
    refresh: SHIFTQ_REFRESH.posMenu,
    available: stored !== null,
    ...posMenuView(stored?.data ?? null),
  });
};

export const shiftqEmployees: ShiftqRun = async (req, deps) => {
  const l = req.location;
  const date = activeBusinessDate(l.timezone, req.now);
  const stored = await deps.store.shiftq.getCurrent(l.groupId, l.id, 'employees');
  return ok(req, {
    location: locationRefOf(l),
    refresh: SHIFTQ_REFRESH.employees,
    available: stored !== null,
    ...employeesView(stored?.data ?? null, date),
  });
};

async function reservations(req: LocationRequest, deps: ShiftqDeps, withLabel: boolean) {
  const l = req.location;
  const stored = await deps.store.shiftq.getCurrent(l.groupId, l.id, 'reservations');
  const { asOfLabel, ...rest } = reservationsView(stored?.data ?? null, l.name, l.timezone);
  return {
    location: locationRefOf(l),
    refresh: SHIFTQ_REFRESH.reservations,
    source: 'pos_reservations_digest' as const,
    available: stored !== null,
    reservations: withLabel && asOfLabel !== undefined ? { ...rest, asOfLabel } : rest,
  };
}

export const shiftqReservations: ShiftqRun = async (req, deps) => ok(req, await reservations(req, deps, true));

export const shiftqToastReservations: ShiftqRun = async (req, deps) => ok(req, await reservations(req, deps, false));
