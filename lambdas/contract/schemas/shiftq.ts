import * as z from 'zod';
import { absoluteUrl, compactDate, isoDate, isoTimestamp, nextCursor, refresh } from './common.js';
import { locationRef } from './discovery.js';

/**
 * Response `data` schemas of the shiftq module (OpenAPI is generated from
 * them). Fields the contract names keep its names and types; shapes it does
 * not show are designed here and explained in docs/decisions/shiftq.md.
 */

// ───────────────────────── kitchen (2.4) ─────────────────────────

const averageFields = {
  averageBasis: z.literal('ticket_count'),
  averageDivisorField: z.literal('ticketCount'),
  averageDivisorValue: z.number().int(),
  averageTicketTimeMinutes: z.number(),
  ticketCount: z.number().int().min(1),
  rowCount: z.number().int().describe('Item-fulfillment volume; never a divisor'),
  minTicketTimeMinutes: z.number(),
  maxTicketTimeMinutes: z.number(),
};

export const stationAverageRow = z.object({ stationGuid: z.string(), stationName: z.string(), ...averageFields });
export const expediterAverageRow = z.object({
  fulfillmentLevel: z.number().int().min(1),
  stationGuid: z.string(),
  stationName: z.string(),
  ...averageFields,
});
export const salesCategoryAverageRow = z.object({ salesCategory: z.string(), ...averageFields });

export const timeBucket = z.object({
  bucketStartMs: z.number().int(),
  bucketEndMs: z.number().int(),
  bucketStartIso: isoTimestamp,
  bucketEndIso: isoTimestamp,
  bucketLabel: z.string().describe('Local 15-minute range, e.g. "4:15 PM – 4:30 PM"'),
  averageBasis: z.literal('ticket_count'),
  averageDivisorField: z.literal('ticketCount'),
  averageDivisorValue: z.number().int(),
  averageTicketTimeMinutes: z.number().nullable().describe('Prep average; null when only expediter tickets fired in the bucket'),
  ticketCount: z.number().int().min(0),
  rowCount: z.number().int(),
  minTicketTimeMinutes: z.number().nullable(),
  maxTicketTimeMinutes: z.number().nullable(),
  avgExpoClearMinutes: z.number().nullable(),
  stationTicketAverages: z.array(stationAverageRow),
  expediterTicketAverages: z.array(expediterAverageRow),
  salesCategoryTicketAverages: z.array(salesCategoryAverageRow),
});

const kitchenStatus = z.object({
  state: z.enum(['ok', 'error']),
  httpStatus: z.number().int(),
  error: z.string().optional().describe('Present only when state is error'),
});

export const kitchenSnapshot = z.object({
  businessDate: compactDate,
  metricsBusinessDate: compactDate,
  dateKey: isoDate,
  metricsDateKey: isoDate,
  timezone: z.string(),
  updatedAt: isoTimestamp,
  dayStartMs: z.number().int(),
  selectionMode: z.enum(['all', 'selected']),
  trackedPrepStations: z.array(z.string()),
  trackAllPrepStations: z.boolean(),
  availablePrepStations: z.array(
    z.object({ id: z.string(), name: z.string(), includeWithExpediter: z.boolean(), expoRouting: z.string() }),
  ),
  trackedSalesCategories: z.array(z.string()),
  trackAllSalesCategories: z.boolean(),
  availableSalesCategories: z.array(z.string()),
  queue: z.object({ inProgressCount: z.number().int(), readyQueueCount: z.number().int(), oldestReadyMinutes: z.number() }),
  averages: z.object({
    averageBasis: z.literal('ticket_count'),
    avgKitchenTicketTimeMinutes: z.number().nullable().describe('null when prepTicketCount is 0'),
    avgKitchenTicketTimeSource: z.literal('prep_stations'),
    avgKitchenTicketTimeDivisorField: z.literal('prepTicketCount'),
    avgKitchenTicketTimeDivisorValue: z.number().int(),
    avgExpediterTicketTimeMinutes: z.number().nullable().describe('null when expediterTicketCount is 0'),
    avgExpediterTicketTimeSource: z.literal('expediter_level_1'),
    avgExpediterTicketTimeDivisorField: z.literal('expediterTicketCount'),
    avgExpediterTicketTimeDivisorValue: z.number().int(),
    avgExpoClearMinutes: z.number().nullable(),
  }),
  counts: z.object({
    clearedTicketCount: z.number().int(),
    prepTicketCount: z.number().int(),
    prepRowCount: z.number().int(),
    sourceTicketCount: z.number().int(),
    expediterTicketCount: z.number().int(),
    expediterRowCount: z.number().int(),
    expediterSourceTicketCount: z.number().int(),
    expediterLevelCount: z.number().int(),
    stationCount: z.number().int(),
    salesCategoryCount: z.number().int(),
    timeBucketCount: z.number().int(),
    thirtyMinuteBucketCount: z.number().int(),
  }),
  expediterTicketAverages: z.array(expediterAverageRow),
  stationTicketAverages: z.array(stationAverageRow),
  salesCategoryTicketAverages: z.array(salesCategoryAverageRow),
  timeBuckets: z.array(timeBucket),
  bucketIntervalMinutes: z.literal(15),
  status: kitchenStatus,
  retentionDays: z.literal(366),
});

