import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { systemClock, type Clock } from './clock.js';
import { configFromEnv, type Config } from './config.js';
import { createDb } from '#data/db';
import { sqsClient, sqsWebhookQueue, type SQSClient } from '#data/sqs-webhook-queue';
import { createStore, type Store } from '#data/store';
import type { WebhookQueue } from '#data/webhook-queue';
import { logger } from './logger.js';
import { sesMailer, type Mailer } from './mailer.js';
import { createMetrics, tracer } from './observability.js';
import { systemResolver } from './resolver.js';
import type { Resolver } from '#domain/url-safety';

/** Everything a handler needs from the outside world, injected so tests and the local runtime can supply their own. */
export type Deps = {
  config: Config;
  store: Store;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
  /** DNS for webhook destinations, injected like the clock. */
  resolver: Resolver;
  /** The webhook queue and its DLQ. */
  queue: WebhookQueue;
  /** CloudWatch metrics (EMF); absent where nothing flushes them (the admin CLI). */
  metrics?: Metrics;
};

/** Where one AWS client points; absent means AWS itself (region and credentials from the environment). */
export type Endpoint = { endpoint?: string; region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
export type Endpoints = { dynamodb?: Endpoint; sqs?: Endpoint; ses?: Endpoint };
export type AwsClients = { dynamodb: DynamoDBClient; sqs: SQSClient; ses: SESv2Client };

/** The three AWS clients at their endpoints; `trace` (Lambda) wraps them for X-Ray. */
export function awsClients(endpoints: Endpoints = {}, { trace = false } = {}): AwsClients {
  const wrap = <C>(client: C): C => (trace ? tracer.captureAWSv3Client(client) : client);
  return {
    dynamodb: wrap(new DynamoDBClient(endpoints.dynamodb ?? {})),
    sqs: wrap(sqsClient(endpoints.sqs ?? {})),
    ses: wrap(new SESv2Client(endpoints.ses ?? {})),
  };
}

export type DepsOptions = Partial<Omit<Deps, 'metrics'>> & {
  /** null: count nothing (the admin CLI: no Lambda, nothing flushes metrics). */
  metrics?: Metrics | null;
};

/**
 * The one assembly of Deps, used by the Lambda entries (`defaultDeps`), the
 * local runtime and the admin CLI: they differ only in where the clients
 * point and in what they override.
 */
export function buildDeps(clients: AwsClients, options: DepsOptions = {}): Deps {
  const config = options.config ?? configFromEnv();
  const log = options.logger ?? logger;
  const metrics = options.metrics === null ? undefined : (options.metrics ?? createMetrics(config.stage, log));
  return {
    config,
    store: options.store ?? createStore(createDb(config.tableName, clients.dynamodb)),
    clock: options.clock ?? systemClock,
    mailer: options.mailer ?? sesMailer(config.mailFrom, clients.ses),
    logger: log,
    resolver: options.resolver ?? systemResolver,
    queue: options.queue ?? sqsWebhookQueue(clients.sqs, config),
    ...(metrics ? { metrics } : {}),
  };
}

/** The deps a Lambda cold start builds from its environment; its AWS clients are traced. */
export function defaultDeps(overrides: DepsOptions = {}): Deps {
  return buildDeps(awsClients({}, { trace: true }), overrides);
}
