import { lastOutcome, markerOf, missingMarker, type DeadLetterMarker, type Delivery } from './deliveries.js';
import type { WalkKey } from '#data/group-index';
import type { MessagingDeps } from './deps.js';
import { count } from '#platform/observability';
import { decodeCursor, encodeCursor, pageKey } from '#platform/page-cursor';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from '#domain/admin-errors';
import { STATUS } from './delivery-policy.js';
import { DLQ_PASS_SECONDS, WEBHOOK_QUEUES } from './queues.js';
import { DELIVERY_ID } from './events.js';
import * as state from './attempt-rules.js';
import { enqueueDeliveries, parseDeliveryMessage, standing, type DeliveryMessage } from './messages.js';
import { noticeDeadLetter } from './destinations.js';

/**
 * Dead letters, in one room: what sits in the DLQ and why, for the sweeper (its pass lists every message
 * there with its reason) and for ops (list, show, redrive, redrive all). The markers say what is in the DLQ
 * and why (`attempts_exhausted`: DEAD_LETTER; `receives_exhausted`: attempts left but the receives ran out;
 * `record_missing`); the DLQ holds the messages. A redrive makes a fresh message the delivery's carrier (so the
 * policy's attempts start again), then removes the old copy from the DLQ. "Redrive all" is a run of pages
 * (REDRIVE_PAGE), each bounded in count and time.
 */

/** A DLQ message as a visit sees it; `message` is null for a body that is not a delivery message. */
type DlqMessage = { messageId: string; message: DeliveryMessage | null };

type ScanOptions = {
  /** Stop early once this holds for the messages deleted so far (a redrive that removed every copy it came for). */
  done?: (deleted: number) => boolean;
  /** Nominal seconds the pass may take; scaled like every other wait. */
  budgetSeconds: number;
};

/** Long-poll wait per receive, nominal seconds: long polls ask every SQS server, so an empty answer means empty. */
const POLL_SECONDS = 2;

/**
 * One pass over the DLQ: every message is visited once and deleted or kept.
 * Kept ones stay hidden until the pass ends (so no receive returns them
 * twice), then are handed back. The pass ends when `done` holds, or when a
 * long poll comes back empty and the queue reports no message outside this
 * pass's hands (none visible, none in flight elsewhere); short polls would
 * sample a few servers and may answer empty while messages remain.
 */
async function scanDlq(deps: MessagingDeps, visit: (m: DlqMessage) => Promise<'delete' | 'keep'>, options: ScanOptions): Promise<number> {
  const { dlq } = deps.queue;
  const scale = deps.config.webhookTimeScale;
  const waitSeconds = Math.max(1, Math.round(POLL_SECONDS * scale));
  const deadline = Date.now() + options.budgetSeconds * scale * 1000;
  const kept: string[] = [];
  const seen = new Set<string>();
  let deleted = 0;
  try {
    while (!options.done?.(deleted) && Date.now() < deadline) {
      // Never waiting past the budget: a pass inside an invocation (a redrive page) must end in its time.
      const wait = Math.max(0, Math.min(waitSeconds, Math.floor((deadline - Date.now()) / 1000)));
      const messages = await dlq.receive({
        waitSeconds: wait,
        hideSeconds: Math.ceil(options.budgetSeconds * scale) + waitSeconds + 1,
      });
      if (messages.length === 0) {
        const depth = await dlq.depth();
        if (depth.visible === 0 && depth.inFlight <= kept.length) break;
        continue;
      }
      for (const m of messages) {
        const verdict = seen.has(m.messageId) ? 'keep' : await visit({ messageId: m.messageId, message: parseDeliveryMessage(m.body) });
        seen.add(m.messageId);
        if (verdict === 'delete') {
          await dlq.delete(m.receiptHandle);
          deleted++;
        } else {
          kept.push(m.receiptHandle);
        }
      }
    }
  } finally {
    for (const handle of kept) {
      await dlq.release(handle).catch(() => undefined); // it comes back on its own when its visibility ends
    }
  }
  return deleted;
}

