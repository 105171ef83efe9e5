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
  /**
   * Set, not left to SQS's default: a delivery's message lives through its whole retry span (hours at most) and a
   * paused destination's probes, so 4 days leave room for an outage of the deliverer; a message older than this
   * would be deleted silently, which the oldest-message alarm warns of long before.
   */
  retentionSeconds: 4 * 24 * 3600,
  /**
   * SQS's maximum. A standard queue's message keeps its original enqueue time in the DLQ, so the DLQ must keep
   * messages longer than the queue, or a dead letter could expire before anyone saw it
   * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/setting-up-dead-letter-queue-retention.html).
   */
  dlqRetentionSeconds: 14 * 24 * 3600,
} as const;

/** Nominal seconds the sweeper gives one pass over the DLQ (its function timeout derives from it). */
export const DLQ_PASS_SECONDS = 30;
