import type { Group } from '#data/groups';
import type { Location } from '#data/locations';
import type { Store } from '#data/repositories';
import { AdminInputError, groupInput, locationInput, type GroupInput, type LocationInput } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { requireGroup } from './apps.js';

/** Groups and their locations: the admin API's, the admin CLI's through it, and the venue loads'. */

/** Creates or renames a group. */
export async function putGroup(store: Store, input: GroupInput, now: number): Promise<Group> {
  const fields = parseInput(groupInput, input);
  const existing = await store.groups.get(fields.groupId);
  const group = { ...fields, createdAt: existing?.createdAt ?? new Date(now).toISOString() };
  await store.groups.put(group);
  return group;
}

export async function listLocations(store: Store, groupId: string): Promise<{ locations: Location[] }> {
  await requireGroup(store, groupId);
  return { locations: await store.locations.list(groupId) };
}

/** Creates or replaces a location of an existing group. */
export async function putLocation(store: Store, input: LocationInput, now: number): Promise<Location> {
  const fields = parseInput(locationInput, input);
  const [group, existing] = await Promise.all([
    store.groups.get(fields.groupId, { consistent: true }),
    store.locations.get(fields.groupId, fields.id),
  ]);
  if (!group) throw new AdminInputError(`group ${fields.groupId} does not exist`);
  const location = { ...fields, createdAt: existing?.createdAt ?? new Date(now).toISOString() };
  await store.locations.put(location);
  return location;
}
