/**
 * The webhook queues and the delivery queue's DLQ (the port; the SQS adapter is in messages.ts). Bodies are opaque
 * here: the webhook functions own what a message says.
 */

/** A message received from the DLQ, hidden from other receives until deleted or released. */
type ReceivedMessage = { messageId: string; body: string; receiptHandle: string };

/** Approximate counts: messages waiting, and messages received but neither deleted nor visible again. */
type QueueDepth = { visible: number; inFlight: number };

/** One queue its consumer receives from through its event source. */
export type SendingQueue = {
  /** Sends one message; returns its message id. */
  send(body: string): Promise<string>;
  /** Sends every message, as few requests as the queue allows; returns their ids in order. Throws unless all were sent. */
  sendAll(bodies: readonly string[]): Promise<string[]>;
  /** Hands a received message back after `seconds`: a retry's wait is its message's visibility; 0 hands a refused one to the redrive. */
  delay(receiptHandle: string, seconds: number): Promise<void>;
};

/** The delivery queue (itself), the fan-out queue, and the delivery queue's DLQ. */
export type WebhookQueue = SendingQueue & {
  fanOut: SendingQueue;
  dlq: {
    /** One receive of up to 10 messages, waiting up to `waitSeconds` for one; each stays hidden for `hideSeconds`. */
    receive(options: { waitSeconds: number; hideSeconds: number }): Promise<ReceivedMessage[]>;
    delete(receiptHandle: string): Promise<void>;
    /** Visible again at once. */
    release(receiptHandle: string): Promise<void>;
    depth(): Promise<QueueDepth>;
  };
};
