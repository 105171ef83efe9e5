import * as v from 'valibot';
import { parseCompactDate, parseIsoDate } from '#contract/business-date';
import { plainText } from '#contract/plain-text';

/**
 * The /v1 request rules: query, path and body schemas the family functions
 * validate (contract/validation.ts, which also words their refusals). A
 * route's row names its rules and what their fields mean (OpenAPI documents
 * both, through @valibot/to-json-schema).
 */

/** The rules of a query or of path parameters: an object of named strings. */
export type ParameterRules = v.GenericSchema<Record<string, string | undefined>, Record<string, unknown>> & {
  readonly entries: v.ObjectEntries;
};

// ───────────────────────── dates ─────────────────────────

/** Date shapes, declared once: the response schemas build theirs from them. */
export const COMPACT_DATE = /^\d{8}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The message of a date that matches its shape but names no day (2026-02-30). */
const NOT_A_CALENDAR_DATE = 'is not a real calendar date';

const realCompactDate = v.pipe(
  v.string(),
  v.regex(COMPACT_DATE, 'must be a date YYYYMMDD'),
  v.check((value) => parseCompactDate(value) !== null, NOT_A_CALENDAR_DATE),
);

/** `businessDate` and its alias `businessDay` (9.4); both given must agree. */
export const businessDateQuery = v.pipe(
  v.object({
    businessDate: v.optional(realCompactDate),
    businessDay: v.optional(realCompactDate),
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
/** The message of a malformed YYYY-MM-DD, for the request rules and ingest alike. */
const REAL_ISO_DATE_RULE = 'must be a date YYYY-MM-DD';

/** A date YYYY-MM-DD by its shape, as responses give it and the inputs that take it as written. */
const isoDateShape = () => v.pipe(v.string(), v.regex(ISO_DATE, REAL_ISO_DATE_RULE));
export const isoDate = isoDateShape();
/** A date YYYY-MM-DD that names a calendar day. */
export const realIsoDate = v.pipe(v.string(), v.regex(ISO_DATE, REAL_ISO_DATE_RULE), v.check(isRealIsoDate, NOT_A_CALENDAR_DATE));

export const programmingDateParams = v.object({ date: realIsoDate });
export const guideQuery = v.object({ date: v.optional(realIsoDate) });

// ───────────────────────── sports logos ─────────────────────────

/**
 * Logo file names: lowercase words, one known extension. Nothing else can
 * reach the asset store, so no path (`..`, `/`, `%2F`) ever does.
 */
export const SPORTS_LOGO_NAME = /^[a-z0-9][a-z0-9-]{0,62}\.(svg|png)$/;
export const sportsLogoParams = v.object({
  name: v.pipe(v.string(), v.regex(SPORTS_LOGO_NAME, 'must be a logo file name such as nfl.svg')),
});

// ───────────────────────── paging ─────────────────────────

/** A whole number given as a query string, from `min` to `max` (a value out of range names both). */
export function queryInteger(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(min, message), v.maxValue(max, message));
}

/** A page size given as a query string: a whole number within the limits. */
const pageSize = (limits: { min: number; max: number }) => v.optional(queryInteger(limits.min, limits.max));

/** An opaque page token of a previous page. */
const pageToken = v.optional(v.pipe(v.string(), v.maxLength(1024)));

// ───────────────────────── group lists ─────────────────────────

/** Locations per page of a group list: the default holds every location of a group of up to 500 (docs/decisions/paging.md). */
export const GROUP_PAGE_LIMIT = { min: 1, max: 1000, default: 500 } as const;

export const groupPageQuery = v.object({
  limit: pageSize(GROUP_PAGE_LIMIT),
  cursor: pageToken,
});
/** What groupPageQuery's fields mean, for the rows of every group list. */
export const GROUP_PAGE_FIELDS = {
  limit: `Locations per page ${GROUP_PAGE_LIMIT.min}-${GROUP_PAGE_LIMIT.max}, default ${GROUP_PAGE_LIMIT.default}`,
  cursor: 'Opaque nextCursor of the previous page of this list',
};

// ───────────────────────── reviews ─────────────────────────

export const REVIEW_PROVIDERS = ['google', 'yelp', 'tripadvisor', 'opentable'] as const;
export const REVIEW_PAGE_LIMIT = { min: 1, max: 50, default: 20 } as const;
/** Widest createdFrom..createdTo window a filter may ask for. */
export const REVIEW_MAX_RANGE_DAYS = 366;

const rating = v.optional(queryInteger(1, 5));
// Its own schema object, not the named IsoDate, so the document writes these parameters out in full.
const createdDate = v.optional(isoDateShape());

export const reviewsQuery = v.object({
  limit: pageSize(REVIEW_PAGE_LIMIT),
  pageToken,
  minRating: rating,
  maxRating: rating,
  provider: v.optional(v.picklist(REVIEW_PROVIDERS)),
  createdFrom: createdDate,
  createdTo: createdDate,
});

// ───────────────────────── matriq ─────────────────────────

/** Emergency-stop request body: JSON object, both fields optional, nothing else allowed. */
export const emergencyStopBody = v.strictObject({
  reason: v.optional(plainText(500)),
  deviceId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});
