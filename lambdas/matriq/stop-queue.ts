import { STOP_COMMAND_LIFETIME_MS, type StopCommand } from '#data/matriq';

/**
 * The stop-command queue the device platform consumes (docs/decisions/matriq.md, "How a stop reaches the gateway"),
 * declared once: the stack and the local SQS engine both create it from this, with the same redrive policy, and
 * what a message says.
 */
export const STOP_COMMAND_QUEUES = {
  queueName: (prefix: string) => `${prefix}-stop-commands`,
  dlqName: (prefix: string) => `${prefix}-stop-commands-dlq`,
  /** The gateway's time to apply a stop, report it and delete its message before SQS hands the message out again. */
  visibilityTimeoutSeconds: 60,
  /** A command's lifetime: SQS itself drops a message its command no longer wants. */
  retentionSeconds: STOP_COMMAND_LIFETIME_MS / 1000,
  /** Receives a message may take without being deleted before it is set aside in the DLQ (a gateway that chokes on it). */
  maxReceiveCount: 5,
  /** A set-aside message is evidence for the device platform's team: kept 4 days (the webhook queues' retention). */
  dlqRetentionSeconds: 4 * 24 * 3600,
} as const;

/** A sent command older than this without a report is sent again by the sweeper (which runs every minute). */
export const STOP_COMMAND_RESEND_AFTER_MS = 2 * 60_000;

/**
 * What the device platform receives: the command, whole, and its expiry, past which the gateway discards it. No
 * secret and nothing of the customer but the reason they gave. Sent again (the same body) until a report comes, so
 * a gateway applies a commandId once.
 */
export type StopCommandMessage = Pick<
  StopCommand,
  'commandId' | 'groupId' | 'locationId' | 'deviceId' | 'requestedAt' | 'expiresAt' | 'reason'
>;

export function stopCommandMessage(command: StopCommandMessage): string {
  const { commandId, groupId, locationId, deviceId, requestedAt, expiresAt, reason } = command;
  return JSON.stringify({ commandId, groupId, locationId, deviceId, requestedAt, expiresAt, reason } satisfies StopCommandMessage);
}

const FIELDS = ['commandId', 'groupId', 'locationId', 'deviceId', 'requestedAt', 'expiresAt', 'reason'] as const;

/** A received body as a command, its shape checked; null for anything else. */
export function parseStopCommandMessage(body: string): StopCommandMessage | null {
  try {
    const message = JSON.parse(body) as Record<string, unknown>;
    if (!FIELDS.every((field) => typeof message[field] === 'string')) return null;
    if (!/^cmd_[0-9a-f]{32}$/.test(message.commandId as string) || Number.isNaN(Date.parse(message.expiresAt as string))) return null;
    return Object.fromEntries(FIELDS.map((field) => [field, message[field]])) as StopCommandMessage;
  } catch {
    return null;
  }
}
