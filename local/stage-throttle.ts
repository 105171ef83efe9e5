/** A stage's API Gateway throttle: a steady rate (requests a second) and a burst (the bucket's size). */
export type StageThrottle = { rateLimit: number; burstLimit: number };

/**
 * The local stage's throttle, one bucket per route alike (the deployed stages'
 * differ per route, derived in lib/route-throttles.ts): generous, so the suite and
 * the bench never meet it unless a test configures a small one, but there, so the
 * gateway's own 429 exists here too.
 */
export const LOCAL_THROTTLE: StageThrottle = { rateLimit: 1_000, burstLimit: 2_000 };

/**
 * API Gateway's throttle: a token bucket that starts full with `burstLimit`
 * tokens and refills at `rateLimit` a second. A stage's default route
 * throttling gives every route a bucket of its own; a request without a
 * token is refused before its authorization or function runs.
 */
export function tokenBucket({ rateLimit, burstLimit }: StageThrottle, now: () => number = Date.now): { take(): boolean } {
  let tokens = burstLimit;
  let last = now();
  return {
    take() {
      const t = now();
      tokens = Math.min(burstLimit, tokens + ((t - last) / 1000) * rateLimit);
      last = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
