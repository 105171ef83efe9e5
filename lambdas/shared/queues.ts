/**
 * The webhook queues, declared once: the stack and the local SQS engine both
 * create them from this, with the same redrive policy.
 */
export const WEBHOOK_QUEUES = {
  queueName: (prefix: string) => `${prefix}-webhooks`,
  dlqName: (prefix: string) => `${prefix}-webhooks-dlq`,
  /** Longer than one delivery attempt (10 s) with room for the batch. */
  visibilityTimeoutSeconds: 60,
  /** The fifth retryable failure is the last: redrive moves the message to the DLQ. */
  maxReceiveCount: 5,
  dlqRetentionSeconds: 14 * 24 * 3600,
} as const;
