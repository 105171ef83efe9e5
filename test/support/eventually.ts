/**
 * How long a test waits for a state it needs. Generous on purpose: a busy machine slows every step, so a test waits
 * on the state (a record, a request, a line) rather than racing a clock, and only a state that never comes fails.
 * The outer timeouts in vitest.config.ts are set above it. Three minutes: beside two busy processes on two cores, a
 * fan-out to 230 receivers was still retrying attempts its starved machine timed out after 90 s.
 */
export const PATIENCE_MS = 180_000;

/** The longest pause between two probes: a long wait asks about once a second, so it does not crowd a busy machine. */
const MAX_PAUSE_MS = 1_000;

/**
 * Resolves with `probe`'s first answer that is not undefined; past PATIENCE_MS it throws with `what()` saying what was
 * awaited and what was seen (read once, then: it may read the engine). The pauses between probes start at 20 ms and
 * grow by half each time up to MAX_PAUSE_MS: a state that comes soon is seen soon, and a long wait (a retry's backoff)
 * costs a few dozen probes, not thousands of engine reads.
 */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, what: () => string | Promise<string>): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (let pauseMs = 20; ; pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 1.5)) {
    const answer = await probe();
    if (answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`waited ${PATIENCE_MS} ms: ${await what()}`);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}
