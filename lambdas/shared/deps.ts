import type { Logger } from '@aws-lambda-powertools/logger';
import { systemClock, type Clock } from './clock.js';
import { configFromEnv, type Config } from './config.js';
import { createDb } from './data/db.js';
import { createStore, type Store } from './data/store.js';
import { logger } from './logger.js';
import { sesMailer, type Mailer } from './mailer.js';

/** Everything a handler needs from the outside world, injected so tests and the local runtime can supply their own. */
export type Deps = {
  config: Config;
  store: Store;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
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
  };
}
