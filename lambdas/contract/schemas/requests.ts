import * as v from 'valibot';
import { parseCompactDate, parseIsoDate } from '#contract/business-date';

/**
 * The /v1 request rules: query, path and body schemas the family functions
 * validate, kept apart from the response schemas so no function bundle
 * carries those (OpenAPI documents both). They are written with Valibot,
 * whose schemas are plain functions a bundle takes one by one: about 8 KiB
 * for these rules against 24 KiB for zod/mini's core (README, "Dependencies
 * and why"). The functions validate through the Standard Schema interface
 * (platform/http.ts), and OpenAPI converts them with @valibot/to-json-schema.
 */

/** The rules of a query or of path parameters: an object of named strings. */
export type ParameterRules = v.GenericSchema<Record<string, string | undefined>, Record<string, unknown>> & { readonly entries: v.ObjectEntries };

// ───────────────────────── dates ─────────────────────────

/** Date shapes, declared once: the response schemas build theirs from them. */
export const COMPACT_DATE = /^\d{8}$/;
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const realCompactDate = v.pipe(
  v.string(),
  v.regex(COMPACT_DATE, 'use YYYYMMDD'),
  v.check((value) => parseCompactDate(value) !== null, 'is not a real calendar date'),
);

/** `businessDate` and its alias `businessDay` (9.4); both given must agree. */
export const businessDateQuery = v.pipe(
  v.object({
    businessDate: v.optional(v.pipe(realCompactDate, v.description('Business date YYYYMMDD; default: the current business date'))),
    businessDay: v.optional(v.pipe(realCompactDate, v.description('Alias of businessDate'))),
  }),
  v.forward(
    v.partialCheck(
      [['businessDate'], ['businessDay']],
      (q) => !(q.businessDate && q.businessDay && q.businessDate !== q.businessDay),
      'differs from businessDate; give one of them',
    ),
    ['businessDay'],
  ),
);

/** Whether a string is a real, zero-padded calendar date YYYY-MM-DD (2026-02-30, 2026-2-3 and 20260203 are not). */
export const isRealIsoDate = (value: string) => ISO_DATE.test(value) && parseIsoDate(value) !== null;
/** The message of a malformed YYYY-MM-DD, for rules in either schema library. */
export const REAL_ISO_DATE_RULE = 'use a zero-padded date YYYY-MM-DD';

const realIsoDate = (description: string) => v.pipe(v.string(), v.regex(ISO_DATE, REAL_ISO_DATE_RULE), v.check(isRealIsoDate, 'is not a real calendar date'), v.description(description));

export const programmingDateParams = v.object({ date: realIsoDate('Programming date YYYY-MM-DD') });
export const guideQuery = v.object({ date: v.optional(realIsoDate('Guide date YYYY-MM-DD; default: the current business date at the location')) });

// ───────────────────────── sports logos ─────────────────────────

/**
 * Logo file names: lowercase words, one known extension. Nothing else can
 * reach the asset store, so no path (`..`, `/`, `%2F`) ever does.
 */
export const SPORTS_LOGO_NAME = /^[a-z0-9][a-z0-9-]{0,62}\.(svg|png)$/;
export const sportsLogoParams = v.object({
  name: v.pipe(v.string(), v.regex(SPORTS_LOGO_NAME, 'use a logo file name such as nfl.svg'), v.description('Logo file name, e.g. nfl.svg')),
});

// ───────────────────────── paging ─────────────────────────

/** A page size given as a query string: a whole number within the limits. */
const pageSize = (limits: { min: number; max: number }, description: string) =>
  v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(limits.min), v.maxValue(limits.max), v.description(description)));

/** An opaque page token of a previous page. */
const pageToken = (description: string) => v.optional(v.pipe(v.string(), v.maxLength(1024), v.description(description)));

// ───────────────────────── group lists ─────────────────────────

/** Locations per page of a group list: the default holds every location of a group of up to 500 (docs/decisions/paging.md). */
export const GROUP_PAGE_LIMIT = { min: 1, max: 1000, default: 500 } as const;

export const groupPageQuery = v.object({
  limit: pageSize(GROUP_PAGE_LIMIT, `Locations per page ${GROUP_PAGE_LIMIT.min}-${GROUP_PAGE_LIMIT.max}, default ${GROUP_PAGE_LIMIT.default}`),
  cursor: pageToken('Opaque nextCursor of the previous page of this list'),
});

// ───────────────────────── reviews ─────────────────────────

export const REVIEW_PROVIDERS = ['google', 'yelp', 'tripadvisor', 'opentable'] as const;
export const REVIEW_PAGE_LIMIT = { min: 1, max: 50, default: 20 } as const;
/** Widest createdFrom..createdTo window a filter may ask for. */
export const REVIEW_MAX_RANGE_DAYS = 366;

const rating = (description: string) => v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(5), v.description(description)));
const isoDate = (description: string) => v.optional(v.pipe(v.string(), v.regex(ISO_DATE, 'use YYYY-MM-DD'), v.description(description)));

export const reviewsQuery = v.object({
  limit: pageSize(REVIEW_PAGE_LIMIT, `Page size ${REVIEW_PAGE_LIMIT.min}-${REVIEW_PAGE_LIMIT.max}, default ${REVIEW_PAGE_LIMIT.default}`),
  pageToken: pageToken('Opaque nextPageToken of the previous page, with the same filters'),
  minRating: rating('Lowest rating, 1-5'),
  maxRating: rating('Highest rating, 1-5'),
  provider: v.optional(v.picklist(REVIEW_PROVIDERS)),
  createdFrom: isoDate('First local calendar day (YYYY-MM-DD) of createdAt, inclusive'),
  createdTo: isoDate('Last local calendar day (YYYY-MM-DD) of createdAt, inclusive'),
});

// ───────────────────────── matriq ─────────────────────────

/** Emergency-stop request body: JSON object, both fields optional, nothing else allowed. */
export const emergencyStopBody = v.strictObject({
  reason: v.optional(
    v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(500), v.description('Why the stop is requested; a default text when absent')),
  ),
  deviceId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.description("One of the Auto Scheduler's deviceIds; default: its first"))),
});
