import * as z from 'zod';
import { ID_PATTERN, ID_RULE, isReservedId } from '../ids.js';
import { COMPACT_DATE, ISO_DATE } from './requests.js';

/** The id rule (lambdas/contract/ids.ts) as a schema, for inputs that name ids. */
export const id = z
  .string()
  .regex(ID_PATTERN, ID_RULE)
  .refine((v) => !isReservedId(v), 'this id is reserved by a route');

export const isoTimestamp = z.string().datetime({ offset: true });
/** The date shapes of responses (the request rules, which also check the calendar, are in requests.ts). */
export const compactDate = z.string().regex(COMPACT_DATE);
export const isoDate = z.string().regex(ISO_DATE);
export const absoluteUrl = z.string().url();
/** A group list's paging field: present only when more locations follow (docs/decisions/paging.md). */
export const nextCursor = z.string().optional().describe('Opaque cursor of the next page; absent on the last page');

/**
 * A fractional number input, bounded to its domain: within [min, max] and
 * written with at most `decimals` digits after the point (never as 1e-7).
 * Such a number has at most 17 significant digits and, unless 0, a magnitude
 * from 10^-decimals to max: DynamoDB stores it exactly (38 digits, 1E-130 to
 * under 1E+126). zod's multipleOf is no substitute: it lets 1e-200 through.
 */
export function decimal(min: number, max: number, decimals: number) {
  const plain = new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`);
  return z.number().min(min).max(max).refine((n) => plain.test(String(n)), `use at most ${decimals} decimals`);
}

/** An amount in a currency's major unit: up to 10 million either way, at most 4 decimals (the finest ISO 4217 minor unit). */
export const money = decimal(-10_000_000, 10_000_000, 4);

export const refresh = z.object({ cadence: z.string(), description: z.string() });

/** The common envelope of 2.1 around a resource's `data`. */
export function envelope<T extends z.ZodType>(data: T, { locationLevel }: { locationLevel: boolean }) {
  return z.object({
    ok: z.literal(true),
    version: z.literal('v1'),
    resource: z.string(),
    groupId: z.string(),
    ...(locationLevel ? { locationId: z.string() } : {}),
    generatedAt: isoTimestamp.optional(),
    data,
  });
}

/** Every non-success /v1 response. */
export const errorBody = z.object({
  ok: z.literal(false),
  version: z.literal('v1'),
  error: z.object({
    code: z.string(),
    message: z.string(),
    status: z.number().int(),
    requestId: z.string(),
  }),
});
