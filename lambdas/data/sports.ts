import type * as v from 'valibot';
import type { providerData, SportsEvent } from '#contract/schemas/sportsq';
import {
  type Db,
  getItem,
  groupPartition,
  type ItemKey,
  type ItemQuery,
  type OrderedOutcome,
  putInOrder,
  query,
  type SourceOrder,
  withoutKeys,
} from './store.js';

/**
 * Sports programming storage. Schedules are league data, the same for every
 * location, keyed by calendar date; provider environments and viewing data
 * belong to one location. Images are stored as asset names (files under
 * /v1/assets/sports-logo/), never as URLs, so the base URL stays the caller's.
 */

/** The answers' shapes (contract/schemas/sportsq.ts), each image an asset name instead of a URL. */
type StoredProvider = v.InferOutput<typeof providerData>['providers'][number] & { logo: string | null };
type StoredPackage = { id: string; name: string; type: string; image: string | null; enabled: boolean };
type RegionalSportsNetwork = { id: string; name: string; channel: string };

/** A location's provider environment: providers with their lineups, packages, regional networks. */
export type ProviderEnvironment = {
  groupId: string;
  locationId: string;
  updatedAt: string;
  providers: StoredProvider[];
  regionalSportsNetworks: RegionalSportsNetwork[];
  programmingPackageId: string | null;
  packages: StoredPackage[];
};

/**
 * The device platform's word on which providers' feeds a location reaches (contract 2.8's `available` and
 * `availabilityState`): overlaid on its environment's providers of those ids when they are read (sports-day.ts).
 */
export type ProviderAvailability = {
  groupId: string;
  locationId: string;
  updatedAt: string;
  providers: Pick<StoredProvider, 'id' | 'available' | 'availabilityState'>[];
};

type WithImage<T extends { imageUrl: unknown }> = Omit<T, 'imageUrl'> & { image: string | null };

export type StoredEvent = Omit<SportsEvent, 'league' | 'participants' | 'eventImageUrl' | 'viewingOptions'> & {
  league: WithImage<SportsEvent['league']>;
  participants: WithImage<SportsEvent['participants'][number]>[];
  eventImage: string | null;
};

export type Schedule = { date: string; updatedAt: string; events: StoredEvent[] };

/** Location viewing data for one date: per event id, the ways to watch it there (an empty list is known-unwatchable). */
export type ViewingData = {
  groupId: string;
  locationId: string;
  date: string;
  updatedAt: string;
  options: Record<string, SportsEvent['viewingOptions']>;
};

export const sportsKeys = {
  provider: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `SPORTS_PROVIDER#${locationId}` }),
  availability: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `SPORTS_AVAILABILITY#${locationId}` }),
  schedule: (date: string) => ({ PK: 'SPORTS_SCHEDULE', SK: `DATE#${date}` }),
  /** The schedule as a Query (eventually consistent, as every Query here unless told): started beside a request's read-ahead. */
  scheduleQuery: (date: string): ItemQuery => ({
    KeyConditionExpression: 'PK = :pk AND SK = :sk',
    ExpressionAttributeValues: { ':pk': 'SPORTS_SCHEDULE', ':sk': `DATE#${date}` },
  }),
  viewing: (groupId: string, locationId: string, date: string) => ({
    PK: groupPartition(groupId),
    SK: `${sportsKeys.viewingPrefix(locationId)}${date}`,
  }),
  viewingPrefix: (locationId: string) => `SPORTS_VIEWING#${locationId}#`,
  /** The Query for the location's viewing data of `date`, or else its newest earlier one. */
  viewingAtOrBefore: (groupId: string, locationId: string, date: string): ItemQuery => {
    const prefix = sportsKeys.viewingPrefix(locationId);
    return {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': groupPartition(groupId), ':from': prefix, ':to': `${prefix}${date}` },
      ScanIndexForward: false,
      Limit: 1,
    };
  },
};

/**
 * A date's schedule is one item read by every location's sports routes, of every tenant: DynamoDB cannot spread one
 * item's reads, so it is never read per request. Each function instance keeps what it read (an absent schedule too)
 * for at most this long, and reads it eventually consistently outside the authorization batch: a schedule written now
 * is served everywhere within a minute, well inside the contract's five-minute sports cadence (2.12).
 */
export const SHARED_SCHEDULE_TTL_MS = 60_000;
/** Dates kept at most (a path may name any date): the oldest read goes first. */
const SCHEDULES_KEPT = 400;
const schedules = new Map<string, { schedule: Schedule | null; until: number }>();

/** The schedule of `date` as this instance last read it, if that was within SHARED_SCHEDULE_TTL_MS of `now`. */
function keptSchedule(date: string, now: number): { schedule: Schedule | null } | undefined {
  const kept = schedules.get(date);
  if (kept && now < kept.until && now >= kept.until - SHARED_SCHEDULE_TTL_MS) return kept;
  return undefined;
}

/** What a request reads ahead for the schedule of `date`: nothing while this instance keeps it. */
export const scheduleReads = (date: string, now: number): ItemQuery[] => (keptSchedule(date, now) ? [] : [sportsKeys.scheduleQuery(date)]);

export function sportsRepo(db: Db) {
  const get = async <T>(key: ItemKey): Promise<T | null> => {
    const item = await getItem(db, key);
    return item ? withoutKeys<T>(item) : null;
  };
  /** Every sports record is written in its source's order. */
  const put = (key: ItemKey, value: object, order: SourceOrder): Promise<OrderedOutcome> => putInOrder(db, { ...key, ...value }, order);
  return {
    getProvider: (groupId: string, locationId: string) => get<ProviderEnvironment>(sportsKeys.provider(groupId, locationId)),
    putProvider: (env: ProviderEnvironment, order: SourceOrder) => put(sportsKeys.provider(env.groupId, env.locationId), env, order),
    getAvailability: (groupId: string, locationId: string) => get<ProviderAvailability>(sportsKeys.availability(groupId, locationId)),
    putAvailability: (a: ProviderAvailability, order: SourceOrder) => put(sportsKeys.availability(a.groupId, a.locationId), a, order),
    /** The schedule of `date`, as kept by this instance for at most SHARED_SCHEDULE_TTL_MS (the ingest reads with `now` omitted: afresh). */
    async getSchedule(date: string, now?: number): Promise<Schedule | null> {
      if (now === undefined) return get<Schedule>(sportsKeys.schedule(date));
      const kept = keptSchedule(date, now);
      if (kept) return kept.schedule;
      const { Items } = await query(db, sportsKeys.scheduleQuery(date));
      const schedule = Items?.[0] ? withoutKeys<Schedule>(Items[0]) : null;
      schedules.delete(date);
      schedules.set(date, { schedule, until: now + SHARED_SCHEDULE_TTL_MS });
      if (schedules.size > SCHEDULES_KEPT) schedules.delete(schedules.keys().next().value!);
      return schedule;
    },
    putSchedule: (schedule: Schedule, order: SourceOrder) => put(sportsKeys.schedule(schedule.date), schedule, order),
    putViewing: (viewing: ViewingData, order: SourceOrder) =>
      put(sportsKeys.viewing(viewing.groupId, viewing.locationId, viewing.date), viewing, order),
    /**
     * The location's viewing data for `date`, or else its newest earlier one
     * (for the freshness report only; callers never show another day's options).
     */
    async viewingAtOrBefore(groupId: string, locationId: string, date: string): Promise<ViewingData | null> {
      const { Items } = await query(db, sportsKeys.viewingAtOrBefore(groupId, locationId, date));
      const item = Items?.[0];
      return item ? withoutKeys<ViewingData>(item) : null;
    },
  };
}
