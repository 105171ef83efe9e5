import * as v from 'valibot';
import { compactDate, isoTimestamp } from '#contract/schemas/common';
import { isoDate } from '#contract/schemas/requests';

/**
 * Response `data` schema of shiftq/kitchen (contract 2.4): the day's ticket averages as kitchen-averages.ts
 * computes them, by station, sales category, expediter level and 15-minute bucket.
 */
const averageFields = {
  averageBasis: v.literal('ticket_count'),
  averageDivisorField: v.literal('ticketCount'),
  averageDivisorValue: v.pipe(v.number(), v.safeInteger()),
  averageTicketTimeMinutes: v.number(),
  ticketCount: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  rowCount: v.pipe(v.number(), v.safeInteger(), v.description('Item-fulfillment volume; never a divisor')),
  minTicketTimeMinutes: v.number(),
  maxTicketTimeMinutes: v.number(),
};

const stationAverageRow = v.object({ stationGuid: v.string(), stationName: v.string(), ...averageFields });
const expediterAverageRow = v.object({
  fulfillmentLevel: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  stationGuid: v.string(),
  stationName: v.string(),
  ...averageFields,
});
const salesCategoryAverageRow = v.object({ salesCategory: v.string(), ...averageFields });

export const timeBucket = v.object({
  bucketStartMs: v.pipe(v.number(), v.safeInteger()),
  bucketEndMs: v.pipe(v.number(), v.safeInteger()),
  bucketStartIso: isoTimestamp,
  bucketEndIso: isoTimestamp,
  bucketLabel: v.pipe(v.string(), v.description('Local 15-minute range, e.g. "4:15 PM – 4:30 PM"')),
  averageBasis: v.literal('ticket_count'),
  averageDivisorField: v.literal('ticketCount'),
  averageDivisorValue: v.pipe(v.number(), v.safeInteger()),
  averageTicketTimeMinutes: v.pipe(
    v.nullable(v.number()),
    v.description('Prep average; null when only expediter tickets fired in the bucket'),
  ),
  ticketCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  rowCount: v.pipe(v.number(), v.safeInteger()),
  minTicketTimeMinutes: v.nullable(v.number()),
  maxTicketTimeMinutes: v.nullable(v.number()),
  avgExpoClearMinutes: v.nullable(v.number()),
  stationTicketAverages: v.array(stationAverageRow),
  expediterTicketAverages: v.array(expediterAverageRow),
  salesCategoryTicketAverages: v.array(salesCategoryAverageRow),
});

const kitchenStatus = v.object({
  state: v.picklist(['ok', 'error']),
  httpStatus: v.pipe(v.number(), v.safeInteger()),
  error: v.pipe(v.optional(v.string()), v.description('Present only when state is error')),
});

export const kitchenSnapshot = v.object({
  businessDate: compactDate,
  metricsBusinessDate: compactDate,
  dateKey: isoDate,
  metricsDateKey: isoDate,
  timezone: v.string(),
  updatedAt: isoTimestamp,
  dayStartMs: v.pipe(v.number(), v.safeInteger()),
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
    inProgressCount: v.pipe(v.number(), v.safeInteger()),
    readyQueueCount: v.pipe(v.number(), v.safeInteger()),
    oldestReadyMinutes: v.number(),
  }),
  averages: v.object({
    averageBasis: v.literal('ticket_count'),
    avgKitchenTicketTimeMinutes: v.pipe(v.nullable(v.number()), v.description('null when prepTicketCount is 0')),
    avgKitchenTicketTimeSource: v.literal('prep_stations'),
    avgKitchenTicketTimeDivisorField: v.literal('prepTicketCount'),
    avgKitchenTicketTimeDivisorValue: v.pipe(v.number(), v.safeInteger()),
    avgExpediterTicketTimeMinutes: v.pipe(v.nullable(v.number()), v.description('null when expediterTicketCount is 0')),
    avgExpediterTicketTimeSource: v.literal('expediter_level_1'),
    avgExpediterTicketTimeDivisorField: v.literal('expediterTicketCount'),
    avgExpediterTicketTimeDivisorValue: v.pipe(v.number(), v.safeInteger()),
    avgExpoClearMinutes: v.nullable(v.number()),
  }),
  counts: v.object({
    clearedTicketCount: v.pipe(v.number(), v.safeInteger()),
    prepTicketCount: v.pipe(v.number(), v.safeInteger()),
    prepRowCount: v.pipe(v.number(), v.safeInteger()),
    sourceTicketCount: v.pipe(v.number(), v.safeInteger()),
    expediterTicketCount: v.pipe(v.number(), v.safeInteger()),
    expediterRowCount: v.pipe(v.number(), v.safeInteger()),
    expediterSourceTicketCount: v.pipe(v.number(), v.safeInteger()),
    expediterLevelCount: v.pipe(v.number(), v.safeInteger()),
    stationCount: v.pipe(v.number(), v.safeInteger()),
    salesCategoryCount: v.pipe(v.number(), v.safeInteger()),
    timeBucketCount: v.pipe(v.number(), v.safeInteger()),
    thirtyMinuteBucketCount: v.pipe(v.number(), v.safeInteger()),
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
