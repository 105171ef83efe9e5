import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Delivery } from '../shared/data/deliveries.js';
import type { Deps } from '../shared/deps.js';
import * as state from '../webhooks/delivery-state.js';
import { enqueueDelivery, parseDeliveryMessage } from '../webhooks/queue.js';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from './validation.js';

/**
 * Dead-letter operations for ops. The delivery records say what died and
 * why; the DLQ holds the messages. A redrive resets the record, queues a
 * fresh message (so attempts count from one again) and removes the old one
 * from the DLQ.
 */

export function deadLetterSummary(d: Delivery, now: number) {
  return {
    deliveryId: d.deliveryId,
    eventId: d.eventId,
    eventType: d.eventType,
    destinationId: d.destinationId,
    destinationHost: d.destinationHost,
    attempts: d.attempts,
    lastErrorCode: d.lastErrorCode,
    deadSince: d.updatedAt,
    ageSeconds: Math.max(0, Math.round((now - Date.parse(d.createdAt)) / 1000)),
  };
}

async function dlqDepth(deps: Deps): Promise<number | null> {
  if (!deps.config.webhookDlqUrl) return null;
  const { Attributes } = await deps.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: deps.config.webhookDlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
}

async function deadLetters(deps: Deps): Promise<Delivery[]> {
  const ids = await deps.store.deliveries.deadLetterIds();
  const deliveries = await Promise.all(ids.map((id) => deps.store.deliveries.get(id)));
  return deliveries.filter((d): d is Delivery => d?.status === 'DEAD_LETTER');
}

export async function listDeadLetters(deps: Deps) {
  const now = deps.clock.now();
  const [items, depth] = await Promise.all([deadLetters(deps), dlqDepth(deps)]);
  return { deadLetters: items.map((d) => deadLetterSummary(d, now)), dlqMessages: depth };
}

export async function showDeadLetter(deps: Deps, deliveryId: string) {
  const d = await requireDeadLetter(deps, deliveryId);
  return {
    deadLetter: {
      ...deadLetterSummary(d, deps.clock.now()),
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

async function requireDeadLetter(deps: Deps, deliveryId: string): Promise<Delivery> {
  if (!/^dlv_[0-9a-f]{32}$/.test(deliveryId)) throw new AdminInputError('a delivery id looks like dlv_ followed by 32 hex digits');
  const d = await deps.store.deliveries.get(deliveryId);
  if (!d) throw new AdminNotFoundError(`delivery ${deliveryId} does not exist`);
  if (d.status !== 'DEAD_LETTER') throw new AdminConflictError(`delivery ${deliveryId} is ${d.status}, not DEAD_LETTER`);
  return d;
}

/** Deletes the DLQ messages of the given deliveries; others are made visible again at once. */
async function removeFromDlq(deps: Deps, deliveryIds: Set<string>): Promise<number> {
  const url = deps.config.webhookDlqUrl;
  let removed = 0;
  const seen = new Set<string>();
  // Others stay hidden until the sweep ends, so one pass sees each message once; then they are handed back.
  const others: string[] = [];
  for (let round = 0; round < 100; round++) {
    const { Messages = [] } = await deps.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 30, WaitTimeSeconds: 0 }),
    );
    const fresh = Messages.filter((m) => !seen.has(m.MessageId!));
    if (fresh.length === 0) break;
    for (const m of fresh) {
      seen.add(m.MessageId!);
      const message = parseDeliveryMessage(m.Body ?? '');
      if (message && deliveryIds.has(message.deliveryId)) {
        await deps.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
        removed++;
      } else {
        others.push(m.ReceiptHandle!);
      }
    }
  }
  for (const handle of others) {
    await deps.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: 0 }));
  }
  return removed;
}

/** Redrives one dead letter, or all of them; returns what was queued again. */
export async function redrive(deps: Deps, target: { deliveryId: string } | { all: true }) {
  const items = 'all' in target ? await deadLetters(deps) : [await requireDeadLetter(deps, target.deliveryId)];
  const now = deps.clock.now();
  for (const d of items) {
    // Queue first, clean up after: a crash in between leaves a duplicate, never a loss.
    await deps.store.deliveries.save(state.redrive(d, now));
    await enqueueDelivery(deps, d.deliveryId);
    await deps.store.deliveries.unmarkDeadLetter(d.deliveryId);
  }
  const removedMessages = items.length ? await removeFromDlq(deps, new Set(items.map((d) => d.deliveryId))) : 0;
  return { redriven: items.map((d) => d.deliveryId), removedMessages };
}
