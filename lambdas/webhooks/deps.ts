import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import { REPOSITORIES, type StoreWith } from '#data/repositories';
import { buildDeps, type Deps, type DepsOptions, type Endpoint } from '#platform/deps';
import { type Mailer, NO_MAILER } from '#platform/mailer';
import { deliveriesRepo, outboxRepo } from './deliveries.js';
import { destinationsRepo } from './destinations.js';
import { holdsRepo } from './holds.js';
import type { SendingQueue, WebhookQueue } from './queue.js';

/** The webhook room's records: destinations, deliveries, the outbox, holds. */
const OWN_REPOSITORIES = { destinations: destinationsRepo, deliveries: deliveriesRepo, outbox: outboxRepo, holds: holdsRepo };
/** The shared repositories and the room's own: what the webhook functions build. */
export const WEBHOOK_REPOSITORIES = { ...REPOSITORIES, ...OWN_REPOSITORIES };
export type WebhookStore = StoreWith<typeof OWN_REPOSITORIES>;

/**
 * Deps of the functions that queue webhooks or mail owners: dispatcher, deliverer, sweeper, and the rooms that
 * compose them (admin, the local runtime, the CLI), whose stores add their own records (`S`).
 */
export type MessagingDeps<S extends WebhookStore = WebhookStore> = Deps<S> & {
  mailer: Mailer;
  /** The webhook queue and its DLQ. */
  queue: WebhookQueue;
};

export type Endpoints = { dynamodb?: Endpoint; sqs?: Endpoint };
export type AwsClients = { dynamodb: DynamoDBClient; sqs: SQSClient };

/** The DynamoDB and SQS clients at their endpoints (absent: AWS itself). SES is the mailing functions' own (ses-mailer.ts). */
export function awsClients(endpoints: Endpoints = {}): AwsClients {
  return {
    dynamodb: new DynamoDBClient(endpoints.dynamodb ?? {}),
    sqs: sqsClient(endpoints.sqs ?? {}),
  };
}

/** `mailer`: absent for the functions that mail no one. */
export type MessagingDepsOptions<S extends WebhookStore = WebhookStore> = DepsOptions<S> &
  Partial<Pick<MessagingDeps<S>, 'mailer' | 'queue'>>;

/** `repositories`: the room's list (WEBHOOK_REPOSITORIES and its own records), the type of its store `S`. */
export function buildMessagingDeps<S extends WebhookStore = WebhookStore>(
  clients: AwsClients,
  options: MessagingDepsOptions<S> = {},
  repositories: typeof WEBHOOK_REPOSITORIES = WEBHOOK_REPOSITORIES,
): MessagingDeps<S> {
  const deps = buildDeps<S>(clients.dynamodb, repositories, options);
  return {
    ...deps,
    mailer: options.mailer ?? NO_MAILER,
    queue: options.queue ?? sqsWebhookQueue(clients.sqs, deps.config),
  };
}

/** The deps a webhook function's cold start builds from its environment. */
export function defaultMessagingDeps(options: Pick<MessagingDepsOptions, 'mailer'> = {}): MessagingDeps {
  return buildMessagingDeps(awsClients(), options);
}

// The queues over SQS.

/** The one place in lambdas/ that builds an SQS client; endpoints and credentials as for every AWS client. */
export function sqsClient(config: SQSClientConfig = {}): SQSClient {
  return new SQSClient(config);
}

/** SendMessageBatch's limit of entries per request. */
const SEND_BATCH = 10;
const SEND_RETRIES = 3;

/** The WebhookQueue over SQS. */
export function sqsWebhookQueue(
  sqs: SQSClient,
  { webhookQueueUrl, webhookDlqUrl, fanOutQueueUrl }: { webhookQueueUrl: string; webhookDlqUrl: string; fanOutQueueUrl: string },
): WebhookQueue {
  const setVisibility = async (QueueUrl: string, ReceiptHandle: string, VisibilityTimeout: number) => {
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle, VisibilityTimeout }));
  };
  const sending = (QueueUrl: string): SendingQueue => ({
    async send(body) {
      const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
      return MessageId!;
    },
    /**
     * SendMessageBatch, 10 entries a request (SQS's limit; bodies here are
     * far below its 256 KB a request), the requests in parallel. Entries SQS
     * reports failed are sent again, a bounded number of times.
     */
    async sendAll(bodies) {
      const ids = new Array<string>(bodies.length);
      const batches: number[][] = [];
      for (let i = 0; i < bodies.length; i += SEND_BATCH) batches.push(bodies.slice(i, i + SEND_BATCH).map((_, k) => i + k));
      await Promise.all(
        batches.map(async (batch) => {
          let pending = batch;
          for (let attempt = 0; pending.length > 0; attempt++) {
            if (attempt > SEND_RETRIES) throw new Error(`SendMessageBatch left ${pending.length} messages unsent after retries`);
            const { Successful = [] } = await sqs.send(
              new SendMessageBatchCommand({
                QueueUrl,
                Entries: pending.map((index) => ({ Id: String(index), MessageBody: bodies[index]! })),
              }),
            );
            for (const sent of Successful) ids[Number(sent.Id)] = sent.MessageId!;
            pending = pending.filter((index) => ids[index] === undefined);
          }
        }),
      );
      return ids;
    },
    delay: (receiptHandle, seconds) => setVisibility(QueueUrl, receiptHandle, seconds),
  });
  return {
    ...sending(webhookQueueUrl),
    fanOut: sending(fanOutQueueUrl),
    dlq: {
      async receive({ waitSeconds, hideSeconds }) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: webhookDlqUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: waitSeconds,
            VisibilityTimeout: hideSeconds,
          }),
        );
        return Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body ?? '', receiptHandle: m.ReceiptHandle! }));
      },
      async delete(receiptHandle) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl: webhookDlqUrl, ReceiptHandle: receiptHandle }));
      },
      release: (receiptHandle) => setVisibility(webhookDlqUrl, receiptHandle, 0),
      async depth() {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: webhookDlqUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return {
          visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
          inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
        };
      },
    },
  };
}
