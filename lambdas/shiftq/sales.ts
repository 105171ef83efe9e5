import { addDays, clockTimeLabel, formatCompactDate, parseCompactDate } from '#contract/business-date';
import type { Stored } from './records.js';
import type * as v from 'valibot';
import type { groupLeaderboardData, SalesSnapshot } from './schemas.js';
import type { DatedData } from './inputs.js';
import { round2 } from '#domain/rounding';

/** Sales and labor figures of one business date, and the group ranking built from them. Pure. */

/** part / whole × 100, or null when the whole is not positive. */
const percent = (part: number, whole: number): number | null => (whole > 0 ? round2((part / whole) * 100) : null);

export function salesView(input: DatedData['sales'], timeZone: string): SalesSnapshot {
  // The loaded figures as given, updatedAt to guestCount; the lists follow, ordered.
  const { hourly, categories, employees, ...figures } = input;
  const ranked = [...employees].sort((a, b) => b.netSales - a.netSales || a.employeeId.localeCompare(b.employeeId));
  return {
    ...figures,
    averageCheck: input.orderCount > 0 ? round2(input.netSales / input.orderCount) : null,
    discountsPercent: percent(input.discounts, input.grossSales),
    voidsPercent: percent(input.voids, input.grossSales),
    hourly: [...hourly]
      .sort((a, b) => Date.parse(a.hourStartIso) - Date.parse(b.hourStartIso))
      .map((h) => ({ ...h, label: clockTimeLabel(timeZone, Date.parse(h.hourStartIso)) })),
    categories: [...categories].sort((a, b) => b.netSales - a.netSales || a.category.localeCompare(b.category)),
    leaderboard: ranked.map((e, i) => ({
      employeeId: e.employeeId,
      employeeName: e.employeeName,
      metric: 'netSales' as const,
      value: e.netSales,
      rank: i + 1,
    })),
  };
}

export function laborView(labor: DatedData['labor'], sales: DatedData['sales'] | null) {
  const regularHours = round2(labor.roles.reduce((n, r) => n + r.regularHours, 0));
  const overtimeHours = round2(labor.roles.reduce((n, r) => n + r.overtimeHours, 0));
  const laborCost = round2(labor.roles.reduce((n, r) => n + r.laborCost, 0));
  const totalHours = round2(regularHours + overtimeHours);
  return {
    updatedAt: labor.updatedAt,
    currency: labor.currency,
    laborCost,
    regularHours,
    overtimeHours,
    totalHours,
    laborPercent: sales ? percent(laborCost, sales.netSales) : null,
    salesPerLaborHour: sales && totalHours > 0 ? round2(sales.netSales / totalHours) : null,
    roles: labor.roles.map((r) => ({
      roleGroup: r.roleGroup,
      hours: round2(r.regularHours + r.overtimeHours),
      laborCost: r.laborCost,
      employeeCount: r.employeeCount,
    })),
  };
}

export type LeaderboardRow = v.InferOutput<typeof groupLeaderboardData>['leaderboard']['byNetSales'][number];

/** The four orderings of 2.7; ties go to the location id so the order is stable. */
export function rankLocations(rows: LeaderboardRow[]) {
  const by = (pick: (r: LeaderboardRow) => number, descending: boolean) =>
    [...rows].sort((a, b) => (descending ? pick(b) - pick(a) : pick(a) - pick(b)) || a.locationId.localeCompare(b.locationId));
  return {
    byNetSales: by((r) => r.netSales, true),
    byLowestLaborPercent: by((r) => r.laborPercent, false),
    byLowestDiscountsPercent: by((r) => r.discountsPercent, false),
    byLowestVoidsPercent: by((r) => r.voidsPercent, false),
  };
}

/** The business date a day's sales are compared with: the same weekday a week before. */
export const priorWeekDate = (date: string) => formatCompactDate(addDays(parseCompactDate(date)!, -7));

/** A day's sales against the same weekday of the week before. Pure. */
export function salesCompare(date: string, sales: Stored<DatedData['sales']> | null, prior: Stored<DatedData['sales']> | null) {
  const change = sales && prior ? sales.data.netSales - prior.data.netSales : null;
  return {
    basis: 'same_weekday_prior_week' as const,
    businessDate: priorWeekDate(date),
    available: prior !== null,
    netSales: prior?.data.netSales ?? null,
    orderCount: prior?.data.orderCount ?? null,
    guestCount: prior?.data.guestCount ?? null,
    netSalesChange: change === null ? null : round2(change),
    netSalesChangePercent: change === null || !prior ? null : percent(change, prior.data.netSales),
  };
}
