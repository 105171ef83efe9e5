import { appsRepo, type AppsRepo } from './apps.js';
import { credentialsRepo, type CredentialsRepo } from './credentials.js';
import type { Db } from './db.js';
import { groupsRepo, type GroupsRepo } from './groups.js';
import { locationsRepo, type LocationsRepo } from './locations.js';
import { rateCountersRepo, type RateCountersRepo } from './rate-counters.js';
import { menusRepo, type MenusRepo } from './menus.js';
import { destinationsRepo, type DestinationsRepo } from './destinations.js';
import { deliveriesRepo, type DeliveriesRepo } from './deliveries.js';
import { mailOutboxRepo, type MailOutboxRepo } from './mail-outbox.js';
import { outboxRepo, type OutboxRepo } from './outbox.js';
import { holdsRepo, type HoldsRepo } from './holds.js';
import { auditRepo, type AuditRepo } from './audit.js';
import { sportsRepo, type SportsRepo } from './sports.js';
import { matriqRepo, type MatriqRepo } from './matriq.js';
import { campaignsRepo, type CampaignsRepo } from './campaigns.js';
import { shiftqRepo, type ShiftqRepo } from './shiftq.js';
import { reviewsRepo, type ReviewsRepo } from './reviews.js';
import { preloadedDb, type Read } from './preload.js';
import { tokenKeysRepo, type TokenKeysRepo } from './token-keys.js';
import { groupIndexRepo, type GroupIndexRepo } from './group-index-backfill.js';

/** The data port: every repository over one table; handlers take this, never a DynamoDB client. */
export type Store = {
  groups: GroupsRepo;
  locations: LocationsRepo;
  apps: AppsRepo;
  credentials: CredentialsRepo;
  rateCounters: RateCountersRepo;
  menus: MenusRepo;
  destinations: DestinationsRepo;
  deliveries: DeliveriesRepo;
  mailOutbox: MailOutboxRepo;
  outbox: OutboxRepo;
  holds: HoldsRepo;
  audit: AuditRepo;
  sports: SportsRepo;
  matriq: MatriqRepo;
  campaigns: CampaignsRepo;
  shiftq: ShiftqRepo;
  reviews: ReviewsRepo;
  tokenKeys: TokenKeysRepo;
  groupIndex: GroupIndexRepo;
  /**
   * The same store, with these items already read in one strongly consistent
   * round trip and these Queries started beside it: its repositories answer
   * reads of them from memory. The /v1 pipeline reads a request's credential,
   * application, location and path-keyed data this way.
   */
  preload(reads: readonly Read[]): Promise<Store>;
};

/** The Store's DynamoDB adapter: every repository over one table. */
export function createStore(db: Db): Store {
  return {
    groups: groupsRepo(db),
    locations: locationsRepo(db),
    apps: appsRepo(db),
    credentials: credentialsRepo(db),
    rateCounters: rateCountersRepo(db),
    menus: menusRepo(db),
    destinations: destinationsRepo(db),
    deliveries: deliveriesRepo(db),
    mailOutbox: mailOutboxRepo(db),
    outbox: outboxRepo(db),
    sports: sportsRepo(db),
    matriq: matriqRepo(db),
    campaigns: campaignsRepo(db),
    shiftq: shiftqRepo(db),
    reviews: reviewsRepo(db),
    tokenKeys: tokenKeysRepo(db),
    groupIndex: groupIndexRepo(db),
    holds: holdsRepo(db),
    audit: auditRepo(db),
    preload: async (reads) => createStore(await preloadedDb(db, reads)),
  };
}
