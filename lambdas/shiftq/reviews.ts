import type { ShiftqRun } from './store.js';
import { ok, type ReadHints } from '#platform/api-handler';
import { type ReviewFilter, reviewKeys } from './review-records.js';
import type { ItemQuery } from '#data/store';
import { SHIFTQ_REFRESH } from '#contract/refresh';
import { REVIEW_MAX_RANGE_DAYS, REVIEW_PAGE_LIMIT, type REVIEW_PROVIDERS, type reviewsQuery } from '#contract/schemas/requests';
import type * as v from 'valibot';
import { decodeCursor, encodeCursor, pageKey } from '#platform/page-cursor';
import { addDays, daysBetween, parseIsoDate, zonedTimeToUtcMs } from '#contract/business-date';
import { ApiError } from '#contract/errors';

/**
 * Review page tokens: page cursors bound to the location and the exact
 * filter set (platform/page-cursor.ts), so a token minted for another
 * location or other filters is refused with 400.
 */

type PagePosition = { groupId: string; locationId: string; filters: string; after: string };

const bindingOf = (p: Omit<PagePosition, 'after'>) => ({ g: p.groupId, l: p.locationId, f: p.filters });

export const encodePageToken = (key: string, position: PagePosition): string => encodeCursor(key, bindingOf(position), position.after);

const TOKEN_REFUSAL = 'Query parameter pageToken: not a page token of this location and these filters; start again without it.';

/** The position a token carries, after checking its signature and that it was issued for this location and these filters. */
export const decodePageToken = (key: string, token: string, expected: Omit<PagePosition, 'after'>): string =>
  decodeCursor(key, token, bindingOf(expected), TOKEN_REFUSAL);

/**
 * What each review provider's display policy allows. Where a provider does
 * not permit showing reviewer names to third parties, the API shows
 * "<Provider> reviewer" instead of the stored name.
 */
const PROVIDER_POLICY: Record<(typeof REVIEW_PROVIDERS)[number], { label: string; url: string; showsReviewerNames: boolean }> = {
  google: { label: 'Google', url: 'https://www.google.com/maps', showsReviewerNames: true },
  yelp: { label: 'Yelp', url: 'https://www.yelp.com', showsReviewerNames: false },
  tripadvisor: { label: 'Tripadvisor', url: 'https://www.tripadvisor.com', showsReviewerNames: true },
  opentable: { label: 'OpenTable', url: 'https://www.opentable.com', showsReviewerNames: false },
};

/** A location's reviews, newest first, filtered and paged by signed tokens bound to the filters. */

export const shiftqReviews: ShiftqRun = async (req, deps) => {
  const l = req.location;
  const { filters, range, filter } = reviewFilters(req.query, l.timezone);
  const fingerprint = JSON.stringify(filters);
  const limit = (req.query.limit as unknown as number | undefined) ?? REVIEW_PAGE_LIMIT.default;
  const binding = { groupId: l.groupId, locationId: l.id, filters: fingerprint };
  const key = await pageKey(deps);
  const after = req.query.pageToken ? decodePageToken(key, req.query.pageToken, binding) : null;
  const [providers, page] = await Promise.all([
    deps.store.reviews.activeProviders(l.groupId, l.id),
    deps.store.reviews.page(l.groupId, l.id, { ...range, after, limit, filter }),
  ]);
  const nextPageToken = page.hasMore && page.lastKey ? encodePageToken(key, { ...binding, after: page.lastKey }) : null;
  return ok(req, {
    location: { groupId: l.groupId, locationId: l.id, name: l.name },
    refresh: SHIFTQ_REFRESH.reviews,
    capability: { available: (providers ?? []).length > 0, configured: providers !== null, activeProviders: providers ?? [] },
    filters,
    reviews: page.reviews.map((r) => {
      const policy = PROVIDER_POLICY[r.provider];
      return {
        id: r.id,
        provider: r.provider,
        rating: r.rating,
        reviewerDisplayName: policy.showsReviewerNames ? r.reviewerName : `${policy.label} reviewer`,
        text: r.text,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
        reviewUrl: r.reviewUrl,
        workflow: { status: r.workflowStatus },
        response: { state: r.responseState },
        attribution: { provider: r.provider, label: policy.label, url: policy.url },
      };
    }),
    page: { limit, count: page.reviews.length, nextPageToken, hasMore: page.hasMore },
  });
};

/**
 * The first page's first Query, read ahead beside authorization. Dates are
 * the location's local days, so a range needs its zone as this process last
 * saw it; a later page starts from its token, read with the request.
 */
export function reviewsFirstPage({ params, query, timezone }: ReadHints): ItemQuery[] {
  if (query.pageToken) return [];
  const dated = query.createdFrom !== undefined || query.createdTo !== undefined;
  if (dated && timezone === undefined) return [];
  // Without dates the zone plays no part.
  const { range, filter } = reviewFilters(query, timezone ?? 'UTC');
  return [reviewKeys.pageQuery(params.group_id!, params.location_id!, { ...range, after: null, filter })];
}

/**
 * Review filters of one request's query (already past the route's rules),
 * normalised, with the sort-key range of their dates at the location's zone
 * and the Query's filter; the filters' JSON is what a page token is bound to.
 */
function reviewFilters(query: Record<string, string>, zone: string) {
  const q = query as unknown as v.InferOutput<typeof reviewsQuery>;
  const { minRating = null, maxRating = null, provider = null, createdFrom = null, createdTo = null } = q;
  if (minRating !== null && maxRating !== null && minRating > maxRating) {
    throw new ApiError('invalid_request', 'Query parameter minRating must not exceed maxRating.');
  }
  const from = createdFrom === null ? null : parseIsoDate(createdFrom);
  const to = createdTo === null ? null : parseIsoDate(createdTo);
  if (createdFrom !== null && !from) throw new ApiError('invalid_request', 'Query parameter createdFrom is not a real calendar date.');
  if (createdTo !== null && !to) throw new ApiError('invalid_request', 'Query parameter createdTo is not a real calendar date.');
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
  const filter: ReviewFilter = { minRating, maxRating, provider };
  return { filters: { minRating, maxRating, provider, createdFrom, createdTo }, range, filter };
}
