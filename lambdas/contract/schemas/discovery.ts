import * as z from 'zod';
import { MODULES, SCOPES } from '#contract/scopes';
import { absoluteUrl, isoTimestamp, nextCursor, refresh } from './common.js';

/** An object with one property per key, all of one schema. */
function keyed<T extends z.ZodType>(keys: readonly string[], schema: T) {
  return z.object(Object.fromEntries(keys.map((k) => [k, schema])) as Record<string, T>);
}

const modulesEnabled = keyed(MODULES, z.boolean());

export const ENDPOINT_KEYS = ['root', 'modules', 'shiftq', 'sportsq', 'matriq'] as const;

export const tokenBlock = z.object({
  scopeType: z.enum(['group', 'location']),
  scopes: z.array(z.enum(SCOPES)),
  rateLimitPerMinute: z.number().int().positive(),
  expiresAt: isoTimestamp.nullable(),
  accessTokenExpiresAt: isoTimestamp.nullable(),
  credentialType: z.enum(['client_credentials', 'legacy_bearer']),
  status: z.enum(['active', 'revoked', 'expired']),
  allowedLocationIds: z.array(z.string()).optional(),
  tokenPrefix: z.string(),
});

export const locationItem = z.object({
  id: z.string(),
  name: z.string(),
  locationShortName: z.string(),
  timezone: z.string(),
  slug: z.string(),
  status: z.string(),
  modulesEnabled,
  resources: z.array(z.string()),
  endpoints: keyed(ENDPOINT_KEYS, absoluteUrl),
});

export const locationRef = z.object({ id: z.string(), name: z.string(), timezone: z.string() });

export const locationsData = z.object({
  token: tokenBlock,
  locations: z.array(locationItem),
  refresh,
  nextCursor,
});

const moduleGrant = z.object({
  scope: z.string(),
  granted: z.boolean().describe('The token holds the module scope'),
});

export const groupModulesData = z.object({
  group: z.object({ id: z.string(), name: z.string() }),
  modules: keyed(
    MODULES,
    moduleGrant.extend({ locationIds: z.array(z.string()).describe('Accessible locations of this page with the module enabled') }),
  ),
  refresh,
  nextCursor,
});

export const locationModulesData = z.object({
  location: locationRef,
  modulesEnabled,
  modules: keyed(MODULES, moduleGrant.extend({ enabled: z.boolean(), resources: z.array(z.string()) })),
  refresh,
});

export const locationSummaryData = z.object({
  location: locationItem.omit({ resources: true, endpoints: true, modulesEnabled: true }),
  modulesEnabled,
  resources: z.array(z.string()),
  endpoints: locationItem.shape.endpoints,
  refresh,
});
