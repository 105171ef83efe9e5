import { appListRepo } from './app-list.js';
import { appsRepo, credentialsRepo } from './apps.js';
import type { Db, FactoriesOf, RepositoriesOf, StoreOf } from './store.js';
import { groupsRepo } from './groups.js';
import { locationsRepo } from './locations.js';
import { mailOutboxRepo } from './mail-outbox.js';
import { mailSuppressionsRepo } from './mail-suppressions.js';
import { matriqRepo } from './matriq.js';
import { menusRepo } from './menus.js';
import { rateCountersRepo } from './rate-counters.js';
import { sportsRepo } from './sports.js';
import { tokenKeysRepo } from './token-keys.js';

/**
 * The repositories of records two or more rooms use. A feature's own records live in its room, and the rooms that
 * compose features (webhooks/deps.ts, admin/, producers/, the local runtime) add them to this list; a /v1 function
 * names the few it builds (v1Repositories).
 */
export const REPOSITORIES = {
  groups: groupsRepo,
  locations: locationsRepo,
  apps: appsRepo,
  appList: appListRepo,
  credentials: credentialsRepo,
  rateCounters: rateCountersRepo,
  menus: menusRepo,
  mailOutbox: mailOutboxRepo,
  mailSuppressions: mailSuppressionsRepo,
  sports: sportsRepo,
  matriq: matriqRepo,
  tokenKeys: tokenKeysRepo,
};

/** The data port over the shared records: handlers take a store, never a DynamoDB client. */
export type Store = StoreOf<RepositoriesOf<typeof REPOSITORIES>>;
/** How to build shared repositories over a Db, by name: a function's bundle carries only the repositories it names. */
export type RepositoryFactories = FactoriesOf<RepositoriesOf<typeof REPOSITORIES>>;

/** A room's store: the shared repositories and the room's own (`F`, its list of factories). */
export type StoreWith<F> = StoreOf<RepositoriesOf<typeof REPOSITORIES> & RepositoriesOf<F>>;
/** Factories of repositories by name, as a room lists them. */
export type Factories = Record<string, (db: Db) => unknown>;
