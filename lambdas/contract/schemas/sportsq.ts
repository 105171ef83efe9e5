import * as v from 'valibot';
import { absoluteUrl, isoTimestamp, refresh } from './common.js';
import { isoDate } from './requests.js';
import { locationRef } from './discovery.js';

/**
 * Sports programming (contract 2.8): response `data` schemas. Shapes the
 * contract does not show are explained in docs/decisions/sportsq.md.
 */

const SCHEDULE_STATUSES = ['AVAILABLE', 'SCHEDULE_DATA_UNAVAILABLE'] as const;
const PROVIDER_STATUSES = ['AVAILABLE', 'PROVIDER_DATA_UNAVAILABLE', 'PROVIDER_DATA_STALE', 'PROVIDER_DATA_PARTIAL'] as const;
const FRESHNESS = ['EXACT_DATE', 'STALE_DATE', 'MISSING'] as const;

export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];
export type Freshness = (typeof FRESHNESS)[number];

const availability = v.object({
  status: v.picklist(PROVIDER_STATUSES),
  requestedDate: isoDate,
  effectiveDate: v.pipe(v.nullable(isoDate), v.description('Date of the newest viewing data at or before requestedDate; null when none')),
  freshness: v.picklist(FRESHNESS),
  updatedAt: v.pipe(
    v.nullable(isoTimestamp),
    v.description('When the viewing data (or, without it, the provider environment) was last written'),
  ),
  providerCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  channelCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  packageCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  viewingOptionCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
});

const channel = v.object({ number: v.string(), name: v.string(), type: v.string() });

const provider = v.object({
  id: v.string(),
  name: v.string(),
  type: v.string(),
  available: v.boolean(),
  availabilityState: v.string(),
  lineupId: v.string(),
  market: v.string(),
  channels: v.array(channel),
});

const regionalSportsNetwork = v.object({ id: v.string(), name: v.string(), channel: v.string() });

export const providerData = v.object({
  location: locationRef,
  availability,
  providers: v.array(provider),
  regionalSportsNetworks: v.array(regionalSportsNetwork),
  refresh,
});

const canonicalPackage = v.object({
  id: v.string(),
  name: v.string(),
  type: v.string(),
  imageUrl: v.nullable(absoluteUrl),
  enabled: v.boolean(),
});

export const packagesData = v.object({
  location: locationRef,
  refresh,
  // Legacy catalog, retained for existing integrations (9.2).
  catalog: v.array(
    v.object({ packageKey: v.string(), label: v.string(), logo: v.nullable(absoluteUrl), category: v.string(), selected: v.boolean() }),
  ),
  selectedPackageKeys: v.array(v.string()),
  programmingPackageKey: v.nullable(v.string()),
  canonical: v.object({
    location: v.object({ groupId: v.string(), locationId: v.string() }),
    availability: v.pick(availability, ['status', 'requestedDate', 'effectiveDate', 'freshness']),
    programmingPackage: v.nullable(v.object({ id: v.string(), name: v.string(), imageUrl: v.nullable(absoluteUrl) })),
    packages: v.array(canonicalPackage),
    regionalSportsNetworks: v.array(regionalSportsNetwork),
  }),
});

const named = v.object({ id: v.string(), name: v.string() });

const viewingOption = v.object({
  provider: v.object({ id: v.string(), name: v.string(), type: v.string() }),
  network: v.object({ id: v.string(), name: v.string(), type: v.string() }),
  channel: v.string(),
  available: v.boolean(),
});

export const sportsEvent = v.object({
  id: v.pipe(v.string(), v.description('Stable event id')),
  name: v.string(),
  startsAt: isoTimestamp,
  status: v.object({ state: v.string(), label: v.string(), detail: v.string(), period: v.number(), clock: v.string() }),
  sport: named,
  league: v.object({ ...named.entries, abbreviation: v.string(), imageUrl: v.nullable(absoluteUrl) }),
  participants: v.array(
    v.object({
      type: v.string(),
      id: v.string(),
      name: v.string(),
      role: v.string(),
      imageUrl: v.nullable(absoluteUrl),
      score: v.string(),
      winner: v.boolean(),
    }),
  ),
  eventImageUrl: v.nullable(absoluteUrl),
  venue: v.object({ ...named.entries, city: v.string(), state: v.string(), country: v.string(), indoor: v.boolean() }),
  viewingOptions: v.pipe(v.array(viewingOption), v.description('Ways to watch at this location; not what a television shows')),
});

export const programmingData = v.object({
  location: v.object({ groupId: v.string(), locationId: v.string(), timezone: v.string() }),
  date: isoDate,
  updatedAt: v.pipe(v.nullable(isoTimestamp), v.description('When the schedule for this date was last written; null without one')),
  health: v.object({
    schedule: v.object({ status: v.picklist(SCHEDULE_STATUSES), eventCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)) }),
    providerAvailability: availability,
  }),
  events: v.array(sportsEvent),
  refresh,
});

/** Legacy guide (9.2): only the top-level names are contractual; the inner shape is ours. */
export const guideData = v.object({
  location: locationRef,
  date: isoDate,
  refresh,
  settings: v.object({ timezone: v.string(), programmingPackageKey: v.nullable(v.string()) }),
  selections: v.object({ packageKeys: v.array(v.string()), providerIds: v.array(v.string()) }),
  networkCatalog: v.array(v.object({ networkId: v.string(), name: v.string(), type: v.string(), channels: v.array(v.string()) })),
  guide: v.object({
    scheduleStatus: v.picklist(SCHEDULE_STATUSES),
    providerStatus: v.picklist(PROVIDER_STATUSES),
    listings: v.array(
      v.object({
        eventId: v.string(),
        title: v.string(),
        league: v.string(),
        startsAt: isoTimestamp,
        channels: v.array(v.object({ providerId: v.string(), networkId: v.string(), channel: v.string() })),
      }),
    ),
  }),
});

export type SportsEvent = v.InferOutput<typeof sportsEvent>;
