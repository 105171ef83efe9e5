import type { ShiftqRun } from './store.js';
import { ok, type LocationRequest } from '#platform/api-handler';
import { activeBusinessDate } from '#contract/business-date';
import { SHIFTQ_REFRESH } from '#contract/refresh';
import type { CurrentData, CurrentKind } from './inputs.js';
import { employeesView, posMenuView, reservationsView } from './current-views.js';
import { locationRefOf } from '#domain/sports-day';

/** The routes that read one location's current state, replaced on every load: POS menu, employees, reservations. */

/** A read of one current-state resource: the location, the resource's cadence, then what `answer` makes of its latest load. */
const currentRead =
  <K extends CurrentKind>(kind: K, answer: (data: CurrentData[K] | null, req: LocationRequest) => object): ShiftqRun =>
  async (req, deps) => {
    const l = req.location;
    const stored = await deps.store.shiftq.getCurrent(l.groupId, l.id, kind);
    return ok(req, { location: locationRefOf(l), refresh: SHIFTQ_REFRESH[kind], ...answer(stored?.data ?? null, req) });
  };

export const shiftqPosMenu = currentRead('posMenu', posMenuView);

export const shiftqEmployees = currentRead('employees', (data, req) =>
  employeesView(data, activeBusinessDate(req.location.timezone, req.now)),
);

/** The reservations digest; the legacy alias shows it without its as-of label. */
const reservations = (withLabel: boolean) =>
  currentRead('reservations', (data, { location: l }) => {
    const { asOfLabel, ...rest } = reservationsView(data, l.name, l.timezone);
    return {
      source: 'pos_reservations_digest' as const,
      available: data !== null,
      reservations: withLabel && asOfLabel !== undefined ? { ...rest, asOfLabel } : rest,
    };
  });

export const shiftqReservations = reservations(true);

export const shiftqToastReservations = reservations(false);
