/**
 * How long a test waits for a state it needs. Generous on purpose: a busy machine slows every step, so a test waits
 * on the state (a record, a request, a line) rather than racing a clock, and only a state that never comes fails.
 * The outer timeouts in vitest.config.ts are set above it. Three minutes: beside two busy processes on two cores, a
 * fan-out to 230 receivers was still retrying attempts its starved machine timed out after 90 s.
 */
export const PATIENCE_MS = 180_000;

/**
 * Resolves with `probe`'s first answer that is not undefined, asking every `everyMs`; past `timeoutMs` it throws
 * with `what()` saying what was awaited and what was seen (read once, then: it may read the engine).
 */
export async function eventually<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: () => string | Promise<string>,
  { timeoutMs = PATIENCE_MS, everyMs = 50 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms: ${await what()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
