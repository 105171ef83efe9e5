import { addDays, daysBetween, parseIsoDate, zonedTimeToUtcMs } from '#contract/business-date';
import { reviewKeys, type ReviewFilter } from '#data/reviews';
import { ApiError } from '#contract/errors';
import { REVIEW_MAX_RANGE_DAYS } from '#contract/schemas/requests';

/**
 * Review filters of one request's query (already past the route's rules),
 * normalised, with the sort-key range of their dates at the location's zone
 * and the Query's filter; the filters' JSON is what a page token is bound to.
 */
export function reviewFilters(query: Record<string, string>, zone: string) {
  const q = query as Record<string, string | number | undefined>;
  const filters = {
    minRating: (q.minRating as number | undefined) ?? null,
    maxRating: (q.maxRating as number | undefined) ?? null,
    provider: (q.provider as string | undefined) ?? null,
    createdFrom: (q.createdFrom as string | undefined) ?? null,
    createdTo: (q.createdTo as string | undefined) ?? null,
  };
  if (filters.minRating !== null && filters.maxRating !== null && filters.minRating > filters.maxRating) {
    throw new ApiError('invalid_request', 'Query parameter minRating must not exceed maxRating.');
  }
  const from = filters.createdFrom === null ? null : parseIsoDate(filters.createdFrom);
  const to = filters.createdTo === null ? null : parseIsoDate(filters.createdTo);
  if (filters.createdFrom !== null && !from) throw new ApiError('invalid_request', 'Query parameter createdFrom is not a real calendar date.');
  if (filters.createdTo !== null && !to) throw new ApiError('invalid_request', 'Query parameter createdTo is not a real calendar date.');
  if (from && to) {
    const span = daysBetween(from, to);
    if (span < 0) throw new ApiError('invalid_request', 'Query parameter createdTo must not be before createdFrom.');
    if (span >= REVIEW_MAX_RANGE_DAYS) {
      throw new ApiError('invalid_request', `Query parameters createdFrom..createdTo must span at most ${REVIEW_MAX_RANGE_DAYS} days.`);
    }
  }
  // Local calendar days of the location: [createdFrom 00:00, day after createdTo 00:00).
  const range = reviewKeys.range(
    from ? zonedTimeToUtcMs(zone, from, 0, 0) : null,
    to ? zonedTimeToUtcMs(zone, addDays(to, 1), 0, 0) : null,
  );
  const filter: ReviewFilter = {
    ...(filters.minRating !== null ? { minRating: filters.minRating } : {}),
    ...(filters.maxRating !== null ? { maxRating: filters.maxRating } : {}),
    ...(filters.provider !== null ? { provider: filters.provider } : {}),
  };
  return { filters, range, filter };
}
