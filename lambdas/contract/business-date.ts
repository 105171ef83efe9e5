/**
 * Business-date rules: a location's business day runs from 04:01 local time through 04:00 local
 * time of the next calendar day, so wall times before 04:01:00 belong to the previous calendar
 * day's business date. Business dates are written YYYYMMDD. Pure: only Intl and Date.
 */

export type CalendarDate = { year: number; month: number; day: number };

type LocalParts = CalendarDate & { hour: number; minute: number; second: number };

/** A calendar day in milliseconds (UTC has no daylight saving): every day-based span of the service counts in it. */
export const DAY_MS = 86_400_000;
const BUSINESS_DAY_START = { hour: 4, minute: 1 };

/**
 * A formatter of these options for any zone, one per zone kept: building a DateTimeFormat is far slower than using
 * one, and a location's zone is reused constantly.
 */
export function zoneFormatter(options: Omit<Intl.DateTimeFormatOptions, 'timeZone'>): (timeZone: string) => Intl.DateTimeFormat {
  const kept = new Map<string, Intl.DateTimeFormat>();
  return (timeZone) => {
    let format = kept.get(timeZone);
    if (!format) kept.set(timeZone, (format = new Intl.DateTimeFormat('en-US', { timeZone, ...options })));
    return format;
  };
}

const formatterFor = zoneFormatter({
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** Wall-clock parts of an instant in a zone. Throws RangeError for an unknown zone. */
export function localParts(timeZone: string, instantMs: number): CalendarDate & { hour: number; minute: number; second: number } {
  const parts: Record<string, number> = {};
  for (const { type, value } of formatterFor(timeZone).formatToParts(instantMs)) {
    if (type !== 'literal') parts[type] = Number(value);
  }
  const { year = NaN, month = NaN, day = NaN, hour = NaN, minute = NaN, second = NaN } = parts;
  // Some ICU builds still print midnight as "24" despite h23; it is hour 0 of the same date.
  return { year, month, day, hour: hour === 24 ? 0 : hour, minute, second };
}

function wallAsUtcMs(p: LocalParts): number {
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** Zone offset (wall minus UTC) at an instant; Intl has second precision, so compare whole seconds. */
function offsetMs(timeZone: string, instantMs: number): number {
  return wallAsUtcMs(localParts(timeZone, instantMs)) - Math.floor(instantMs / 1000) * 1000;
}

/**
 * The instant whose wall clock in `timeZone` reads the given date and time.
 * Ambiguous (fall-back) wall times give the earlier instant; wall times skipped by a
 * spring-forward gap give the first instant after the gap (the transition itself).
 */
export function zonedTimeToUtcMs(timeZone: string, date: CalendarDate, hour: number, minute: number): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  // Pass 1 seeds with the offset in force a day earlier, i.e. before any nearby transition, so an
  // ambiguous wall time settles on its earlier instant; pass 2 corrects with the offset found there.
  const first = wall - offsetMs(timeZone, wall - DAY_MS);
  const offset = offsetMs(timeZone, first);
  const second = wall - offset;
  if (offsetMs(timeZone, second) === offset) return second;

  // The offset does not hold at its own instant, so the wall time is in a gap and the transition
  // lies between the two guesses: find the earliest instant whose wall clock has reached it.
  let lo = Math.min(first, second);
  let hi = Math.max(first, second);
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (wallAsUtcMs(localParts(timeZone, mid)) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The business date (YYYYMMDD) active at an instant at a location in `timeZone`. */
export function activeBusinessDate(timeZone: string, instantMs: number): string {
  const p = localParts(timeZone, instantMs);
  const beforeStart = p.hour < BUSINESS_DAY_START.hour || (p.hour === BUSINESS_DAY_START.hour && p.minute < BUSINESS_DAY_START.minute);
  return formatCompactDate(beforeStart ? addDays(p, -1) : p);
}

function requireBusinessDate(businessDate: string): CalendarDate {
  const date = parseCompactDate(businessDate);
  if (!date) throw new RangeError(`Invalid business date: ${businessDate}`);
  return date;
}

/** Epoch ms at which a business date begins: 04:01:00 local on that calendar date. */
export function businessDayStartMs(timeZone: string, businessDate: string): number {
  const date = requireBusinessDate(businessDate);
  return zonedTimeToUtcMs(timeZone, date, BUSINESS_DAY_START.hour, BUSINESS_DAY_START.minute);
}

/** Exclusive end of a business date: 04:01:00 local on the next calendar date (23h or 25h across DST). */
export function businessDayEndMs(timeZone: string, businessDate: string): number {
  const next = addDays(requireBusinessDate(businessDate), 1);
  return zonedTimeToUtcMs(timeZone, next, BUSINESS_DAY_START.hour, BUSINESS_DAY_START.minute);
}

function toCalendarDate(year: number, month: number, day: number): CalendarDate | null {
  if (year < 1000 || month < 1 || month > 12 || day < 1) return null;
  // Day 0 of the following month is the last day of this one, leap years included.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth ? { year, month, day } : null;
}

/** The date a match of year, month and day names, if it names a real one. */
const dateOf = (m: RegExpExecArray | null) => (m ? toCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) : null);
/** Strict YYYYMMDD naming a real calendar date in years 1000..9999; anything else is null. */
export const parseCompactDate = (value: string): CalendarDate | null => dateOf(/^(\d{4})(\d{2})(\d{2})$/.exec(value));
/** Strict zero-padded YYYY-MM-DD naming a real calendar date in years 1000..9999; anything else is null. */
export const parseIsoDate = (value: string): CalendarDate | null => dateOf(/^(\d{4})-(\d{2})-(\d{2})$/.exec(value));

const written = (d: CalendarDate, separator: string): string =>
  [String(d.year).padStart(4, '0'), String(d.month).padStart(2, '0'), String(d.day).padStart(2, '0')].join(separator);
export const formatCompactDate = (d: CalendarDate): string => written(d, '');
export const formatIsoDate = (d: CalendarDate): string => written(d, '-');

export function addDays(d: CalendarDate, days: number): CalendarDate {
  const shifted = new Date(Date.UTC(d.year, d.month - 1, d.day) + days * DAY_MS);
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** Whole calendar days from a to b (negative when b is earlier); UTC dates have no DST. */
export function daysBetween(a: CalendarDate, b: CalendarDate): number {
  return Math.round((Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / DAY_MS);
}

/** An IANA zone Intl accepts; bare offsets such as "+05:00" are not location zones. */
export function isValidTimeZone(zone: string): boolean {
  try {
    // A fresh formatter, not the cache: validation sees arbitrary input that should not be retained.
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    return resolved.includes('/') || resolved === 'UTC';
  } catch {
    return false;
  }
}

const clockFormat = zoneFormatter({ hour: 'numeric', minute: '2-digit' });
/** An instant's local clock time, e.g. "4:15 PM". */
export const clockTimeLabel = (timeZone: string, ms: number): string => clockFormat(timeZone).format(ms);
