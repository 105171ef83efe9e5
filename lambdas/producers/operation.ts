import { ApiError } from '#contract/errors';
import { groupsRepo } from '#data/groups';
import { locationsRepo } from '#data/locations';
import { matriqRepo } from '#data/matriq';
import type { StoreWith } from '#data/repositories';
import { sportsRepo } from '#data/sports';
import type { OrderedOutcome, SourceOrder } from '#data/store';
import type { Deps } from '#platform/deps';
import { SHIFTQ_REPOSITORIES } from '#lambdas/shiftq/store';
import { campaignsRepo } from '#lambdas/campaigns/records';
import { menusRepo } from '#data/menus';
import { outboxRepo } from '#lambdas/webhooks/outbox';
import type { WebhookQueue } from '#lambdas/webhooks/messages';

/**
 * What every producer route's implementation shares: the records the producer function writes, the update's order
 * and the answer. Each module of this room declares its routes' operations over these (producers.ts dispatches).
 */

export const PRODUCER_REPOSITORIES = {
  groups: groupsRepo,
  locations: locationsRepo,
  sports: sportsRepo,
  matriq: matriqRepo,
  menus: menusRepo,
  outbox: outboxRepo,
  ...SHIFTQ_REPOSITORIES,
  campaigns: campaignsRepo,
};
export type ProducerStore = StoreWith<typeof PRODUCER_REPOSITORIES>;
/** A new menu revision's fan-out is the dispatcher's: the producer function only wakes it (the fan-out queue). */
export type ProducerDeps = Deps<ProducerStore> & { queue: Pick<WebhookQueue, 'fanOut'> };

/** The update's place in its source's order, and the service's clock reading when it arrived. */
export type Order = SourceOrder & { now: number };
/** What became of an update, and how many records it carried. */
type Answer = { outcome: OrderedOutcome; records: number };
/** A route's implementation: its path parameters (ids already checked) and the update's `data`, not yet validated. */
export type Operation = (deps: ProducerDeps, params: Record<string, string>, data: unknown, order: Order) => Promise<Answer>;

export const NOT_FOUND = 'No producer resource exists at this path.';

/** The location an update names, which must exist (404 otherwise). */
export async function requireLocation(deps: ProducerDeps, groupId: string, locationId: string) {
  const location = await deps.store.locations.get(groupId, locationId);
  if (!location) throw new ApiError('not_found', `Location ${groupId}/${locationId} does not exist.`);
  return location;
}

/**
 * Runs `task` on every item, at most `width` at a time: an update of many items (a campaign's links, a batch of
 * reviews) takes a fraction of the time one after another would, within the client's connections.
 */
export async function eachInParallel<T>(
  items: readonly T[],
  task: (item: T, index: number) => Promise<unknown>,
  width = 25,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
