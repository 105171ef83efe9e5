import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Config, configFromEnv } from './config.js';
import { createDb, storeOf } from '#data/store';
import { type RepositoryFactories, type Store, REPOSITORIES } from '#data/repositories';
import { createMetrics, logger, type Logger, type Metrics } from './observability.js';
import type { Resolver } from '#domain/url-safety';
import { lookup } from 'node:dns/promises';
import { sqsClient, type SQSClient, sqsWebhookQueue } from '#data/sqs-webhook-queue';
import type { WebhookQueue } from '#data/webhook-queue';
import { type Mailer, NO_MAILER } from './mailer.js';
import { fixedOriginSecret, type OriginSecrets, secretsManagerOriginSecret } from './origin-secret.js';

/** Time is injected so date and window rules can be tested at any instant. */
export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };

/**
 * What every function needs from the outside world, injected so tests and
 * the local runtime can supply their own. The functions that also queue
 * webhooks or mail owners take MessagingDeps (below); the others never call
 * its builders, so their bundles leave the SQS and SES clients out.
 */
export type Deps = {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** DNS for webhook destinations, injected like the clock. */
  resolver: Resolver;
  /** CloudWatch metrics (EMF); absent where nothing flushes them (the admin CLI). */
  metrics?: Metrics;
  /** What the edge's header must carry for `/v1` and the token endpoint (config.originSecretArn or originSecret); absent: no check. */
  originSecrets?: OriginSecrets;
};

/** Where one AWS client points; absent means AWS itself (region and credentials from the environment). */
export type Endpoint = { endpoint?: string; region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };

type DepsOptions = Partial<Omit<Deps, 'metrics'>> & {
  /** null: count nothing (the admin CLI: no Lambda, nothing flushes metrics). */
  metrics?: Metrics | null;
};

/**
 * The one assembly of Deps, used by the Lambda entries, the local runtime
 * and the admin CLI (through buildMessagingDeps): they differ in where the
 * clients point, in the repositories they build and in what they override.
 */
function buildDeps(dynamodb: DynamoDBClient, repositories: RepositoryFactories, options: DepsOptions = {}): Deps {
  const config = options.config ?? configFromEnv();
  const log = options.logger ?? logger;
  const metrics = options.metrics === null ? undefined : (options.metrics ?? createMetrics(config.stage));
  const originSecrets = config.originSecretArn
    ? secretsManagerOriginSecret({ secretId: config.originSecretArn, client: dynamodb })
    : config.originSecret
      ? fixedOriginSecret(config.originSecret)
      : undefined;
  return {
    config,
    store: options.store ?? storeOf(createDb(config.tableName, dynamodb), repositories),
    clock: options.clock ?? systemClock,
    logger: log,
    resolver: options.resolver ?? systemResolver,
    ...(metrics ? { metrics } : {}),
    ...(originSecrets ? { originSecrets } : {}),
  };
}

/** The deps a /v1 or token function's cold start builds from its environment: DynamoDB only, with the repositories it names. */
export function defaultDeps(repositories: RepositoryFactories): Deps {
  return buildDeps(new DynamoDBClient({}), repositories);
}

/** The system resolver, every address of the name (tests inject their own). */
const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

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
