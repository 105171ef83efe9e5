import { scaledTimings, STATUS } from './delivery-policy.js';
import { deliveryKeys, type Delivery } from './deliveries.js';
import type { MessagingDeps } from './deps.js';
import * as state from './attempt-rules.js';
import { enqueueDeliveries } from './messages.js';

/**
 * Deliveries whose message vanished (docs/decisions/due-deliveries.md): SQS deletes a message that outlives the
 * queue's retention without a word, and a purge deletes every message. The record then waits for ever (PENDING,
 * RETRY_PENDING, or DELIVERING when the message went mid-attempt). The sweeper finds those that waited past
 * `DERIVED.requeueAfterSeconds` through the due index, a bounded page per partition from where its last pass
 * stopped, and queues each again with a fresh message that becomes its carrier. Never one held for a paused
 * destination on purpose (the pause's own sweep sends or ends those), nor one that ended or is listed as a dead
 * letter (neither is in the index).
 */

/** Due entries one sweep reads per partition of the due index: 16 × 25 deliveries a run at most. */
export const REQUEUE_PAGE = 25;

/**
 * One pass over the due index; returns the deliveries queued again. `before`: those unchanged since then (default:
 * the policy's wait; a queue known to be new, as the local runtime's at start, passes its own start).
 */
export async function requeueVanished(
  deps: MessagingDeps,
  before = new Date(deps.clock.now() - scaledTimings(deps.config.webhookTimeScale).requeueAfterMs).toISOString(),
): Promise<number> {
  const cursors = await deps.store.deliveries.dueCursors();
  const next: Record<string, string> = {};
  let requeued = 0;
  for (const shard of deliveryKeys.due.shards()) {
    // A cursor past the window (a clock set back) is no place to start.
    const from = cursors[shard] !== undefined && cursors[shard] < before ? cursors[shard] : undefined;
    try {
      const { entries, more } = await deps.store.deliveries.due(shard, { from, before, limit: REQUEUE_PAGE });
      requeued += await requeueDue(deps, entries, before);
      // A full page: the next pass goes on from its last entry (held ones stay behind it); else from the oldest.
      if (more) next[shard] = entries.at(-1)!.sortKey;
    } catch (err) {
      deps.logger.error('sweeper could not requeue deliveries', { shard, error: (err as Error).name });
      if (from) next[shard] = from;
    }
  }
  await deps.store.deliveries.saveDueCursors(next);
  return requeued;
}

/**
 * The records decide, read strongly consistent (the index is eventual): still waiting on a message, unchanged
 * since `before`, not listed, not held. Each gets its message first, then the record naming it as carrier,
 * conditional on the version read: should the old message turn up meanwhile and start an attempt, the write
 * fails, and the new message, sent for a requeue the record never shows, is looked at again until the redrive
 * takes it to the DLQ, where the sweeper drops it as stale. Whichever way, one message carries the delivery.
 */
async function requeueDue(deps: MessagingDeps, entries: readonly { deliveryId: string }[], before: string): Promise<number> {
  const records = await deps.store.deliveries.many(entries.map((e) => e.deliveryId));
  const waiting = records.filter(
    (d): d is Delivery => d !== null && WAITING.includes(d.status) && d.deadLetterReason === null && d.updatedAt <= before,
  );
  const held = await deps.store.holds.heldAmong(waiting.filter((d) => d.status === STATUS.PENDING));
  const due = waiting.filter((d) => !held.has(d.deliveryId));
  if (due.length === 0) return 0;
  const carriers = await enqueueDeliveries(
    deps,
    due.map((d) => ({ ...d, requeues: d.requeues + 1 })),
  );
  const now = deps.clock.now();
  const written = await Promise.all(due.map((d, i) => deps.store.deliveries.write(state.requeue(d, carriers[i]!, now), d)));
  for (const [i, saved] of written.entries()) {
    const d = due[i]!;
    const facts = { deliveryId: d.deliveryId, eventId: d.eventId, host: d.destinationHost, status: d.status, attempts: d.attempts };
    if (saved) deps.logger.warn('webhook delivery requeued: its message vanished', { ...facts, waitingSince: d.updatedAt });
    else deps.logger.info('webhook delivery moved on before its requeue', facts);
  }
  return written.filter((saved) => saved !== null).length;
}

/** The statuses that wait on a message: the next attempt's, or the carrier's return from an attempt that died. */
const WAITING: readonly Delivery['status'][] = [STATUS.PENDING, STATUS.RETRY_PENDING, STATUS.DELIVERING];
