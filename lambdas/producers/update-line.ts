/**
 * The message of the line each update that reached its route writes, with its producer, operation, outcome and,
 * once written, its lag from source time to stored (`lagMs`): the per-producer metrics are taken from it
 * (lib/constructs/producer-metrics.ts).
 */
export const PRODUCER_LINE_MESSAGE = 'producer update';

/** What became of an update: written in order (or a replay, or stale and ignored: putInOrder), or refused with a code. */
export const PRODUCER_OUTCOMES = ['applied', 'duplicate', 'stale', 'refused'] as const;
export type ProducerOutcome = (typeof PRODUCER_OUTCOMES)[number];
