import { appListRepo } from './app-list.js';
import { appsRepo, credentialsRepo } from './apps.js';
import { auditRepo } from './audit.js';
import { campaignsRepo } from './campaigns.js';
import { type Db, type FactoriesOf, storeOf, type StoreOf } from './store.js';
import { deliveriesRepo, outboxRepo } from './deliveries.js';
import { destinationsRepo } from './destinations.js';
import { groupsRepo } from './groups.js';
import { holdsRepo } from './holds.js';
import { locationsRepo } from './locations.js';
import { mailOutboxRepo } from './mail-outbox.js';
import { mailSuppressionsRepo } from './mail-suppressions.js';
import { matriqRepo } from './matriq.js';
import { menusRepo } from './menus.js';
import { rateCountersRepo } from './rate-counters.js';
import { reviewsRepo } from './reviews.js';
import { shiftqRepo } from './shiftq.js';
import { sportsRepo } from './sports.js';
import { tokenKeysRepo } from './token-keys.js';

/**
 * Every repository over the one table, the one list of them: the admin, webhook functions, the local runtime and the
 * CLI build all of them; a /v1 function names its own (v1Repositories).
 */
export const REPOSITORIES = {
  groups: groupsRepo,
  locations: locationsRepo,
  apps: appsRepo,
  appList: appListRepo,
  credentials: credentialsRepo,
  rateCounters: rateCountersRepo,
  menus: menusRepo,
  destinations: destinationsRepo,
  deliveries: deliveriesRepo,
  mailOutbox: mailOutboxRepo,
  mailSuppressions: mailSuppressionsRepo,
  outbox: outboxRepo,
  holds: holdsRepo,
  audit: auditRepo,
  sports: sportsRepo,
  matriq: matriqRepo,
  campaigns: campaignsRepo,
  shiftq: shiftqRepo,
  reviews: reviewsRepo,
  tokenKeys: tokenKeysRepo,
};

type Repositories = { [K in keyof typeof REPOSITORIES]: ReturnType<(typeof REPOSITORIES)[K]> };
/** The data port: the repositories over one table, and its read-ahead; handlers take this, never a DynamoDB client. */
export type Store = StoreOf<Repositories>;
/** How to build repositories over a Db, by name: a function's bundle carries only the repositories it names. */
export type RepositoryFactories = FactoriesOf<Repositories>;

/** The store of every repository over one table. */
export function createStore(db: Db): Store {
  return storeOf(db, REPOSITORIES);
}
