import type { REVIEW_PROVIDERS } from '#contract/schemas/requests';

/**
 * What each review provider's display policy allows. Where a provider does
 * not permit showing reviewer names to third parties, the API shows
 * "<Provider> reviewer" instead of the stored name.
 */
export const PROVIDER_POLICY: Record<(typeof REVIEW_PROVIDERS)[number], { label: string; url: string; showsReviewerNames: boolean }> = {
  google: { label: 'Google', url: 'https://www.google.com/maps', showsReviewerNames: true },
  yelp: { label: 'Yelp', url: 'https://www.yelp.com', showsReviewerNames: false },
  tripadvisor: { label: 'Tripadvisor', url: 'https://www.tripadvisor.com', showsReviewerNames: true },
  opentable: { label: 'OpenTable', url: 'https://www.opentable.com', showsReviewerNames: false },
};
