import * as z from 'zod';
import { absoluteUrl, isoDate, isoTimestamp, refresh } from './common.js';
import { locationRef } from './discovery.js';

/**
 * Sports programming (contract 2.8): response `data` schemas. Shapes the
 * contract does not show are explained in docs/decisions/sportsq.md.
 */

export const SCHEDULE_STATUSES = ['AVAILABLE', 'SCHEDULE_DATA_UNAVAILABLE'] as const;
export const PROVIDER_STATUSES = [
  'AVAILABLE',
  'PROVIDER_DATA_UNAVAILABLE',
  'PROVIDER_DATA_STALE',
  'PROVIDER_DATA_PARTIAL',
] as const;
export const FRESHNESS = ['EXACT_DATE', 'STALE_DATE', 'MISSING'] as const;

export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];
export type Freshness = (typeof FRESHNESS)[number];

export const availability = z.object({
  status: z.enum(PROVIDER_STATUSES),
  requestedDate: isoDate,
  effectiveDate: isoDate.nullable().describe('Date of the newest viewing data at or before requestedDate; null when none'),
  freshness: z.enum(FRESHNESS),
  updatedAt: isoTimestamp.nullable().describe('When the viewing data (or, without it, the provider environment) was last written'),
  providerCount: z.number().int().nonnegative(),
  channelCount: z.number().int().nonnegative(),
  packageCount: z.number().int().nonnegative(),
  viewingOptionCount: z.number().int().nonnegative(),
});

const channel = z.object({ number: z.string(), name: z.string(), type: z.string() });

export const provider = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  available: z.boolean(),
  availabilityState: z.string(),
  lineupId: z.string(),
  market: z.string(),
  channels: z.array(channel),
});

export const regionalSportsNetwork = z.object({ id: z.string(), name: z.string(), channel: z.string() });

export const providerData = z.object({
  location: locationRef,
  availability,
  providers: z.array(provider),
  regionalSportsNetworks: z.array(regionalSportsNetwork),
  refresh,
});

const canonicalPackage = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  imageUrl: absoluteUrl.nullable(),
  enabled: z.boolean(),
});

export const packagesData = z.object({
  location: locationRef,
  refresh,
  // Legacy catalog, retained for existing integrations (9.2).
  catalog: z.array(
    z.object({ packageKey: z.string(), label: z.string(), logo: absoluteUrl.nullable(), category: z.string(), selected: z.boolean() }),
  ),
  selectedPackageKeys: z.array(z.string()),
  programmingPackageKey: z.string().nullable(),
  canonical: z.object({
    location: z.object({ groupId: z.string(), locationId: z.string() }),
    availability: availability.pick({ status: true, requestedDate: true, effectiveDate: true, freshness: true }),
    programmingPackage: z.object({ id: z.string(), name: z.string(), imageUrl: absoluteUrl.nullable() }).nullable(),
    packages: z.array(canonicalPackage),
    regionalSportsNetworks: z.array(regionalSportsNetwork),
  }),
});

const named = z.object({ id: z.string(), name: z.string() });

export const viewingOption = z.object({
  provider: z.object({ id: z.string(), name: z.string(), type: z.string() }),
  network: z.object({ id: z.string(), name: z.string(), type: z.string() }),
  channel: z.string(),
  available: z.boolean(),
});

export const sportsEvent = z.object({
  id: z.string().describe('Stable event id'),
  name: z.string(),
  startsAt: isoTimestamp,
  status: z.object({ state: z.string(), label: z.string(), detail: z.string(), period: z.number(), clock: z.string() }),
  sport: named,
  league: named.extend({ abbreviation: z.string(), imageUrl: absoluteUrl.nullable() }),
  participants: z.array(
    z.object({
      type: z.string(),
      id: z.string(),
      name: z.string(),
      role: z.string(),
      imageUrl: absoluteUrl.nullable(),
      score: z.string(),
      winner: z.boolean(),
    }),
  ),
  eventImageUrl: absoluteUrl.nullable(),
  venue: named.extend({ city: z.string(), state: z.string(), country: z.string(), indoor: z.boolean() }),
  viewingOptions: z.array(viewingOption).describe('Ways to watch at this location; not what a television shows'),
});

export const programmingData = z.object({
  location: z.object({ groupId: z.string(), locationId: z.string(), timezone: z.string() }),
  date: isoDate,
  updatedAt: isoTimestamp.nullable().describe('When the schedule for this date was last written; null without one'),
  health: z.object({
    schedule: z.object({ status: z.enum(SCHEDULE_STATUSES), eventCount: z.number().int().nonnegative() }),
    providerAvailability: availability,
  }),
  events: z.array(sportsEvent),
  refresh,
});

/** Legacy guide (9.2): only the top-level names are contractual; the inner shape is ours. */
export const guideData = z.object({
  location: locationRef,
  date: isoDate,
  refresh,
  settings: z.object({ timezone: z.string(), programmingPackageKey: z.string().nullable() }),
  selections: z.object({ packageKeys: z.array(z.string()), providerIds: z.array(z.string()) }),
  networkCatalog: z.array(z.object({ networkId: z.string(), name: z.string(), type: z.string(), channels: z.array(z.string()) })),
  guide: z.object({
    scheduleStatus: z.enum(SCHEDULE_STATUSES),
    providerStatus: z.enum(PROVIDER_STATUSES),
    listings: z.array(
      z.object({
        eventId: z.string(),
        title: z.string(),
        league: z.string(),
        startsAt: isoTimestamp,
        channels: z.array(z.object({ providerId: z.string(), networkId: z.string(), channel: z.string() })),
      }),
    ),
  }),
});

export type SportsEvent = z.infer<typeof sportsEvent>;

