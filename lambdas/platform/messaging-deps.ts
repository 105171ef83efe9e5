import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { REPOSITORIES } from '#data/repositories';
import { sqsClient, sqsWebhookQueue, type SQSClient } from '#data/sqs-webhook-queue';
import type { WebhookQueue } from '#data/webhook-queue';
import { buildDeps, type Deps, type DepsOptions, type Endpoint } from './deps.js';
import { NO_MAILER, type Mailer } from './mailer.js';

/** Deps of the functions that queue webhooks or mail owners: admin, dispatcher, deliverer, sweeper (and the local runtime, the CLI). */
export type MessagingDeps = Deps & {
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
export type MessagingDepsOptions = DepsOptions & Partial<Pick<MessagingDeps, 'mailer' | 'queue'>>;

export function buildMessagingDeps(clients: AwsClients, options: MessagingDepsOptions = {}): MessagingDeps {
  const deps = buildDeps(clients.dynamodb, REPOSITORIES, options);
  return {
    ...deps,
    mailer: options.mailer ?? NO_MAILER,
    queue: options.queue ?? sqsWebhookQueue(clients.sqs, deps.config),
  };
}

/** The deps an admin or webhook function's cold start builds from its environment. */
export function defaultMessagingDeps(options: Pick<MessagingDepsOptions, 'mailer'> = {}): MessagingDeps {
  return buildMessagingDeps(awsClients(), options);
}
