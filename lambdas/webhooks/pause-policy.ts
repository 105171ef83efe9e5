import { DELIVERY_POLICY } from '#contract/delivery-policy';
import type { Destination } from '#data/destinations';

/** A destination is paused while its consecutive failed attempts reach the policy's bound; a success ends it. */
export const isPaused = (d: Pick<Destination, 'consecutiveFailures'>): boolean => d.consecutiveFailures >= DELIVERY_POLICY.pauseAfterFailures;
