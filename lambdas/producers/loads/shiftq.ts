import * as v from 'valibot';
import { parseCompactDate } from '#contract/business-date';
import type { ReviewInput } from '#lambdas/shiftq/inputs';
import { prepareReviews, writeReviews } from '#lambdas/producers/reviews';
import { prepareShiftq, SHIFTQ_RESOURCES, type ShiftqUpdate, writeShiftq } from '#lambdas/producers/shiftq';
import type { IngestStore } from './store.js';
import { AdminInputError } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id } from '#contract/schemas/common';

/**
 * Loads shiftq data for one location (`shiftq load`): per-business-date resources (raw kitchen tickets, sales,
 * labor, clock-ins), current-state resources (POS menu, employees, reservations digest) and reviews. Every entry is
 * validated before anything is written, by the producers' rules (lambdas/producers/shiftq.ts, reviews.ts); a refused load
 * writes nothing. The load is the source, observed when it runs: its entries carry that time and their place in
 * the file as the source's order.
 */

const SHIFTQ_KINDS = [...SHIFTQ_RESOURCES, 'reviews'] as const;
type ShiftqKind = (typeof SHIFTQ_KINDS)[number];

const entry = v.strictObject({
  kind: v.picklist(SHIFTQ_KINDS),
  businessDate: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{8}$/, 'must be a date YYYYMMDD'),
      v.check((d) => parseCompactDate(d) !== null, 'is not a real calendar date'),
    ),
  ),
  data: v.unknown(),
});

const loadEntries = v.pipe(v.array(entry), v.minLength(1), v.maxLength(200));
/** A load's body where its path names the location (the admin API's `POST /loads/shiftq/…`): the entries alone. */
export const shiftqLoadBody = v.strictObject({ entries: loadEntries });
/** One location's load: a single entry or a list of them (the `shiftq load` file). */
const shiftqLoadInput = v.object({ groupId: id, locationId: id, entries: loadEntries });
export type ShiftqLoadInput = v.InferInput<typeof shiftqLoadInput>;

export type ShiftqLoaded = { kind: ShiftqKind; businessDate: string | null; records: number };

/** The entries of a `shiftq load` file: one entry object, or `{"entries": [...]}`. */
export function shiftqFileEntries(file: unknown): unknown {
  if (file !== null && typeof file === 'object' && 'entries' in file) return file.entries;
  return [file];
}

type Prepared = ShiftqUpdate | { kind: 'reviews'; businessDate: null; reviews: ReviewInput[]; records: number };

/** Validates every entry and writes them only when all are valid. */
export async function loadShiftq(store: IngestStore, input: unknown, now: number): Promise<ShiftqLoaded[]> {
  const { groupId, locationId, entries } = parseInput(shiftqLoadInput, input);
  const location = await store.locations.get(groupId, locationId);
  if (!location) throw new AdminInputError(`location ${groupId}/${locationId} does not exist`);

  const prepared: Prepared[] = entries.map((e, i) => {
    try {
      if (e.kind !== 'reviews') return prepareShiftq(location, e.kind, e.businessDate, e.data, now);
      if (e.businessDate !== undefined) throw new AdminInputError('businessDate: reviews are not per business date');
      const reviews = prepareReviews(e.data);
      return { kind: 'reviews', businessDate: null, reviews, records: reviews.length };
    } catch (err) {
      throw new AdminInputError(`entries.${i} (${e.kind}): ${(err as Error).message}`);
    }
  });

  for (const [sequence, p] of prepared.entries()) {
    const order = { sourceMs: now, sequence };
    if (p.kind === 'reviews') await writeReviews(store, location, p.reviews, order);
    else await writeShiftq(store, location, p, order, now);
  }
  return prepared.map((p) => ({ kind: p.kind, businessDate: p.businessDate, records: p.records }));
}
