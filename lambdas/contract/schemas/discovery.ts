import * as v from 'valibot';
import { MODULES, SCOPES } from '#contract/scopes';
import { absoluteUrl, isoTimestamp, nextCursor, refresh } from './common.js';
import { CREDENTIAL_TYPES } from '../credentials.js';

/** An object with one property per key, all of one schema. */
export function keyed<T extends v.GenericSchema>(keys: readonly string[], schema: T) {
  return v.object(Object.fromEntries(keys.map((k) => [k, schema])) as Record<string, T>);
}

const modulesEnabled = keyed(MODULES, v.boolean());

const ENDPOINT_KEYS = ['root', 'modules', 'shiftq', 'sportsq', 'matriq'] as const;

const tokenBlock = v.object({
  scopeType: v.picklist(['group', 'location']),
  scopes: v.array(v.picklist(SCOPES)),
  rateLimitPerMinute: v.pipe(v.number(), v.safeInteger(), v.gtValue(0)),
  expiresAt: v.nullable(isoTimestamp),
  accessTokenExpiresAt: v.nullable(isoTimestamp),
  credentialType: v.picklist(CREDENTIAL_TYPES),
  status: v.picklist(['active', 'revoked', 'expired']),
  allowedLocationIds: v.optional(v.array(v.string())),
  tokenPrefix: v.string(),
});

const locationItem = v.object({
  id: v.string(),
  name: v.string(),
  locationShortName: v.string(),
  timezone: v.string(),
  slug: v.string(),
  status: v.string(),
  modulesEnabled,
  resources: v.array(v.string()),
  endpoints: keyed(ENDPOINT_KEYS, absoluteUrl),
});

export const locationRef = v.object({ id: v.string(), name: v.string(), timezone: v.string() });

export const locationsData = v.object({
  token: tokenBlock,
  locations: v.array(locationItem),
  refresh,
  nextCursor,
});

const moduleGrant = v.object({
  scope: v.string(),
  granted: v.pipe(v.boolean(), v.description('The token holds the module scope')),
});

export const groupModulesData = v.object({
  group: v.object({ id: v.string(), name: v.string() }),
  modules: keyed(
    MODULES,
    v.object({
      ...moduleGrant.entries,
      locationIds: v.pipe(v.array(v.string()), v.description('Accessible locations of this page with the module enabled')),
    }),
  ),
  refresh,
  nextCursor,
});

export const locationModulesData = v.object({
  location: locationRef,
  modulesEnabled,
  modules: keyed(MODULES, v.object({ ...moduleGrant.entries, enabled: v.boolean(), resources: v.array(v.string()) })),
  refresh,
});

export const locationSummaryData = v.object({
  location: v.omit(locationItem, ['resources', 'endpoints', 'modulesEnabled']),
  modulesEnabled,
  resources: v.array(v.string()),
  endpoints: locationItem.entries.endpoints,
  refresh,
});
