import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, type ItemQuery, groupPartition } from './store.js';

/**
 * Sports programming storage. Schedules are league data, the same for every
 * location, keyed by calendar date; provider environments and viewing data
 * belong to one location. Images are stored as asset names (files under
 * /v1/assets/sports-logo/), never as URLs, so the base URL stays the caller's.
 */

type StoredChannel = { number: string; name: string; type: string };
type StoredProvider = {
  id: string;
  name: string;
  type: string;
  available: boolean;
  availabilityState: string;
  lineupId: string;
  market: string;
  logo: string | null;
  channels: StoredChannel[];
};
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

type StoredParticipant = {
  type: string;
  id: string;
  name: string;
  role: string;
  image: string | null;
  score: string;
  winner: boolean;
};

export type StoredEvent = {
  id: string;
  name: string;
  startsAt: string;
  status: { state: string; label: string; detail: string; period: number; clock: string };
  sport: { id: string; name: string };
  league: { id: string; name: string; abbreviation: string; image: string | null };
  participants: StoredParticipant[];
  eventImage: string | null;
  venue: { id: string; name: string; city: string; state: string; country: string; indoor: boolean };
};

export type Schedule = { date: string; updatedAt: string; events: StoredEvent[] };

type StoredViewingOption = {
  provider: { id: string; name: string; type: string };
  network: { id: string; name: string; type: string };
  channel: string;
  available: boolean;
};

/** Location viewing data for one date: per event id, the ways to watch it there (an empty list is known-unwatchable). */
export type ViewingData = {
  groupId: string;
  locationId: string;
  date: string;
  updatedAt: string;
  options: Record<string, StoredViewingOption[]>;
};

export const sportsKeys = {
  provider: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `SPORTS_PROVIDER#${locationId}` }),
  schedule: (date: string) => ({ PK: 'SPORTS_SCHEDULE', SK: `DATE#${date}` }),
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

const KEY_ATTRIBUTES = ['PK', 'SK'];
const strip = <T>(item: Record<string, unknown>): T =>
  Object.fromEntries(Object.entries(item).filter(([k]) => !KEY_ATTRIBUTES.includes(k))) as T;

export type SportsRepo = {
  getProvider(groupId: string, locationId: string): Promise<ProviderEnvironment | null>;
  putProvider(env: ProviderEnvironment): Promise<void>;
  getSchedule(date: string): Promise<Schedule | null>;
  putSchedule(schedule: Schedule): Promise<void>;
  putViewing(viewing: ViewingData): Promise<void>;
  viewingAtOrBefore(groupId: string, locationId: string, date: string): Promise<ViewingData | null>;
};

export function sportsRepo({ doc, tableName }: Db): SportsRepo {
  const get = async <T>(Key: Record<string, string>): Promise<T | null> => {
    const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key }));
    return Item ? strip<T>(Item) : null;
  };
  const put = async (Key: Record<string, string>, value: object): Promise<void> => {
    await doc.send(new PutCommand({ TableName: tableName, Item: { ...Key, ...value } }));
  };
  return {
    getProvider: (groupId: string, locationId: string) => get<ProviderEnvironment>(sportsKeys.provider(groupId, locationId)),
    putProvider: (env: ProviderEnvironment) => put(sportsKeys.provider(env.groupId, env.locationId), env),
    getSchedule: (date: string) => get<Schedule>(sportsKeys.schedule(date)),
    putSchedule: (schedule: Schedule) => put(sportsKeys.schedule(schedule.date), schedule),
    putViewing: (viewing: ViewingData) => put(sportsKeys.viewing(viewing.groupId, viewing.locationId, viewing.date), viewing),
    /**
     * The location's viewing data for `date`, or else its newest earlier one
     * (for the freshness report only; callers never show another day's options).
     */
    async viewingAtOrBefore(groupId: string, locationId: string, date: string): Promise<ViewingData | null> {
      const { Items } = await doc.send(
        new QueryCommand({ TableName: tableName, ...sportsKeys.viewingAtOrBefore(groupId, locationId, date) }),
      );
      const item = Items?.[0];
      return item ? strip<ViewingData>(item) : null;
    },
  };
}
