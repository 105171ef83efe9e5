import { daysBetween, parseCompactDate } from '#contract/business-date';
import { SHIFTQ_RETENTION_DAYS } from '#data/shiftq';

/** A date is readable while the current business date is at most SHIFTQ_RETENTION_DAYS after it (the TTL agrees). */
export const retained = (date: string, current: string) =>
  daysBetween(parseCompactDate(date)!, parseCompactDate(current)!) <= SHIFTQ_RETENTION_DAYS;

/** Why a date's data is missing: never loaded, or past retention; null when it was found. */
export const unavailableReason = (found: unknown, date: string, current: string) =>
  found ? null : retained(date, current) ? ('no_data' as const) : ('expired' as const);