export const kitchenMetadata = z.object({
  updatedAt: isoTimestamp,
  businessDate: compactDate,
  dateKey: isoDate,
  liveBusinessDate: compactDate,
  bucketIntervalMinutes: z.literal(15),
  lastStatus: z.enum(['ok', 'error']),
  lastHttpStatus: z.number().int(),
  lastError: z.string().optional(),
  averageBasis: z.literal('ticket_count'),
  avgKitchenTicketTimeMinutes: z.number().nullable(),
  avgKitchenTicketTimeDivisorField: z.literal('prepTicketCount'),
  avgKitchenTicketTimeDivisorValue: z.number().int(),
  avgExpediterTicketTimeMinutes: z.number().nullable(),
  avgExpediterTicketTimeDivisorField: z.literal('expediterTicketCount'),
  avgExpediterTicketTimeDivisorValue: z.number().int(),
  avgExpoClearMinutes: z.number().nullable(),
  prepTicketCount: z.number().int(),
  prepRowCount: z.number().int(),
  expediterTicketCount: z.number().int(),
  expediterRowCount: z.number().int(),
  expediterLevelCount: z.number().int(),
  stationCount: z.number().int(),
  salesCategoryCount: z.number().int(),
  timeBucketCount: z.number().int(),
  thirtyMinuteBucketCount: z.number().int(),
});

/** Why an exact-date read has no data: none was loaded for that date, or the date is past the 366-day retention. */
export const unavailableReason = z.enum(['no_data', 'expired']).nullable();

export const kitchenData = z.object({
  location: locationRef,
  refresh,
  currentBusinessDate: compactDate,
  requestedBusinessDate: compactDate,
  bucketAvailable: z.boolean(),
  bucketUnavailableReason: unavailableReason.describe('null when bucketAvailable; otherwise no_data or expired'),
  retentionDays: z.literal(366),
  latestMetadata: kitchenMetadata.nullable().describe('Metadata of the current business date; null when it has no data'),
  currentSnapshot: kitchenSnapshot.nullable(),
  requestedBucket: kitchenSnapshot.nullable().describe('Exactly the requested business date; never another date'),
  endpoints: z.object({ current: absoluteUrl, byBusinessDate: absoluteUrl.describe('URL template with {businessDate}') }),
  thirtyMinuteBuckets: z.array(timeBucket).describe('Legacy alias of requestedBucket.timeBuckets (15-minute buckets; empty without a bucket)'),
});

// ───────────────────────── sales, labor ─────────────────────────

const money = z.number();

export const salesSnapshot = z.object({
  updatedAt: isoTimestamp,
  currency: z.string().length(3),
  grossSales: money,
  netSales: money,
  discounts: money,
  voids: money,
  refunds: money,
  tax: money,
  tips: money,
  orderCount: z.number().int(),
  guestCount: z.number().int(),
  averageCheck: money.nullable().describe('netSales / orderCount; null without orders'),
  discountsPercent: z.number().nullable().describe('discounts / grossSales × 100'),
  voidsPercent: z.number().nullable().describe('voids / grossSales × 100'),
  hourly: z.array(z.object({ hourStartIso: isoTimestamp, label: z.string(), netSales: money, orderCount: z.number().int() })),
  categories: z.array(z.object({ category: z.string(), netSales: money, quantity: z.number().int() })),
  leaderboard: z.array(
    z.object({ employeeId: z.string(), employeeName: z.string(), metric: z.literal('netSales'), value: money, rank: z.number().int() }),
  ),
});

export const salesData = z.object({
  location: locationRef,
  refresh,
  businessDate: compactDate,
  available: z.boolean(),
  unavailableReason,
  sales: salesSnapshot.nullable(),
  compare: z.object({
    basis: z.literal('same_weekday_prior_week'),
    businessDate: compactDate,
    available: z.boolean(),
    netSales: money.nullable(),
    orderCount: z.number().int().nullable(),
    guestCount: z.number().int().nullable(),
    netSalesChange: money.nullable(),
    netSalesChangePercent: z.number().nullable(),
  }),
});

