import { parseInput } from '#contract/validation';
import type { Location } from '#data/locations';
import type { OrderedOutcome, SourceOrder } from '#data/store';
import { AdminInputError } from '#domain/inputs';
import { reviewsInput, type ReviewInput } from '#lambdas/shiftq/inputs';
import type { ShiftqStore } from '#lambdas/shiftq/store';
import { eachInParallel, requireLocation, type Operation } from './operation.js';

/**
 * A batch of a location's reviews, as the POS sync sends it and `shiftq load` reads it: each review is an item of
 * its own (keyed by its createdAt and id), written in the batch's order (putInOrder), so a newer version of a
 * review replaces an older one and a replay or an older version changes nothing.
 */

/** Validates a batch whole (each review's shape; ids do not repeat; nothing updated before it was created). */
export function prepareReviews(data: unknown): ReviewInput[] {
  const { reviews } = parseInput(reviewsInput, data);
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const [i, r] of reviews.entries()) {
    if (ids.has(r.id)) problems.push(`reviews.${i}: id ${r.id} repeats`);
    ids.add(r.id);
    if (Date.parse(r.updatedAt) < Date.parse(r.createdAt)) problems.push(`reviews.${i}: updatedAt before createdAt`);
  }
  if (problems.length) throw new AdminInputError(problems.slice(0, 20).join('; '));
  return reviews;
}

/**
 * A batch's outcome: `applied` when any of its reviews was written, else `duplicate` when every one was a replay,
 * else `stale` (nothing written, some older than what is stored).
 */
const batchOutcome = (outcomes: readonly OrderedOutcome[]): OrderedOutcome =>
  outcomes.includes('applied') ? 'applied' : outcomes.every((o) => o === 'duplicate') ? 'duplicate' : 'stale';

/**
 * Writes a valid batch in `order`, each review on its own, then adds its providers to the location's set (an ADD:
 * the same providers again change nothing). The set is added to whatever became of the reviews, so a replay mends
 * a writer that stopped between the two.
 */
export async function writeReviews(
  store: Pick<ShiftqStore, 'reviews'>,
  { groupId, id: locationId }: Pick<Location, 'groupId' | 'id'>,
  reviews: readonly ReviewInput[],
  order: SourceOrder,
): Promise<OrderedOutcome> {
  const outcomes: OrderedOutcome[] = [];
  await eachInParallel(reviews, async (review, i) => {
    outcomes[i] = await store.reviews.putInOrder(groupId, locationId, review, order);
  });
  await store.reviews.addActiveProviders(groupId, locationId, [...new Set(reviews.map((r) => r.provider))]);
  return batchOutcome(outcomes);
}

/** The POS sync's reviews route. */
export const REVIEW_OPERATIONS = {
  putShiftqReviews: async (deps, { groupId, locationId }, data, order) => {
    const location = await requireLocation(deps, groupId!, locationId!);
    const reviews = prepareReviews(data);
    return { outcome: await writeReviews(deps.store, location, reviews, order), records: reviews.length };
  },
} satisfies Record<string, Operation>;
