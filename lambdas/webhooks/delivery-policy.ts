/** Webhook delivery statuses (contract 3), spelled here only (test/unit/facts-once.test.ts). */
export const DELIVERY_STATUSES = ['PENDING', 'DELIVERING', 'RETRY_PENDING', 'SUCCEEDED', 'FAILED', 'DEAD_LETTER'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** Each status by its name (`STATUS.DEAD_LETTER`), so code names a status without spelling it again. */
export const STATUS = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, s])) as { readonly [S in DeliveryStatus]: S };
/** Where a delivery ends: no attempt follows (only a redrive starts a dead letter over). */
export const TERMINAL_STATUSES: readonly DeliveryStatus[] = [STATUS.SUCCEEDED, STATUS.FAILED, STATUS.DEAD_LETTER];

/**
 * The webhook delivery policy (contract 6.6, 8), declared once. The
 * deliverer's function timeout, the event source's batch size and
 * concurrency, the queue's visibility and its redrive `maxReceiveCount` are
 * all derived below; the stack, the local runtime and the deliverer read
 * the derived values, never their own numbers.
 */
export const DELIVERY_POLICY = {
  /** Attempts in total for retryable failures; a retryable failure of the last one is DEAD_LETTER. */
  attempts: 5,
  /** One timer per attempt from DNS resolution to the response's status line: lookup, connect, TLS, request, answer. */
  attemptTimeoutSeconds: 10,
  /**
   * Exponential backoff (contract 6.6): a base wait of the minimum, doubling after each retryable failure at
   * most `maxDoublings` times, never over the cap. Each wait is drawn uniformly from [base, base × (1 +
   * jitter)] ("equal jitter" above the schedule), clamped to [minimum, cap]: the schedule is the floor, so no
   * wait is under 30 s, and deliveries that failed together (a receiver that was down) come back spread out.
   */
  minBackoffSeconds: 30,
  maxBackoffSeconds: 3_600,
  maxDoublings: 5,
  backoffJitter: 0.5,
  /**
   * A message that is early (sent by a redrive whose record write is not visible yet: the redrive sends
   * first and writes second) looks again after this long, not after the visibility timeout. The write
   * follows the send at once, so one look-again finds it.
   */
  lookAgainSeconds: 5,
  /** Records per invocation, all attempted in parallel. */
  batchSize: 10,
  /**
   * How long the event source may wait to fill a batch: none, so a message is delivered as soon as it is
   * polled (latency first; an invocation's fixed cost is small). AWS allows 0 while the batch size is at
   * most 10 (a larger batch requires a window of at least 1 s).
   */
  batchingWindowSeconds: 0,
  /** Reads before an attempt (delivery, destination, application) and the conditional start, SDK retries included. */
  setupSeconds: 10,
  /** Writes after an attempt (outcome, health, dead-letter marker) and the message's visibility, SDK retries included. */
  outcomeSeconds: 10,
  /**
   * Receives a message may spend without an attempt before the redrive gives up on it: throttled
   * or init-failed invocations, batches that timed out, duplicates of an attempt in flight, and
   * the few receives that carry a spent delivery's message on to the DLQ.
   */
  receiveHeadroom: 5,
  /**
   * Consecutive failed attempts after which a destination is paused: its new deliveries are recorded and
   * held, not queued, so a dead receiver of a large fan-out cannot fill the queue's in-flight capacity.
   * Two deliveries' whole retry sequences; a success resets the count and ends the pause.
   */
  pauseAfterFailures: 10,
  /** While paused, the oldest held delivery is sent as a probe at most this often. */
  probeEverySeconds: 300,
} as const;

/** AWS: an SQS event source's queue visibility should be at least six times the function timeout. */
const VISIBILITY_PER_FUNCTION_TIMEOUT = 6;

/** What the policy implies for the functions and queues, in nominal seconds. */
export const DERIVED = (() => {
  const p = DELIVERY_POLICY;
  // Records run in parallel: an invocation lasts as long as its slowest record, and always outlives it.
  const functionTimeoutSeconds = p.setupSeconds + p.attemptTimeoutSeconds + p.outcomeSeconds;
  const visibilityTimeoutSeconds = VISIBILITY_PER_FUNCTION_TIMEOUT * functionTimeoutSeconds;
  const maxReceiveCount = p.attempts + p.receiveHeadroom;
  return {
    functionTimeoutSeconds,
    visibilityTimeoutSeconds,
    maxReceiveCount,
    /**
     * How long after its last change a delivery still waiting on its message (PENDING, RETRY_PENDING,
     * DELIVERING) may go without one before the sweeper takes the message for lost and queues it again: its
     * longest backoff (the wait before the last attempt), then every receive the redrive allows, each of which
     * may hide the message for the visibility timeout without an attempt. By then a message still in the queue
     * has started an attempt (a change) or reached the DLQ (listed, no longer waiting): 360 + 10 × 180 = 2,160 s.
     */
    requeueAfterSeconds: backoffBounds(p.attempts - 1).max + maxReceiveCount * visibilityTimeoutSeconds,
    /** An attempt starts only when the invocation has this long left: it always records its outcome. */
    startBudgetSeconds: p.attemptTimeoutSeconds + p.outcomeSeconds,
    /** As long as a delivery's attempts may take, each one and the backoffs between: a held delivery waits no longer. */
    retrySpanSeconds:
      Array.from({ length: p.attempts - 1 }, (_, i) => backoffBounds(i + 1).max).reduce((a, b) => a + b, 0) +
      p.attempts * functionTimeoutSeconds,
  } as const;
})();

