import middy from '@middy/core';
import { rotateTokenKeyWhenDue } from '#lambdas/token/key-rotation';
import { reconcileDlq } from '#lambdas/webhooks/dead-letters';
import type { MessagingDeps } from '#lambdas/webhooks/deps';
import { sweepOutbox } from '#lambdas/webhooks/fan-out';
import { sweepPaused } from '#lambdas/webhooks/pause';
import { requeueVanished } from '#lambdas/webhooks/requeue';
import { sweepStopCommands } from '#lambdas/matriq/stop-commands';
import { sendQueuedMail } from '#platform/mailer';
import { count, observability } from '#platform/observability';

/**
 * The service's scheduled upkeep, one job a room's function each, in the order a run takes them: menu events an
 * interrupted publish left in the outbox, paused destinations' probes and releases, whatever sits in the DLQ, the
 * deliveries whose message vanished (after the DLQ pass, so one whose message is there is listed, not queued
 * again), queued owner mail, and the access-token key's rotation when it is due. Emergency-stop commands come first:
 * a stop waiting on its gateway is the most urgent thing a run sends (and ends, past its expiry).
 */
const JOBS = {
  sendStopCommands: sweepStopCommands,
  settleOutbox: sweepOutbox,
  sweepPaused,
  reconcileDlq,
  requeueVanished,
  sendOwnerMail: sendQueuedMail,
  rotateTokenKey: (deps: MessagingDeps) => rotateTokenKeyWhenDue(deps, deps.clock.now()),
};

export type SweepResult = { [K in keyof typeof JOBS]: Awaited<ReturnType<(typeof JOBS)[K]>> };

/** The sweeper's factory over deps (Lambda and local runtime alike), behind the API's observability chain. */
export function createSweeper(deps: MessagingDeps) {
  return middy<unknown, SweepResult>()
    .use(observability(deps))
    .handler(async () => {
      const done: Record<string, unknown> = {};
      for (const [name, job] of Object.entries(JOBS)) done[name] = await job(deps);
      const result = done as SweepResult;
      count(deps, 'SweeperRedispatched', result.settleOutbox);
      count(deps, 'DeliveryRequeued', result.requeueVanished);
      return result;
    });
}
