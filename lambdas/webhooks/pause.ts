import { holdKeys, type Held, type PausedMarker } from './holds.js';
import { DERIVED, scaledTimings, STATUS } from './delivery-policy.js';
import { count } from '#platform/observability';
import type { MessagingDeps } from './deps.js';
import * as state from './attempt-rules.js';
import { enqueueDeliveries, enqueueRelease } from './messages.js';
import { isPaused } from './destinations.js';
import { lastOutcome } from './deliveries.js';

/**
 * A paused destination (docs/decisions/webhooks.md, "Pausing a failing
 * destination"): its new deliveries are held (fan-out.ts); they go out when
 * an attempt succeeds again (the deliverer sends a release message) or the
 * sweeper finds the destination no longer paused. Meanwhile only probes go
 * out: the sweeper sends the oldest held delivery now and then, and ends
 * those held past the hold bound as FAILED (`hold_expired`).
 */

/**
 * How long a delivery may stay held: as long as its own five attempts could have taken had it been queued
 * (`DERIVED.retrySpanSeconds`, 825 s), so a pause never delays an outcome past what the policy allows anyway.
 * Far shorter than a record's lifetime (`DELIVERY_RETENTION_SECONDS`, 30 days after its last change): a held
 * record never expires unseen, and the ended one stays in the destination's history as long as any other.
 */
export const HOLD_BOUND_SECONDS = DERIVED.retrySpanSeconds;

/** Held deliveries one release or one sweep handles per destination. */
export const RELEASE_PAGE = 100;
/** Paused markers one sweep reads per shard. */
const SWEEP_PAGE = 25;

/** For no requeue: the sweeper never requeues a held delivery (one requeued before a re-dispatch held it is carried by its requeue's message; this one is then stale). */
const send = (deps: MessagingDeps, held: readonly Held[]) =>
  enqueueDeliveries(
    deps,
    held.map((h) => ({ ...h, redrives: h.redrive, requeues: 0 })),
  );

/**
 * Sends a page of a destination's held deliveries and drops their held
 * items; a full page asks for the next through a release message, so no
 * invocation's work grows with what was held. Returns how many went out.
 */
async function releaseHeld(deps: MessagingDeps, destinationId: string): Promise<number> {
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

/** One sweep over the paused markers, a bounded page per shard. Returns the held deliveries released, probed and expired. */
export async function sweepPaused(deps: MessagingDeps) {
  const tally = { released: 0, probed: 0, expired: 0 };
  for (const shard of holdKeys.shards()) {
    for (const marker of await deps.store.holds.paused(shard, SWEEP_PAGE)) {
      try {
        // A marker that stays goes to the back of its shard: the next sweeps reach the others first.
        if (!(await settleOne(deps, marker, tally))) await deps.store.holds.requeue(marker, new Date(deps.clock.now()).toISOString());
      } catch (err) {
        deps.logger.error('sweeper could not settle a paused destination', {
          destinationId: marker.destinationId,
          error: (err as Error).name,
        });
      }
    }
  }
  return tally;
}

/** Releases, expires or probes what a paused destination holds, counted in `tally`; true when its marker went. */
async function settleOne(deps: MessagingDeps, marker: PausedMarker, tally: Awaited<ReturnType<typeof sweepPaused>>): Promise<boolean> {
  const { destinationId } = marker;
  if (!(await pausedNow(deps, destinationId))) {
    const released = await releaseHeld(deps, destinationId);
    tally.released += released;
    if (released === 0) await unmark(deps, marker);
    return released === 0;
  }
  const now = deps.clock.now();
  const timings = scaledTimings(deps.config.webhookTimeScale);
  const held = await deps.store.holds.oldest(destinationId, RELEASE_PAGE);
  // The hold bound is the retry span (HOLD_BOUND_SECONDS), on the runtime's time scale.
  const expired = held.filter((h) => Date.parse(h.createdAt) <= now - timings.retrySpanMs);
  for (const h of expired) await expire(deps, h);
  tally.expired += expired.length;
  const waiting = held.slice(expired.length);
  if (waiting.length === 0) {
    await unmark(deps, marker);
    return true;
  }
  const probeDue = Date.parse(marker.probedAt) <= now - timings.probeEveryMs;
  if (!probeDue || !(await deps.store.holds.takeProbe(marker, new Date(now).toISOString()))) return false;
  // The oldest held delivery tries the destination; its success ends the pause and releases the rest.
  await send(deps, waiting.slice(0, 1));
  await deps.store.holds.release(waiting.slice(0, 1));
  tally.probed++;
  return false;
}

/**
 * Ends a held delivery (still PENDING, never sent) as FAILED `hold_expired`: never silently. It stays in the
 * destination's history with that code, counts as `DeliveryFailed` (a delivery that ended without success),
 * and logs a warning ops can search.
 */
async function expire(deps: MessagingDeps, held: Held): Promise<void> {
  const d = await deps.store.deliveries.get(held.deliveryId);
  // A held item of an earlier redrive, or one whose delivery has moved on, is only dropped.
  if (d?.status === STATUS.PENDING && d.redrives === held.redrive) {
    const saved = await deps.store.deliveries.write(state.expireHold(d, deps.clock.now()), d);
    if (saved) {
      count(deps, 'DeliveryFailed');
      deps.logger.warn('webhook hold expired', {
        deliveryId: saved.deliveryId,
        eventId: saved.eventId,
        destinationId: saved.destinationId,
        host: saved.destinationHost,
        status: saved.status,
        code: lastOutcome(saved).lastErrorCode,
        heldSince: saved.createdAt,
      });
    }
  }
  // The held item last: a crash before this leaves it for the next sweep, which finds the record ended and drops it.
  await deps.store.holds.release([held]);
}

/** The marker goes when nothing is held; a delivery held meanwhile (after the read) puts a marker back. */
async function unmark(deps: MessagingDeps, marker: PausedMarker): Promise<void> {
  if (!(await deps.store.holds.unmarkPaused(marker))) return;
  if ((await deps.store.holds.oldest(marker.destinationId, 1)).length > 0)
    await deps.store.holds.markPaused(marker.destinationId, new Date(deps.clock.now()).toISOString());
}
