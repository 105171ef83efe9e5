import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock, type Clock } from './clock.js';
import { configFromEnv, type Config } from './config.js';
import { createDb } from '#data/db';
import { storeOf, type RepositoryFactories, type Store } from '#data/store';
import { logger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './observability.js';
import { systemResolver } from './resolver.js';
import type { Resolver } from '#domain/url-safety';

/**
 * What every function needs from the outside world, injected so tests and
 * the local runtime can supply their own. The functions that also queue
 * webhooks or mail owners take MessagingDeps (messaging-deps.ts), so the
 * others never load the SQS or SES client.
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
};

/** Where one AWS client points; absent means AWS itself (region and credentials from the environment). */
export type Endpoint = { endpoint?: string; region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };

export type DepsOptions = Partial<Omit<Deps, 'metrics'>> & {
  /** null: count nothing (the admin CLI: no Lambda, nothing flushes metrics). */
  metrics?: Metrics | null;
};

/**
 * The one assembly of Deps, used by the Lambda entries, the local runtime
 * and the admin CLI (through buildMessagingDeps): they differ in where the
 * clients point, in the repositories they build and in what they override.
 */
export function buildDeps(dynamodb: DynamoDBClient, repositories: RepositoryFactories, options: DepsOptions = {}): Deps {
  const config = options.config ?? configFromEnv();
  const log = options.logger ?? logger;
  const metrics = options.metrics === null ? undefined : (options.metrics ?? createMetrics(config.stage));
  return {
    config,
    store: options.store ?? storeOf(createDb(config.tableName, dynamodb), repositories),
    clock: options.clock ?? systemClock,
    logger: log,
    resolver: options.resolver ?? systemResolver,
    ...(metrics ? { metrics } : {}),
  };
}

/** The deps a /v1 or token function's cold start builds from its environment: DynamoDB only, with the repositories it names. */
export function defaultDeps(repositories: RepositoryFactories): Deps {
  return buildDeps(new DynamoDBClient({}), repositories);
}
