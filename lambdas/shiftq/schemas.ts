import * as v from 'valibot';
import { absoluteUrl, compactDate, isoTimestamp, nextCursor, refresh } from '#contract/schemas/common';
import { isoDate } from '#contract/schemas/requests';
import { keyed, locationRef } from '#contract/schemas/discovery';
import { kitchenSnapshot, timeBucket } from './kitchen-schemas.js';
import { EXCEPTION_COUNT_OF_ALERT, type ClockInAlert } from './clock-in-alerts.js';
import { SHIFTQ_REFRESH_KEYS } from '#contract/refresh';

/** A whole number (a count, a rank, a millisecond instant). */
const int = v.pipe(v.number(), v.safeInteger());

/**
 * Response `data` schemas of the shiftq module (OpenAPI is generated from
 * them). Fields the contract names keep its names and types; shapes it does
 * not show are designed here and explained in docs/decisions/shiftq.md.
 */

/** Why an exact-date read has no data: none was loaded for that date, or the date is past the 366-day retention. */
const unavailableReason = v.nullable(v.picklist(['no_data', 'expired']));

// ───────────────────────── kitchen (2.4): the snapshot's schema is kitchen-schemas.ts ─────────────────────────

const kitchenMetadata = v.object({
  updatedAt: isoTimestamp,
  businessDate: compactDate,
  dateKey: isoDate,
  liveBusinessDate: compactDate,
  bucketIntervalMinutes: v.literal(15),
  lastStatus: v.picklist(['ok', 'error']),
  lastHttpStatus: int,
  lastError: v.optional(v.string()),
  // The snapshot's averages but their sources, the two averages without the snapshot's descriptions.
  ...v.omit(kitchenSnapshot.entries.averages, ['avgKitchenTicketTimeSource', 'avgExpediterTicketTimeSource']).entries,
  avgKitchenTicketTimeMinutes: v.nullable(v.number()),
  avgExpediterTicketTimeMinutes: v.nullable(v.number()),
  // The snapshot's counts but those of sources and cleared tickets.
  ...v.omit(kitchenSnapshot.entries.counts, ['clearedTicketCount', 'sourceTicketCount', 'expediterSourceTicketCount']).entries,
});

export const kitchenData = v.object({
  location: locationRef,
  refresh,
  currentBusinessDate: compactDate,
  requestedBusinessDate: compactDate,
  bucketAvailable: v.boolean(),
  bucketUnavailableReason: v.pipe(unavailableReason, v.description('null when bucketAvailable; otherwise no_data or expired')),
  retentionDays: v.literal(366),
  latestMetadata: v.pipe(v.nullable(kitchenMetadata), v.description('Metadata of the current business date; null when it has no data')),
  currentSnapshot: v.nullable(kitchenSnapshot),
  requestedBucket: v.pipe(v.nullable(kitchenSnapshot), v.description('Exactly the requested business date; never another date')),
  endpoints: v.object({ current: absoluteUrl, byBusinessDate: v.pipe(absoluteUrl, v.description('URL template with {businessDate}')) }),
  thirtyMinuteBuckets: v.pipe(
    v.array(timeBucket),
    v.description('Legacy alias of requestedBucket.timeBuckets (15-minute buckets; empty without a bucket)'),
  ),
});

// ───────────────────────── sales, labor ─────────────────────────

const money = v.number();

/** One employee's place on a sales leaderboard. */
const employeeRank = v.object({ employeeId: v.string(), employeeName: v.string(), metric: v.literal('netSales'), value: money, rank: int });

export const salesSnapshot = v.object({
  updatedAt: isoTimestamp,
  currency: v.pipe(v.string(), v.length(3)),
  grossSales: money,
  netSales: money,
  discounts: money,
  voids: money,
  refunds: money,
  tax: money,
  tips: money,
  orderCount: int,
  guestCount: int,
  averageCheck: v.pipe(v.nullable(money), v.description('netSales / orderCount; null without orders')),
  discountsPercent: v.pipe(v.nullable(v.number()), v.description('discounts / grossSales × 100')),
  voidsPercent: v.pipe(v.nullable(v.number()), v.description('voids / grossSales × 100')),
  hourly: v.array(v.object({ hourStartIso: isoTimestamp, label: v.string(), netSales: money, orderCount: int })),
  categories: v.array(v.object({ category: v.string(), netSales: money, quantity: int })),
  leaderboard: v.array(employeeRank),
});

/** What the sales and labor answers open with: the date asked for and whether its data was found. */
const datedHead = { location: locationRef, refresh, businessDate: compactDate, available: v.boolean(), unavailableReason };