export const laborSnapshot = z.object({
  updatedAt: isoTimestamp,
  currency: z.string().length(3),
  laborCost: money,
  regularHours: z.number(),
  overtimeHours: z.number(),
  totalHours: z.number(),
  laborPercent: z.number().nullable().describe('laborCost / netSales of the same business date × 100; null without sales'),
  salesPerLaborHour: money.nullable(),
  roles: z.array(z.object({ roleGroup: z.string(), hours: z.number(), laborCost: money, employeeCount: z.number().int() })),
});

export const laborData = z.object({
  location: locationRef,
  refresh,
  businessDate: compactDate,
  available: z.boolean(),
  unavailableReason,
  labor: laborSnapshot.nullable(),
});

// ───────────────────────── clock-ins ─────────────────────────

export const CLOCK_IN_ALERTS = [
  'wrong_job_code',
  'scheduled_but_missing',
  'clocked_in_not_scheduled',
  'early_clock_in',
  'late_clock_in',
] as const;

export const exceptionCounts = z.object({
  wrongJobCodeClockIns: z.number().int(),
  scheduledButMissing: z.number().int(),
  clockedInButNotScheduled: z.number().int(),
  earlyClockIns: z.number().int(),
  lateClockIns: z.number().int(),
});

export const clockInsData = z.object({
  location: locationRef,
  refresh,
  businessDate: compactDate,
  available: z.boolean(),
  asOf: isoTimestamp.nullable(),
  clockedInCount: z.number().int(),
  managerOnDutyCount: z.number().int(),
  clockedIn: z.array(
    z.object({
      employeeId: z.string(),
      employeeName: z.string(),
      roleGroup: z.string(),
      jobCode: z.string(),
      isManager: z.boolean(),
      clockedInAt: isoTimestamp,
    }),
  ),
  roleCoverage: z.array(
    z.object({ roleGroup: z.string(), scheduledCount: z.number().int(), clockedInCount: z.number().int(), managerOnDuty: z.boolean() }),
  ),
  alerts: z.array(
    z.object({
      type: z.enum(CLOCK_IN_ALERTS),
      employeeId: z.string(),
      employeeName: z.string(),
      roleGroup: z.string(),
      detail: z.string(),
    }),
  ),
  exceptionCounts,
});

// ───────────────────────── pos menu, employees ─────────────────────────

export const posMenuData = z.object({
  location: locationRef,
  refresh,
  available: z.boolean(),
  updatedAt: isoTimestamp.nullable(),
  stockUpdatedAt: isoTimestamp.nullable().describe('Last stock overlay (every 5 minutes)'),
  currency: z.string().nullable(),
  itemCount: z.number().int(),
  soldOutItemCount: z.number().int(),
  groups: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      items: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          price: money,
          soldOut: z.boolean(),
          stockQuantity: z.number().int().nullable().describe('Remaining count when the POS tracks one'),
        }),
      ),
    }),
  ),
});

export const employeesData = z.object({
  location: locationRef,
  refresh,
  available: z.boolean(),
  updatedAt: isoTimestamp.nullable(),
  businessDate: compactDate.describe('Current business date; newTeamMemberCount counts hires in the 30 days before it'),
  newTeamMemberCount: z.number().int(),
  employees: z.array(
    z.object({
      id: z.string(),
      displayName: z.string(),
      jobCodes: z.array(z.string()),
      isManager: z.boolean(),
      hiredOn: isoDate,
      newTeamMember: z.boolean(),
    }),
  ),
  jobs: z.array(z.object({ code: z.string(), title: z.string(), roleGroup: z.string() })),
  shifts: z.array(z.object({ id: z.string(), employeeId: z.string(), jobCode: z.string(), start: isoTimestamp, end: isoTimestamp })),
  timeEntries: z.array(
    z.object({ id: z.string(), employeeId: z.string(), jobCode: z.string(), clockInAt: isoTimestamp, clockOutAt: isoTimestamp.nullable() }),
  ),
});

// ───────────────────────── reservations (2.5) ─────────────────────────

const reservationItem = z.object({
  id: z.string(),
  displayTime: z.string(),
  guestName: z.string(),
  partySize: z.number().int(),
  notes: z.string(),
});

export const reservationsData = z.object({
  location: locationRef,
  refresh,
  source: z.literal('pos_reservations_digest'),
  available: z.boolean(),
  reservations: z.object({
    venueLabel: z.string(),
    asOf: isoTimestamp.nullable().describe('null when no digest has been ingested'),
    asOfLabel: z.string().optional().describe('Present on shiftq/reservations'),
    dayCount: z.number().int(),
    totalParties: z.number().int(),
    totalCovers: z.number().int(),
    days: z.array(
      z.object({ dayKey: isoDate, label: z.string(), parties: z.number().int(), covers: z.number().int(), items: z.array(reservationItem) }),
    ),
  }),
});

