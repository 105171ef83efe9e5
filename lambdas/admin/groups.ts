import type { Location } from '#data/locations';
import type { Store } from '#data/repositories';
import type { OrderedOutcome } from '#data/store';
import { AdminConflictError } from '#domain/inputs';
import { requireGroup } from './apps.js';

/** Groups and their locations as the admin API lists them; they are written by lambdas/producers/venues.ts. */

export async function listLocations(store: Store, groupId: string): Promise<{ locations: Location[] }> {
  await requireGroup(store, groupId);
  return { locations: await store.locations.list(groupId) };
}

/**
 * An operator's edit is its own source, observed when it is made: written unless the venue directory's producer
 * stored a later observation (or an edit of the same millisecond), which stands and is refused with 409.
 */
export function operatorEdit<T>({ outcome, ...written }: T & { outcome: OrderedOutcome }): T {
  if (outcome !== 'applied') throw new AdminConflictError('A later update of this record is stored; nothing was changed.');
  return written as T;
}
