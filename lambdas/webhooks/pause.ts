import { markerOf } from '#data/deliveries';
import { holdKeys, type Held, type PausedMarker } from '#data/holds';
import { scaledTimings } from '#contract/delivery-policy';
import type { MessagingDeps } from '#platform/messaging-deps';
import * as state from './delivery-state.js';
import { isPaused } from './pause-policy.js';
import { enqueueDeliveries, enqueueRelease } from './queue.js';

/**
 * A paused destination (docs/decisions/webhooks.md, "Pausing a failing
 * destination"): its new deliveries are held (fan-out.ts); they go out when
 * an attempt succeeds again (the deliverer sends a release message) or the
 * sweeper finds the destination no longer paused. Meanwhile the sweeper
 * sends the oldest held delivery as a probe now and then, and dead-letters
 * those held as long as their attempts could have taken.
 */

/** Held deliveries one release or one sweep handles per destination. */
export const RELEASE_PAGE = 100;
/** Paused markers one sweep reads per shard. */
const SWEEP_PAGE = 25;

const send = (deps: MessagingDeps, held: readonly Held[]) => enqueueDeliveries(deps, held.map((h) => ({ delivery: h, redrive: h.redrive })));

/**
 * Sends a page of a destination's held deliveries and drops their held
 * items; a full page asks for the next through a release message, so no
 * invocation's work grows with what was held. Returns how many went out.
 */
export async function releaseHeld(deps: MessagingDeps, destinationId: string): Promise<number> {
  const held = await deps.store.holds.oldest(destinationId, RELEASE_PAGE);
  // Sent before dropped: a crash in between sends them twice, and a duplicate message is harmless.
  await send(deps, held);
  await deps.store.holds.release(held);
  if (held.length === RELEASE_PAGE) await enqueueRelease(deps, destinationId);
  return held.length;
}

/** A release message: the destination is checked first (it may have failed again meanwhile). */
export async function releaseIfResumed(deps: MessagingDeps, destinationId: string): Promise<void> {
  if (await pausedNow(deps, destinationId)) return;
  await releaseHeld(deps, destinationId);
}

/** Removed or disabled destinations are not paused: their held deliveries go out and are refused at attempt time (FAILED), as the contract says. */
async function pausedNow(deps: MessagingDeps, destinationId: string): Promise<boolean> {
  const destination = await deps.store.destinations.get(destinationId);
  if (!destination?.enabled) return false;
  const [withHealth] = await deps.store.destinations.withHealth([destination]);
  return isPaused(withHealth!);
}

/** One sweep over the paused markers, a bounded page per shard. Returns the held deliveries released, probed and dead-lettered. */
export async function sweepPaused(deps: MessagingDeps): Promise<{ released: number; probed: number; abandoned: number }> {
  const tally = { released: 0, probed: 0, abandoned: 0 };
  for (const shard of holdKeys.shards()) {
    for (const marker of await deps.store.holds.paused(shard, SWEEP_PAGE)) {
      try {
        const done = await sweepOne(deps, marker);
        tally.released += done.released;
        tally.probed += done.probed;
        tally.abandoned += done.abandoned;
      } catch (err) {
        deps.logger.error('sweeper could not settle a paused destination', { destinationId: marker.destinationId, error: (err as Error).name });
      }
    }
  }
  return tally;
}

async function sweepOne(deps: MessagingDeps, marker: PausedMarker) {
  const done = await settleOne(deps, marker);
  // A marker that stays goes to the back of its shard: the next sweeps reach the others first.
  if (!done.unmarked) await deps.store.holds.requeue(marker, new Date(deps.clock.now()).toISOString());
  return done;
}

async function settleOne(deps: MessagingDeps, marker: PausedMarker) {
  const { destinationId } = marker;
  if (!(await pausedNow(deps, destinationId))) {
    const released = await releaseHeld(deps, destinationId);
    if (released === 0) await unmark(deps, marker);
    return { released, probed: 0, abandoned: 0, unmarked: released === 0 };
  }
  const now = deps.clock.now();
  const timings = scaledTimings(deps.config.webhookTimeScale);
  const held = await deps.store.holds.oldest(destinationId, RELEASE_PAGE);
  const expired = held.filter((h) => Date.parse(h.createdAt) <= now - timings.retrySpanMs);
  for (const h of expired) await abandon(deps, h);
  const waiting = held.slice(expired.length);
  if (waiting.length === 0) {
    await unmark(deps, marker);
    return { released: 0, probed: 0, abandoned: expired.length, unmarked: true };
  }
  const probeDue = Date.parse(marker.probedAt) <= now - timings.probeEveryMs;
  if (!probeDue || !(await deps.store.holds.takeProbe(marker, new Date(now).toISOString()))) {
    return { released: 0, probed: 0, abandoned: expired.length, unmarked: false };
  }
  // The oldest held delivery tries the destination; its success ends the pause and releases the rest.
  await send(deps, waiting.slice(0, 1));
  await deps.store.holds.release(waiting.slice(0, 1));
  return { released: 0, probed: 1, abandoned: expired.length, unmarked: false };
}

/** Dead-letters a held delivery (still PENDING, never sent): listed with the others and redrivable. */
async function abandon(deps: MessagingDeps, held: Held): Promise<void> {
  const d = await deps.store.deliveries.get(held.deliveryId);
  const saved = d?.status === 'PENDING' && d.redrives === held.redrive ? await deps.store.deliveries.write(state.abandon(d, deps.clock.now()), d) : d;
  // The marker after the record, the held item last: a crash in between leaves the held item, and the next sweep lists it again.
  if (saved?.deadLetterReason === 'destination_paused') await deps.store.deliveries.markDeadLetter(markerOf(saved, 'destination_paused'));
  await deps.store.holds.release([held]);
}

/** The marker goes when nothing is held; a delivery held meanwhile (after the read) puts a marker back. */
async function unmark(deps: MessagingDeps, marker: PausedMarker): Promise<void> {
  if (!(await deps.store.holds.unmarkPaused(marker))) return;
  if ((await deps.store.holds.oldest(marker.destinationId, 1)).length > 0) await deps.store.holds.markPaused(marker.destinationId, new Date(deps.clock.now()).toISOString());
}
