import * as v from 'valibot';
import type { Store } from '#data/repositories';
import { groupInput, locationInput } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { putGroup, putLocation } from '#lambdas/producers/venues';

/** A venue file: groups with their locations, loaded in one go (`venues load`, demo seeding); an unknown field is refused. */
export const venueFile = v.strictObject({
  groups: v.array(
    v.strictObject({
      ...groupInput.entries,
      locations: v.optional(v.array(v.strictObject(v.omit(locationInput, ['groupId']).entries)), []),
    }),
  ),
});
export type VenueFile = v.InferInput<typeof venueFile>;

/**
 * Validates the whole file before writing anything, then writes groups and locations. The load is the source,
 * observed when it runs; a record's place in the file is its sequence, so a later entry of the same record wins.
 */
export async function loadVenues(store: Store, file: unknown, now: number) {
  const { groups } = parseInput(venueFile, file);
  const result = [];
  let sequence = 0;
  for (const { locations, ...g } of groups) {
    const { group } = await putGroup(store, g, { sourceMs: now, sequence: sequence++ }, now);
    const saved = [];
    for (const l of locations)
      saved.push((await putLocation(store, { ...l, groupId: g.groupId }, { sourceMs: now, sequence: sequence++ }, now)).location);
    result.push({ group, locations: saved });
  }
  return result;
}
