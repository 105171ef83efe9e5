import type { DeadLetterMarker } from '#data/deliveries';
import type { WalkKey } from '#data/group-index';
import type { MessagingDeps } from '#platform/deps';
import { deadLetterSummary, dlqDepth } from '../webhooks/index.js';
import { adminPage, type PageQuery } from './paging.js';

/** A page of dead letters, oldest first, paged like every admin list, and the DLQ's depth (the rest: lambdas/webhooks/dead-letters.ts). */
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