export const salesData = v.object({
  ...datedHead,
  sales: v.nullable(salesSnapshot),
  compare: v.object({
    basis: v.literal('same_weekday_prior_week'),
    businessDate: compactDate,
    available: v.boolean(),
    netSales: v.nullable(money),
    orderCount: v.nullable(int),
    guestCount: v.nullable(int),
    netSalesChange: v.nullable(money),
    netSalesChangePercent: v.nullable(v.number()),
  }),
});

const laborSnapshot = v.object({
  updatedAt: isoTimestamp,
  currency: v.pipe(v.string(), v.length(3)),
  laborCost: money,
  regularHours: v.number(),
  overtimeHours: v.number(),
  totalHours: v.number(),
  laborPercent: v.pipe(v.nullable(v.number()), v.description('laborCost / netSales of the same business date × 100; null without sales')),
  salesPerLaborHour: v.nullable(money),
  roles: v.array(v.object({ roleGroup: v.string(), hours: v.number(), laborCost: money, employeeCount: int })),
});

export const laborData = v.object({ ...datedHead, labor: v.nullable(laborSnapshot) });

// ───────────────────────── clock-ins ─────────────────────────

const CLOCK_IN_ALERTS = Object.keys(EXCEPTION_COUNT_OF_ALERT) as ClockInAlert[];

const exceptionCounts = keyed(Object.values(EXCEPTION_COUNT_OF_ALERT), int);
/** Whom a clock-in row or alert is about. */
const employee = { employeeId: v.string(), employeeName: v.string(), roleGroup: v.string() };

export const clockInsData = v.object({
  location: locationRef,
  refresh,
  businessDate: compactDate,
  available: v.boolean(),
  asOf: v.nullable(isoTimestamp),
  clockedInCount: int,
  managerOnDutyCount: int,
  clockedIn: v.array(v.object({ ...employee, jobCode: v.string(), isManager: v.boolean(), clockedInAt: isoTimestamp })),
  roleCoverage: v.array(
    v.object({
      roleGroup: v.string(),
      scheduledCount: int,
      clockedInCount: int,
      managerOnDuty: v.boolean(),
    }),
  ),
  alerts: v.array(v.object({ type: v.picklist(CLOCK_IN_ALERTS), ...employee, detail: v.string() })),
  exceptionCounts,
});

// ───────────────────────── pos menu, employees ─────────────────────────

export const posMenuData = v.object({
  location: locationRef,
  refresh,
  available: v.boolean(),
  updatedAt: v.nullable(isoTimestamp),
  stockUpdatedAt: v.pipe(v.nullable(isoTimestamp), v.description('Last stock overlay (every 5 minutes)')),
  currency: v.nullable(v.string()),
  itemCount: int,
  soldOutItemCount: int,
  groups: v.array(
    v.object({
      id: v.string(),
      name: v.string(),
      items: v.array(
        v.object({
          id: v.string(),
          name: v.string(),
          price: money,
          soldOut: v.boolean(),
          stockQuantity: v.pipe(v.nullable(int), v.description('Remaining count when the POS tracks one')),
        }),
      ),
    }),
  ),
});

/** What a shift and a time entry both name: themselves, whose they are, the job. */
const staffEntry = { id: v.string(), employeeId: v.string(), jobCode: v.string() };

export const employeesData = v.object({
  location: locationRef,
  refresh,
  available: v.boolean(),
  updatedAt: v.nullable(isoTimestamp),
  businessDate: v.pipe(compactDate, v.description('Current business date; newTeamMemberCount counts hires in the 30 days before it')),
  newTeamMemberCount: int,
  employees: v.array(
    v.object({
      id: v.string(),
      displayName: v.string(),
      jobCodes: v.array(v.string()),
      isManager: v.boolean(),
      hiredOn: isoDate,
      newTeamMember: v.boolean(),
    }),
  ),
  jobs: v.array(v.object({ code: v.string(), title: v.string(), roleGroup: v.string() })),
  shifts: v.array(v.object({ ...staffEntry, start: isoTimestamp, end: isoTimestamp })),
  timeEntries: v.array(v.object({ ...staffEntry, clockInAt: isoTimestamp, clockOutAt: v.nullable(isoTimestamp) })),
});

// ───────────────────────── reservations (2.5) ─────────────────────────

const reservationItem = v.object({
  id: v.string(),
  displayTime: v.string(),
  guestName: v.string(),
  partySize: int,
  notes: v.string(),
});