/**
 * The sweeper's pass over the DLQ, so that every message there is listed
 * with its reason, whatever moved it: a spent delivery (DEAD_LETTER) is
 * listed by the deliverer, and relisted here if that write was lost; a
 * delivery whose receives ran out before its attempts (throttles, crashes,
 * timeouts) keeps its status and is marked `receives_exhausted`; a message
 * without a record is listed as `record_missing`. Copies that are no longer
 * the delivery's carrier (left behind by a redrive, orphaned by a redrive that
 * failed half-way, or duplicates) and copies of finished deliveries are deleted.
 */
export async function reconcileDlq(deps: MessagingDeps) {
  const { store, clock, logger } = deps;
  const result = { stranded: 0, relisted: 0, removed: 0 };
  // One read per message visited (the pass has a time budget), never a read of every marker.
  const list = async (marker: DeadLetterMarker, expiresAtSeconds?: number) => {
    if (await store.deliveries.isDeadLetter(marker.deliveryId, Math.floor(clock.now() / 1000))) return;
    await store.deliveries.markDeadLetter(marker, expiresAtSeconds);
    result.relisted++;
  };

  const visit = async ({ messageId, message }: DlqMessage): Promise<'delete' | 'keep'> => {
    if (!message) {
      logger.error('DLQ message is not a delivery', { messageId });
      return 'keep';
    }
    const { deliveryId } = message;
    const d = await store.deliveries.get(deliveryId);
    const now = clock.now();
    if (!d) {
      logger.error('DLQ message without a delivery record', { deliveryId });
      await list(missingMarker(deliveryId, new Date(now).toISOString()), Math.floor(now / 1000) + WEBHOOK_QUEUES.dlqRetentionSeconds);
      return 'keep';
    }
    const stale = standing(message, d) !== 'current' || (d.carrier !== null && d.carrier !== messageId);
    if (stale || d.status === STATUS.SUCCEEDED || d.status === STATUS.FAILED) return 'delete';
    if (d.deadLetterReason) {
      await list(markerOf(d, d.deadLetterReason));
      // An attempt or a redrive may have taken it up since the read above: each clears the reason, then the marker.
      // A marker written over that unmarking would list a delivery that moved on (even one that succeeded): it comes off.
      if (!(await store.deliveries.get(deliveryId))?.deadLetterReason) await store.deliveries.unmarkDeadLetter(deliveryId);
      return 'keep';
    }
    const stranded = await store.deliveries.write(state.strand(d, now), d);
    if (stranded) {
      await store.deliveries.markDeadLetter(markerOf(stranded, 'receives_exhausted'));
      await noticeDeadLetter(deps, stranded);
      result.stranded++;
      count(deps, 'DeliveryStranded');
      logger.warn('webhook delivery stranded in the DLQ', { deliveryId, status: d.status, attempts: d.attempts });
    }
    return 'keep';
  };
  result.removed = await scanDlq(deps, visit, { budgetSeconds: DLQ_PASS_SECONDS });
  return result;
}

const REDRIVE_BINDING: Record<string, string> = { r: 'dead-letters-redrive' };

/** Nominal seconds a redrive spends removing DLQ copies; the sweeper removes any it could not reach. */
const REMOVAL_SECONDS = 5;

/** Messages in the DLQ now; null where the runtime has none (the CLI without a deployed stage's queue). */
export async function dlqDepth(deps: MessagingDeps): Promise<number | null> {
  if (!deps.config.webhookDlqUrl) return null;
  return (await deps.queue.dlq.depth()).visible;
}

/** `ageSeconds`: since it was dead-lettered (what on-call acts on), not since the delivery was created. */
export function deadLetterSummary(m: DeadLetterMarker, now: number) {
  return {
    deliveryId: m.deliveryId,
    groupId: m.groupId,
    clientId: m.clientId,
    locationId: m.locationId,
    reason: m.reason,
    status: m.status,
    eventId: m.eventId,
    eventType: m.eventType,
    destinationId: m.destinationId,
    destinationHost: m.destinationHost,
    attempts: m.attempts,
    lastErrorCode: m.lastErrorCode,
    deadSince: m.since,
    ageSeconds: Math.max(0, Math.round((now - Date.parse(m.since)) / 1000)),
  };
}

