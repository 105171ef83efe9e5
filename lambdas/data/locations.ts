import { MODULES, type ModulesEnabled } from '#contract/scopes';
import {
  getItem,
  groupPartition,
  type Db,
  type ItemQuery,
  query,
  queryAll,
  putItem,
  putInOrder,
  type SourceOrder,
  type OrderedOutcome,
} from './store.js';

export type Location = {
  groupId: string;
  id: string;
  name: string;
  locationShortName: string;
  timezone: string;
  slug: string;
  status: string;
  modulesEnabled: ModulesEnabled;
  createdAt: string;
};

export const locationKeys = {
  location: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `LOCATION#${locationId}` }),
  prefix: 'LOCATION#',
  /**
   * The Query that lists a group's locations in id order: all of them, or
   * one page (one more than asked, to know whether more follow) after a location id.
   */
  ofGroup: (groupId: string, page?: LocationPageRequest): ItemQuery => ({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': groupPartition(groupId), ':sk': locationKeys.prefix },
    ...(page ? { Limit: page.limit + 1 } : {}),
    ...(page?.after !== undefined ? { ExclusiveStartKey: locationKeys.location(groupId, page.after) } : {}),
  }),
};

export type LocationPageRequest = { limit: number; after?: string };
/** A page of locations, and the id to continue after when more follow. */
type LocationPage = { locations: Location[]; next: string | null };

export function locationsRepo(db: Db) {
  return {
    /** Strongly consistent: a location is named right after it is made (`venues load`, then `shiftq load`). */
    async get(groupId: string, locationId: string): Promise<Location | null> {
      const item = await getItem(db, locationKeys.location(groupId, locationId), true);
      return item ? toLocation(item) : null;
    },
    /** Unordered: a test's or a benchmark's fixture. The service writes locations in a source's order (putInOrder). */
    async put(location: Location): Promise<void> {
      await putItem(db, { Item: { ...locationKeys.location(location.groupId, location.id), ...location } });
    },
    putInOrder: (location: Location, order: SourceOrder): Promise<OrderedOutcome> =>
      putInOrder(db, { ...locationKeys.location(location.groupId, location.id), ...location }, order),
    /** Every location of a group, in id order. */
    async list(groupId: string): Promise<Location[]> {
      return (await queryAll(db, locationKeys.ofGroup(groupId))).map(toLocation);
    },
    /** One page in id order: one Query call (DynamoDB's 1 MB page may end it sooner; `next` then says where to go on). */
    async page(groupId: string, request: LocationPageRequest): Promise<LocationPage> {
      const { Items = [], LastEvaluatedKey } = await query(db, locationKeys.ofGroup(groupId, request));
      const locations = Items.slice(0, request.limit).map(toLocation);
      const more = Items.length > request.limit || (LastEvaluatedKey !== undefined && locations.length > 0);
      return { locations, next: more ? locations[locations.length - 1]!.id : null };
    },
  };
}

function toLocation(item: Record<string, unknown>): Location {
  const modules = (item.modulesEnabled ?? {}) as Partial<ModulesEnabled>;
  return {
    groupId: String(item.groupId),
    id: String(item.id),
    name: String(item.name),
    locationShortName: String(item.locationShortName),
    timezone: String(item.timezone),
    slug: String(item.slug),
    status: String(item.status),
    modulesEnabled: Object.fromEntries(MODULES.map((m) => [m, modules[m] === true])) as ModulesEnabled,
    createdAt: String(item.createdAt),
  };
}
