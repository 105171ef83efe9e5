import { z } from 'zod';
import { isValidTimeZone } from '../shared/business-date.js';
import { MODULES, SCOPES } from '../shared/scopes.js';

/** Ids appear in URL paths: a small safe alphabet, and never a word a route uses at the same depth. */
const RESERVED_IDS = new Set(['locations', 'modules', 'shiftq', 'bevq', 'campaigns', 'openapi.json', 'assets', 'oauth', 'v1']);
export const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'use 1-64 letters, digits, "-" or "_", starting with a letter or digit')
  .refine((v) => !RESERVED_IDS.has(v), 'this id is reserved by a route');

export const groupInput = z.object({ groupId: id, name: z.string().trim().min(1).max(200) });

export const locationInput = z.object({
  groupId: id,
  id,
  name: z.string().trim().min(1).max(200),
  locationShortName: z.string().trim().min(1).max(60),
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
  name: z.string().trim().min(1).max(200),
  scopes: z
    .array(z.enum(SCOPES, { error: (issue) => `unknown scope ${String(issue.input)}` }))
    .min(1).refine((s) => new Set(s).size === s.length, 'scopes repeat'),
  allowedLocationIds: z.array(id).min(1).nullable().default(null),
  rateLimitPerMinute: z.number().int().min(1).max(100_000).default(600),
  ownerEmail: z.string().email().nullable().default(null),
  expiresAt: z.string().datetime({ offset: true }).nullable().default(null),
});

export type GroupInput = z.input<typeof groupInput>;
export type LocationInput = z.input<typeof locationInput>;
export type AppInput = z.input<typeof appInput>;

/**
 * Thrown for admin input that breaks a rule; nothing has been written when it
 * is thrown. Status and code are what the admin API answers; to the CLI every
 * kind is bad input (exit 2).
 */
export class AdminInputError extends Error {
  readonly status: number = 400;
  readonly code: string = 'invalid_request';
}

/** The id a request is about names nothing. */
export class AdminNotFoundError extends AdminInputError {
  override readonly status = 404;
  override readonly code = 'not_found';
}

/** The request is well formed but the current state forbids it, e.g. testing a disabled destination. */
export class AdminConflictError extends AdminInputError {
  override readonly status = 409;
  override readonly code = 'conflict';
}

export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new AdminInputError(parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  }
  return parsed.data;
}
