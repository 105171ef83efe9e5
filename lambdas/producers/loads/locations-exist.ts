import type { Store } from '#data/repositories';
import { AdminInputError } from '#domain/inputs';

/** Refuses (before any write) a file naming a location that does not exist. */
export async function requireLocations(store: Store, refs: readonly { groupId: string; locationId: string }[]) {
  const unique = [...new Map(refs.map((r) => [`${r.groupId}/${r.locationId}`, r])).values()];
  const found = await Promise.all(unique.map((r) => store.locations.get(r.groupId, r.locationId)));
  const missing = unique.filter((_, i) => !found[i]).map((r) => `${r.groupId}/${r.locationId}`);
  if (missing.length) throw new AdminInputError(`unknown locations: ${missing.join(', ')}`);
}
