/**
 * The capacity model: what a stage needs and where it breaks at a given load, from per-request figures the bench
 * measured in the same run and AWS's published quotas (lib/aws-quotas.ts). Pure calculations: the bench section
 * (bench/capacity-run.ts) measures and prints, test/unit/capacity-model.test.ts checks the formulas.
 * docs/capacity.md explains every input and formula.
 */
import { backoffBounds, DELIVERY_POLICY } from '#lambdas/webhooks/delivery-policy';
import { appKeys, credentialKeys } from '#data/apps';
import { destinationKeys } from '#lambdas/webhooks/destinations';
import { counterKeys, leaseSize } from '#data/rate-counters';
import { shiftqKeys } from '#lambdas/shiftq/records';
import { sportsKeys } from '#data/sports';
import { groupPartition } from '#data/store';
import { tokenKeyKeys } from '#data/token-keys';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { TABLE_KEYS } from '#data/table';
import { AWS_QUOTAS, type AccountQuotas } from '#lib/aws-quotas';
import { FUNCTIONS, type FunctionName, type FunctionSpec } from '#lib/functions';
import { routeKeyOf, type Throttle } from '#lib/route-throttles';

/**
 * Who shares a partition key's load: one application's requests (its credential, its destination), one group's,
 * one location's, everyone's, or one request's (a delivery's own record).
 */
export type Audience = 'application' | 'group' | 'location' | 'everyone' | 'own';

/** A key builder's fixed prefix, so the key design stays spelled in lambdas/data only. */
const prefix = (pk: string) => pk.slice(0, pk.indexOf('#') + 1);
const AUDIENCE_PREFIXES: [string, Audience][] = [
  [prefix(appKeys.app('x').PK), 'application'],
  [prefix(credentialKeys.credential('x').PK), 'application'],
  [prefix(destinationKeys.destination('x').PK), 'application'],
  [prefix(groupPartition('x')), 'group'],
  [prefix(shiftqKeys.partition('x', 'y')), 'location'],
];
const SHARED_KEYS = new Set([sportsKeys.schedule('x').PK, tokenKeyKeys.versions.PK, tokenKeyKeys.pageToken.PK]);
/** The rate counter's keys: modelled from the lease rule, not measured (one local instance holds all the leases). */
export const isCounterKey = (pk: string) => pk.startsWith(prefix(counterKeys.counter('API', 'x', 'y').PK));

/** Whose requests share a partition key, from its prefix. */
export function audienceOf(pk: string): Audience {
  if (SHARED_KEYS.has(pk)) return 'everyone';
  return AUDIENCE_PREFIXES.find(([p]) => pk.startsWith(p))?.[1] ?? 'own';
}

const PLACEHOLDERS: Record<Exclude<Audience, 'everyone'>, string> = {
  application: '<app>',
  group: '<group>',
  location: '<location>',
  own: '<id>',
};
/** A key as the model names it: its prefix and whose it is (`GROUP#<group>`), a shared key as it is. */
export function keyName(pk: string): string {
  const audience = audienceOf(pk);
  return audience === 'everyone' ? pk : `${prefix(pk)}${PLACEHOLDERS[audience]}`;
}

/** A partition key a request (or a delivery) reads or writes, and the units it took there, per request. */
export type KeyUse = { key: string; audience: Audience; readUnits: number; writeUnits: number };
/** An item a request reads or writes: `id` its real keys (distinct items never add up), `key` its name in the model. */
export type ItemUse = KeyUse & { id: string };

/** An item as the model names it: its partition key's name and its sort key's prefix (`GROUP#<group> LOCATION#…`). */
export function itemName(pk: string, sk: string): string {
  const cut = sk.indexOf('#');
  return `${keyName(pk)} ${cut >= 0 && cut < sk.length - 1 ? `${sk.slice(0, cut + 1)}…` : sk}`;
}

/** One route's measured figures per request, and its share of the mix. */
export type RouteFigures = {
  routeKey: string;
  share: number;
  /** Billed ms on AWS (bench/roundtrips.ts `billedMsAt`: local handling stretched by memory, plus DynamoDB waits). */
  billedMs: number;
  memoryMb: number;
  logBytes: number;
  responseBytes: number;
  /** Every key the request touched but the rate counter (leases are modelled below, not measured at one instance), in a typical group. */
  keys: KeyUse[];
  /** The same in the hot tenant's large group (group lists read a whole page of it). */
  hotKeys: KeyUse[];
  /** The items behind `keys` and `hotKeys`: one item's rate is the limit DynamoDB cannot spread. */
  items: ItemUse[];
  hotItems: ItemUse[];
};

