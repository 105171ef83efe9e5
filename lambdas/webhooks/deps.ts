import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { REPOSITORIES, type StoreWith } from '#data/repositories';
import { buildDeps, type Deps, type DepsOptions, type Endpoint } from '#platform/deps';
import { type Mailer, NO_MAILER } from '#platform/mailer';
import { deliveriesRepo } from './deliveries.js';
import { outboxRepo } from './outbox.js';
import { destinationsRepo } from './destinations.js';
import { holdsRepo } from './holds.js';
import { sqsClient, type SQSClient, sqsWebhookQueue, type WebhookQueue } from './messages.js';

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

/** The DynamoDB and SQS clients at their endpoints (absent: AWS itself). SES is the mailing functions' own (ses-mailer.ts). */
export function awsClients(endpoints: { dynamodb?: Endpoint; sqs?: Endpoint } = {}) {
  return {
    dynamodb: new DynamoDBClient(endpoints.dynamodb ?? {}),
    sqs: sqsClient(endpoints.sqs ?? {}),
  };
}

/** `mailer`: absent for the functions that mail no one. */
export type MessagingDepsOptions<S extends WebhookStore = WebhookStore> = DepsOptions<S> & Partial<Pick<MessagingDeps<S>, 'mailer'>>;

/** `repositories`: the room's list (WEBHOOK_REPOSITORIES and its own records), the type of its store `S`. */
export function buildMessagingDeps<S extends WebhookStore = WebhookStore>(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
  options: MessagingDepsOptions<S> = {},
  repositories: typeof WEBHOOK_REPOSITORIES = WEBHOOK_REPOSITORIES,
): MessagingDeps<S> {
  const deps = buildDeps<S>(clients.dynamodb, repositories, options);
  return {
    ...deps,
    mailer: options.mailer ?? NO_MAILER,
    queue: sqsWebhookQueue(clients.sqs, deps.config),
  };
}

/** The deps a webhook function's cold start builds from its environment. */
export function defaultMessagingDeps(options: Pick<MessagingDepsOptions, 'mailer'> = {}): MessagingDeps {
  return buildMessagingDeps(awsClients(), options);
}
