import * as z from 'zod/mini';
import { parseCompactDate, parseIsoDate } from '#contract/business-date';

/**
 * The /v1 request rules: query, path and body schemas the family functions
 * validate, kept apart from the response schemas so no function bundle
 * carries those (OpenAPI documents both). They are written with zod's
 * tree-shakable `zod/mini` (about 20 KB bundled against 450 KB for the
 * full API); OpenAPI reads them like any other schema.
 */

// ───────────────────────── dates ─────────────────────────

/** Date shapes, declared once: the response schemas build theirs from them. */
export const COMPACT_DATE = /^\d{8}$/;
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export const compactDate = z.string().check(z.regex(COMPACT_DATE, 'use YYYYMMDD'));
export const isoDate = z.string().check(z.regex(ISO_DATE, 'use YYYY-MM-DD'));

const realCompactDate = compactDate.check(z.refine((v) => parseCompactDate(v) !== null, 'is not a real calendar date'));

/** `businessDate` and its alias `businessDay` (9.4); both given must agree. */
export const businessDateQuery = z
  .object({
    businessDate: z.optional(realCompactDate).check(z.describe('Business date YYYYMMDD; default: the current business date')),
    businessDay: z.optional(realCompactDate).check(z.describe('Alias of businessDate')),
  })
  .check(
    z.superRefine((q, ctx) => {
      if (q.businessDate && q.businessDay && q.businessDate !== q.businessDay) {
        ctx.addIssue({ code: 'custom', path: ['businessDay'], message: 'differs from businessDate; give one of them' });
      }
    }),
  );

/** A real, zero-padded calendar date YYYY-MM-DD (2026-02-30, 2026-2-3 and 20260203 are refused). */
export const realIsoDate = z
  .string()
  .check(z.regex(ISO_DATE, 'use a zero-padded date YYYY-MM-DD'), z.refine((v) => parseIsoDate(v) !== null, 'is not a real calendar date'));

export const programmingDateParams = z.object({ date: realIsoDate.check(z.describe('Programming date YYYY-MM-DD')) });
export const guideQuery = z.object({
  date: z.optional(realIsoDate).check(z.describe('Guide date YYYY-MM-DD; default: the current business date at the location')),
});

// ───────────────────────── sports logos ─────────────────────────

/**
 * Logo file names: lowercase words, one known extension. Nothing else can
 * reach the asset store, so no path (`..`, `/`, `%2F`) ever does.
 */
export const SPORTS_LOGO_NAME = /^[a-z0-9][a-z0-9-]{0,62}\.(svg|png)$/;
export const sportsLogoParams = z.object({
  name: z.string().check(z.regex(SPORTS_LOGO_NAME, 'use a logo file name such as nfl.svg'), z.describe('Logo file name, e.g. nfl.svg')),
});

// ───────────────────────── group lists ─────────────────────────

/** Locations per page of a group list: the default holds every location of a group of up to 500 (docs/decisions/paging.md). */
export const GROUP_PAGE_LIMIT = { min: 1, max: 1000, default: 500 } as const;

export const groupPageQuery = z.object({
  limit: z
    .optional(z.coerce.number().check(z.int(), z.minimum(GROUP_PAGE_LIMIT.min), z.maximum(GROUP_PAGE_LIMIT.max)))
    .check(z.describe(`Locations per page ${GROUP_PAGE_LIMIT.min}-${GROUP_PAGE_LIMIT.max}, default ${GROUP_PAGE_LIMIT.default}`)),
  cursor: z.optional(z.string().check(z.maxLength(1024))).check(z.describe('Opaque nextCursor of the previous page of this list')),
});

// ───────────────────────── reviews ─────────────────────────

export const REVIEW_PROVIDERS = ['google', 'yelp', 'tripadvisor', 'opentable'] as const;
export const REVIEW_PAGE_LIMIT = { min: 1, max: 50, default: 20 } as const;
/** Widest createdFrom..createdTo window a filter may ask for. */
export const REVIEW_MAX_RANGE_DAYS = 366;

const rating = z.coerce.number().check(z.int(), z.minimum(1), z.maximum(5));

export const reviewsQuery = z.object({
  limit: z
    .optional(z.coerce.number().check(z.int(), z.minimum(REVIEW_PAGE_LIMIT.min), z.maximum(REVIEW_PAGE_LIMIT.max)))
    .check(z.describe(`Page size ${REVIEW_PAGE_LIMIT.min}-${REVIEW_PAGE_LIMIT.max}, default ${REVIEW_PAGE_LIMIT.default}`)),
  pageToken: z.optional(z.string().check(z.maxLength(1024))).check(z.describe('Opaque nextPageToken of the previous page, with the same filters')),
  minRating: z.optional(rating).check(z.describe('Lowest rating, 1-5')),
  maxRating: z.optional(rating).check(z.describe('Highest rating, 1-5')),
  provider: z.optional(z.enum(REVIEW_PROVIDERS)),
  createdFrom: z.optional(isoDate).check(z.describe('First local calendar day (YYYY-MM-DD) of createdAt, inclusive')),
  createdTo: z.optional(isoDate).check(z.describe('Last local calendar day (YYYY-MM-DD) of createdAt, inclusive')),
});

// ───────────────────────── matriq ─────────────────────────

/** Emergency-stop request body: JSON object, both fields optional, nothing else allowed. */
export const emergencyStopBody = z.strictObject({
  reason: z
    .optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(500)))
    .check(z.describe('Why the stop is requested; a default text when absent')),
  deviceId: z.optional(z.string().check(z.minLength(1), z.maxLength(64))).check(z.describe("One of the Auto Scheduler's deviceIds; default: its first")),
});
export type EmergencyStopBody = z.infer<typeof emergencyStopBody>;
