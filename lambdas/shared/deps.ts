import type { Logger } from '@aws-lambda-powertools/logger';
import { systemClock, type Clock } from './clock.js';
import { configFromEnv, type Config } from './config.js';
import { createDb } from './data/db.js';
import { createStore, type Store } from './data/store.js';
import { logger } from './logger.js';
import { sesMailer, type Mailer } from './mailer.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import { systemResolver } from './resolver.js';
import type { Resolver } from './url-safety.js';

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
};

/** The deps a Lambda cold start builds from its environment. */
export function defaultDeps(overrides: Partial<Deps> = {}): Deps {
  const config = overrides.config ?? configFromEnv();
  return {
    config,
    store: overrides.store ?? createStore(createDb(config.tableName)),
    clock: overrides.clock ?? systemClock,
    mailer: overrides.mailer ?? sesMailer(config.mailFrom),
    logger: overrides.logger ?? logger,
    resolver: overrides.resolver ?? systemResolver,
    sqs: overrides.sqs ?? new SQSClient({}),
  };
}
