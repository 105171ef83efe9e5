/**
 * The capacity model's write side: what the producers' feeds (lib/producer-load.ts) take of a stage at a platform's
 * load, from each feed's per-update figures the bench measured through the real producer function
 * (bench/ingest-run.ts) and AWS's published limits (lib/aws-quotas.ts). Pure calculations: bench/capacity-run.ts
 * prints them, test/unit/capacity-writes.test.ts checks the formulas. docs/capacity.md explains them.
 */
import { feedRate, producerOf, type Feed } from '#lib/producer-load';
import { AWS_QUOTAS, type AccountQuotas } from '#lib/aws-quotas';
import type { Producer } from '#lambdas/producers/routes';
import { attemptsPerSecond, type Audience, type ItemUse, type KeyUse, type RouteFigures } from './capacity-model.js';

/** One update's measured figures: units by partition key and by item, billed ms on AWS, log bytes, menu events. */
export type UpdateFigures = {
  keys: KeyUse[];
  items: ItemUse[];
  billedMs: number;
  logBytes: number;
  /** `bevq.menu.updated` events the update published (a new menu revision): each is delivered to the group's destinations. */
  events: number;
};

/** A feed and its updates' figures: applied (in order), and refused (a replay: its conditional writes still take their units). */
export type FeedFigures = { feed: Feed; applied: UpdateFigures; refused: UpdateFigures };

/** The load: how many locations, the largest group, and the stated shares. */
export type WriteScenario = {
  locations: number;
  /** The largest group's locations: its key (`GROUP#<group>`) takes every group-keyed write of them. */
  groupLocations: number;
  /** Share of updates that are a replay or older than what is stored (a producer's retries). */
  refusedShare: number;
  /** Share of the measured updates' menu events that happen (1: every patch changes its menu's revision, the worst). */
  revisionShare: number;
  /** Deliveries an event makes: one per destination of the group. */
  destinationsPerEvent: number;
};

/** What the rest of the stage takes beside the producers: its customers at the stage's capacity (the read side's model). */
type Others = {
  requestsPerSecond: number;
  tableReadUnits: number;
  tableWriteUnits: number;
  /** Read units a second the customers take from the hot group's key. */
  groupKeyReadUnits: number;
  deliveriesPerSecond: number;
};

/** A stage as the write side sees it. */
export type WriteStage = {
  name: string;
  quotas: AccountQuotas;
  /** The producer route's throttle (PRODUCER_RATE_LIMIT) and the producer function's reserved concurrency. */
  producerRateLimit: number;
  producerConcurrency: number;
  warmWriteUnits: number;
  warmReadUnits: number;
  /** Attempts a second the stage's deliverer carries (the read side's model). */
  delivererCapacityPerSecond: number;
  receiverErrorRate: number;
  others: Others;
};

/** Per unit, US dollars: the table's units, an HTTP API request, Lambda's GB-second and request, a GB of logs, one delivery all in. */
export type WritePrices = {
  writeUnit: number;
  readUnit: number;
  httpApiRequest: number;
  lambdaGbSecond: number;
  lambdaRequest: number;
  logsGb: number;
  delivery: number;
  memoryMb: number;
};

export type WriteCheck = { name: string; used: number; limit: number; sees: string; onset?: true };

type Load = { requestsPerSecond: number; writeUnits: number; readUnits: number };
/**
 * One partition key's load: the updates a second that reach it and their units (an update's own key: one update's),
 * the feeds that write there and their producers, the feeds that only read there.
 */
type KeyLoad = Load & { key: string; audience: Audience; producers: Producer[]; writers: string[]; readers: string[] };

export type WriteResult = {
  scenario: WriteScenario;
  requestsPerSecond: number;
  byFeed: (Load & { feed: Feed; producer: Producer; billedMs: number })[];
  byProducer: (Load & { producer: Producer })[];
  /** One partition key's load: one location's, the largest group's, a shared key's, one update's own. */
  byKey: KeyLoad[];
  hottestItemWrite: { key: string; units: number };
  table: { writeUnits: number; readUnits: number };
  /** Write and read units a second one location adds to its group's key. */
  groupKeyPerLocation: { writeUnits: number; readUnits: number };
  concurrency: number;
  eventsPerSecond: number;
  deliveriesPerSecond: number;
  monthlyCost: number;
  costPerLocationMonth: { total: number; parts: Record<'gateway' | 'lambda' | 'dynamodb' | 'logs' | 'deliveries', number> };
  checks: WriteCheck[];
};

