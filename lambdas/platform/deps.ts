import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { systemClock, type Clock } from './clock.js';
import { configFromEnv, type Config } from './config.js';
import { createDb } from '#data/db';
import { createStore, type Store } from '#data/store';
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
  /** The webhook queue's client. */
  sqs: SQSClient;
  /** CloudWatch metrics (EMF); absent where nothing flushes them (the admin CLI). */
  metrics?: Metrics;
};

/** The deps a Lambda cold start builds from its environment; its AWS clients are traced. */
export function defaultDeps(overrides: Partial<Deps> = {}): Deps {
  const config = overrides.config ?? configFromEnv();
  const log = overrides.logger ?? logger;
  return {
    config,
    store: overrides.store ?? createStore(createDb(config.tableName, tracer.captureAWSv3Client(new DynamoDBClient({})))),
    clock: overrides.clock ?? systemClock,
    mailer: overrides.mailer ?? sesMailer(config.mailFrom, tracer.captureAWSv3Client(new SESv2Client({}))),
    logger: log,
    resolver: overrides.resolver ?? systemResolver,
    sqs: overrides.sqs ?? tracer.captureAWSv3Client(new SQSClient({})),
    metrics: overrides.metrics ?? createMetrics(config.stage, log),
  };
}
