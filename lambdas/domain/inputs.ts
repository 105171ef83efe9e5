import * as z from 'zod';
import { isValidTimeZone } from '#contract/business-date';
import { id } from '#contract/schemas/common';
import { ITEM_VALUE_BUDGET_BYTES, plainItemBytes, StorageLimitError } from '#data/item-limits';
import { APP_RATE_CEILING_PER_MINUTE } from '#data/rate-counters';
import { MODULES, SCOPES } from '#contract/scopes';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from './admin-errors.js';

/**
 * What free text an operator types (names) may not hold, each a way to make one line show or mean something else
 * where it is printed: C0 and C1 control characters (NUL, BEL, ESC, CR, LF, tab, DEL ...: terminal escapes, log
 * and header splitting), the line and paragraph separators U+2028/U+2029, the bidirectional embeddings, overrides
 * and isolates U+202A-U+202E and U+2066-U+2069 ("Trojan Source": text that reads backwards), and lone UTF-16
 * surrogates (not text at all: no UTF-8 encoding, refused or mangled by the services it reaches).
 */
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Why a text is refused, naming the first offending character, or null when it is plain. */
export function unsafeTextReason(value: string): string | null {
  // In a `u` pattern a surrogate range matches only a surrogate without its pair.
  if (/[\ud800-\udfff]/u.test(value)) return 'must not contain a lone surrogate (not valid Unicode text)';
  const hit = UNSAFE_CHARACTER.exec(value);
  if (!hit) return null;
  const code = `U+${hit[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return /[\u202a-\u202e\u2066-\u2069]/u.test(hit[0])
    ? `must not contain bidirectional override or isolate characters (${code})`
    : `must not contain control characters or line breaks (${code})`;
}

/** A free-text field: plain text (unsafeTextReason, checked before trimming), trimmed, 1 to `max` characters. */
export function plainText(max: number) {
  return z
    .string()
    .check((ctx) => {
      const reason = unsafeTextReason(ctx.value);
      if (reason) ctx.issues.push({ code: 'custom', message: reason, input: ctx.value });
    })
    .trim()
    .min(1)
    .max(max);
}

export const groupInput = z.object({ groupId: id, name: plainText(200) });

export const locationInput = z.object({
  groupId: id,
  id,
  name: plainText(200),
  locationShortName: plainText(60),
  timezone: z.string().refine(isValidTimeZone, 'must be an IANA time zone such as America/New_York'),
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase words joined by "-"'),
  status: z.enum(['active', 'inactive']).default('active'),
  modulesEnabled: z
    .object(Object.fromEntries(MODULES.map((m) => [m, z.boolean().default(false)])) as Record<
      (typeof MODULES)[number],
      z.ZodDefault<z.ZodBoolean>
    >)
    .strict(),
});

export const appInput = z.object({
  groupId: id,
  name: plainText(200),
  scopes: z
    .array(z.enum(SCOPES, { error: (issue) => `unknown scope ${String(issue.input)}` }))
    .min(1).refine((s) => new Set(s).size === s.length, 'scopes repeat'),
  // A repeated id is refused, as repeated scopes and destination locations are (docs/admin.md, "Admin input").
  allowedLocationIds: z.array(id).min(1).refine((l) => new Set(l).size === l.length, 'locations repeat').nullable().default(null),
  rateLimitPerMinute: z.number().int().min(1).max(APP_RATE_CEILING_PER_MINUTE).default(600),
  ownerEmail: z.string().email().nullable().default(null),
  expiresAt: z.string().datetime({ offset: true }).nullable().default(null),
});

export type GroupInput = z.input<typeof groupInput>;
export type LocationInput = z.input<typeof locationInput>;
export type AppInput = z.input<typeof appInput>;

export { AdminConflictError, AdminInputError, AdminNotFoundError };

/**
 * For a value stored as one item (a day's schedule, a location's devices):
 * refused, with its path, when DynamoDB could not hold it. The store's own
 * measure, less room for keys and timestamps; checked while validating, so a
 * load that holds one such value writes nothing.
 */
export function fitsOneItem(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
  try {
    const bytes = plainItemBytes(value);
    if (bytes > ITEM_VALUE_BUDGET_BYTES) {
      ctx.addIssue({ code: 'custom', message: `too large to store: ${bytes.toLocaleString('en')} bytes as DynamoDB counts them, at most ${ITEM_VALUE_BUDGET_BYTES.toLocaleString('en')} in one item` });
    }
  } catch (err) {
    // A value the schema already refuses (e.g. a number DynamoDB cannot hold) is not measured.
    if (!(err instanceof StorageLimitError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
  }
}

export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new AdminInputError(parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

const destinationName = plainText(200);
const destinationLocationIds = z
  .array(id)
  .min(1)
  .max(500)
  .refine((l) => new Set(l).size === l.length, 'locations repeat');

/** A webhook destination to add (contract 6.5); the URL's safety is checked when it is saved. */
export const addDestinationInput = z.object({
  clientId: id,
  name: destinationName,
  url: z.string(),
  locationIds: destinationLocationIds.nullable().default(null),
});
export const editDestinationInput = z.object({
  name: destinationName.optional(),
  /** Blank keeps the current URL (6.5 rule 5). */
  url: z.string().optional(),
  /** null: every location the application covers. */
  locationIds: destinationLocationIds.nullable().optional(),
});
