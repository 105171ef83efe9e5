import * as v from 'valibot';
import { compactDate, isoTimestamp } from '#contract/schemas/common';
import { isoDate } from '#contract/schemas/requests';

/** A whole number (a count, a rank, a millisecond instant). */
const int = v.pipe(v.number(), v.safeInteger());

/**
 * Response `data` schema of shiftq/kitchen (contract 2.4): the day's ticket averages as kitchen-averages.ts
 * computes them, by station, sales category, expediter level and 15-minute bucket.
 */
const averageFields = {
  averageBasis: v.literal('ticket_count'),
  averageDivisorField: v.literal('ticketCount'),
  averageDivisorValue: int,
  averageTicketTimeMinutes: v.number(),
  ticketCount: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  rowCount: v.pipe(v.number(), v.safeInteger(), v.description('Item-fulfillment volume; never a divisor')),
  minTicketTimeMinutes: v.number(),
  maxTicketTimeMinutes: v.number(),
};

const stationAverageRow = v.object({ stationGuid: v.string(), stationName: v.string(), ...averageFields });
const expediterAverageRow = v.object({
  fulfillmentLevel: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  ...stationAverageRow.entries,
});
const salesCategoryAverageRow = v.object({ salesCategory: v.string(), ...averageFields });

export const timeBucket = v.object({
  bucketStartMs: int,
  bucketEndMs: int,
  bucketStartIso: isoTimestamp,
  bucketEndIso: isoTimestamp,
  bucketLabel: v.pipe(v.string(), v.description('Local 15-minute range, e.g. "4:15 PM – 4:30 PM"')),
  // A day's average row, but a bucket's figures are null and its count 0 when only expediter tickets fired in it.
  ...averageFields,
  averageTicketTimeMinutes: v.pipe(
    v.nullable(v.number()),
    v.description('Prep average; null when only expediter tickets fired in the bucket'),
  ),
  ticketCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  rowCount: int,
  minTicketTimeMinutes: v.nullable(v.number()),
  maxTicketTimeMinutes: v.nullable(v.number()),
  avgExpoClearMinutes: v.nullable(v.number()),
  stationTicketAverages: v.array(stationAverageRow),
  expediterTicketAverages: v.array(expediterAverageRow),
  salesCategoryTicketAverages: v.array(salesCategoryAverageRow),
});

const kitchenStatus = v.object({
  state: v.picklist(['ok', 'error']),
  httpStatus: int,
  error: v.pipe(v.optional(v.string()), v.description('Present only when state is error')),
});

export const kitchenSnapshot = v.object({
  businessDate: compactDate,
  metricsBusinessDate: compactDate,
  dateKey: isoDate,
  metricsDateKey: isoDate,
  timezone: v.string(),
  updatedAt: isoTimestamp,
  dayStartMs: int,
  selectionMode: v.picklist(['all', 'selected']),
  trackedPrepStations: v.array(v.string()),
  trackAllPrepStations: v.boolean(),
  availablePrepStations: v.array(
    v.object({ id: v.string(), name: v.string(), includeWithExpediter: v.boolean(), expoRouting: v.string() }),
  ),
  trackedSalesCategories: v.array(v.string()),
  trackAllSalesCategories: v.boolean(),
  availableSalesCategories: v.array(v.string()),
  queue: v.object({
    inProgressCount: int,
    readyQueueCount: int,
    oldestReadyMinutes: v.number(),
  }),
  averages: v.object({
    averageBasis: v.literal('ticket_count'),
    avgKitchenTicketTimeMinutes: v.pipe(v.nullable(v.number()), v.description('null when prepTicketCount is 0')),
    avgKitchenTicketTimeSource: v.literal('prep_stations'),
    avgKitchenTicketTimeDivisorField: v.literal('prepTicketCount'),
    avgKitchenTicketTimeDivisorValue: int,
    avgExpediterTicketTimeMinutes: v.pipe(v.nullable(v.number()), v.description('null when expediterTicketCount is 0')),
    avgExpediterTicketTimeSource: v.literal('expediter_level_1'),
    avgExpediterTicketTimeDivisorField: v.literal('expediterTicketCount'),
    avgExpediterTicketTimeDivisorValue: int,
    avgExpoClearMinutes: v.nullable(v.number()),
  }),
  counts: v.object({
    clearedTicketCount: int,
    prepTicketCount: int,
    prepRowCount: int,
    sourceTicketCount: int,
    expediterTicketCount: int,
    expediterRowCount: int,
    expediterSourceTicketCount: int,
    expediterLevelCount: int,
    stationCount: int,
    salesCategoryCount: int,
    timeBucketCount: int,
    thirtyMinuteBucketCount: int,
  }),
  expediterTicketAverages: v.array(expediterAverageRow),
  stationTicketAverages: v.array(stationAverageRow),
  salesCategoryTicketAverages: v.array(salesCategoryAverageRow),
  timeBuckets: v.array(timeBucket),
  bucketIntervalMinutes: v.literal(15),
  status: kitchenStatus,
  retentionDays: v.literal(366),
});

export type KitchenSnapshot = v.InferOutput<typeof kitchenSnapshot>;
export type TimeBucket = v.InferOutput<typeof timeBucket>;
