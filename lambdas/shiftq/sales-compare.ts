import { addDays, formatCompactDate, parseCompactDate } from '#contract/business-date';
import type { Stored } from '#data/shiftq';
import type { SalesInput } from '#contract/schemas/shiftq-inputs';
import { percent } from './sales.js';

/** The business date a day's sales are compared with: the same weekday a week before. */
export const priorWeekDate = (date: string) => formatCompactDate(addDays(parseCompactDate(date)!, -7));

/** A day's sales against the same weekday of the week before. Pure. */
export function salesCompare(date: string, sales: Stored<SalesInput> | null, prior: Stored<SalesInput> | null) {
  const change = sales && prior ? sales.data.netSales - prior.data.netSales : null;
  return {
    basis: 'same_weekday_prior_week' as const,
    businessDate: priorWeekDate(date),
    available: prior !== null,
    netSales: prior?.data.netSales ?? null,
    orderCount: prior?.data.orderCount ?? null,
    guestCount: prior?.data.guestCount ?? null,
    netSalesChange: change === null ? null : Math.round(change * 100) / 100,
    netSalesChangePercent: change === null || !prior ? null : percent(change, prior.data.netSales),
  };
}