export async function showDeadLetter(deps: MessagingDeps, deliveryId: string) {
  const d = await requireDeadLetter(deps, deliveryId);
  return {
    deadLetter: {
      ...deadLetterSummary(markerOf(d, d.deadLetterReason!), deps.clock.now()),
      lastHttpStatus: lastOutcome(d).lastHttpStatus,
      backoffSeconds: d.backoffHistory,
      redrives: d.redrives,
      createdAt: d.createdAt,
      // Attempts, refusals and redrives: codes and times, never a response body.
      timeline: d.timeline,
      payload: JSON.parse(d.body) as unknown,
    },
  };
}

async function requireDeadLetter(deps: MessagingDeps, deliveryId: string): Promise<Delivery> {
  if (!DELIVERY_ID.pattern.test(deliveryId)) throw new AdminInputError(`a delivery id looks like ${DELIVERY_ID.rule}`);
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

/** A dead letter a selection named but did not queue again, and why. */
type Skipped = { deliveryId: string; reason: 'not_found' | 'not_dead_lettered' | 'changed_meanwhile' | 'no_time_left' };

/** What one redrive call queued again, the DLQ copies it removed, and where the next page starts (absent: done). */
export type RedriveResult = { redriven: string[]; removedMessages: number; nextCursor?: string; skipped?: Skipped[] };

/** Milliseconds the invocation has left (Lambda's context); unbounded for the CLI, which runs no function. */
export type Remaining = () => number;
const UNBOUNDED: Remaining = () => Number.POSITIVE_INFINITY;

/** What a redrive names: one dead letter, or a selection of at most REDRIVE_PAGE.size. */
type RedriveTarget = { deliveryId: string } | { deliveryIds: readonly string[] };

/**
 * Redrives one dead letter (409 when it changed meanwhile), or a selection: the ones not dead-lettered now (or
 * not reached in the invocation's time) are skipped and named, so one stale row never fails the rest.
 */
export async function redrive(deps: MessagingDeps, target: RedriveTarget, remainingMs: Remaining = UNBOUNDED): Promise<RedriveResult> {
  if ('deliveryId' in target) {
    const d = await requireDeadLetter(deps, target.deliveryId);
    const { redriven, removedMessages } = await redriveInTime(deps, [d], remainingMs);
    // A concurrent redrive (or the sweeper) wrote first; exactly one message carries the delivery.
    if (redriven.length === 0) throw new AdminConflictError(`delivery ${d.deliveryId} changed meanwhile; list again`);
    return { redriven, removedMessages };
  }
  // The CLI and the API hand over what they were given: checked here, once.
  const ids: readonly string[] = Array.isArray(target.deliveryIds) ? target.deliveryIds : [];
  if (ids.length === 0 || ids.length > REDRIVE_PAGE.size) {
    throw new AdminInputError(`deliveryIds: from 1 to ${REDRIVE_PAGE.size} delivery ids`);
  }
  const wrong = ids.filter((id) => typeof id !== 'string' || !DELIVERY_ID.pattern.test(id));
  if (wrong.length) throw new AdminInputError(`deliveryIds: each looks like ${DELIVERY_ID.rule} (not: ${wrong.slice(0, 3).join(', ')})`);
  if (new Set(ids).size !== ids.length) throw new AdminInputError('deliveryIds: must not repeat a delivery');
  const records = await deps.store.deliveries.many(ids);
  const skipped: Skipped[] = [];
  const due: Delivery[] = [];
  records.forEach((d, i) => {
    if (!d) skipped.push({ deliveryId: ids[i]!, reason: 'not_found' });
    else if (!d.deadLetterReason) skipped.push({ deliveryId: d.deliveryId, reason: 'not_dead_lettered' });
    else due.push(d);
  });
  const { redriven, handled, removedMessages } = await redriveInTime(deps, due, remainingMs);
  for (const d of due.slice(handled)) skipped.push({ deliveryId: d.deliveryId, reason: 'no_time_left' });
  for (const d of due.slice(0, handled))
    if (!redriven.includes(d.deliveryId)) skipped.push({ deliveryId: d.deliveryId, reason: 'changed_meanwhile' });
  return { redriven, removedMessages, skipped };
}

/**
 * Redrives `due` a wave (REDRIVE_PAGE.parallel) at a time while, after one more wave as slow as the last, the time
 * kept for removing their DLQ copies and for the answer would still be left (the first wave always runs), then
 * removes the copies. Returns what it redrove, how many of `due` it reached, and the copies it removed.
 */
async function redriveInTime(deps: MessagingDeps, due: readonly Delivery[], remainingMs: Remaining) {
  const left = remainingMs();
  const removalMs = Math.min(REMOVAL_SECONDS * deps.config.webhookTimeScale * 1000, left * REDRIVE_PAGE.removalShare);
  // Unbounded (the CLI): no tail to keep, and pages bounded by their size alone.
  const tailMs = Number.isFinite(left) ? left * REDRIVE_PAGE.tailShare : 0;
  const redriven: string[] = [];
  let handled = 0;
  let waveMs = 0;
  while (handled < due.length && (handled === 0 || remainingMs() - waveMs * 1.5 > removalMs + tailMs)) {
    const began = Date.now();
    const wave = due.slice(handled, handled + REDRIVE_PAGE.parallel);
    redriven.push(...(await redriveEach(deps, wave)));
    handled += wave.length;
    waveMs = Date.now() - began;
  }
  const removedMessages = await removeCopies(deps, redriven, Math.min(removalMs, Math.max(0, remainingMs() - tailMs)));
  return { redriven, handled, removedMessages };
}

/**
 * One page of "redrive all" from `cursor` (absent: the oldest dead letter), bounded in count and in time; with
 * `destinationId`, only that destination's dead letters on the page are redriven (the page bound is the same).
 */
export async function redrivePage(
  deps: MessagingDeps,
  { cursor, destinationId }: { cursor?: string; destinationId?: string } = {},
  remainingMs: Remaining = UNBOUNDED,
): Promise<RedriveResult> {
  const key = await pageKey(deps);
  const binding = destinationId ? { ...REDRIVE_BINDING, d: destinationId } : REDRIVE_BINDING;
  let start: WalkKey | undefined;
  if (cursor !== undefined) {
    try {
      // Signed by this service; "null" is the beginning, handed back by a first page that stopped early.
      start = (JSON.parse(decodeCursor(key, cursor, binding, 'cursor')) as WalkKey | null) ?? undefined;
    } catch {
      throw new AdminInputError('cursor: not a cursor of this redrive; start again without it');
    }
  }
  const { items: markers, lastKey } = await deps.store.deliveries.deadLetterPage(
    Math.floor(deps.clock.now() / 1000),
    REDRIVE_PAGE.size,
    start,
  );
  const chosen = destinationId ? markers.filter((m) => m.destinationId === destinationId) : markers;
  const records = await deps.store.deliveries.many(chosen.map((m) => m.deliveryId));
  // A marker whose record is gone (record_missing) or moving again is not redriven: the cursor passes it.
  const due = records.filter((d): d is Delivery => d !== null && d.deadLetterReason !== null);
  const { redriven, handled, removedMessages } = await redriveInTime(deps, due, remainingMs);
  // A page cut short by time continues from where it began: what it redrove is no longer listed.
  const next = handled === due.length ? lastKey : (start ?? null);
  return {
    redriven,
    removedMessages,
    ...(next !== undefined ? { nextCursor: encodeCursor(key, binding, JSON.stringify(next)) } : {}),
  };
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
  const carriers = await enqueueDeliveries(
    deps,
    items.map((d) => ({ ...d, redrives: d.redrives + 1 })),
  );
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
