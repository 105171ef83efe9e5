/**
 * Contract 6.4 rule 4: delivery is at least once, so the same `X-Service-Event-Id` may come again (an attempt
 * whose answer was lost, a redriven dead letter). A receiver claims the id before acting and skips a claimed one.
 *
 * A durable implementation keeps its claims where every receiver process sees them, e.g. a conditional put:
 * DynamoDB `PutItem` with `attribute_not_exists(eventId)` and a TTL attribute, or SQL `INSERT … ON CONFLICT DO
 * NOTHING` checking the row count. `claim` resolves true only for the writer that created the record; `release`
 * deletes it, so a delivery whose processing failed runs again when the service retries it. Keep claims for days,
 * not minutes: an operator may redrive a dead letter long after its first attempt.
 */
export interface EventDedupe {
  /** True when this call claimed the id; false when it was claimed before (processed or in progress). */
  claim(eventId: string): Promise<boolean>;
  /** Gives up a claim after a failure, so a retried delivery is processed. */
  release(eventId: string): Promise<void>;
}

/** One process's claims: at most `maxEntries` (the oldest go first), each for `ttlMs` (default one day). */
export function memoryDedupe(options: { maxEntries?: number; ttlMs?: number; now?: () => number } = {}): EventDedupe {
  const { maxEntries = 10_000, ttlMs = 24 * 3_600_000, now = Date.now } = options;
  const claims = new Map<string, number>(); // id → expiry; a Map iterates in insertion order, oldest first
  return {
    async claim(eventId) {
      const at = now();
      if ((claims.get(eventId) ?? 0) > at) return false;
      claims.delete(eventId);
      for (const [id, expiresAt] of claims) {
        if (expiresAt > at && claims.size < maxEntries) break;
        claims.delete(id);
      }
      claims.set(eventId, at + ttlMs);
      return true;
    },
    async release(eventId) {
      claims.delete(eventId);
    },
  };
}
