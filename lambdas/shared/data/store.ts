import { appsRepo } from './apps.js';
import { credentialsRepo } from './credentials.js';
import type { Db } from './db.js';
import { groupsRepo } from './groups.js';
import { locationsRepo } from './locations.js';
import { rateCountersRepo } from './rate-counters.js';
import { menusRepo } from './menus.js';
import { destinationsRepo } from './destinations.js';
import { deliveriesRepo } from './deliveries.js';

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
  };
}

export type Store = ReturnType<typeof createStore>;
