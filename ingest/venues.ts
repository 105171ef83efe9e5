import * as v from 'valibot';
import type { Group } from '#data/groups';
import type { Location } from '#data/locations';
import type { Store } from '#data/repositories';
import { AdminInputError, groupInput, locationInput, parseInput, type GroupInput, type LocationInput } from '#domain/inputs';

/** Creates or renames a group. */
export async function putGroup(store: Store, input: GroupInput, now: number): Promise<Group> {
  const fields = parseInput(groupInput, input);
  const existing = await store.groups.get(fields.groupId);
  const group = { ...fields, createdAt: existing?.createdAt ?? new Date(now).toISOString() };
  await store.groups.put(group);
  return group;
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

/** A venue file: groups with their locations, loaded in one go (`venues load`, demo seeding). */
export const venueFile = v.object({
  groups: v.array(v.object({ ...groupInput.entries, locations: v.optional(v.array(v.omit(locationInput, ['groupId'])), []) })),
});
export type VenueFile = v.InferInput<typeof venueFile>;

/** Validates the whole file before writing anything, then writes groups and locations. */
export async function loadVenues(store: Store, file: unknown, now: number) {
  const { groups } = parseInput(venueFile, file);
  const result = [];
  for (const { locations, ...g } of groups) {
    const group = await putGroup(store, g, now);
    const saved = [];
    for (const l of locations) saved.push(await putLocation(store, { ...l, groupId: g.groupId }, now));
    result.push({ group, locations: saved });
  }
  return result;
}
