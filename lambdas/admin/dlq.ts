import { markerOf, type DeadLetterMarker, type Delivery } from '#data/deliveries';
import type { WalkKey } from '#data/group-index';
import type { MessagingDeps } from '#platform/messaging-deps';
import * as state from '../webhooks/delivery-state.js';
import { scanDlq } from '../webhooks/dlq-scan.js';
import { enqueueDelivery } from '../webhooks/queue.js';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from '#domain/inputs';
import { adminPage, type PageQuery } from './paging.js';

/**
 * Dead-letter operations for ops. The markers say what is in the DLQ and
 * why (`attempts_exhausted`: DEAD_LETTER; `receives_exhausted`: attempts
 * left but the receives ran out; `record_missing`); the DLQ holds the
 * messages. A redrive makes a fresh message the delivery's carrier (so the
 * policy's attempts start again), then removes the old copy from the DLQ.
 */

/** Nominal seconds a redrive spends removing DLQ copies; the sweeper removes any it could not reach. */
const REMOVAL_SECONDS = 5;

export function deadLetterSummary(m: DeadLetterMarker, now: number) {
  return {
    deliveryId: m.deliveryId,
    groupId: m.groupId ?? null,
    reason: m.reason,
    status: m.status,
    eventId: m.eventId,
    eventType: m.eventType,
    destinationId: m.destinationId,
    destinationHost: m.destinationHost,
    attempts: m.attempts,
    lastErrorCode: m.lastErrorCode,
    deadSince: m.since,
    ageSeconds: m.createdAt ? Math.max(0, Math.round((now - Date.parse(m.createdAt)) / 1000)) : null,
  };
}

async function dlqDepth(deps: MessagingDeps): Promise<number | null> {
  if (!deps.config.webhookDlqUrl) return null;
  return (await deps.queue.dlq.depth()).visible;
}

/** A page of dead letters, oldest first, and the DLQ's depth. */
export async function listDeadLetters(deps: MessagingDeps, query: PageQuery = {}) {
  const now = deps.clock.now();
  const [{ items, nextCursor }, depth] = await Promise.all([
    adminPage<DeadLetterMarker, WalkKey>(deps, { r: 'dead-letters' }, query, async (limit, startKey) => {
      const { markers, lastKey } = await deps.store.deliveries.deadLetterPage(Math.floor(now / 1000), limit, startKey);
      return { items: markers, ...(lastKey ? { lastKey } : {}) };
    }),
    dlqDepth(deps),
  ]);
  return { deadLetters: items.map((m) => deadLetterSummary(m, now)), dlqMessages: depth, ...(nextCursor ? { nextCursor } : {}) };
}

export async function showDeadLetter(deps: MessagingDeps, deliveryId: string) {
  const d = await requireDeadLetter(deps, deliveryId);
  return {
    deadLetter: {
      ...deadLetterSummary(markerOf(d, d.deadLetterReason!), deps.clock.now()),
      groupId: d.groupId,
      locationId: d.locationId,
      clientId: d.clientId,
      lastHttpStatus: d.lastHttpStatus,
      backoffSeconds: d.backoffHistory,
      redrives: d.redrives,
      createdAt: d.createdAt,
      payload: JSON.parse(d.body) as unknown,
    },
  };
}

async function requireDeadLetter(deps: MessagingDeps, deliveryId: string): Promise<Delivery> {
  if (!/^dlv_[0-9a-f]{32}$/.test(deliveryId)) throw new AdminInputError('a delivery id looks like dlv_ followed by 32 hex digits');
  const d = await deps.store.deliveries.get(deliveryId);
  if (!d) throw new AdminNotFoundError(`delivery ${deliveryId} does not exist`);
  if (!d.deadLetterReason) throw new AdminConflictError(`delivery ${deliveryId} is ${d.status}, not dead-lettered`);
  return d;
}

/** Redrives one dead letter, or all of them; returns what was queued again. */
export async function redrive(deps: MessagingDeps, target: { deliveryId: string } | { all: true }) {
  const items = 'all' in target ? await allDeadLetters(deps) : [await requireDeadLetter(deps, target.deliveryId)];
  const redriven: string[] = [];
  for (const d of items) {
    // The new message first, then the record naming it as carrier: a crash in between leaves the
    // delivery dead-lettered (and listed) and the message an orphan, never a loss.
    const carrier = await enqueueDelivery(deps, d, d.redrives + 1);
    if (!(await deps.store.deliveries.write(state.redrive(d, carrier, deps.clock.now()), d))) {
      // A concurrent redrive (or the sweeper) wrote first; exactly one message carries the delivery.
      if ('deliveryId' in target) throw new AdminConflictError(`delivery ${d.deliveryId} changed meanwhile; list again`);
      continue;
    }
    await deps.store.deliveries.unmarkDeadLetter(d.deliveryId);
    redriven.push(d.deliveryId);
  }
  const targets = new Set(redriven);
  // Every DLQ copy of a redriven delivery is now a non-carrier; each normally has one.
  const removedMessages = targets.size
    ? await scanDlq(deps, async (m) => (m.message && targets.has(m.message.deliveryId) ? 'delete' : 'keep'), {
        budgetSeconds: REMOVAL_SECONDS,
        done: (deleted) => deleted >= targets.size,
      })
    : 0;
  return { redriven, removedMessages };
}

async function allDeadLetters(deps: MessagingDeps): Promise<Delivery[]> {
  const markers = await deps.store.deliveries.deadLetters(Math.floor(deps.clock.now() / 1000));
  const records = await Promise.all(markers.map((m) => deps.store.deliveries.get(m.deliveryId)));
  return records.filter((d): d is Delivery => d !== null && d.deadLetterReason !== null);
}
