import { DERIVED } from './delivery-policy.js';

/**
 * The webhook queues, declared once: the stack and the local SQS engine both
 * create them from this, with the same redrive policy. Visibility and
 * maxReceiveCount come from the delivery policy.
 */
export const WEBHOOK_QUEUES = {
  queueName: (prefix: string) => `${prefix}-webhooks`,
  dlqName: (prefix: string) => `${prefix}-webhooks-dlq`,
  visibilityTimeoutSeconds: DERIVED.visibilityTimeoutSeconds,
  /** The policy's attempts plus the headroom for receives that carry no attempt. */
  maxReceiveCount: DERIVED.maxReceiveCount,
  dlqRetentionSeconds: 14 * 24 * 3600,
} as const;

/** Nominal seconds the sweeper gives one pass over the DLQ (its function timeout derives from it). */
export const DLQ_PASS_SECONDS = 30;
