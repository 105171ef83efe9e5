import { lastOutcome, type Delivery } from './deliveries.js';
import type { DeliveryStatus } from './delivery-policy.js';
import type { MessagingDeps } from './deps.js';
import { AdminInputError, AdminNotFoundError } from '#domain/admin-errors';
import { DELIVERY_ID, EVENT_ID } from './events.js';
import { DAY_MS } from '#contract/business-date';
import { deliverySummary, requireDestination } from './destination-operations.js';
import { adminPage, type PageQuery } from '#platform/admin-paging';

/** How far back a destination's history goes by default, and the chart always: a day. */
/** Deliveries the hourly chart counts at most: one or two Query pages, however busy the destination. */
const CHART_DELIVERIES = 1000;

/** A page of a destination's deliveries, newest first, since a time (default: a day ago), of one status if asked. */
export async function deliveryHistory(
  deps: MessagingDeps,
  destId: string,
  { status, since, ...query }: { status?: DeliveryStatus; since?: string } & PageQuery = {},
) {
  await requireDestination(deps, destId);
  const from = since ?? new Date(deps.clock.now() - DAY_MS).toISOString();
  const { items, nextCursor } = await adminPage(
    deps,
    { r: 'deliveries', d: destId, s: status ?? '', f: since ?? '' },
    query,
    (limit, startKey) => deps.store.deliveries.history(destId, { since: from, status, limit, startKey }),
  );
  return { deliveries: items.map(deliverySummary), ...(nextCursor ? { nextCursor } : {}) };
}

/**
 * Deliveries of the last 24 hours by the hour they were created and their
 * status now, oldest hour first (the console's chart). Counts at most
 * CHART_DELIVERIES, newest first; `truncated` says when there were more.
 */
export async function hourlyOutcomes(deps: MessagingDeps, destId: string) {
  await requireDestination(deps, destId);
  const now = deps.clock.now();
  const firstHour = Math.floor((now - DAY_MS) / 3_600_000) * 3_600_000 + 3_600_000;
  const hours = Array.from({ length: 24 }, (_, i) => {
    const counts: Partial<Record<DeliveryStatus, number>> = {};
    return { hour: new Date(firstHour + i * 3_600_000).toISOString(), counts };
  });
  let counted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.store.deliveries.history(destId, { since: hours[0]!.hour, limit: CHART_DELIVERIES - counted, startKey });
    for (const d of page.items) {
      const slot = hours[Math.floor((Date.parse(d.createdAt) - firstHour) / 3_600_000)];
      if (slot) slot.counts[d.status] = (slot.counts[d.status] ?? 0) + 1;
    }
    counted += page.items.length;
    startKey = page.lastKey;
  } while (startKey && counted < CHART_DELIVERIES);
  return { hours, truncated: startKey !== undefined };
}

/**
 * A delivery's story as ops read it: where it stands (status, attempts, next attempt, last code), where it went
 * (destination, application, location) and its timeline, oldest first. Never a receiver's response body: the
 * deliverer reads only the status line (contract 6.5 rule 9), and keeps status and safe error codes.
 */
function deliveryStory(d: Delivery) {
  const { lastHttpStatus, completedAt } = lastOutcome(d);
  return {
    ...deliverySummary(d),
    destinationId: d.destinationId,
    destinationHost: d.destinationHost,
    clientId: d.clientId,
    groupId: d.groupId,
    lastHttpStatus,
    deadLetterReason: d.deadLetterReason,
    redrives: d.redrives,
    completedAt,
    timeline: d.timeline,
  };
}

/** One delivery's story, with its destination's name (null once removed). */
export async function showDelivery(deps: MessagingDeps, deliveryId: string) {
  if (!DELIVERY_ID.pattern.test(deliveryId)) throw new AdminInputError(`a delivery id looks like ${DELIVERY_ID.rule}`);
  const d = await deps.store.deliveries.get(deliveryId);
  if (!d) throw new AdminNotFoundError(`delivery ${deliveryId} does not exist (or is older than its 30 days)`);
  const names = await deps.store.destinations.names([d.destinationId]);
  return { delivery: { ...deliveryStory(d), destinationName: names.get(d.destinationId) ?? null } };
}

/** A page of an event's deliveries (one per destination it was fanned out to), each with its story; 404 for an event with none. */
export async function eventDeliveries(deps: MessagingDeps, { eventId, ...query }: { eventId: string } & PageQuery) {
  if (!EVENT_ID.anyPattern.test(eventId)) throw new AdminInputError(`eventId: an event id looks like ${EVENT_ID.rule}`);
  const { items, nextCursor } = await adminPage(deps, { r: 'event-deliveries', e: eventId }, query, (limit, startKey) =>
    deps.store.deliveries.ofEvent(eventId, { limit, startKey }),
  );
  if (items.length === 0 && query.cursor === undefined && !nextCursor) {
    throw new AdminNotFoundError(`event ${eventId} has no delivery (none was made, or they are older than their 30 days)`);
  }
  const names = await deps.store.destinations.names([...new Set(items.map((d) => d.destinationId))]);
  return {
    deliveries: items.map((d) => ({ ...deliveryStory(d), destinationName: names.get(d.destinationId) ?? null })),
    ...(nextCursor ? { nextCursor } : {}),
  };
}