// ───────────────────────── reviews (2.6) ─────────────────────────

export const reviewsData = z.object({
  location: z.object({ groupId: z.string(), locationId: z.string(), name: z.string() }),
  refresh,
  capability: z.object({ available: z.boolean(), configured: z.boolean(), activeProviders: z.array(z.string()) }),
  filters: z.object({
    minRating: z.number().int().nullable(),
    maxRating: z.number().int().nullable(),
    provider: z.string().nullable(),
    createdFrom: isoDate.nullable(),
    createdTo: isoDate.nullable(),
  }),
  reviews: z.array(
    z.object({
      id: z.string(),
      provider: z.string(),
      rating: z.number(),
      reviewerDisplayName: z.string().describe('The provider’s reviewer name where its policy permits; otherwise "<Provider> reviewer"'),
      text: z.string(),
      createdAt: isoTimestamp,
      updatedAt: isoTimestamp,
      reviewUrl: z.string().url().startsWith('https://'),
      workflow: z.object({ status: z.enum(['NEW', 'IN_PROGRESS', 'DONE']) }),
      response: z.object({ state: z.enum(['NONE', 'DRAFT', 'PUBLISHED']) }),
      attribution: z.object({ provider: z.string(), label: z.string(), url: z.string().url() }),
    }),
  ),
  page: z.object({
    limit: z.number().int(),
    count: z.number().int(),
    nextPageToken: z.string().nullable(),
    hasMore: z.boolean(),
  }),
});

// ───────────────────────── overview (2.3), group leaderboard (2.7) ─────────────────────────

const shiftqRefreshKeys = ['sales', 'labor', 'kitchen', 'posMenu', 'clockIns', 'employees', 'reservations'] as const;

export const overviewData = z.object({
  location: locationRef,
  refresh: z.object(Object.fromEntries(shiftqRefreshKeys.map((k) => [k, refresh])) as Record<(typeof shiftqRefreshKeys)[number], typeof refresh>),
  summary: z.object({
    businessDate: compactDate,
    salesUpdatedAt: isoTimestamp.nullable().describe('null when the business date has no sales yet'),
    laborUpdatedAt: isoTimestamp.nullable().describe('null when the business date has no labor yet'),
    top5Leaderboard: z.array(
      z.object({ employeeId: z.string(), employeeName: z.string(), metric: z.string(), value: z.number(), rank: z.number().int() }),
    ),
    clockedInCount: z.number().int(),
    soldOutItemCount: z.number().int(),
    managerOnDutyCount: z.number().int(),
    roleGroupCount: z.number().int(),
    newTeamMemberCount: z.number().int(),
    reservationDayCount: z.number().int(),
    reservationPartyCount: z.number().int(),
    kitchenReadyQueueCount: z.number().int(),
    kitchenInProgressCount: z.number().int(),
    kitchenStationCount: z.number().int(),
    exceptionCounts,
    kitchenAvgTicketTimeMinutes: z.number().describe('0 when the business date has no prep tickets'),
    kitchenExpediterAvgTicketTimeMinutes: z.number().describe('0 when the business date has no expediter tickets'),
  }),
  endpoints: z.record(z.string(), absoluteUrl).describe('Absolute URLs of every shiftq sub-resource of this location'),
});

const leaderboardRow = z.object({
  locationId: z.string(),
  locationName: z.string(),
  locationShortName: z.string(),
  businessDate: compactDate.describe('The location’s own current business date the figures cover'),
  netSales: z.number(),
  discountsPercent: z.number(),
  laborPercent: z.number(),
  voidsPercent: z.number(),
});

export const groupLeaderboardData = z.object({
  groupId: z.string(),
  refresh,
  updatedAt: isoTimestamp.nullable().describe('Latest sales/labor update among ranked locations; null when none is ranked'),
  count: z.number().int().describe('Ranked locations of this page: accessible, shiftq enabled, with sales and labor for their current business date'),
  leaderboard: z.object({
    byNetSales: z.array(leaderboardRow),
    byLowestLaborPercent: z.array(leaderboardRow),
    byLowestDiscountsPercent: z.array(leaderboardRow),
    byLowestVoidsPercent: z.array(leaderboardRow),
  }),
  locationEndpoints: z.array(z.object({ id: z.string(), name: z.string(), shiftq: absoluteUrl, sales: absoluteUrl })),
  nextCursor,
});

export type KitchenSnapshot = z.infer<typeof kitchenSnapshot>;
export type TimeBucket = z.infer<typeof timeBucket>;
export type SalesSnapshot = z.infer<typeof salesSnapshot>;
