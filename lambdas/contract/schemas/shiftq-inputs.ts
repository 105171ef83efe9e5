import * as z from 'zod';
import { decimal, money } from './common.js';
import { ISO_DATE, REVIEW_PROVIDERS } from './requests.js';

const isoDate = z.string().regex(ISO_DATE, 'use YYYY-MM-DD');

/**
 * What the platform loads per location (admin ingest): validated with these
 * schemas and stored as given; every response is derived from them on read.
 */

const ts = z.string().datetime({ offset: true });
const name = z.string().trim().min(1).max(120);
const key = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, 'use 1-64 letters, digits, ".", ":", "_" or "-"');
const count = z.number().int().min(0).max(1_000_000);
const nonNegMoney = money.min(0);
const hours = decimal(0, 100_000, 2);
const currency = z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 code');

// ── kitchen: raw tickets of one business day ──

export const MAX_TICKETS_PER_DAY = 20_000;

export const kitchenStation = z.object({
  id: key,
  name,
  kind: z.enum(['prep', 'expediter']),
  includeWithExpediter: z.boolean().default(true),
  expoRouting: z.string().max(40).default('expo'),
});

export const kitchenTicket = z.object({
  id: key,
  firedAt: ts,
  salesCategory: name,
  /** Prep fulfillment per station: `itemCount` rows, done when every item is bumped. */
  prep: z.array(z.object({ stationId: key, itemCount: count.min(1), doneAt: ts.nullable() })).max(50),
  /** Expediter stages; level 1 is the first expo pass. */
  expo: z
    .array(z.object({ fulfillmentLevel: z.number().int().min(1).max(9), stationId: key, itemCount: count.min(1), clearedAt: ts.nullable() }))
    .max(9)
    .default([]),
});

export const kitchenInput = z.object({
  updatedAt: ts,
  status: z
    .object({ state: z.enum(['ok', 'error']), httpStatus: z.number().int().min(100).max(599), error: z.string().max(500).optional() })
    .default({ state: 'ok', httpStatus: 200 }),
  stations: z.array(kitchenStation).min(1).max(100),
  /** null tracks every prep station; a list tracks only those. */
  trackedPrepStations: z.array(key).nullable().default(null),
  /** null tracks every sales category; a list tracks only those. */
  trackedSalesCategories: z.array(name).nullable().default(null),
  tickets: z.array(kitchenTicket).max(MAX_TICKETS_PER_DAY),
});

// ── sales, labor ──

export const salesInput = z.object({
  updatedAt: ts,
  currency,
  grossSales: nonNegMoney,
  netSales: money,
  discounts: nonNegMoney,
  voids: nonNegMoney,
  refunds: nonNegMoney,
  tax: nonNegMoney,
  tips: nonNegMoney,
  orderCount: count,
  guestCount: count,
  hourly: z.array(z.object({ hourStartIso: ts, netSales: money, orderCount: count })).max(30).default([]),
  categories: z.array(z.object({ category: name, netSales: money, quantity: count })).max(200).default([]),
  employees: z.array(z.object({ employeeId: key, employeeName: name, netSales: money })).max(500).default([]),
});

export const laborInput = z.object({
  updatedAt: ts,
  currency,
  roles: z
    .array(z.object({ roleGroup: name, regularHours: hours, overtimeHours: hours, laborCost: nonNegMoney, employeeCount: count }))
    .max(100),
});

// ── clock-ins of one business day ──

export const clockInsInput = z.object({
  asOf: ts,
  entries: z
    .array(
      z.object({
        employeeId: key,
        employeeName: name,
        roleGroup: name,
        isManager: z.boolean().default(false),
        scheduled: z.object({ start: ts, end: ts, jobCode: key }).nullable(),
        punch: z.object({ jobCode: key, clockedInAt: ts, clockedOutAt: ts.nullable() }).nullable(),
      }),
    )
    .max(1000),
});

// ── current state: pos menu, employees, reservations digest ──

export const posMenuInput = z.object({
  updatedAt: ts,
  stockUpdatedAt: ts,
  currency,
  groups: z
    .array(
      z.object({
        id: key,
        name,
        items: z
          .array(z.object({ id: key, name, price: nonNegMoney, soldOut: z.boolean(), stockQuantity: count.nullable().default(null) }))
          .max(500),
      }),
    )
    .max(100),
});

export const employeesInput = z.object({
  updatedAt: ts,
  employees: z
    .array(z.object({ id: key, displayName: name, jobCodes: z.array(key).max(20), isManager: z.boolean().default(false), hiredOn: isoDate }))
    .max(2000),
  jobs: z.array(z.object({ code: key, title: name, roleGroup: name })).max(200),
  shifts: z.array(z.object({ id: key, employeeId: key, jobCode: key, start: ts, end: ts })).max(5000).default([]),
  timeEntries: z
    .array(z.object({ id: key, employeeId: key, jobCode: key, clockInAt: ts, clockOutAt: ts.nullable() }))
    .max(5000)
    .default([]),
});

export const reservationsInput = z.object({
  venueLabel: name,
  asOf: ts,
  days: z
    .array(
      z.object({
        dayKey: isoDate,
        label: name,
        items: z
          .array(
            z.object({
              id: key,
              displayTime: z.string().min(1).max(20),
              guestName: name,
              partySize: z.number().int().min(1).max(500),
              notes: z.string().max(500).default(''),
            }),
          )
          .max(1000),
      }),
    )
    .max(62),
});

// ── reviews ──

export const reviewInput = z.object({
  id: key,
  provider: z.enum(REVIEW_PROVIDERS),
  rating: z.number().int().min(1).max(5),
  reviewerName: name,
  text: z.string().max(5000),
  createdAt: ts,
  updatedAt: ts,
  reviewUrl: z.string().url().startsWith('https://'),
  workflowStatus: z.enum(['NEW', 'IN_PROGRESS', 'DONE']).default('NEW'),
  responseState: z.enum(['NONE', 'DRAFT', 'PUBLISHED']).default('NONE'),
});

export const reviewsInput = z.object({ reviews: z.array(reviewInput).max(1000) });

export type KitchenInput = z.output<typeof kitchenInput>;
export type KitchenTicket = z.output<typeof kitchenTicket>;
export type SalesInput = z.output<typeof salesInput>;
export type LaborInput = z.output<typeof laborInput>;
export type ClockInsInput = z.output<typeof clockInsInput>;
export type PosMenuInput = z.output<typeof posMenuInput>;
export type EmployeesInput = z.output<typeof employeesInput>;
export type ReservationsInput = z.output<typeof reservationsInput>;
export type ReviewInput = z.output<typeof reviewInput>;

/** Per-business-date resources, kept 366 days. */
export const DATED_KINDS = ['kitchen', 'sales', 'labor', 'clockIns'] as const;
/** Current-state resources: the latest load replaces the previous one. */
export const CURRENT_KINDS = ['posMenu', 'employees', 'reservations'] as const;
export type DatedKind = (typeof DATED_KINDS)[number];
export type CurrentKind = (typeof CURRENT_KINDS)[number];

export type DatedData = { kitchen: KitchenInput; sales: SalesInput; labor: LaborInput; clockIns: ClockInsInput };
export type CurrentData = { posMenu: PosMenuInput; employees: EmployeesInput; reservations: ReservationsInput };
