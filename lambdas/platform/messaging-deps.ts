import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { sqsClient, sqsWebhookQueue, type SQSClient } from '#data/sqs-webhook-queue';
import type { WebhookQueue } from '#data/webhook-queue';
import { buildDeps, type Deps, type DepsOptions, type Endpoint } from './deps.js';
import { sesMailer, type Mailer } from './mailer.js';

/** Deps of the functions that queue webhooks or mail owners: admin, dispatcher, deliverer, sweeper (and the local runtime, the CLI). */
export type MessagingDeps = Deps & {
  mailer: Mailer;
  /** The webhook queue and its DLQ. */
  queue: WebhookQueue;
};

export type Endpoints = { dynamodb?: Endpoint; sqs?: Endpoint; ses?: Endpoint };
export type AwsClients = { dynamodb: DynamoDBClient; sqs: SQSClient; ses: SESv2Client };

/** The three AWS clients at their endpoints (absent: AWS itself). */
export function awsClients(endpoints: Endpoints = {}): AwsClients {
  return {
    dynamodb: new DynamoDBClient(endpoints.dynamodb ?? {}),
    sqs: sqsClient(endpoints.sqs ?? {}),
    ses: new SESv2Client(endpoints.ses ?? {}),
  };
}

export type MessagingDepsOptions = DepsOptions & Partial<Pick<MessagingDeps, 'mailer' | 'queue'>>;

export function buildMessagingDeps(clients: AwsClients, options: MessagingDepsOptions = {}): MessagingDeps {
  const deps = buildDeps(clients.dynamodb, options);
  return {
    ...deps,
    mailer: options.mailer ?? sesMailer(deps.config.mailFrom, clients.ses),
    queue: options.queue ?? sqsWebhookQueue(clients.sqs, deps.config),
  };
}

/** The deps an admin or webhook function's cold start builds from its environment. */
export function defaultMessagingDeps(): MessagingDeps {
  return buildMessagingDeps(awsClients());
}
