import { matriqKeys, STOP_COMMAND_MAX_SENDS, type StopCommand } from '#data/matriq';
import type { Deps } from '#platform/deps';
import { count } from '#platform/observability';
import { STOP_COMMAND_RESEND_AFTER_MS, stopCommandMessage } from './stop-queue.js';

/**
 * How a stop reaches the gateway (docs/decisions/matriq.md): the command is written first, by its conditional
 * create, as its own outbox entry; then sent on the stop-command queue; the sweeper sends again what is still queued
 * (never a command that was not stored, never a stored one left unsent) until a report or its expiry.
 */

/**
 * An unsent command is the sweeper's only this long after its request: a POST publishing it right now (the matriq
 * function's timeout is 10 s) is never raced into a second message.
 */
export const STOP_COMMAND_SEND_GRACE_MS = 15_000;
/** Queued commands one sweep reads per partition at most (oldest first): stops are rare, and each lives 10 minutes. */
const SWEEP_PAGE = 25;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Sends a queued command on the stop-command queue and records the send (its first as its publication). False
 * when nothing went out (no queue here, or SQS refused): the command stays queued and unsent, and the sweeper sends
 * it. Never throws: the command is stored either way.
 */
export async function publishStopCommand(deps: Deps, command: StopCommand): Promise<boolean> {
  const { commandId } = command;
  if (!deps.stopCommands) return false;
  try {
    await deps.stopCommands.send(stopCommandMessage(command));
  } catch (err) {
    deps.logger.error('stop command not sent; the sweeper sends it', { commandId, error: (err as Error).name });
    return false;
  }
  if (command.sends === 0) count(deps, 'StopCommandsPublished');
  deps.logger.info('stop command sent', { commandId, send: command.sends + 1 });
  try {
    await deps.store.matriq.markSent(commandId, command.sends, iso(deps.clock.now()));
  } catch (err) {
    deps.logger.error('stop command sent but not recorded; it may be sent again', { commandId, error: (err as Error).name });
  }
  return true;
}

export type StopSweep = { sent: number; expired: number; oldestQueuedSeconds: number };

/**
 * The sweeper's pass over the queued commands, a page per partition, oldest first: a command past its expiry ends
 * failed (`failure: 'expired'`) and is never sent again; one unsent past the grace, or sent longer than
 * STOP_COMMAND_RESEND_AFTER_MS ago without a report, is sent (again), at most STOP_COMMAND_MAX_SENDS times in all.
 * Counts what expired and publishes the age of the oldest command still queued (0 when none).
 */
export async function sweepStopCommands(deps: Deps): Promise<StopSweep> {
  const now = deps.clock.now();
  const result: StopSweep = { sent: 0, expired: 0, oldestQueuedSeconds: 0 };
  let oldest = now;
  for (const shard of matriqKeys.queuedShards()) {
    for (const listed of await deps.store.matriq.queuedCommands(shard, SWEEP_PAGE)) {
      try {
        // The index may lag a report: the command decides, read strongly consistent.
        const command = await deps.store.matriq.getCommand(listed.commandId);
        if (command?.status !== 'queued') continue;
        if (Date.parse(command.expiresAt) <= now) {
          if (await deps.store.matriq.expireCommand(command.commandId, iso(now))) {
            result.expired++;
            deps.logger.warn('stop command expired unreported; it is failed', { commandId: command.commandId, sends: command.sends });
          }
          continue;
        }
        oldest = Math.min(oldest, Date.parse(command.requestedAt));
        if (dueToSend(command, now) && (await publishStopCommand(deps, command))) result.sent++;
      } catch (err) {
        deps.logger.error('stop command sweep failed; the next sweep goes on', { commandId: listed.commandId, error: (err as Error).name });
      }
    }
  }
  result.oldestQueuedSeconds = Math.floor((now - oldest) / 1000);
  count(deps, 'StopCommandsExpired', result.expired);
  count(deps, 'StopCommandOldestQueuedSeconds', result.oldestQueuedSeconds);
  return result;
}

/** Unsent past the grace, or sent long enough ago, and sends left. */
function dueToSend(command: StopCommand, now: number): boolean {
  if (command.sends >= STOP_COMMAND_MAX_SENDS) return false;
  if (command.lastSentAt === null) return Date.parse(command.requestedAt) + STOP_COMMAND_SEND_GRACE_MS <= now;
  return Date.parse(command.lastSentAt) + STOP_COMMAND_RESEND_AFTER_MS <= now;
}