const SECONDS_A_MONTH = 30 * 24 * 3600;
const GB = 1024 ** 3;
const THROTTLED = '503 `service_unavailable` with Retry-After: 1 to a customer, a retried write to a producer';

/** An update's figures as the load has them: refused ones at their share. */
function mean(f: FeedFigures, s: WriteScenario): UpdateFigures & { keys: KeyUse[]; items: ItemUse[] } {
  const mix = <T extends { readUnits: number; writeUnits: number }>(a: T[], b: T[], id: (x: T) => string): T[] => {
    const out = new Map<string, T>();
    for (const [list, share] of [
      [a, 1 - s.refusedShare],
      [b, s.refusedShare],
    ] as const) {
      for (const x of list) {
        const was = out.get(id(x)) ?? { ...x, readUnits: 0, writeUnits: 0 };
        out.set(id(x), { ...was, readUnits: was.readUnits + share * x.readUnits, writeUnits: was.writeUnits + share * x.writeUnits });
      }
    }
    return [...out.values()];
  };
  const at = (pick: (u: UpdateFigures) => number) => (1 - s.refusedShare) * pick(f.applied) + s.refusedShare * pick(f.refused);
  return {
    keys: mix(f.applied.keys, f.refused.keys, (k) => k.key),
    items: mix(f.applied.items, f.refused.items, (i) => i.id),
    billedMs: at((u) => u.billedMs),
    logBytes: at((u) => u.logBytes),
    events: s.revisionShare * at((u) => u.events),
  };
}

/**
 * How many of a feed's updates a second reach one key of an audience: a location's key sees one location's, the
 * largest group's key its locations', a shared key all of them. (An update's own key, an outbox entry or a command,
 * takes that update alone: its load is one update's units, not a rate.)
 */
function keyRate(audience: Audience, feed: Feed, s: WriteScenario): number {
  if (feed.scope === 'platform' || audience === 'everyone') return feedRate(feed, s.locations);
  if (audience === 'group') return feedRate(feed, s.groupLocations);
  return feedRate(feed, 1);
}

