import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Config, configFromEnv } from './config.js';
import { createDb, storeOf } from '#data/store';
import type { Factories, Store } from '#data/repositories';
import { createMetrics, logger, type Logger, type Metrics } from './observability.js';
import type { Resolver } from '#domain/url-safety';
import { lookup } from 'node:dns/promises';
import { fixedOriginSecret, type OriginSecrets, secretsManagerOriginSecret } from './origin-secret.js';

/** Time is injected so date and window rules can be tested at any instant. */
export type Clock = { now(): number };

/** Date.now itself, so reading the time runs no code of this module. */
export const systemClock: Clock = { now: Date.now };

/**
 * What every function needs from the outside world, injected so tests and
 * the local runtime can supply their own. `S`: the store a room composes over
 * the shared one (its own records added). The functions that also queue
 * webhooks or mail owners take the webhook room's MessagingDeps.
 */
export type Deps<S extends Store = Store> = {
  config: Config;
  store: S;
  clock: Clock;
  logger: Logger;
  /** DNS for webhook destinations, injected like the clock. */
  resolver: Resolver;
  /** CloudWatch metrics (EMF); absent where nothing flushes them (the admin CLI). */
  metrics?: Metrics;
  /** What the edge's header must carry for `/v1` and the token endpoint (config.originSecretArn or originSecret); absent: no check. */
  originSecrets?: OriginSecrets;
  /** The stop-command queue (config.stopCommandQueueUrl), for the functions that send to it; absent elsewhere. */
  stopCommands?: SendingQueue;
};

/** A queue a function only sends to: one message, its body as given (SendMessage). */
export type SendingQueue = { send(body: string): Promise<void> };

/** Where one AWS client points; absent means AWS itself (region and credentials from the environment). */
export type Endpoint = { endpoint?: string; region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };

export type DepsOptions<S extends Store = Store> = Partial<Omit<Deps<S>, 'metrics'>> & {
  /** null: count nothing (the admin CLI: no Lambda, nothing flushes metrics). */
  metrics?: Metrics | null;
};

/**
 * The one assembly of Deps, used by the Lambda entries, the local runtime
 * and the admin CLI (through buildMessagingDeps): they differ in where the
 * clients point, in the repositories they build and in what they override.
 * A /v1 function builds only the repositories it names, under the type of
 * the store it reads (every family runs under onlyRepositories in the suite).
 */
export function buildDeps<S extends Store>(dynamodb: DynamoDBClient, repositories: Factories, options: DepsOptions<S> = {}): Deps<S> {
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
    store: options.store ?? (storeOf(createDb(config.tableName, dynamodb), repositories) as S),
    clock: options.clock ?? systemClock,
    logger: log,
    resolver: options.resolver ?? systemResolver,
    ...(metrics ? { metrics } : {}),
    ...(originSecrets ? { originSecrets } : {}),
  };
}

/** The deps a /v1 or token function's cold start builds from its environment: DynamoDB only, with the repositories it names. */
export function defaultDeps<S extends Store = Store>(repositories: Factories): Deps<S> {
  return buildDeps<S>(new DynamoDBClient({}), repositories);
}

/** The system resolver, every address of the name (tests inject their own). */
const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
