import type { GenericSchema } from 'valibot';
import * as requests from '#contract/schemas/requests';

const { GROUP_PAGE_LIMIT: group, REVIEW_PAGE_LIMIT: reviews } = requests;

/**
 * What each field of the /v1 request rules means, by rule, for the OpenAPI
 * document only: kept out of the rules (as route-summaries.ts is out of the
 * route table) so no function bundle carries documentation text.
 */
export const REQUEST_DESCRIPTIONS = new Map<GenericSchema, Record<string, string>>([
  [
    requests.businessDateQuery,
    { businessDate: 'Business date YYYYMMDD; default: the current business date', businessDay: 'Alias of businessDate' },
  ],
  [requests.programmingDateParams, { date: 'Programming date YYYY-MM-DD' }],
  [requests.guideQuery, { date: 'Guide date YYYY-MM-DD; default: the current business date at the location' }],
  [requests.sportsLogoParams, { name: 'Logo file name, e.g. nfl.svg' }],
  [
    requests.groupPageQuery,
    {
      limit: `Locations per page ${group.min}-${group.max}, default ${group.default}`,
      cursor: 'Opaque nextCursor of the previous page of this list',
    },
  ],
  [
    requests.reviewsQuery,
    {
      limit: `Page size ${reviews.min}-${reviews.max}, default ${reviews.default}`,
      pageToken: 'Opaque nextPageToken of the previous page, with the same filters',
      minRating: 'Lowest rating, 1-5',
      maxRating: 'Highest rating, 1-5',
      createdFrom: 'First local calendar day (YYYY-MM-DD) of createdAt, inclusive',
      createdTo: 'Last local calendar day (YYYY-MM-DD) of createdAt, inclusive',
    },
  ],
  [
    requests.emergencyStopBody,
    {
      reason: 'Why the stop is requested; a default text when absent',
      deviceId: "One of the Auto Scheduler's deviceIds; default: its first",
    },
  ],
]);
