import { type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { ReviewInput } from './inputs.js';
import { getItem, putInOrder, query, type Db, type OrderedOutcome, type SourceOrder, updateItem } from '#data/store';
import { shiftqKeys } from './records.js';

/**
 * Reviews of one location, one item each, sorted by createdAt (UTC ISO, so
 * the sort key orders chronologically) and then id. Pages are read newest
 * first; a page's position is the sort key of its last review.
 */

const REVIEW_PREFIX = 'SHIFTQ#REVIEW#';
/** Reviews a Query reads at most; a filtered page may take several. */
const QUERY_BATCH = 200;

export const reviewKeys = {
  review: (groupId: string, locationId: string, createdAt: string, id: string) => ({
    PK: shiftqKeys.partition(groupId, locationId),
    SK: `${REVIEW_PREFIX}${new Date(createdAt).toISOString()}#${id}`,
  }),
  /** Sort-key bounds of reviews created in [fromMs, toMs); null leaves that side open. */
  range: (fromMs: number | null, toMs: number | null) => ({
    low: fromMs === null ? REVIEW_PREFIX : `${REVIEW_PREFIX}${new Date(fromMs).toISOString()}`,
    high: toMs === null ? `${REVIEW_PREFIX}\uffff` : `${REVIEW_PREFIX}${new Date(toMs).toISOString()}`,
  }),
  /** Providers that have delivered reviews for the location (the reviews capability). */
  meta: (groupId: string, locationId: string) => ({ PK: shiftqKeys.partition(groupId, locationId), SK: 'SHIFTQ#REVIEWS_META' }),
  /**
   * The Query of a page, newest first, from `startKey` (the first Query of a
   * page has none): the repository sends it, and a request may read the
   * first one ahead (a page of matches may take more Queries than one).
   */
  pageQuery: (groupId: string, locationId: string, req: Omit<ReviewPageRequest, 'limit'>, startKey?: Record<string, unknown>) => {
    const given = (Object.keys(FILTER_CONDITIONS) as (keyof ReviewFilter)[]).filter((name) => req.filter[name] !== null);
    return {
      // [low, high): BETWEEN is inclusive, so the exclusive top is handled by the < condition.
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :low AND :high',
      ...(given.length ? { FilterExpression: given.map((name) => FILTER_CONDITIONS[name]).join(' AND ') } : {}),
      ExpressionAttributeValues: {
        ':pk': shiftqKeys.partition(groupId, locationId),
        ':low': req.low,
        ':high': pageTop(req),
        ...Object.fromEntries(given.map((name) => [`:${name}`, req.filter[name]])),
      },
      ScanIndexForward: false,
      Limit: QUERY_BATCH,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    };
  },
};

/** A page's exclusive top: the previous page's last key, or the range's end. */
const pageTop = (req: Pick<ReviewPageRequest, 'after' | 'high'>) => (req.after !== null && req.after < req.high ? req.after : req.high);

/** The filters a Query applies to the reviews it reads; null applies none. */
export type ReviewFilter = { minRating: number | null; maxRating: number | null; provider: string | null };

const FILTER_CONDITIONS: Record<keyof ReviewFilter, string> = {
  minRating: 'rating >= :minRating',
  maxRating: 'rating <= :maxRating',
  provider: 'provider = :provider',
};

/** Sort keys are bounded by `low` and exclusive `high`; `after` is the previous page's last key (exclusive). */
export type ReviewPageRequest = { low: string; high: string; after: string | null; limit: number; filter: ReviewFilter };

type ReviewPage = { reviews: ReviewInput[]; lastKey: string | null; hasMore: boolean };

export function reviewsRepo(db: Db) {
  return {
    /** One review in its source's order: a newer version replaces an older one, a replay or an older one changes nothing. */
    putInOrder: (groupId: string, locationId: string, review: ReviewInput, order: SourceOrder): Promise<OrderedOutcome> =>
      putInOrder(
        db,
        {
          ...reviewKeys.review(groupId, locationId, review.createdAt, review.id),
          review,
          rating: review.rating,
          provider: review.provider,
        },
        order,
      ),

    /** Providers that delivered reviews, sorted; null when none ever did. */
    async activeProviders(groupId: string, locationId: string): Promise<string[] | null> {
      const item = await getItem(db, reviewKeys.meta(groupId, locationId));
      return item ? [...((item.activeProviders as Set<string> | undefined) ?? [])].sort() : null;
    },

    /** Adds to the provider set atomically (a string-set ADD), so concurrent loads lose nothing. */
    async addActiveProviders(groupId: string, locationId: string, providers: string[]): Promise<void> {
      if (providers.length === 0) return;
      await updateItem(db, {
        Key: reviewKeys.meta(groupId, locationId),
        UpdateExpression: 'ADD activeProviders :providers',
        ExpressionAttributeValues: { ':providers': new Set(providers) },
      });
    },

    /**
     * Newest-first page of matching reviews. Reads until `limit + 1` matches
     * are found (the extra one only tells whether more exist) or the range ends.
     */
    async page(groupId: string, locationId: string, req: ReviewPageRequest): Promise<ReviewPage> {
      const top = pageTop(req);
      const found: Record<string, unknown>[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const reply: QueryCommandOutput = await query(db, reviewKeys.pageQuery(groupId, locationId, req, startKey));
        for (const item of reply.Items ?? []) if (String(item.SK) < top) found.push(item);
        startKey = reply.LastEvaluatedKey;
      } while (startKey && found.length <= req.limit);
      const page = found.slice(0, req.limit);
      return {
        reviews: page.map((item) => item.review as ReviewInput),
        lastKey: page.length ? String(page[page.length - 1]!.SK) : null,
        hasMore: found.length > req.limit,
      };
    },
  };
}
