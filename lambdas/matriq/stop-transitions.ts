import type { StopStatus } from '#contract/schemas/matriq';

/**
 * Emergency-stop command states (contract 3): a command is `queued` at once
 * and ends `applied` or `failed` when the gateway reports. The ends are final;
 * the same report twice is a harmless repeat, a contradicting one is refused.
 */
export type StopTransition = 'complete' | 'repeat';

export class StopTransitionError extends Error {}

export function stopTransition(current: StopStatus, reported: Exclude<StopStatus, 'queued'>): StopTransition {
  if (current === 'queued') return 'complete';
  if (current === reported) return 'repeat';
  throw new StopTransitionError(`the command is already ${current}; it cannot become ${reported}`);
}
