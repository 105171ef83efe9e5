import type { AppListRepo } from './app-list.js';
import type { AppsRepo } from './apps.js';
import type { CredentialsRepo } from './credentials.js';
import type { Db } from './db.js';
import type { GroupsRepo } from './groups.js';
import type { LocationsRepo } from './locations.js';
import type { RateCountersRepo } from './rate-counters.js';
import type { MenusRepo } from './menus.js';
import type { DestinationsRepo } from './destinations.js';
import type { DeliveriesRepo } from './deliveries.js';
import type { MailOutboxRepo } from './mail-outbox.js';
import type { MailSuppressionsRepo } from './mail-suppressions.js';
import type { OutboxRepo } from './outbox.js';
import type { HoldsRepo } from './holds.js';
import type { AuditRepo } from './audit.js';
import type { SportsRepo } from './sports.js';
import type { MatriqRepo } from './matriq.js';
import type { CampaignsRepo } from './campaigns.js';
import type { ShiftqRepo } from './shiftq.js';
import type { ReviewsRepo } from './reviews.js';
import { preloadedDb, type Read } from './preload.js';
import type { TokenKeysRepo } from './token-keys.js';

/** Every repository over the one table. */
export type Repositories = {
  groups: GroupsRepo;
  locations: LocationsRepo;
  apps: AppsRepo;
  appList: AppListRepo;
  credentials: CredentialsRepo;
  rateCounters: RateCountersRepo;
  menus: MenusRepo;
  destinations: DestinationsRepo;
  deliveries: DeliveriesRepo;
  mailOutbox: MailOutboxRepo;
  mailSuppressions: MailSuppressionsRepo;
  outbox: OutboxRepo;
  holds: HoldsRepo;
  audit: AuditRepo;
  sports: SportsRepo;
  matriq: MatriqRepo;
  campaigns: CampaignsRepo;
  shiftq: ShiftqRepo;
  reviews: ReviewsRepo;
  tokenKeys: TokenKeysRepo;
};

/** The data port: the repositories over one table; handlers take this, never a DynamoDB client. */
export type Store = Repositories & {
  /**
   * The same store, with these items already read in one strongly consistent
   * round trip and these Queries started beside it: its repositories answer
   * reads of them from memory. The /v1 pipeline reads a request's credential,
   * application, location and path-keyed data this way.
   */
  preload(reads: readonly Read[]): Promise<Store>;
};

/** How to build repositories over a Db, by name: a function's bundle carries only the repositories it names. */
export type RepositoryFactories = { [K in keyof Repositories]?: (db: Db) => Repositories[K] };

/**
 * The Store's DynamoDB adapter, holding just these repositories (every one
 * of them: repositories.ts). Reaching for another one is a wiring mistake,
 * which the suite finds: every family runs under onlyRepositories below.
 */
export function storeOf(db: Db, factories: RepositoryFactories): Store {
  const repositories = Object.fromEntries(Object.entries(factories).map(([name, make]) => [name, make(db)]));
  return { ...repositories, preload: async (reads) => storeOf(await preloadedDb(db, reads), factories) } as Store;
}

/** The same store narrowed to the repositories a function builds in AWS, so the local runtime and the tests fail where AWS would. */
export function onlyRepositories(store: Store, factories: RepositoryFactories): Store {
  const kept = Object.fromEntries(Object.keys(factories).map((name) => [name, store[name as keyof Repositories]]));
  return { ...kept, preload: async (reads) => onlyRepositories(await store.preload(reads), factories) } as Store;
}
