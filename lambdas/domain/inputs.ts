import * as v from 'valibot';
import { isValidTimeZone } from '#contract/business-date';
import { id, isoTimestamp } from '#contract/schemas/common';
import { plainText } from '#contract/plain-text';
import { APP_RATE_CEILING_PER_MINUTE } from '#data/rate-counters';
import { ITEM_VALUE_BUDGET_BYTES, plainItemBytes, StorageLimitError } from '#data/limits';
import { type Module, MODULES, SCOPES } from '#contract/scopes';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from './admin-errors.js';

/** A list of at least one item, each once. */
const distinct = <S extends v.GenericSchema>(item: S, what: string) =>
  v.pipe(
    v.array(item),
    v.minLength(1),
    v.check((l) => new Set(l).size === l.length, `must not repeat ${what}`),
  );

/** A module a location has, or not (absent: not). */
const moduleFlag = v.optional(v.boolean(), false);

export const groupInput = v.object({ groupId: id, name: plainText(200) });

export const locationInput = v.object({
  groupId: id,
  id,
  name: plainText(200),
  locationShortName: plainText(60),
  timezone: v.pipe(v.string(), v.check(isValidTimeZone, 'must be an IANA time zone such as America/New_York')),
  slug: v.pipe(v.string(), v.regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lowercase words joined by "-"')),
  status: v.optional(v.picklist(['active', 'inactive']), 'active'),
  modulesEnabled: v.strictObject(Object.fromEntries(MODULES.map((m) => [m, moduleFlag])) as Record<Module, typeof moduleFlag>),
});

/** A new application; nothing else may be given (a typo never passes silently). */
export const appInput = v.strictObject({
  groupId: id,
  name: plainText(200),
  scopes: distinct(
    v.picklist(SCOPES, (issue) => `is an unknown scope (${String(issue.input)})`),
    'a scope',
  ),
  // A repeated id is refused, as repeated scopes and destination locations are (docs/admin.md, "Admin input").
  allowedLocationIds: v.optional(v.nullable(distinct(id, 'a location')), null),
  rateLimitPerMinute: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(APP_RATE_CEILING_PER_MINUTE)), 600),
  ownerEmail: v.optional(v.nullable(v.pipe(v.string(), v.email('must be an e-mail address'))), null),
  expiresAt: v.optional(v.nullable(isoTimestamp), null),
});

/** A group's body where its path names it (the admin and producer APIs): the name's rule is groupInput's. */
export const groupBody = v.strictObject({ name: v.string() });
/** A location's body where its path names it and its group: a body naming them again is refused. */
export const locationBody = v.strictObject(v.omit(locationInput, ['groupId', 'id']).entries);

export type GroupInput = v.InferInput<typeof groupInput>;
export type LocationInput = v.InferInput<typeof locationInput>;
export type AppInput = v.InferInput<typeof appInput>;

export { AdminConflictError, AdminInputError, AdminNotFoundError };

/**
 * For a value stored as one item (a day's schedule, a location's devices):
 * refused, with its path, when DynamoDB could not hold it. The store's own
 * measure, less room for keys and timestamps; checked while validating, so a
 * load that holds one such value writes nothing.
 */
export function fitsOneItem<T extends Record<string, unknown>>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      const bytes = plainItemBytes(dataset.value);
      if (bytes > ITEM_VALUE_BUDGET_BYTES) {
        addIssue({
          message: `is too large to store: ${bytes.toLocaleString('en')} bytes as DynamoDB counts them, at most ${ITEM_VALUE_BUDGET_BYTES.toLocaleString('en')} in one item`,
        });
      }
    } catch (err) {
      // A value the schema already refuses (e.g. a number DynamoDB cannot hold) is not measured.
      if (!(err instanceof StorageLimitError)) throw err;
      addIssue({ message: `cannot be stored (${err.message.replace(/\.$/, '')})` });
    }
  });
}

const destinationName = plainText(200);
const destinationLocationIds = v.pipe(distinct(id, 'a location'), v.maxLength(500));

/** A webhook destination to add (contract 6.5); the URL's safety is checked when it is saved. */
export const addDestinationInput = v.strictObject({
  clientId: id,
  name: destinationName,
  url: v.string(),
  locationIds: v.optional(v.nullable(destinationLocationIds), null),
});
export const editDestinationInput = v.strictObject({
  name: v.optional(destinationName),
  /** Blank keeps the current URL (6.5 rule 5). */
  url: v.optional(v.string()),
  /** null: every location the application covers. */
  locationIds: v.optional(v.nullable(destinationLocationIds)),
});