/** One delivery's measured figures (the deliverer, its record, its destination; the publish apart). */
export type DeliveryFigures = {
  keys: KeyUse[];
  sqsRequests: number;
  /** Sequential DynamoDB round trips of one attempt (they lengthen a batch beside the receiver's answer). */
  trips: number;
  logBytes: number;
  sentBytes: number;
  memoryMb: number;
};

/** The load: reads and deliveries a second, the skew, and the receivers' behaviour. */
export type Scenario = {
  readsPerSecond: number;
  deliveriesPerSecond: number;
  /** One tenant's (group's) share of all reads, all its locations in one group. */
  hotTenantShare: number;
  hotGroupLocations: number;
  receiverMs: number;
  /** Share of attempts a receiver answers 5xx (retried after a backoff). */
  receiverErrorRate: number;
};

/** A stage as the model sees it (from STAGE_TABLE and the functions table). */
export type StageInputs = {
  name: string;
  /** The account's quotas the stage is held to (AWS's defaults unless declared: lib/aws-quotas.ts). */
  quotas: AccountQuotas;
  routeThrottles: Record<string, Throttle>;
  /** Requests a second any one route lets through at least: one application's ceiling is 60 × this a minute. */
  perRouteFloor: number;
  delivererConcurrency: number;
  /**
   * Concurrency the stage's functions reserve or provision (`reservedConcurrencyOf`: the deliverer's, the sweeper's,
   * the producer function's, the aliases' provisioned).
   */
  reservedConcurrency: number;
  warmThroughput?: { readUnitsPerSecond: number; writeUnitsPerSecond: number };
  /** WAF's per-address limit over 5 minutes, when the stage has the edge. */
  edgeLimitPer5Minutes?: number;
};

/** DynamoDB's in-Region round trip the estimate takes (bench/roundtrips.ts uses the same 5 ms). */
export const AWS_DYNAMODB_MS = 5;
/**
 * Between two batches of one event source instance: the delete of the last batch and the next receive. An
 * assumption (AWS publishes no figure), printed with the results.
 */
export const EVENT_SOURCE_GAP_MS = 20;
const SECONDS_A_MONTH = 30 * 24 * 3600;
/** The mail the rate limit may send an owner per application and window: the 80 % warning and the exceeded alert. */
const MAILS_PER_APP_WINDOW = 2;

type Check = {
  name: string;
  used: number;
  limit: number;
  /** What a client (or a receiver, or an owner) sees when `used` passes `limit`. */
  sees: string;
  /**
   * A limit of a sudden step only: the table's scaling from its warm throughput, and a partition key's split over
   * partitions (split for heat), each minutes at most (docs/capacity.md); a load held past it holds.
   */
  onset?: true;
};

export type Result = {
  scenario: Scenario;
  lambdaConcurrency: number;
  table: { readUnits: number; writeUnits: number };
  hottest: { read: { key: string; units: number }; write: { key: string; units: number } };
  hottestItem: { read: { key: string; units: number }; write: { key: string; units: number } };
  hotTenant: { readsPerSecond: number; applications: number; perApplication: number };
  deliveries: {
    attemptsPerSecond: number;
    capacityPerSecond: number;
    backlogGrowthPerSecond: number;
    lagSeconds: number;
    inFlight: number;
  };
  /** Owner mails a second if every application passed 80 % and its limit in the same minute (the worst case). */
  mailsPerSecond: number;
  monthlyCost: number;
  checks: Check[];
  /**
   * Each GSI's units a second, bounded from above (`indexLoads`), against a new index's warm throughput: where the
   * bound passes it, the index needs pre-warming for a launch at this load.
   */
  indexes: { name: string; readUnits: number; writeUnits: number; needsPrewarming: boolean }[];
};

const queries = (fn: FunctionName, index: string) => (FUNCTIONS[fn] as FunctionSpec).queriedIndexes.includes(index as never);

/**
 * An upper bound of each GSI's load: its reads come only from the functions that query it (`queriedIndexes`), the
 * /v1 routes' share of the reads and the delivery functions' (fan-out and deliverer) of the deliveries' (the sweeper's scheduled runs aside); its
 * writes are at most the table's, whose measured units include every index's (ReturnConsumedCapacity TOTAL), or, for
 * an index written only when a delivery is created (`writeUnitsPerDelivery`), that many units a delivery. A new
 * index's warm throughput is taken as a new table's: the AWS pages consulted give no separate figure.
 */
