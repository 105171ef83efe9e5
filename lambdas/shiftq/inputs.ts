import * as v from 'valibot';
import { decimal, isoTimestamp, money, nonNegativeMoney } from '#contract/schemas/common';
import { isoDate, REVIEW_PROVIDERS } from '#contract/schemas/requests';

/**
 * What the platform loads per location (admin ingest): validated with these
 * schemas and stored as given; every response is derived from them on read.
 */

const ts = isoTimestamp;
const name = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(120));
const key = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, 'must be 1-64 letters, digits, ".", ":", "_" or "-"'));
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(1_000_000));
const hours = decimal(0, 100_000, 2);
/** A list of at most `max` items. */
const list = <T extends v.GenericSchema>(item: T, max: number) => v.pipe(v.array(item), v.maxLength(max));
/** A list that may be left out: empty then. */
const optionalList = <T extends v.GenericSchema>(item: T, max: number) => v.optional(list(item, max), () => []);
const currency = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'));

// ── kitchen: raw tickets of one business day ──

const MAX_TICKETS_PER_DAY = 20_000;

const kitchenStation = v.object({
  id: key,
  name,
  kind: v.picklist(['prep', 'expediter']),
  includeWithExpediter: v.optional(v.boolean(), true),
  expoRouting: v.optional(v.pipe(v.string(), v.maxLength(40)), 'expo'),
});

const kitchenTicket = v.object({
  id: key,
  firedAt: ts,
  salesCategory: name,
  /** Prep fulfillment per station: `itemCount` rows, done when every item is bumped. */
  prep: list(v.object({ stationId: key, itemCount: v.pipe(count, v.minValue(1)), doneAt: v.nullable(ts) }), 50),
  /** Expediter stages; level 1 is the first expo pass. */
  expo: optionalList(
    v.object({
      fulfillmentLevel: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(9)),
      stationId: key,
      itemCount: v.pipe(count, v.minValue(1)),
      clearedAt: v.nullable(ts),
    }),
    9,
  ),
});

const kitchenInput = v.object({
  updatedAt: ts,
  /**
   * The upstream fetch as the producer saw it (contract 2.4: `status` reports upstream fetch health): required, so
   * the service never makes up an HTTP status nobody observed; `error` says what failed, and only then.
   */
  status: v.pipe(
    v.object({
      state: v.picklist(['ok', 'error']),
      httpStatus: v.pipe(v.number(), v.safeInteger(), v.minValue(100), v.maxValue(599)),
      error: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
    }),
    v.check((s) => (s.state === 'error') === (s.error !== undefined), 'error is given when, and only when, state is "error"'),
  ),
  stations: v.pipe(v.array(kitchenStation), v.minLength(1), v.maxLength(100)),
  /** null tracks every prep station; a list tracks only those. */
  trackedPrepStations: v.optional(v.nullable(v.array(key)), null),
  /** null tracks every sales category; a list tracks only those. */
  trackedSalesCategories: v.optional(v.nullable(v.array(name)), null),
  tickets: v.pipe(v.array(kitchenTicket), v.maxLength(MAX_TICKETS_PER_DAY)),
});

// ── sales, labor ──

const salesInput = v.object({
  updatedAt: ts,
  currency,
  grossSales: nonNegativeMoney,
  netSales: money,
  discounts: nonNegativeMoney,
  voids: nonNegativeMoney,
  refunds: nonNegativeMoney,
  tax: nonNegativeMoney,
  tips: nonNegativeMoney,
  orderCount: count,
  guestCount: count,
  hourly: optionalList(v.object({ hourStartIso: ts, netSales: money, orderCount: count }), 30),
  categories: optionalList(v.object({ category: name, netSales: money, quantity: count }), 200),
  employees: optionalList(v.object({ employeeId: key, employeeName: name, netSales: money }), 500),
});

const laborInput = v.object({
  updatedAt: ts,
  currency,
  roles: list(
    v.object({ roleGroup: name, regularHours: hours, overtimeHours: hours, laborCost: nonNegativeMoney, employeeCount: count }),
    100,
  ),
});

// ── clock-ins of one business day ──

