/** Time is injected so date and window rules can be tested at any instant. */
export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };
