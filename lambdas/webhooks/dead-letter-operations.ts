import type { DeadLetterMarker } from './deliveries.js';
import type { WalkKey } from '#data/group-index';
import type { MessagingDeps } from './deps.js';
import { deadLetterSummary, dlqDepth } from './dead-letters.js';
import { adminPage, type PageQuery } from '#platform/admin-paging';
import { matches, searchPage } from '#platform/admin-search';

/** What the dead-letter list may be narrowed to: one destination's, and a search (search.ts) over ids, names and the event type. */
type DeadLetterFilter = { destinationId?: string; q?: string };

/**
 * A page of dead letters, oldest first, paged like every admin list, and the DLQ's depth (the rest:
 * lambdas/webhooks/dead-letters.ts). Each names its destination: the names of what a read returned, in one
 * batch read (at most a page of ids).
 */
export async function listDeadLetters(deps: MessagingDeps, { destinationId, q, ...query }: DeadLetterFilter & PageQuery = {}) {
  const now = deps.clock.now();
  const named = new Map<string, string>();
  const read = (limit: number, startKey?: WalkKey) => deps.store.deliveries.deadLetterPage(Math.floor(now / 1000), limit, startKey);
  const keep = async (markers: DeadLetterMarker[]) => {
    const ofDestination = destinationId ? markers.filter((m) => m.destinationId === destinationId) : markers;
    const ids = [...new Set(ofDestination.flatMap((m) => (m.destinationId && !named.has(m.destinationId) ? [m.destinationId] : [])))];
    for (const [id, name] of await deps.store.destinations.names(ids)) named.set(id, name);
    return q
      ? ofDestination.filter((m) =>
          matches(q, [
            m.deliveryId,
            m.destinationId,
            m.destinationHost,
            m.clientId,
            m.locationId,
            m.eventType,
            m.destinationId && named.get(m.destinationId),
          ]),
        )
      : ofDestination;
  };
  const [{ items, nextCursor }, depth] = await Promise.all([
    adminPage<DeadLetterMarker, WalkKey>(deps, { r: 'dead-letters', d: destinationId ?? '', q: q ?? '' }, query, (limit, startKey) =>
      // A filtered list reads on like a search, so a page of one destination's is not mostly empty.
      destinationId || q
        ? searchPage(read, keep, limit, startKey)
        : read(limit, startKey).then(async (p) => ({ ...p, items: await keep(p.items) })),
    ),
    dlqDepth(deps),
  ]);
  return {
    deadLetters: items.map((m) => ({
      ...deadLetterSummary(m, now),
      // null: removed since (its dead letters stay listed until redriven or expired).
      destinationName: (m.destinationId && named.get(m.destinationId)) ?? null,
    })),
    dlqMessages: depth,
    ...(nextCursor ? { nextCursor } : {}),
  };
}
