import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '#platform/observability';
import { seededRandom } from '#ingest/seeded-random';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

/**
 * What Lambda's event source does to a batch that the local engines never
 * do on their own, as shares of invocations (0 to 1), drawn from a seeded
 * generator so a test sees the same sequence every run.
 */
export type PollerFaults = {
  /** Throttled: the batch was received (its receives are spent) but never runs; it returns after its visibility timeout. */
  throttled?: number;
  /** The environment fails to initialise: the same for the messages, logged as an init error. */
  initFailed?: number;
  /** The batch is handed to two invocations at once, as SQS's at-least-once delivery may. */
  duplicated?: number;
  seed?: number;
};

export type PollerOptions = {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsHandler;
  logger: Logger;
  batchSize: number;
  /** Pollers, each running one invocation at a time: the event source's maximum concurrency. */
  concurrency: number;
  /** Enforced: an invocation still running then is abandoned, and its whole batch returns to the queue. */
  functionTimeoutMs: number;
  /** Set on every receive, so the queue's nominal visibility follows the runtime's time scale. */
  visibilityTimeoutSeconds: number;
  faults?: PollerFaults;
};

/** Lambda's event source long-polls for 20 s. */
const WAIT_SECONDS = 20;

/**
 * Plays the Lambda SQS event source mapping with reportBatchItemFailures:
 * long-poll a batch, invoke the handler with an SQSEvent and a context whose
 * remaining time counts down, delete what succeeded, and leave the reported
 * failures (everything, if the handler throws or times out) to come back
 * when their visibility ends. An abandoned invocation keeps running in this
 * process (Lambda would freeze it); its late writes are what a real timeout
 * can also leave behind, and the deliverer's conditional writes tolerate them.
 */
export function startSqsPoller(options: PollerOptions): { stop(): Promise<void> } {
  const { sqs, queueUrl, logger, faults = {} } = options;
  const random = seededRandom(faults.seed ?? 1); // the same faults in the same order on every run
  const aborts = new Set<AbortController>();
  const running = new Set<Promise<unknown>>();
  let stopped = false;
  let invocations = 0;

  /** The ids the invocation reported failed (all of them if it threw), or null when it timed out. */
  const invoke = async (records: SQSRecord[]): Promise<Set<string> | null> => {
    const deadline = Date.now() + options.functionTimeoutMs;
    const context = { awsRequestId: `local-${++invocations}`, getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
    const run = options.handler({ Records: records }, context).then(
      (response) => new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier)),
      (err: unknown) => {
        logger.error('SQS handler failed; the whole batch returns', { error: (err as Error).message });
        return new Set(records.map((r) => r.messageId));
      },
    );
    running.add(run);
    void run.finally(() => running.delete(run));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), options.functionTimeoutMs);
    });
    const result = await Promise.race([run, timedOut]);
    clearTimeout(timer);
    if (!result) logger.error('invocation timed out; the whole batch returns', { functionTimeoutMs: options.functionTimeoutMs });
    return result;
  };

  const poll = async () => {
    while (!stopped) {
      const abort = new AbortController();
      aborts.add(abort);
      let messages: Message[];
      try {
        ({ Messages: messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: options.batchSize,
            WaitTimeSeconds: WAIT_SECONDS,
            VisibilityTimeout: options.visibilityTimeoutSeconds,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        ));
      } catch (err) {
        if (stopped) break;
        logger.error('SQS poll failed', { error: (err as Error).message });
        await new Promise((r) => setTimeout(r, 500));
        continue;
      } finally {
        aborts.delete(abort);
      }
      if (messages.length === 0) continue;
      const records = messages.map((m) => toRecord(m, options.queueArn));
      const draw = random();
      if (draw < (faults.throttled ?? 0) + (faults.initFailed ?? 0)) {
        logger.warn(draw < (faults.throttled ?? 0) ? 'invocation throttled' : 'invocation failed at init', { messages: records.length });
        continue;
      }
      const copies = random() < (faults.duplicated ?? 0) ? 2 : 1;
      const outcomes = await Promise.all(Array.from({ length: copies }, () => invoke(records)));
      // A message is done when any copy of the invocation finished in time without reporting it.
      const done = records.filter((r) => outcomes.some((failed) => failed !== null && !failed.has(r.messageId)));
      if (done.length) {
        await sqs
          .send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
            }),
          )
          .catch((err: unknown) => logger.error('SQS delete failed; the messages come back', { error: (err as Error).message }));
      }
    }
  };
  const loops = Array.from({ length: options.concurrency }, poll);

  return {
    async stop() {
      stopped = true;
      for (const abort of aborts) abort.abort();
      await Promise.all(loops);
      await Promise.allSettled([...running]);
    },
  };
}

function toRecord(m: Message, queueArn: string): SQSRecord {
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: m.Attributes?.SentTimestamp ?? '0',
      SenderId: m.Attributes?.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? '0',
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}