/** The write side at one load on one stage. */
export function writeModel(feeds: readonly FeedFigures[], s: WriteScenario, stage: WriteStage, prices: WritePrices): WriteResult {
  const byFeed = feeds.map((f) => {
    const m = mean(f, s);
    const rate = feedRate(f.feed, s.locations);
    const sum = (pick: (k: KeyUse) => number) => m.keys.reduce((n, k) => n + pick(k), 0);
    return {
      feed: f.feed,
      producer: producerOf(f.feed),
      requestsPerSecond: rate,
      writeUnits: rate * sum((k) => k.writeUnits),
      readUnits: rate * sum((k) => k.readUnits),
      billedMs: m.billedMs,
      mean: m,
    };
  });
  const requestsPerSecond = byFeed.reduce((n, f) => n + f.requestsPerSecond, 0);
  const byProducer = [...new Set(byFeed.map((f) => f.producer))].map((producer) => {
    const of = byFeed.filter((f) => f.producer === producer);
    const add = (pick: (f: (typeof of)[number]) => number) => of.reduce((n, f) => n + pick(f), 0);
    return {
      producer,
      requestsPerSecond: add((f) => f.requestsPerSecond),
      writeUnits: add((f) => f.writeUnits),
      readUnits: add((f) => f.readUnits),
    };
  });

  // One key of each name: its units at its audience's rate, summed over the feeds that touch it.
  const keys = new Map<string, KeyLoad>();
  const items = new Map<string, { key: string; units: number }>();
  for (const f of byFeed) {
    for (const k of f.mean.keys) {
      const was = keys.get(k.key) ?? {
        key: k.key,
        audience: k.audience,
        producers: [],
        writers: [],
        readers: [],
        requestsPerSecond: 0,
        writeUnits: 0,
        readUnits: 0,
      };
      const writes = k.writeUnits > 0;
      const rate = keyRate(k.audience, f.feed, s);
      const own = k.audience === 'own';
      keys.set(k.key, {
        ...was,
        producers: writes && !was.producers.includes(f.producer) ? [...was.producers, f.producer] : was.producers,
        writers: writes ? [...was.writers, f.feed.name] : was.writers,
        readers: writes ? was.readers : [...was.readers, f.feed.name],
        requestsPerSecond: own ? 1 : was.requestsPerSecond + rate,
        writeUnits: own ? Math.max(was.writeUnits, k.writeUnits) : was.writeUnits + rate * k.writeUnits,
        readUnits: own ? Math.max(was.readUnits, k.readUnits) : was.readUnits + rate * k.readUnits,
      });
    }
    // One item (its real keys): a location's items at its updates' rate (each location writes its own), a shared
    // item at everyone's; summed over the feeds that write the same item (a menu: its patches, reports, rebuilds).
    for (const i of f.mean.items) {
      const rate = f.feed.scope === 'platform' || i.audience === 'everyone' ? feedRate(f.feed, s.locations) : feedRate(f.feed, 1);
      const was = items.get(i.id) ?? { key: i.key, units: 0 };
      items.set(i.id, { key: i.key, units: was.units + rate * i.writeUnits });
    }
  }
  const byKey = [...keys.values()].sort((a, b) => b.writeUnits - a.writeUnits);
  const hottestItemWrite = [...items.values()].reduce((a, b) => (b.units > a.units ? b : a), { key: '(none)', units: 0 });
  const groupKey = byKey.find((k) => k.audience === 'group');
  const perGroupLocation = (units: number) => (s.groupLocations > 0 ? units / s.groupLocations : 0);
  const groupKeyPerLocation = {
    writeUnits: perGroupLocation(groupKey?.writeUnits ?? 0),
    readUnits: perGroupLocation(groupKey?.readUnits ?? 0),
  };

  const concurrency = byFeed.reduce((n, f) => n + f.requestsPerSecond * (f.billedMs / 1000), 0);
  const eventsPerSecond = byFeed.reduce((n, f) => n + f.requestsPerSecond * f.mean.events, 0);
  const deliveriesPerSecond = eventsPerSecond * s.destinationsPerEvent;
  const table = { writeUnits: byFeed.reduce((n, f) => n + f.writeUnits, 0), readUnits: byFeed.reduce((n, f) => n + f.readUnits, 0) };

  const perSecond = {
    gateway: requestsPerSecond * prices.httpApiRequest,
    lambda: byFeed.reduce(
      (n, f) =>
        n +
        f.requestsPerSecond * ((prices.memoryMb / 1024) * (Math.ceil(f.billedMs) / 1000) * prices.lambdaGbSecond + prices.lambdaRequest),
      0,
    ),
    dynamodb: table.writeUnits * prices.writeUnit + table.readUnits * prices.readUnit,
    logs: (byFeed.reduce((n, f) => n + f.requestsPerSecond * f.mean.logBytes, 0) * prices.logsGb) / GB,
    deliveries: deliveriesPerSecond * prices.delivery,
  };
  const monthly = Object.fromEntries(Object.entries(perSecond).map(([k, v]) => [k, v * SECONDS_A_MONTH])) as typeof perSecond;
  const monthlyCost = Object.values(monthly).reduce((a, b) => a + b, 0);
  const perLocation = (v: number) => (s.locations > 0 ? v / s.locations : 0);

  const o = stage.others;
  const attempts = attemptsPerSecond(o.deliveriesPerSecond + deliveriesPerSecond, stage.receiverErrorRate);
  const checks: WriteCheck[] = [
    {
      name: 'producer route throttle (PRODUCER_RATE_LIMIT)',
      used: requestsPerSecond,
      limit: stage.producerRateLimit,
      sees: "API Gateway's bare 429 to the producer, which sends the update again",
    },
    {
      name: "producer function's reserved concurrency",
      used: concurrency,
      limit: stage.producerConcurrency,
      sees: "API Gateway's 5xx for the throttled invocation; the producer sends the update again",
    },
    {
      name: 'API Gateway account throttle, with the customers at the stage capacity',
      used: requestsPerSecond + o.requestsPerSecond,
      limit: stage.quotas.apiThrottleQuota,
      sees: "API Gateway's bare 429, any route, customers' too",
    },
    {
      name: 'table write units (on-demand table quota), with the customers',
      used: table.writeUnits + o.tableWriteUnits,
      limit: stage.quotas.tableWriteQuota,
      sees: THROTTLED,
    },
    {
      name: 'table read units (on-demand table quota), with the customers',
      used: table.readUnits + o.tableReadUnits,
      limit: stage.quotas.tableReadQuota,
      sees: THROTTLED,
    },
    {
      name: `hottest item writes (${hottestItemWrite.key})`,
      used: hottestItemWrite.units,
      limit: AWS_QUOTAS.dynamoPartitionWriteUnits.default,
      sees: `${THROTTLED} (one item is never split)`,
    },
    {
      name: 'deliverer attempts a second, with the customers',
      used: attempts,
      limit: stage.delivererCapacityPerSecond,
      sees: 'the backlog grows: deliveries later and later, none lost while the queue keeps them 4 days',
    },
    {
      name: 'table write units at launch (warm throughput), with the customers',
      used: table.writeUnits + o.tableWriteUnits,
      limit: stage.warmWriteUnits,
      sees: `${THROTTLED}, until the table has scaled`,
      onset: true,
    },
    {
      name: 'table read units at launch (warm throughput), with the customers',
      used: table.readUnits + o.tableReadUnits,
      limit: stage.warmReadUnits,
      sees: `${THROTTLED}, until the table has scaled`,
      onset: true,
    },
    {
      name: `the largest group's key writes before a split (${groupKey?.key ?? 'GROUP#<group>'})`,
      used: groupKey?.writeUnits ?? 0,
      limit: AWS_QUOTAS.dynamoPartitionWriteUnits.default,
      sees: `${THROTTLED} for the writes there, until DynamoDB splits the key's items over partitions`,
      onset: true,
    },
    {
      name: `the largest group's key reads before a split (${groupKey?.key ?? 'GROUP#<group>'}), with the customers'`,
      used: (groupKey?.readUnits ?? 0) + o.groupKeyReadUnits,
      limit: AWS_QUOTAS.dynamoPartitionReadUnits.default,
      sees: `${THROTTLED} for the reads there, customers' too, until DynamoDB splits the key`,
      onset: true,
    },
  ];
  return {
    scenario: s,
    requestsPerSecond,
    byFeed: byFeed.map(({ mean: _mean, ...f }) => f),
    byProducer,
    byKey,
    hottestItemWrite,
    table,
    groupKeyPerLocation,
    concurrency,
    eventsPerSecond,
    deliveriesPerSecond,
    monthlyCost,
    costPerLocationMonth: {
      total: perLocation(monthlyCost),
      parts: Object.fromEntries(
        Object.entries(monthly).map(([k, v]) => [k, perLocation(v)]),
      ) as WriteResult['costPerLocationMonth']['parts'],
    },
    checks,
  };
}