function indexLoads(
  routes: readonly RouteFigures[],
  routeReadUnits: (r: RouteFigures) => number,
  deliveryReadUnits: number,
  tableWrites: number,
  deliveriesPerSecond: number,
): Result['indexes'] {
  const familyOf = (r: RouteFigures) => ROUTES.find((route) => routeKeyOf(route) === r.routeKey)?.family;
  return TABLE_KEYS.globalIndexes.map((index) => {
    const { indexName } = index;
    // An index written only when a delivery is created (its keys never change) takes that, not the table's writes.
    const writeUnits = 'writeUnitsPerDelivery' in index ? index.writeUnitsPerDelivery * deliveriesPerSecond : tableWrites;
    const readUnits =
      routes.reduce((n, r) => {
        const family = familyOf(r);
        return n + (family && queries(family, indexName) ? routeReadUnits(r) : 0);
      }, 0) + (queries('webhook-dispatcher', indexName) || queries('webhook-deliverer', indexName) ? deliveryReadUnits : 0);
    return {
      name: indexName,
      readUnits,
      writeUnits,
      needsPrewarming: readUnits > AWS_QUOTAS.dynamoNewTableReadUnits.default || writeUnits > AWS_QUOTAS.dynamoNewTableWriteUnits.default,
    };
  });
}

/** The mix-weighted mean of a per-route figure. */
const mixMean = (routes: readonly RouteFigures[], pick: (r: RouteFigures) => number) => routes.reduce((n, r) => n + r.share * pick(r), 0);

/** Mean units a partition key takes per request of the mix, by key (in a typical group, or the hot tenant's). */
function perReadKeys(routes: readonly RouteFigures[], pick: (r: RouteFigures) => KeyUse[] = (r) => r.keys): KeyUse[] {
  const keys = new Map<string, KeyUse>();
  for (const route of routes) {
    for (const use of pick(route)) {
      const was = keys.get(use.key) ?? { ...use, readUnits: 0, writeUnits: 0 };
      keys.set(use.key, {
        ...was,
        readUnits: was.readUnits + route.share * use.readUnits,
        writeUnits: was.writeUnits + route.share * use.writeUnits,
      });
    }
  }
  return [...keys.values()];
}

/**
 * How many requests a second one key of an audience receives at `reads` a second: an application's key sees one
 * of the hot tenant's applications, a group's key the hot tenant's whole share, a location's key one of its
 * locations, a shared key everyone.
 */
function keyRate(audience: Audience, reads: number, s: Scenario, hotApplications: number): number {
  const tenant = reads * s.hotTenantShare;
  if (audience === 'application') return tenant / hotApplications;
  if (audience === 'group') return tenant;
  if (audience === 'location') return tenant / s.hotGroupLocations;
  // A request's own key is read by that request alone.
  if (audience === 'own') return 1;
  return reads;
}

/**
 * Rate-counter writes a second on one application's counter item: each instance serving it claims leases sized by
 * `leaseSize` (lambdas/data/rate-counters.ts) at its share of the application's rate.
 */
export function counterWritesPerSecond(applicationRps: number, instances: number, limitPerMinute: number): number {
  const perInstanceRps = applicationRps / instances;
  const lease = leaseSize({
    ratePerMs: perInstanceRps / 1000,
    share: 1 / instances,
    limit: limitPerMinute,
    seen: 0,
    warnAt: null,
    msLeft: 60_000,
  });
  return applicationRps / lease;
}

/** Messages held in flight: those in a batch being attempted, and those waiting out a backoff (their visibility). */
export function inFlightMessages(deliveriesPerSecond: number, errorRate: number, cycleSeconds: number): number {
  let held = deliveriesPerSecond * cycleSeconds;
  for (let failure = 1; failure < DELIVERY_POLICY.attempts; failure++) {
    const { min, max } = backoffBounds(failure);
    held += deliveriesPerSecond * errorRate ** failure * ((min + max) / 2 + cycleSeconds);
  }
  return held;
}

