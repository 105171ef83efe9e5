/**
 * Webhook retry timing (contract 6.6, 8): attempt n failing retryably waits
 * 30 s · 2^(n-1), capped at 3,600 s. Five attempts in total, so the waits
 * actually used are 30, 60, 120 and 240 s.
 */
export const MAX_ATTEMPTS = 5;
export const MIN_BACKOFF_SECONDS = 30;
export const MAX_BACKOFF_SECONDS = 3_600;
/** Per-attempt wait for the receiver's response. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export function backoffSeconds(attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a whole number ≥ 1, got ${attempt}`);
  return Math.min(MIN_BACKOFF_SECONDS * 2 ** (attempt - 1), MAX_BACKOFF_SECONDS);
}

/**
 * The visibility timeout that realises a wait. `scale` is 1 in AWS; the local
 * runtime may shrink it (WEBHOOK_BACKOFF_SCALE) so a whole retry sequence runs
 * in seconds while the nominal waits stay as above.
 */
export function visibilitySeconds(nominalSeconds: number, scale: number): number {
  return Math.max(0, Math.min(43_200, Math.round(nominalSeconds * scale)));
}
