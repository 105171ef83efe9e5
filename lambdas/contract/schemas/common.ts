import * as v from 'valibot';
import { ID_PATTERN, ID_RULE, RESERVED_IDS } from '../ids.js';
import { COMPACT_DATE } from './requests.js';
// A response date's shape, named IsoDate in the OpenAPI document like every schema this module exports.
export { isoDate } from './requests.js';

/** The id rule (lambdas/contract/ids.ts) as a schema, for inputs that name ids. */
export const id = v.pipe(
  v.string(),
  v.regex(ID_PATTERN, ID_RULE),
  v.check((value) => !RESERVED_IDS.has(value), 'is reserved by a route'),
);

/**
 * An RFC 3339 date and time with a real calendar date, `Z` or an offset (`utc` refuses an offset): the rule of
 * every timestamp the service takes or gives, stated as a pattern so the OpenAPI document states it too.
 */
const DATE_TIME =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$/;
const UTC_DATE_TIME = new RegExp(DATE_TIME.source.replace('(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d))', 'Z'));
export function dateTime({ utc = false } = {}) {
  const example = utc ? '2026-01-31T09:30:00Z' : '2026-01-31T09:30:00Z or 2026-01-31T09:30:00+01:00';
  return v.pipe(
    v.string(),
    v.regex(utc ? UTC_DATE_TIME : DATE_TIME, `must be a date and time such as ${example}`),
    v.metadata({ format: 'date-time' }),
  );
}
export const isoTimestamp = dateTime();

/** A compact date of responses (the request rules, which also check the calendar, and `isoDate` are in requests.ts). */
export const compactDate = v.pipe(v.string(), v.regex(COMPACT_DATE, 'must be a date YYYYMMDD'));
export const absoluteUrl = v.pipe(v.string(), v.url('must be an absolute URL'));
/** A group list's paging field: present only when more locations follow (docs/decisions/paging.md). */
export const nextCursor = v.optional(v.pipe(v.string(), v.description('Opaque cursor of the next page; absent on the last page')));

/**
 * A fractional number input, bounded to its domain: within [min, max] and
 * written with at most `decimals` digits after the point (never as 1e-7).
 * Such a number has at most 17 significant digits and, unless 0, a magnitude
 * from 10^-decimals to max: DynamoDB stores it exactly (38 digits, 1E-130 to
 * under 1E+126). A multipleOf rule is no substitute: it lets 1e-200 through.
 */
export function decimal(min: number, max: number, decimals: number) {
  const plain = new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`);
  return v.pipe(
    v.number(),
    v.minValue(min),
    v.maxValue(max),
    v.check((n) => plain.test(String(n)), `must have at most ${decimals} decimals`),
  );
}

/** An amount in a currency's major unit: up to 10 million either way, at most 4 decimals (the finest ISO 4217 minor unit). */
export const money = decimal(-10_000_000, 10_000_000, 4);
/** The same, never negative. */
export const nonNegativeMoney = decimal(0, 10_000_000, 4);

export const refresh = v.object({ cadence: v.string(), description: v.string() });

/** The common envelope of 2.1 around a resource's `data`. */
export function envelope(data: v.GenericSchema, { locationLevel }: { locationLevel: boolean }) {
  const entries: v.ObjectEntries = {
    ok: v.literal(true),
    version: v.literal('v1'),
    resource: v.string(),
    groupId: v.string(),
    ...(locationLevel ? { locationId: v.string() } : {}),
    generatedAt: v.optional(isoTimestamp),
    data,
  };
  return v.object(entries);
}

/** Every non-success /v1 response. */
export const errorBody = v.object({
  ok: v.literal(false),
  version: v.literal('v1'),
  error: v.object({
    code: v.string(),
    message: v.string(),
    status: v.pipe(v.number(), v.safeInteger()),
    requestId: v.string(),
  }),
});