const clockInsInput = v.object({
  asOf: ts,
  entries: list(
    v.object({
      employeeId: key,
      employeeName: name,
      roleGroup: name,
      isManager: v.optional(v.boolean(), false),
      scheduled: v.nullable(v.object({ start: ts, end: ts, jobCode: key })),
      punch: v.nullable(v.object({ jobCode: key, clockedInAt: ts, clockedOutAt: v.nullable(ts) })),
    }),
    1000,
  ),
});

// ── current state: pos menu, employees, reservations digest ──

const posMenuInput = v.object({
  updatedAt: ts,
  stockUpdatedAt: ts,
  currency,
  groups: list(
    v.object({
      id: key,
      name,
      items: list(
        v.object({ id: key, name, price: nonNegativeMoney, soldOut: v.boolean(), stockQuantity: v.optional(v.nullable(count), null) }),
        500,
      ),
    }),
    100,
  ),
});

const employeesInput = v.object({
  updatedAt: ts,
  employees: list(
    v.object({
      id: key,
      displayName: name,
      jobCodes: list(key, 20),
      isManager: v.optional(v.boolean(), false),
      hiredOn: isoDate,
    }),
    2000,
  ),
  jobs: list(v.object({ code: key, title: name, roleGroup: name }), 200),
  shifts: optionalList(v.object({ id: key, employeeId: key, jobCode: key, start: ts, end: ts }), 5000),
  timeEntries: optionalList(v.object({ id: key, employeeId: key, jobCode: key, clockInAt: ts, clockOutAt: v.nullable(ts) }), 5000),
});

const reservationsInput = v.object({
  venueLabel: name,
  asOf: ts,
  days: list(
    v.object({
      dayKey: isoDate,
      label: name,
      items: list(
        v.object({
          id: key,
          displayTime: v.pipe(v.string(), v.minLength(1), v.maxLength(20)),
          guestName: name,
          partySize: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(500)),
          notes: v.optional(v.pipe(v.string(), v.maxLength(500)), ''),
        }),
        1000,
      ),
    }),
    62,
  ),
});

// ── reviews ──

// Strict: a field the service does not know is refused, naming it, never dropped unseen.
const reviewInput = v.strictObject({
  id: key,
  provider: v.picklist(REVIEW_PROVIDERS),
  rating: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(5)),
  reviewerName: name,
  text: v.pipe(v.string(), v.maxLength(5000)),
  createdAt: ts,
  updatedAt: ts,
  reviewUrl: v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https:\/\/.*/, 'must start with https://')),
  workflowStatus: v.optional(v.picklist(['NEW', 'IN_PROGRESS', 'DONE']), 'NEW'),
  responseState: v.optional(v.picklist(['NONE', 'DRAFT', 'PUBLISHED']), 'NONE'),
});

export const reviewsInput = v.strictObject({ reviews: v.pipe(list(reviewInput, 1000), v.minLength(1)) });

/** Per-business-date resources, kept 366 days. */
const DATED_INPUTS = { kitchen: kitchenInput, sales: salesInput, labor: laborInput, clockIns: clockInsInput };
/** Current-state resources: the latest load replaces the previous one. */
const CURRENT_INPUTS = { posMenu: posMenuInput, employees: employeesInput, reservations: reservationsInput };
export type DatedKind = keyof typeof DATED_INPUTS;
export type CurrentKind = keyof typeof CURRENT_INPUTS;
export const DATED_KINDS = Object.keys(DATED_INPUTS) as DatedKind[];
export const CURRENT_KINDS = Object.keys(CURRENT_INPUTS) as CurrentKind[];
/** Every resource's input, dated and current. */
export const SHIFTQ_INPUTS = { ...DATED_INPUTS, ...CURRENT_INPUTS };
export type DatedData = { [K in DatedKind]: v.InferOutput<(typeof DATED_INPUTS)[K]> };
export type CurrentData = { [K in CurrentKind]: v.InferOutput<(typeof CURRENT_INPUTS)[K]> };
export type KitchenInput = DatedData['kitchen'];
export type ReviewInput = v.InferOutput<typeof reviewInput>;
