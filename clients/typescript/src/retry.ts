export interface RetryBudget {
  /** Attempts in all, the first included; default 3. */
  maxAttempts: number;
  /** The most the retries of one request may wait in total; default 60 s (a rate-limit window). */
  maxWaitMs: number;
}

export const DEFAULT_RETRY: RetryBudget = { maxAttempts: 3, maxWaitMs: 60_000 };

/** Only safe methods are repeated: a POST (the emergency stop) may have acted even when it answered 5xx. */
const SAFE = new Set(['GET', 'HEAD']);
const retryable = (status: number) => status === 429 || status >= 500;

/** The wait a refusal asks for: `Retry-After` in seconds or as an HTTP date, else a jittered exponential backoff. */
function delayMs(response: Response, attempt: number, now: number): number {
  const header = response.headers.get('retry-after');
  if (header !== null) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return 500 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
}

/**
 * Sends `request` through `send` and repeats a safe request that met 429 or a 5xx, waiting what the service asked,
 * while the budget allows; the last answer is returned as it is when the budget is spent or a wait would overspend it.
 */
export async function withRetries(
  request: Request,
  send: (request: Request) => Promise<Response>,
  budget: RetryBudget,
  clock: { now: () => number; sleep: (ms: number) => Promise<void> },
): Promise<Response> {
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    const response = await send(request);
    if (!SAFE.has(request.method) || !retryable(response.status) || attempt >= budget.maxAttempts) return response;
    const wait = delayMs(response, attempt, clock.now());
    if (waited + wait > budget.maxWaitMs) return response;
    await response.body?.cancel();
    await clock.sleep(wait);
    waited += wait;
  }
}
