import { z } from 'zod';

export const isoTimestamp = z.string().datetime({ offset: true });
export const absoluteUrl = z.string().url();

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