export const reservationsData = v.object({
  location: locationRef,
  refresh,
  source: v.literal('pos_reservations_digest'),
  available: v.boolean(),
  reservations: v.object({
    venueLabel: v.string(),
    asOf: v.pipe(v.nullable(isoTimestamp), v.description('null when no digest has been ingested')),
    asOfLabel: v.pipe(v.optional(v.string()), v.description('Present on shiftq/reservations')),
    dayCount: int,
    totalParties: int,
    totalCovers: int,
    days: v.array(
      v.object({
        dayKey: isoDate,
        label: v.string(),
        parties: int,
        covers: int,
        items: v.array(reservationItem),
      }),
    ),
  }),
});

// ───────────────────────── reviews (2.6) ─────────────────────────

export const reviewsData = v.object({
  location: v.object({ groupId: v.string(), locationId: v.string(), name: v.string() }),
  refresh,
  capability: v.object({ available: v.boolean(), configured: v.boolean(), activeProviders: v.array(v.string()) }),
  filters: v.object({
    minRating: v.nullable(int),
    maxRating: v.nullable(int),
    provider: v.nullable(v.string()),
    createdFrom: v.nullable(isoDate),
    createdTo: v.nullable(isoDate),
  }),
  reviews: v.array(
    v.object({
      id: v.string(),
      provider: v.string(),
      rating: v.number(),
      reviewerDisplayName: v.pipe(
        v.string(),
        v.description('The provider’s reviewer name where its policy permits; otherwise "<Provider> reviewer"'),
      ),
      text: v.string(),
      createdAt: isoTimestamp,
      updatedAt: isoTimestamp,
      reviewUrl: v.pipe(absoluteUrl, v.regex(/^https:\/\/.*/, 'must start with https://')),
      workflow: v.object({ status: v.picklist(['NEW', 'IN_PROGRESS', 'DONE']) }),
      response: v.object({ state: v.picklist(['NONE', 'DRAFT', 'PUBLISHED']) }),
      attribution: v.object({ provider: v.string(), label: v.string(), url: absoluteUrl }),
    }),
  ),
  page: v.object({
    limit: int,
    count: int,
    nextPageToken: v.nullable(v.string()),
    hasMore: v.boolean(),
  }),
});

// ───────────────────────── overview (2.3), group leaderboard (2.7) ─────────────────────────

export const overviewData = v.object({
  location: locationRef,
  refresh: v.object(
    Object.fromEntries(SHIFTQ_REFRESH_KEYS.map((k) => [k, refresh])) as Record<(typeof SHIFTQ_REFRESH_KEYS)[number], typeof refresh>,
  ),
  summary: v.object({
    businessDate: compactDate,
    salesUpdatedAt: v.pipe(v.nullable(isoTimestamp), v.description('null when the business date has no sales yet')),
    laborUpdatedAt: v.pipe(v.nullable(isoTimestamp), v.description('null when the business date has no labor yet')),
    top5Leaderboard: v.array(v.object({ ...employeeRank.entries, metric: v.string() })),
    clockedInCount: int,
    soldOutItemCount: int,
    managerOnDutyCount: int,
    roleGroupCount: int,
    newTeamMemberCount: int,
    reservationDayCount: int,
    reservationPartyCount: int,
    kitchenReadyQueueCount: int,
    kitchenInProgressCount: int,
    kitchenStationCount: int,
    exceptionCounts,
    kitchenAvgTicketTimeMinutes: v.pipe(v.number(), v.description('0 when the business date has no prep tickets')),
    kitchenExpediterAvgTicketTimeMinutes: v.pipe(v.number(), v.description('0 when the business date has no expediter tickets')),
  }),
  endpoints: v.pipe(v.record(v.string(), absoluteUrl), v.description('Absolute URLs of every shiftq sub-resource of this location')),
});

const leaderboardRow = v.object({
  locationId: v.string(),
  locationName: v.string(),
  locationShortName: v.string(),
  businessDate: v.pipe(compactDate, v.description('The location’s own current business date the figures cover')),
  netSales: v.number(),
  discountsPercent: v.number(),
  laborPercent: v.number(),
  voidsPercent: v.number(),
});

export const groupLeaderboardData = v.object({
  groupId: v.string(),
  refresh,
  updatedAt: v.pipe(v.nullable(isoTimestamp), v.description('Latest sales/labor update among ranked locations; null when none is ranked')),
  count: v.pipe(
    int,
    v.description('Ranked locations of this page: accessible, shiftq enabled, with sales and labor for their current business date'),
  ),
  leaderboard: keyed(['byNetSales', 'byLowestLaborPercent', 'byLowestDiscountsPercent', 'byLowestVoidsPercent'], v.array(leaderboardRow)),
  locationEndpoints: v.array(v.object({ id: v.string(), name: v.string(), shiftq: absoluteUrl, sales: absoluteUrl })),
  nextCursor,
});

export type SalesSnapshot = v.InferOutput<typeof salesSnapshot>;