/**
 * The first limit the producers meet as the platform grows: locations scaled from `s` until a check's use passes
 * its limit (bisection), the largest group growing with them up to `s.groupLocations`; the customers stay at the
 * stage's capacity. A held load meets the sustained limits only; `onset` adds those of a sudden step.
 */
export function firstWriteBreak(
  feeds: readonly FeedFigures[],
  s: WriteScenario,
  stage: WriteStage,
  prices: WritePrices,
  { onset = false } = {},
): { check: WriteCheck | null; locations: number; withoutProducers: WriteCheck[] } {
  const at = (locations: number) =>
    writeModel(feeds, { ...s, locations, groupLocations: Math.min(locations, s.groupLocations) }, stage, prices);
  const counted = (c: WriteCheck) => (onset || !c.onset) && c.used > c.limit;
  // What the customers pass alone (no producer yet) is theirs: the producers' break is the first of the other limits.
  const withoutProducers = at(0).checks.filter(counted);
  const theirs = new Set(withoutProducers.map((c) => c.name));
  const broken = (locations: number) => at(locations).checks.find((c) => counted(c) && !theirs.has(c.name));
  let lo = 0;
  let hi = s.locations;
  while (!broken(hi) && hi < s.locations * 2 ** 20) [lo, hi] = [hi, hi * 2];
  for (let i = 0; i < 40 && broken(hi); i++) {
    const mid = (lo + hi) / 2;
    if (broken(mid)) hi = mid;
    else lo = mid;
  }
  return { check: broken(hi) ?? null, locations: hi, withoutProducers };
}

/** The group size at which a key's per-location units pass one partition's limit (before a split). */
export const groupBreaksAt = (perLocation: number, limit: number, besides = 0): number =>
  perLocation > 0 ? Math.max(0, limit - besides) / perLocation : Infinity;

/** The model's AWS estimate of updates a second at `concurrency` instances, each update `billedMs` long. */
export const updatesPerSecondAt = (concurrency: number, billedMs: number): number => (concurrency * 1000) / billedMs;

/**
 * Read units a second the customers take from the hot group's key (`GROUP#<group>`) for each read a second of the
 * mix: the hot tenant's share of the reads, each taking the units its route takes there in the large group.
 */
export function groupKeyReadsPerRead(routes: readonly RouteFigures[], hotTenantShare: number): number {
  return routes.reduce(
    (n, r) => n + r.share * hotTenantShare * r.hotKeys.filter((k) => k.audience === 'group').reduce((u, k) => u + k.readUnits, 0),
    0,
  );
}
