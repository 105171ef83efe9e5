import type { Group } from '#data/groups';
import type { Location } from '#data/locations';
import type { Store } from '#data/repositories';
import type { OrderedOutcome, SourceOrder } from '#data/store';
import { AdminInputError, groupInput, locationInput, type GroupInput, type LocationInput } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { groupBody, locationBody } from '#domain/inputs';
import type { Operation } from './operation.js';

/**
 * Groups and their locations, each written in its source's order (putInOrder): by the venue directory's producer,
 * by an operator through the admin API (the edit's time as its source time) and by `venues load`.
 */

/** Creates or renames a group; its creation time is kept. */
export async function putGroup(
  store: Store,
  input: GroupInput,
  order: SourceOrder,
  now: number,
): Promise<{ group: Group; outcome: OrderedOutcome }> {
  const fields = parseInput(groupInput, input);
  const existing = await store.groups.get(fields.groupId, { consistent: true });
  const group = { ...fields, createdAt: existing?.createdAt ?? new Date(now).toISOString() };
  return { group, outcome: await store.groups.putInOrder(group, order) };
}

/** Creates or replaces a location of an existing group; its creation time is kept, modules not enabled are disabled. */
export async function putLocation(
  store: Store,
  input: LocationInput,
  order: SourceOrder,
  now: number,
): Promise<{ location: Location; outcome: OrderedOutcome }> {
  const fields = parseInput(locationInput, input);
  const [group, existing] = await Promise.all([
    store.groups.get(fields.groupId, { consistent: true }),
    store.locations.get(fields.groupId, fields.id),
  ]);
  if (!group) throw new AdminInputError(`group ${fields.groupId} does not exist`);
  const location = { ...fields, createdAt: existing?.createdAt ?? new Date(now).toISOString() };
  return { location, outcome: await store.locations.putInOrder(location, order) };
}

/** The venue directory's routes. */
export const VENUE_OPERATIONS = {
  putGroup: async (deps, { groupId }, data, order) => {
    const { outcome } = await putGroup(deps.store, { groupId: groupId!, ...parseInput(groupBody, data) }, order, order.now);
    return { outcome, records: 1 };
  },
  putLocation: async (deps, { groupId, locationId }, data, order) => {
    const fields = parseInput(locationBody, data);
    const { outcome } = await putLocation(deps.store, { ...fields, groupId: groupId!, id: locationId! }, order, order.now);
    return { outcome, records: 1 };
  },
} satisfies Record<string, Operation>;
