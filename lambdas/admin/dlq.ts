import { markerOf, type DeadLetterMarker, type Delivery } from '#data/deliveries';
import type { WalkKey } from '#data/group-index';
import type { MessagingDeps } from '#platform/deps';
import * as state from '../webhooks/delivery-state.js';
import { scanDlq } from '../webhooks/dlq-scan.js';
import { enqueueDeliveries } from '../webhooks/queue.js';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from '#domain/inputs';
import { decodeCursor, encodeCursor, pageKey } from '#platform/page-cursor';
import { adminPage, type PageQuery } from './paging.js';

/**
 * Dead-letter operations for ops. The markers say what is in the DLQ and
 * why (`attempts_exhausted`: DEAD_LETTER; `receives_exhausted`: attempts
 * left but the receives ran out; `record_missing`); the DLQ holds the
 * messages. A redrive makes a fresh message the delivery's carrier (so the
 * policy's attempts start again), then removes the old copy from the DLQ.
 * "Redrive all" is a run of pages (REDRIVE_PAGE), each bounded in count and time.
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

/**
 * "Redrive all" runs in pages, each inside one admin invocation whatever the
 * DLQ holds: a page takes at most `size` dead letters (one page of markers,
 * oldest first) and redrives them `parallel` at a time. Of the time the
 * function has left when the page begins, `tailShare` is kept for the audit
 * entry and the answer and at most `removalShare` (never more than
 * REMOVAL_SECONDS) for removing the redriven deliveries' DLQ copies; a next
 * wave starts only while, after one more wave as slow as the last (× 1.5),
 * both would still fit. The first wave always runs, so every page moves on.
 * `nextCursor` continues the run; the CLI and the console call again until
 * there is none.
 */
export const REDRIVE_PAGE = { size: 100, parallel: 25, tailShare: 0.25, removalShare: 0.25 } as const;

/** What one redrive call queued again, the DLQ copies it removed, and where the next page starts (absent: done). */
export type RedriveResult = { redriven: string[]; removedMessages: number; nextCursor?: string };

/** Milliseconds the invocation has left (Lambda's context); unbounded for the CLI, which runs no function. */
export type Remaining = () => number;
const UNBOUNDED: Remaining = () => Number.POSITIVE_INFINITY;

/** Redrives one dead letter; 409 when it changed meanwhile. */
export async function redrive(deps: MessagingDeps, target: { deliveryId: string }, remainingMs: Remaining = UNBOUNDED): Promise<RedriveResult> {
  const d = await requireDeadLetter(deps, target.deliveryId);
  const redriven = await redriveEach(deps, [d]);
  // A concurrent redrive (or the sweeper) wrote first; exactly one message carries the delivery.
  if (redriven.length === 0) throw new AdminConflictError(`delivery ${d.deliveryId} changed meanwhile; list again`);
  const removalMs = Math.min(REMOVAL_SECONDS * deps.config.webhookTimeScale * 1000, remainingMs() * REDRIVE_PAGE.removalShare);
  return { redriven, removedMessages: await removeCopies(deps, redriven, removalMs) };
}

const REDRIVE_BINDING = { r: 'dead-letters-redrive' };

/** One page of "redrive all" from `cursor` (absent: the oldest dead letter), bounded in count and in time. */
export async function redrivePage(deps: MessagingDeps, { cursor }: { cursor?: string } = {}, remainingMs: Remaining = UNBOUNDED): Promise<RedriveResult> {
  const left = remainingMs();
  const removalMs = Math.min(REMOVAL_SECONDS * deps.config.webhookTimeScale * 1000, left * REDRIVE_PAGE.removalShare);
  // Unbounded (the CLI): no tail to keep, and pages bounded by their size alone.
  const tailMs = Number.isFinite(left) ? left * REDRIVE_PAGE.tailShare : 0;
  const reserveMs = removalMs + tailMs;
  const key = await pageKey(deps);
  let start: WalkKey | undefined;
  if (cursor !== undefined) {
    try {
      // Signed by this service; "null" is the beginning, handed back by a first page that stopped early.
      start = (JSON.parse(decodeCursor(key, cursor, REDRIVE_BINDING, 'cursor')) as WalkKey | null) ?? undefined;
    } catch {
      throw new AdminInputError('cursor: not a cursor of redrive all; start again without it');
    }
  }
  const { markers, lastKey } = await deps.store.deliveries.deadLetterPage(Math.floor(deps.clock.now() / 1000), REDRIVE_PAGE.size, start);
  const records = await Promise.all(markers.map((m) => deps.store.deliveries.get(m.deliveryId)));
  // A marker whose record is gone (record_missing) or moving again is not redriven: the cursor passes it.
  const due = records.filter((d): d is Delivery => d !== null && d.deadLetterReason !== null);
  const redriven: string[] = [];
  let handled = 0;
  let waveMs = 0;
  while (handled < due.length && (handled === 0 || remainingMs() - waveMs * 1.5 > reserveMs)) {
    const began = Date.now();
    const wave = due.slice(handled, handled + REDRIVE_PAGE.parallel);
    redriven.push(...(await redriveEach(deps, wave)));
    handled += wave.length;
    waveMs = Date.now() - began;
  }
  // A page cut short by time continues from where it began: what it redrove is no longer listed.
  const next = handled === due.length ? lastKey : (start ?? null);
  const removedMessages = await removeCopies(deps, redriven, Math.min(removalMs, Math.max(0, remainingMs() - tailMs)));
  return { redriven, removedMessages, ...(next !== undefined ? { nextCursor: encodeCursor(key, REDRIVE_BINDING, JSON.stringify(next)) } : {}) };
}

/**
 * Redrives `items` side by side; returns those it redrove. Per delivery the
 * new message first, then the record naming it as carrier, then the marker
 * goes: a crash in between leaves the delivery dead-lettered (and listed)
 * and the message an orphan, never a loss; no reader ever sees a carrier
 * that was not sent. A deliverer that receives the message before the write
 * is visible looks again within seconds (DELIVERY_POLICY.lookAgainSeconds).
 */
async function redriveEach(deps: MessagingDeps, items: readonly Delivery[]): Promise<string[]> {
  if (items.length === 0) return [];
  const carriers = await enqueueDeliveries(deps, items.map((d) => ({ delivery: d, redrive: d.redrives + 1 })));
  const written = await Promise.all(
    items.map(async (d, i) => {
      // A concurrent redrive (or the sweeper) wrote first: its message carries the delivery, this one is dropped on receipt.
      if (!(await deps.store.deliveries.write(state.redrive(d, carriers[i]!, deps.clock.now()), d))) return null;
      await deps.store.deliveries.unmarkDeadLetter(d.deliveryId);
      return d.deliveryId;
    }),
  );
  return written.filter((id): id is string => id !== null);
}

/** Every DLQ copy of a redriven delivery is now a non-carrier (each normally has one); what this pass misses, the sweeper deletes. */
async function removeCopies(deps: MessagingDeps, redriven: readonly string[], budgetMs: number): Promise<number> {
  const targets = new Set(redriven);
  if (targets.size === 0) return 0;
  return scanDlq(deps, async (m) => (m.message && targets.has(m.message.deliveryId) ? 'delete' : 'keep'), {
    // scanDlq scales nominal seconds; this budget is real time already.
    budgetSeconds: budgetMs / 1000 / deps.config.webhookTimeScale,
    done: (deleted) => deleted >= targets.size,
  });
}