/** Attempts a second for `deliveriesPerSecond` new deliveries when a share `errorRate` of attempts is retried. */
export const attemptsPerSecond = (deliveriesPerSecond: number, errorRate: number) =>
  Array.from({ length: DELIVERY_POLICY.attempts }, (_, k) => deliveriesPerSecond * errorRate ** k).reduce((a, b) => a + b, 0);

/** What a read and a delivery cost besides the table (per million), and the table's price per unit. */
export type Prices = {
  perMillionReads: number;
  perMillionDeliveries: number;
  readUnit: number;
  writeUnit: number;
};

/** The model at one load on one stage. */
export function model(s: Scenario, stage: StageInputs, routes: readonly RouteFigures[], delivery: DeliveryFigures, prices: Prices): Result {
  const reads = s.readsPerSecond;
  const meanBilledSeconds = mixMean(routes, (r) => r.billedMs) / 1000;
  const readConcurrency = reads * meanBilledSeconds;

  // The hot tenant: as many applications as its rate needs at the most the stage gives one.
  const perApplicationMax = stage.perRouteFloor;
  const tenantRps = reads * s.hotTenantShare;
  const hotApplications = Math.max(1, Math.ceil(tenantRps / perApplicationMax));
  const applicationRps = tenantRps / hotApplications;
  const applicationInstances = Math.max(1, Math.ceil(applicationRps * meanBilledSeconds));
  const counterWrites = tenantRps > 0 ? counterWritesPerSecond(applicationRps, applicationInstances, 60 * perApplicationMax) : 0;

  // Deliveries: attempts (retries included), and what the deliverer's instances attempt a second.
  const cycleSeconds = (s.receiverMs + delivery.trips * AWS_DYNAMODB_MS + EVENT_SOURCE_GAP_MS) / 1000;
  const attempts = attemptsPerSecond(s.deliveriesPerSecond, s.receiverErrorRate);
  const capacityPerSecond = (stage.delivererConcurrency * DELIVERY_POLICY.batchSize) / cycleSeconds;
  const backlogGrowthPerSecond = Math.max(0, attempts - capacityPerSecond);
  const delivererConcurrency = Math.min(stage.delivererConcurrency, Math.ceil((attempts * cycleSeconds) / DELIVERY_POLICY.batchSize));
  const inFlight = inFlightMessages(s.deliveriesPerSecond, s.receiverErrorRate, cycleSeconds);

  // The table: every key's units at its audience's rate; the counters from the lease rule; the deliveries' keys.
  // The hot tenant's keys at its rates; a key everyone shares at everyone's.
  const typical = perReadKeys(routes);
  const readKeys = [
    ...perReadKeys(routes, (r) => r.hotKeys).filter((k) => k.audience !== 'everyone'),
    ...typical.filter((k) => k.audience === 'everyone'),
  ].map((k) => ({ ...k, rate: keyRate(k.audience, reads, s, hotApplications) }));
  const units = (keys: KeyUse[], pick: (k: KeyUse) => number) => keys.reduce((n, k) => n + pick(k), 0);
  const hotKeys = perReadKeys(routes, (r) => r.hotKeys);
  /** Units a read takes from the table: the hot tenant's share in its large group, the rest in typical ones. */
  const perRead = (pick: (k: KeyUse) => number) => (1 - s.hotTenantShare) * units(typical, pick) + s.hotTenantShare * units(hotKeys, pick);
  // Every application's counter: the lease rule for applications each at the most the stage gives one (fewest counters, busiest).
  const busiestInstances = Math.max(1, Math.ceil(perApplicationMax * meanBilledSeconds));
  const allCounterWrites =
    (reads / perApplicationMax) * counterWritesPerSecond(perApplicationMax, busiestInstances, 60 * perApplicationMax);
  const deliveryKeys = delivery.keys.map((k) => ({
    ...k,
    // A delivery's own record is its alone; a destination (and its application) gets the hot tenant's share, one destination for all its locations.
    rate: k.audience === 'own' ? 1 : k.audience === 'everyone' ? s.deliveriesPerSecond : s.deliveriesPerSecond * s.hotTenantShare,
  }));
  const tableReads = perRead((k) => k.readUnits) * reads + units(delivery.keys, (k) => k.readUnits) * s.deliveriesPerSecond;
  const tableWrites =
    perRead((k) => k.writeUnits) * reads + allCounterWrites + delivery.keys.reduce((n, k) => n + k.writeUnits, 0) * s.deliveriesPerSecond;
  const hot = [...readKeys, ...deliveryKeys].map((k) => ({ key: k.key, read: k.readUnits * k.rate, write: k.writeUnits * k.rate }));
  const counterKey = counterKeys.counter('API', PLACEHOLDERS.application, '').PK;
  hot.push({ key: counterKey, read: 0, write: counterWrites });
  const hottestRead = hot.reduce((a, b) => (b.read > a.read ? b : a), hot[0]!);
  const hottestWrite = hot.reduce((a, b) => (b.write > a.write ? b : a), hot[0]!);
  // One item's rate: the hot tenant's items at their audience's rate, shared items at everyone's, summed over the
  // routes that touch each; a delivery's keys and the counter as items (at most their key's whole).
  const items = new Map<string, { key: string; read: number; write: number }>();
  const addItem = (id: string, key: string, read: number, write: number) => {
    const was = items.get(id) ?? { key, read: 0, write: 0 };
    items.set(id, { key, read: was.read + read, write: was.write + write });
  };
  for (const route of routes) {
    const uses = [...route.hotItems.filter((i) => i.audience !== 'everyone'), ...route.items.filter((i) => i.audience === 'everyone')];
    for (const use of uses) {
      const rate = route.share * keyRate(use.audience, reads, s, hotApplications);
      addItem(use.id, use.key, use.readUnits * rate, use.writeUnits * rate);
    }
  }
  for (const k of [...deliveryKeys, { key: counterKey, readUnits: 0, writeUnits: counterWrites, rate: 1 }]) {
    addItem(k.key, k.key, k.readUnits * k.rate, k.writeUnits * k.rate);
  }
  const itemLoads = [...items.values()];
  const hottestItemRead = itemLoads.reduce((a, b) => (b.read > a.read ? b : a), itemLoads[0]!);
  const hottestItemWrite = itemLoads.reduce((a, b) => (b.write > a.write ? b : a), itemLoads[0]!);

  const applications = Math.ceil(reads / perApplicationMax);
  const mailsPerSecond = (MAILS_PER_APP_WINDOW * applications) / 60;

  const busiest = Object.entries(stage.routeThrottles)
    .map(([key, t]) => ({ key, used: reads * (routes.find((r) => r.routeKey === key)?.share ?? 0), limit: t.rateLimit }))
    .reduce((a, b) => (b.used / b.limit > a.used / a.limit ? b : a));
  const lambdaAvailable = stage.quotas.lambdaConcurrencyQuota - stage.reservedConcurrency;
  const warmReads = stage.warmThroughput?.readUnitsPerSecond ?? AWS_QUOTAS.dynamoNewTableReadUnits.default;
  const warmWrites = stage.warmThroughput?.writeUnitsPerSecond ?? AWS_QUOTAS.dynamoNewTableWriteUnits.default;
  const throttled = '503 `service_unavailable` with Retry-After: 1 (docs/decisions/throttled-reads.md)';
  const checks: Check[] = [
    {
      name: 'API Gateway account throttle',
      used: reads,
      limit: stage.quotas.apiThrottleQuota,
      sees: 'API Gateway\'s bare 429 {"message":"Too Many Requests"} (no Retry-After), any route',
    },
    {
      name: `route throttle of ${busiest.key}`,
      used: busiest.used,
      limit: busiest.limit,
      sees: "API Gateway's bare 429 on that route",
    },
    {
      name: 'Lambda concurrency left to /v1 functions',
      used: readConcurrency,
      limit: lambdaAvailable,
      sees: "API Gateway's own 5xx for the throttled invocation (the function never runs)",
    },
    {
      name: 'table read units (on-demand table quota)',
      used: tableReads,
      limit: stage.quotas.tableReadQuota,
      sees: throttled,
    },
    {
      name: 'table write units (on-demand table quota)',
      used: tableWrites,
      limit: stage.quotas.tableWriteQuota,
      sees: throttled,
    },
    {
      name: 'table read units at launch (warm throughput)',
      used: tableReads,
      limit: warmReads,
      sees: `${throttled}, until the table has scaled`,
      onset: true,
    },
    {
      name: 'table write units at launch (warm throughput)',
      used: tableWrites,
      limit: warmWrites,
      sees: `${throttled}, until the table has scaled`,
      onset: true,
    },
    {
      name: `hottest item reads (${hottestItemRead.key})`,
      used: hottestItemRead.read,
      limit: AWS_QUOTAS.dynamoPartitionReadUnits.default,
      sees: `${throttled} for the requests reading it (one item is never split)`,
    },
    {
      name: `hottest item writes (${hottestItemWrite.key})`,
      used: hottestItemWrite.write,
      limit: AWS_QUOTAS.dynamoPartitionWriteUnits.default,
      sees: `${throttled} for the requests writing it (one item is never split)`,
    },
    {
      name: `hottest key reads before a split (${hottestRead.key})`,
      used: hottestRead.read,
      limit: AWS_QUOTAS.dynamoPartitionReadUnits.default,
      sees: `${throttled} for the requests reading it, until DynamoDB splits the key's items over partitions (split for heat)`,
      onset: true,
    },
    {
      name: `hottest key writes before a split (${hottestWrite.key})`,
      used: hottestWrite.write,
      limit: AWS_QUOTAS.dynamoPartitionWriteUnits.default,
      sees: `${throttled} for the requests writing it, until DynamoDB splits the key's items over partitions (split for heat)`,
      onset: true,
    },
    {
      name: 'deliverer attempts a second',
      used: attempts,
      limit: capacityPerSecond,
      sees: 'the backlog grows: deliveries later and later (the oldest-message alarm), none lost while the queue keeps them 4 days',
    },
    {
      name: 'messages in flight (standard queue)',
      used: inFlight,
      limit: AWS_QUOTAS.sqsInFlight.default,
      sees: 'the event source receives nothing more (long polling returns no error): deliveries wait',
    },
  ];
  const monthlyCost =
    SECONDS_A_MONTH *
    ((reads * prices.perMillionReads + s.deliveriesPerSecond * prices.perMillionDeliveries) / 1e6 +
      tableReads * prices.readUnit +
      tableWrites * prices.writeUnit);
  return {
    scenario: s,
    lambdaConcurrency: readConcurrency + delivererConcurrency,
    table: { readUnits: tableReads, writeUnits: tableWrites },
    hottest: { read: { key: hottestRead.key, units: hottestRead.read }, write: { key: hottestWrite.key, units: hottestWrite.write } },
    hottestItem: {
      read: { key: hottestItemRead.key, units: hottestItemRead.read },
      write: { key: hottestItemWrite.key, units: hottestItemWrite.write },
    },
    hotTenant: { readsPerSecond: tenantRps, applications: hotApplications, perApplication: applicationRps },
    deliveries: {
      attemptsPerSecond: attempts,
      capacityPerSecond,
      backlogGrowthPerSecond,
      lagSeconds: backlogGrowthPerSecond > 0 ? Infinity : cycleSeconds,
      inFlight,
    },
    mailsPerSecond,
    monthlyCost,
    checks,
    indexes: indexLoads(
      routes,
      (r) =>
        reads *
        r.share *
        ((1 - s.hotTenantShare) * units(r.keys, (k) => k.readUnits) + s.hotTenantShare * units(r.hotKeys, (k) => k.readUnits)),
      units(delivery.keys, (k) => k.readUnits) * s.deliveriesPerSecond,
      tableWrites,
      s.deliveriesPerSecond,
    ),
  };
}