/** The base wait after retryable failure number `attempt`: minBackoffSeconds · 2^min(attempt−1, maxDoublings), capped at maxBackoffSeconds. */
export function backoffSeconds(attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a whole number ≥ 1, got ${attempt}`);
  const p = DELIVERY_POLICY;
  return Math.min(p.minBackoffSeconds * 2 ** Math.min(attempt - 1, p.maxDoublings), p.maxBackoffSeconds);
}

/** The whole seconds a jittered wait after retryable failure number `attempt` may take: [base, base × (1 + jitter)], inside [minimum, cap]. */
export function backoffBounds(attempt: number): { min: number; max: number } {
  const p = DELIVERY_POLICY;
  const base = backoffSeconds(attempt);
  const clamp = (s: number) => Math.min(p.maxBackoffSeconds, Math.max(p.minBackoffSeconds, s));
  return { min: clamp(base), max: clamp(Math.floor(base * (1 + p.backoffJitter))) };
}

/**
 * The wait after retryable failure number `attempt`, in whole seconds, uniform over `backoffBounds`
 * (every whole second in it equally likely). `random` is a source of [0, 1) (tests inject one).
 */
export function jitteredBackoffSeconds(attempt: number, random: () => number = Math.random): number {
  const { min, max } = backoffBounds(attempt);
  const r = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  return min + Math.floor(r * (max - min + 1));
}

/**
 * The policy's waits on a time scale: 1 in AWS (the stack never scales);
 * the local runtime may shrink every wait alike (WEBHOOK_TIME_SCALE) so
 * tests run whole retry sequences, timeouts and crashes in seconds.
 */
export function scaledTimings(scale: number) {
  const ms = (seconds: number) => Math.round(seconds * scale * 1000);
  return {
    attemptTimeoutMs: ms(DELIVERY_POLICY.attemptTimeoutSeconds),
    functionTimeoutMs: ms(DERIVED.functionTimeoutSeconds),
    startBudgetMs: ms(DERIVED.startBudgetSeconds),
    /** SQS counts visibility in whole seconds. */
    visibilityTimeoutSeconds: queueSeconds(DERIVED.visibilityTimeoutSeconds, scale, 1),
    retrySpanMs: ms(DERIVED.retrySpanSeconds),
    requeueAfterMs: ms(DERIVED.requeueAfterSeconds),
    probeEveryMs: ms(DELIVERY_POLICY.probeEverySeconds),
    /** The visibility that realises a backoff wait of `seconds` (nominal, as recorded in the delivery's backoff history). */
    backoffVisibilitySeconds: (seconds: number) => queueSeconds(seconds, scale, 0),
    /** The visibility of an early message (its redrive's record write not visible yet): it looks again this soon. */
    lookAgainVisibilitySeconds: queueSeconds(DELIVERY_POLICY.lookAgainSeconds, scale, 1),
  };
}

function queueSeconds(nominal: number, scale: number, min: number): number {
  return Math.max(min, Math.min(43_200, Math.round(nominal * scale)));
}

/**
 * One step of a delivery's story, appended by the write that records it (no write of its own): an attempt's
 * outcome, a refusal (no request made) or a redrive. Never a response body: a status code or a safe error code.
 */
export type TimelineEntry = {
  kind: 'attempt' | 'refused' | 'redrive';
  /** The attempt's number since the delivery began or was last redriven (1 to the policy's attempts); null for the other kinds. */
  attempt: number | null;
  /** When the attempt started; a refusal or a redrive: when it happened. */
  at: string;
  /** The status the step left the delivery in. */
  status: DeliveryStatus;
  /** `http_200`, `http_503`, `timeout`, `destination_disabled`…; null for a redrive. */
  code: string | null;
  /** From the attempt's start to its outcome, ms; null without a request, or when its invocation died (`attempt_interrupted`). */
  ms: number | null;
  /** When the next attempt is due: set after a retryable failure with attempts left. */
  next: string | null;
};

/**
 * Entries a record keeps, newest last: the policy's attempts and the redrive that started them, twice (the round
 * now and the one before it). An entry is at most 135 bytes, so a full timeline adds at most 1.6 KB to the
 * record (test/unit/delivery-timeline.test.ts measures it); older entries drop off the front.
 */
export const TIMELINE_ENTRIES = 2 * (DELIVERY_POLICY.attempts + 1);
