import type { ShiftqDeps, ShiftqRun } from './store.js';
import { ok, type ApiRequest, type LocationRequest } from '#platform/api-handler';
import { activeBusinessDate, daysBetween, parseCompactDate } from '#contract/business-date';
import { SHIFTQ_RETENTION_DAYS, type StoredDatedKind } from './records.js';
import type { Location } from '#data/locations';
import { SHIFTQ_REFRESH } from '#contract/refresh';
import { locationUrl } from '#contract/urls';
import { clockInsView } from './clock-ins.js';
import { locationRefOf } from '#domain/sports-day';
import type { KitchenSnapshot } from './kitchen-schemas.js';
import { laborView, priorWeekDate, salesCompare, salesView } from './sales.js';

/** The routes that read one location's data of a business date: sales, labor, kitchen, clock-ins. */

/** The absolute base of a location's shiftq links. */
export const locationPath = (req: ApiRequest, l: Location) => `${locationUrl(req.baseUrl, l)}/shiftq`;

/** A date is readable while the current business date is at most SHIFTQ_RETENTION_DAYS after it (the TTL agrees). */
const retained = (date: string, current: string) =>
  daysBetween(parseCompactDate(date)!, parseCompactDate(current)!) <= SHIFTQ_RETENTION_DAYS;

/** Why a date's data is missing: never loaded, or past retention; null when it was found. */
const unavailableReason = (found: unknown, date: string, current: string) =>
  found ? null : retained(date, current) ? ('no_data' as const) : ('expired' as const);

/** The business date a request reads: `businessDate` / `businessDay` (validated by the route's query schema) or the current one. */
export function requestedDate(query: Record<string, string>, current: string): string {
  return query.businessDate ?? query.businessDay ?? current;
}

/**
 * A request's dates: the location's current business date and the one it asks for; `read` gets the location's item
 * of a kind and date (the asked one by default), null when missing or past retention (not even read); `head` is
 * what the sales and labor answers open with: the date asked for and whether its item was found.
 */
function datesOf(req: LocationRequest, deps: ShiftqDeps) {
  const l = req.location;
  const current = activeBusinessDate(l.timezone, req.now);
  const date = requestedDate(req.query, current);
  const read = async <K extends StoredDatedKind>(kind: K, at = date) =>
    retained(at, current) ? deps.store.shiftq.getDated(l.groupId, l.id, kind, at, req.now) : null;
  const head = (resource: 'sales' | 'labor', found: unknown) => ({
    location: locationRefOf(l),
    refresh: SHIFTQ_REFRESH[resource],
    businessDate: date,
    available: found !== null,
    unavailableReason: unavailableReason(found, date, current),
  });
  return { current, date, read, head };
}

export const shiftqSales: ShiftqRun = async (req, deps) => {
  const { date, read, head } = datesOf(req, deps);
  const [sales, prior] = await Promise.all([read('sales'), read('sales', priorWeekDate(date))]);
  return ok(req, {
    ...head('sales', sales),
    sales: sales ? salesView(sales.data, req.location.timezone) : null,
    compare: salesCompare(date, sales, prior),
  });
};

export const shiftqLabor: ShiftqRun = async (req, deps) => {
  const { read, head } = datesOf(req, deps);
  const [labor, sales] = await Promise.all([read('labor'), read('sales')]);
  return ok(req, { ...head('labor', labor), labor: labor ? laborView(labor.data, sales?.data ?? null) : null });
};

export const shiftqKitchen: ShiftqRun = async (req, deps) => {
  const l = req.location;
  const { current, date: requested, read } = datesOf(req, deps);
  const [currentStored, requestedStored] = await Promise.all([
    read('kitchenSnapshot', current),
    requested === current ? null : read('kitchenSnapshot'),
  ]);
  const currentSnapshot = currentStored?.data ?? null;
  const requestedBucket = requested === current ? currentSnapshot : (requestedStored?.data ?? null);
  const kitchenUrl = `${locationPath(req, l)}/kitchen`;
  return ok(req, {
    location: locationRefOf(l),
    refresh: SHIFTQ_REFRESH.kitchen,
    currentBusinessDate: current,
    requestedBusinessDate: requested,
    bucketAvailable: requestedBucket !== null,
    bucketUnavailableReason: unavailableReason(requestedBucket, requested, current),
    retentionDays: SHIFTQ_RETENTION_DAYS,
    latestMetadata: currentSnapshot && kitchenMetadata(currentSnapshot, current),
    currentSnapshot,
    requestedBucket,
    endpoints: { current: kitchenUrl, byBusinessDate: `${kitchenUrl}?businessDate=${requested}` },
    thirtyMinuteBuckets: requestedBucket?.timeBuckets ?? [],
  });
};

/** The current business date's snapshot in brief: its status, and its averages and counts but the sources and source counts. */
function kitchenMetadata(s: KitchenSnapshot, liveBusinessDate: string) {
  const { avgKitchenTicketTimeSource: _prep, avgExpediterTicketTimeSource: _expediter, ...averages } = s.averages;
  const { clearedTicketCount: _cleared, sourceTicketCount: _source, expediterSourceTicketCount: _expediterSource, ...counts } = s.counts;
  return {
    updatedAt: s.updatedAt,
    businessDate: s.businessDate,
    dateKey: s.dateKey,
    liveBusinessDate,
    bucketIntervalMinutes: s.bucketIntervalMinutes,
    lastStatus: s.status.state,
    lastHttpStatus: s.status.httpStatus,
    ...(s.status.error !== undefined ? { lastError: s.status.error } : {}),
    ...averages,
    ...counts,
  };
}

/** Clock-ins are of the current business date only. */
export const shiftqClockIns: ShiftqRun = async (req, deps) => {
  const { current, read } = datesOf(req, deps);
  const stored = await read('clockIns', current);
  return ok(req, {
    location: locationRefOf(req.location),
    refresh: SHIFTQ_REFRESH.clockIns,
    businessDate: current,
    ...clockInsView(stored?.data ?? null),
  });
};
