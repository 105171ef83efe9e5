import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { MessagingDeps } from '#platform/deps';
import { sendQueuedMail } from '#platform/mailer';
import { count, observability } from '#platform/observability';
import { rotateTokenKeyWhenDue } from '#platform/token-key-rotation';
import { sweepOutbox } from './fan-out.js';
import { sweepPaused } from './pause.js';
import { processRecord } from './receive.js';
import { reconcileDlq, type Reconciled } from './dead-letters.js';

/**
 * The deliverer and the sweeper, as factories over deps (Lambda and local
 * runtime alike), each behind the same observability chain as the API. The
 * dispatcher has a module of its own (menu-publish.ts): only it validates
 * menus, so only its bundle carries the menu schema.
 */

/**
 * SQS event source (reportBatchItemFailures): each record is at most one
 * attempt, all records in parallel; retries come back as batch item failures.
 */
export function createDeliverer(deps: MessagingDeps) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(observability(deps))
    .handler((event, context) =>
      // A processor per invocation: it holds the batch's failures, and the local event source runs invocations side by side.
      processPartialResponse(
        event,
        (record: SQSRecord) => processRecord(deps, record, () => context.getRemainingTimeInMillis()),
        new BatchProcessor(EventType.SQS),
        {
          context,
          throwOnFullBatchFailure: false,
        },
      ),
    );
}

export type SweepResult = {
  dispatched: number;
  mailed: number;
  paused: Awaited<ReturnType<typeof sweepPaused>>;
  tokenKeyRotated: number | null;
} & Reconciled;

/**
 * EventBridge schedule (its event carries nothing used): settles menu events
 * an interrupted publish left in the outbox, lists whatever sits in the DLQ,
 * and sends queued owner mail.
 */
export function createSweeper(deps: MessagingDeps) {
  return middy<unknown, SweepResult>()
    .use(observability(deps))
    .handler(async () => {
      const dispatched = await sweepOutbox(deps);
      count(deps, 'SweeperRedispatched', dispatched);
      const paused = await sweepPaused(deps);
      const reconciled = await reconcileDlq(deps);
      const mailed = await sendQueuedMail(deps);
      // The service's scheduled upkeep beside the webhooks': the access-token key's rotation when it is due.
      const tokenKeyRotated = await rotateTokenKeyWhenDue(deps, deps.clock.now());
      return { dispatched, mailed, paused, tokenKeyRotated, ...reconciled };
    });
}
