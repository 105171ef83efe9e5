import { z } from 'zod';
import { parseCompactDate, parseIsoDate } from '#contract/business-date';

/**
 * The /v1 request rules: query, path and body schemas the family functions
 * validate, kept apart from the response schemas so no function bundle
 * carries those (OpenAPI documents both).
 */

// ───────────────────────── dates ─────────────────────────

export const compactDate = z.string().regex(/^\d{8}$/, 'use YYYYMMDD');
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'use YYYY-MM-DD');

const realCompactDate = compactDate.refine((v) => parseCompactDate(v) !== null, 'is not a real calendar date');

/** `businessDate` and its alias `businessDay` (9.4); both given must agree. */
export const businessDateQuery = z
  .object({
    businessDate: realCompactDate.optional().describe('Business date YYYYMMDD; default: the current business date'),
    businessDay: realCompactDate.optional().describe('Alias of businessDate'),
  })
  .superRefine((q, ctx) => {
    if (q.businessDate && q.businessDay && q.businessDate !== q.businessDay) {
      ctx.addIssue({ code: 'custom', path: ['businessDay'], message: 'differs from businessDate; give one of them' });
    }
  });

/** A real, zero-padded calendar date YYYY-MM-DD (2026-02-30, 2026-2-3 and 20260203 are refused). */
export const realIsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'use a zero-padded date YYYY-MM-DD')
  .refine((v) => parseIsoDate(v) !== null, 'is not a real calendar date');

export const programmingDateParams = z.object({ date: realIsoDate.describe('Programming date YYYY-MM-DD') });
export const guideQuery = z.object({
  date: realIsoDate.optional().describe('Guide date YYYY-MM-DD; default: the current business date at the location'),
});

// ───────────────────────── sports logos ─────────────────────────

/**
 * Logo file names: lowercase words, one known extension. Nothing else can
 * reach the asset store, so no path (`..`, `/`, `%2F`) ever does.
 */
export const SPORTS_LOGO_NAME = /^[a-z0-9][a-z0-9-]{0,62}\.(svg|png)$/;
export const sportsLogoParams = z.object({
  name: z.string().regex(SPORTS_LOGO_NAME, 'use a logo file name such as nfl.svg').describe('Logo file name, e.g. nfl.svg'),
});

// ───────────────────────── reviews ─────────────────────────

export const REVIEW_PROVIDERS = ['google', 'yelp', 'tripadvisor', 'opentable'] as const;
export const REVIEW_PAGE_LIMIT = { min: 1, max: 50, default: 20 } as const;
/** Widest createdFrom..createdTo window a filter may ask for. */
export const REVIEW_MAX_RANGE_DAYS = 366;

const rating = z.coerce.number().int().min(1).max(5);

export const reviewsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(REVIEW_PAGE_LIMIT.min)
    .max(REVIEW_PAGE_LIMIT.max)
    .optional()
    .describe(`Page size ${REVIEW_PAGE_LIMIT.min}-${REVIEW_PAGE_LIMIT.max}, default ${REVIEW_PAGE_LIMIT.default}`),
  pageToken: z.string().max(1024).optional().describe('Opaque nextPageToken of the previous page, with the same filters'),
  minRating: rating.optional().describe('Lowest rating, 1-5'),
  maxRating: rating.optional().describe('Highest rating, 1-5'),
  provider: z.enum(REVIEW_PROVIDERS).optional(),
  createdFrom: isoDate.optional().describe('First local calendar day (YYYY-MM-DD) of createdAt, inclusive'),
  createdTo: isoDate.optional().describe('Last local calendar day (YYYY-MM-DD) of createdAt, inclusive'),
});

// ───────────────────────── matriq ─────────────────────────

/** Emergency-stop request body: JSON object, both fields optional, nothing else allowed. */
export const emergencyStopBody = z
  .object({
    reason: z.string().trim().min(1).max(500).optional().describe('Why the stop is requested; a default text when absent'),
    deviceId: z.string().min(1).max(64).optional().describe("One of the Auto Scheduler's deviceIds; default: its first"),
  })
  .strict();
export type EmergencyStopBody = z.infer<typeof emergencyStopBody>;
