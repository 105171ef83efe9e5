import { appsRepo } from './apps.js';
import { credentialsRepo } from './credentials.js';
import type { Db } from './db.js';
import { groupsRepo } from './groups.js';
import { locationsRepo } from './locations.js';
import { rateCountersRepo } from './rate-counters.js';
import { menusRepo } from './menus.js';
import { destinationsRepo } from './destinations.js';
import { deliveriesRepo } from './deliveries.js';
import { mailOutboxRepo } from './mail-outbox.js';
import { sportsRepo } from './sports.js';
import { matriqRepo } from './matriq.js';
import { campaignsRepo } from './campaigns.js';
import { shiftqRepo } from './shiftq.js';
import { reviewsRepo } from './reviews.js';

/** Every repository over one table; handlers take this, never a DynamoDB client. */
export function createStore(db: Db) {
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
    sports: sportsRepo(db),
    matriq: matriqRepo(db),
    campaigns: campaignsRepo(db),
    shiftq: shiftqRepo(db),
    reviews: reviewsRepo(db),
  };
}

export type Store = ReturnType<typeof createStore>;
