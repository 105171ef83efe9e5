import { DERIVED } from './delivery-policy.js';

/** A message's life in a queue (retention) and a dead letter's in its DLQ. */
const RETENTION = {
  /**
   * Set, not left to SQS's default: a delivery's message lives through its whole retry span (hours at most) and a
   * paused destination's probes, so 4 days leave room for an outage of the consumer; a message older than this
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

/**
 * The webhook queues, declared once: the stack and the local SQS engine both create them from this, with the
 * same redrive policy. Two queues, each with its own DLQ and its own consumer (docs/decisions/webhooks.md):
 * deliveries, one message each, for the deliverer; and the fan-out's wake-ups (a publish's later pages, a resumed
 * destination's releases) for the dispatcher.
 */
export const WEBHOOK_QUEUES = {
  queueName: (prefix: string) => `${prefix}-webhooks`,
  dlqName: (prefix: string) => `${prefix}-webhooks-dlq`,
  /** From the delivery policy, as the deliverer's timeout is. */
  visibilityTimeoutSeconds: DERIVED.visibilityTimeoutSeconds,
  /** The policy's attempts plus the headroom for receives that carry no attempt. */
  maxReceiveCount: DERIVED.maxReceiveCount,
  ...RETENTION,
} as const;

/** The dispatcher's timeout: a publish's first page, or a batch of wake-ups, each page inside the fan-out's write pace. */
const DISPATCHER_TIMEOUT_SECONDS = 10;

export const FAN_OUT_QUEUES = {
  queueName: (prefix: string) => `${prefix}-webhooks-fanout`,
  dlqName: (prefix: string) => `${prefix}-webhooks-fanout-dlq`,
  functionTimeoutSeconds: DISPATCHER_TIMEOUT_SECONDS,
  /** AWS: at least six times the consuming function's timeout. */
  visibilityTimeoutSeconds: 6 * DISPATCHER_TIMEOUT_SECONDS,
  /**
   * A wake-up's receives that may fail (throttles, a timed-out batch) before it is dead-lettered: its outbox entry
   * or paused marker stays, and the sweeper goes on from there, so nothing waits on it.
   */
  maxReceiveCount: 5,
  /** Pages a batch (sharing one write pace: 5 × 100 destinations take under 3 s of it) and batches at once. */
  batchSize: 5,
  maxConcurrency: 5,
  ...RETENTION,
} as const;

/** Nominal seconds the sweeper gives one pass over the DLQ (its function timeout derives from it). */
export const DLQ_PASS_SECONDS = 30;
