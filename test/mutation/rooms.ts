/**
 * The mutation rooms: each names a rule family and the source files that hold it. This map is the only
 * place the files are listed; moving a file means changing its glob here in the same change (the runner
 * refuses a glob that matches nothing).
 */
export const ROOMS: Record<string, readonly string[]> = {
  'delivery policy and backoff': ['lambdas/webhooks/delivery-policy.ts'],
  'business dates': ['lambdas/contract/business-date.ts'],
  etags: ['lambdas/domain/etag.ts'],
  'url safety': ['lambdas/domain/url-safety.ts'],
  'kitchen averages': ['lambdas/shiftq/kitchen-averages.ts'],
  'attempt rules: signature, classification, delivery state': ['lambdas/webhooks/attempt-rules.ts'],
};

/** Every room must reach this score (killed and timed-out over all mutants). */
export const MIN_SCORE = 0.8;
