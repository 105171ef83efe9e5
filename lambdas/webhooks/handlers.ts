import middy from '@middy/core';
import type { MessagingDeps } from './deps.js';
import { sendQueuedMail } from '#platform/mailer';
import { count, observability } from '#platform/observability';
import { rotateTokenKeyWhenDue } from './token-key-rotation.js';
import { sweepOutbox } from './fan-out.js';
import { sweepPaused } from './pause.js';
import { reconcileDlq, type Reconciled } from './dead-letters.js';
import { requeueVanished } from './requeue.js';

export { createDeliverer } from './deliver.js';

/**
 * The functions' factories over deps (Lambda and local runtime alike), each behind the same observability chain
 * as the API: the sweeper's here, the deliverer's beside its journey (deliver.ts), kept apart from the admin operations so the
 * admin bundle never carries the SQS batch processor. The dispatcher's is in publish.ts: only it validates menus,
 * so only its bundle carries the menu schema.
 */

export type SweepResult = {
  dispatched: number;
  requeued: number;
  mailed: number;
  paused: Awaited<ReturnType<typeof sweepPaused>>;
  tokenKeyRotated: number | null;
} & Reconciled;

/**
 * EventBridge schedule (its event carries nothing used): settles menu events
 * an interrupted publish left in the outbox, lists whatever sits in the DLQ,
 * queues again the deliveries whose message vanished (after the DLQ pass, so
 * one whose message is there is listed, not queued again), and sends queued
 * owner mail.
 */
export function createSweeper(deps: MessagingDeps) {
  return middy<unknown, SweepResult>()
    .use(observability(deps))
    .handler(async () => {
      const dispatched = await sweepOutbox(deps);
      count(deps, 'SweeperRedispatched', dispatched);
      const paused = await sweepPaused(deps);
      const reconciled = await reconcileDlq(deps);
      const requeued = await requeueVanished(deps);
      count(deps, 'DeliveryRequeued', requeued);
      const mailed = await sendQueuedMail(deps);
      // The service's scheduled upkeep beside the webhooks': the access-token key's rotation when it is due.
      const tokenKeyRotated = await rotateTokenKeyWhenDue(deps, deps.clock.now());
      return { dispatched, requeued, mailed, paused, tokenKeyRotated, ...reconciled };
    });
}