/**
 * The first limit a growing load meets: the load of `s` (reads and deliveries together) scaled until a check's
 * usage passes its limit, by bisection (the hot tenant's applications grow in steps, so usage is not quite linear).
 * A held load meets the sustained limits only; `onset` adds those of a sudden step (Check.onset).
 */
export function firstBreak(
  s: Scenario,
  stage: StageInputs,
  routes: readonly RouteFigures[],
  delivery: DeliveryFigures,
  prices: Prices,
  { onset = false } = {},
) {
  const at = (factor: number) =>
    model(
      { ...s, readsPerSecond: s.readsPerSecond * factor, deliveriesPerSecond: s.deliveriesPerSecond * factor },
      stage,
      routes,
      delivery,
      prices,
    );
  const broken = (factor: number) => at(factor).checks.find((c) => (onset || !c.onset) && c.used > c.limit);
  let lo = 0;
  let hi = 1;
  while (!broken(hi) && hi < 2 ** 20) [lo, hi] = [hi, hi * 2];
  for (let i = 0; i < 40 && broken(hi); i++) {
    const mid = (lo + hi) / 2;
    if (broken(mid)) hi = mid;
    else lo = mid;
  }
  return { check: broken(hi) ?? null, readsPerSecond: s.readsPerSecond * hi, deliveriesPerSecond: s.deliveriesPerSecond * hi };
}
