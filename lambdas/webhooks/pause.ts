import type { Delivery } from '#data/deliveries';
import type { Destination } from '#data/destinations';
import type { HeldMarker } from '#data/holds';
import { DELIVERY_POLICY, scaledTimings } from '#contract/delivery-policy';
import type { MessagingDeps } from '#platform/messaging-deps';
import * as state from './delivery-state.js';
import { enqueueDeliveries } from './queue.js';
import { holdKeys } from '#data/holds';

/**
 * Paused destinations (docs/decisions/webhooks.md, "Paused destinations"):
 * after DELIVERY_POLICY.pauseAfterFailures consecutive failures a
 * destination's deliveries wait unqueued; the sweeper sends one as a probe
 * now and then, and a success (a probe's, or a Send test's) resumes it,
 * after which the sweeper queues what waited, a page at a time.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** Held while its destination is paused: every event but a Send test, which is how ops probe it by hand. */
export const waitsWhilePaused = (d: Pick<Delivery, 'eventType'>, destination: Pick<Destination, 'pausedSince'>) =>
  destination.pausedSince !== undefined && d.eventType !== 'customer_api.webhook.test';

/** After a failed attempt: pause once the failures in a row reach the policy's number. The pause item first, so the sweeper always finds a paused destination. */
export async function pauseIfFailing(deps: MessagingDeps, destination: Destination, failures: number): Promise<void> {
  if (destination.pausedSince || failures < DELIVERY_POLICY.pauseAfterFailures) return;
  const now = deps.clock.now();
  const probeSeconds = DELIVERY_POLICY.firstProbeSeconds;
  const probeAt = iso(now + scaledTimings(deps.config.webhookTimeScale).probeWaitMs(probeSeconds));
  await deps.store.holds.open({ destinationId: destination.destinationId, since: iso(now), probeAt, probeSeconds });
  if (await deps.store.destinations.pause(destination.destinationId, iso(now))) {
    deps.logger.warn('webhook destination paused', { destinationId: destination.destinationId, failures });
  }
}

/** After a successful attempt: the destination resumes; the sweeper queues its held deliveries. */
export async function resumeIfPaused(deps: MessagingDeps, destination: Destination): Promise<void> {
  if (destination.pausedSince && (await deps.store.destinations.resume(destination.destinationId))) {
    deps.logger.info('webhook destination resumed', { destinationId: destination.destinationId });
  }
}

/**
 * The marker the sweeper releases it by, then the record (which decides;
 * null when another receive wrote first). Marker first: a marker whose
 * record is not held only sends a duplicate message, a held record without
 * a marker would never be sent.
 */
export async function holdDelivery(deps: MessagingDeps, d: Delivery): Promise<Delivery | null> {
  const held = state.hold(d, deps.clock.now());
  await deps.store.holds.hold(held.destinationId, held.deliveryId, held.heldSince!);
  return deps.store.deliveries.write(held, d);
}

/** Held deliveries one sweep queues per resumed destination, and pause items it looks at per index partition. */
export const RELEASE_PAGE = 100;
const PAUSES_PER_SHARD = 10;

/** The sweeper's pass over paused destinations: a probe where one is due, the held deliveries of resumed ones. */
export async function sweepPauses(deps: MessagingDeps): Promise<{ probes: number; released: number }> {
  const now = deps.clock.now();
  let probes = 0;
  let released = 0;
  for (const shard of holdKeys.shards()) {
    for (const pause of await deps.store.holds.pausedPage(shard, PAUSES_PER_SHARD)) {
      const id = pause.destinationId;
      const destination = await deps.store.destinations.get(id);
      if (destination?.pausedSince) {
        if (Date.parse(pause.probeAt) > now) continue;
        const next = Math.min(pause.probeSeconds * 2, DELIVERY_POLICY.maxProbeSeconds);
        await deps.store.holds.nextProbe(id, iso(now + scaledTimings(deps.config.webhookTimeScale).probeWaitMs(next)), next);
        const { markers } = await deps.store.holds.heldPage(id, 1);
        probes += await release(deps, markers, true);
        continue;
      }
      // Resumed, or removed (its deliveries are then refused at their attempt): everything waiting goes, a page a run.
      const { markers, more } = await deps.store.holds.heldPage(id, RELEASE_PAGE);
      released += await release(deps, markers, false);
      if (!more) await deps.store.holds.close(id);
    }
  }
  return { probes, released };
}

/**
 * Record, message, marker, in that order: a crash after the record leaves the
 * marker, and the next pass sends the message again (a duplicate is dropped
 * by the record's carrier rule; a lost one would strand the delivery).
 */
async function release(deps: MessagingDeps, markers: HeldMarker[], probe: boolean): Promise<number> {
  const toQueue: Delivery[] = [];
  for (const marker of markers) {
    const d = await deps.store.deliveries.get(marker.deliveryId);
    if (d?.heldSince) {
      const released = await deps.store.deliveries.write(state.release(d, deps.clock.now()), d);
      if (released) toQueue.push(released);
    } else if (d && (d.status === 'PENDING' || d.status === 'RETRY_PENDING')) {
      toQueue.push(d);
    }
  }
  await enqueueDeliveries(deps, toQueue.map((delivery) => ({ delivery, redrive: delivery.redrives, probe })));
  for (const marker of markers) await deps.store.holds.release(marker);
  return toQueue.length;
}
