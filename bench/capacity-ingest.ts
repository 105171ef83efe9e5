import { PRODUCER_UPDATE_SECONDS } from '#lib/functions';
import { PRODUCER_LOCATIONS, REVIEWS_PER_LOCATION_PER_DAY } from '#lib/producer-load';
import { PRODUCER_RATE_LIMIT } from '#lib/route-throttles';
import { PRODUCER_ROUTES } from '#lambdas/producers/routes';
import { AWS_QUOTAS } from '#lib/aws-quotas';
import {
  firstWriteBreak,
  groupBreaksAt,
  updatesPerSecondAt,
  writeModel,
  type WriteCheck,
  type WritePrices,
  type WriteResult,
  type WriteScenario,
  type WriteStage,
} from './capacity-writes.js';
import { INGEST_REPEATS, KITCHEN_TICKETS_PER_DAY, type IngestMeasured } from './ingest-run.js';

/**
 * The capacity model's write side as `--only capacity` prints it: the producers' feeds at 10,000 locations, by
 * feed, producer and partition key; each stage's limits with its customers beside; prod's first breaking point; the
 * local ingest run beside the model's AWS estimate. docs/capacity.md explains it.
 */

/** Assumed: 1 % of updates are a replay or older than what is stored (a producer's retries after a timeout). */
const REFUSED_SHARE = 0.01;
/** At worst every stock patch changes its menu's revision (one that changes nothing publishes nothing). */
const REVISION_SHARE = 1;
/** The read side's skew: one destination for all of a group's locations, so an event is one delivery. */
const DESTINATIONS_PER_EVENT = 1;

const n = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '∞';
const cents = (value: number) => `$${value.toFixed(3)}`;
const kb = (bytes: number) => `${n(bytes / 1024, 1)} KB`;
/** A rate: small ones with the digits that show them. */
const rate = (value: number) => n(value, value >= 10 ? 0 : value >= 0.1 ? 2 : 4);
const row = (cells: (string | number)[]) => `  | ${cells.join(' | ')} |`;
const over = (c: WriteCheck) => `${c.name} (${n(c.used)} > ${n(c.limit)})`;

export type IngestInputs = {
  measured: IngestMeasured;
  prices: WritePrices;
  /** Each stage as the write side sees it, its customers at its capacity (`others`). */
  stages: WriteStage[];
  /** The customers' read units a second on the hot group's key for each read a second (`groupKeyReadsPerRead`). */
  groupKeyReadsPerRead: number;
  /** The largest group (the read side's hot tenant's), in locations. */
  groupLocations: number;
  /** What the quota guard checks at synth (lib/stages.ts): each stage's throttles added up, and what its functions reserve. */
  guard: { stage: string; throttleSum: number; reserved: number }[];
};

export function ingestLines({ measured, prices, stages, groupKeyReadsPerRead, groupLocations, guard }: IngestInputs): string[] {
  const scenario: WriteScenario = {
    locations: PRODUCER_LOCATIONS,
    groupLocations,
    refusedShare: REFUSED_SHARE,
    revisionShare: REVISION_SHARE,
    destinationsPerEvent: DESTINATIONS_PER_EVENT,
  };
  const prod = stages.find((s) => s.name === 'prod')!;
  const r = writeModel(measured.feeds, scenario, prod, prices);
  const routeOf = (operation: string) => {
    const route = PRODUCER_ROUTES.find((x) => x.operation === operation)!;
    return `${route.method} ${route.path.replace('/producer/v1', '')}`;
  };
  const figures = new Map(measured.feeds.map((f) => [f.feed.name, f]));
  const largest = (name: string) => (measured.itemBytes.get(name) ? kb(measured.itemBytes.get(name)!) : '—');
  const perUpdate = (name: string, pick: (k: { readUnits: number; writeUnits: number }) => number) =>
    figures.get(name)!.applied.keys.reduce((s, k) => s + pick(k), 0);
  const meanBilled = r.byFeed.reduce((s, f) => s + f.requestsPerSecond * f.billedMs, 0) / r.requestsPerSecond;

  const lines = [
    `Write side: the producers' feeds (lib/producer-load.ts) at ${n(PRODUCER_LOCATIONS)} locations, each feed's updates measured through the real producer function on the local runtime (bench/ingest-run.ts: ${INGEST_REPEATS} applied after a warm-up, then a replay; units by partition key as DynamoDB reports them, a refused conditional write at the units it still takes; billed ms from each update's CPU time here, an upper bound; a kitchen day of ${n(KITCHEN_TICKETS_PER_DAY)} tickets at its end, the sample menu of examples/data/menu.json, the demo's other data):`,
    row([
      'feed',
      'producer',
      'route',
      'a location sends',
      'updates/s',
      'W an update',
      'R an update',
      'largest item',
      'billed ms',
      'W/s',
      'R/s',
    ]),
    row(['---', '---', '---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...r.byFeed.map((f) =>
      row([
        f.feed.name,
        f.producer,
        `\`${routeOf(f.feed.operation)}\``,
        f.feed.basis,
        rate(f.requestsPerSecond),
        n(
          perUpdate(f.feed.name, (k) => k.writeUnits),
          1,
        ),
        n(
          perUpdate(f.feed.name, (k) => k.readUnits),
          1,
        ),
        largest(f.feed.name),
        n(f.billedMs),
        n(f.writeUnits),
        n(f.readUnits),
      ]),
    ),
    row(['all', '', '', '', n(r.requestsPerSecond), '', '', '', n(meanBilled, 1), n(r.table.writeUnits), n(r.table.readUnits)]),
    `  by producer: ${r.byProducer.map((p) => `${p.producer} ${rate(p.requestsPerSecond)} updates/s, ${rate(p.writeUnits)} W/s, ${rate(p.readUnits)} R/s`).join('; ')}`,
    `  assumed: ${REFUSED_SHARE * 100} % of updates refused (a replay or older; each still takes its conditional writes' units and a consistent read); every stock patch a new revision; ${DESTINATIONS_PER_EVENT} destination for all of a group's locations (the read side's skew), so ${n(r.eventsPerSecond, 1)} menu events and ${n(r.deliveriesPerSecond, 1)} deliveries a second; ${REVIEWS_PER_LOCATION_PER_DAY} reviews a location a day; the rates' other assumptions in the table`,
    `  by partition key (one key: one location's, the largest group's of ${n(groupLocations)} locations, a shared one, an update's own):`,
    row(['key', 'written by', 'feeds writing', 'feeds only reading', 'updates/s there', 'W/s', 'R/s']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:']),
    ...r.byKey.map((k) =>
      k.audience === 'own'
        ? row([
            k.key,
            k.producers.join(', '),
            k.writers.length,
            k.readers.length,
            "one update's own",
            `${n(k.writeUnits, 1)} an update`,
            `${n(k.readUnits, 1)} an update`,
          ])
        : row([
            k.key,
            k.producers.join(', '),
            k.writers.length,
            k.readers.length,
            rate(k.requestsPerSecond),
            rate(k.writeUnits),
            rate(k.readUnits),
          ]),
    ),
    ...keyLines(r, groupKeyReadsPerRead, prod),
    `  Lambda: ${n(r.concurrency, 1)} concurrent updates at the measured billed ms (${n(meanBilled, 1)} on the mean; an upper bound: the local engines' work is in it), ${n(r.requestsPerSecond * PRODUCER_UPDATE_SECONDS, 1)} at the declared ${PRODUCER_UPDATE_SECONDS * 1000} ms, of the producer function's reservation of ${prod.producerConcurrency}: PRODUCER_RATE_LIMIT (${PRODUCER_RATE_LIMIT}/s, these feeds' ${n(r.requestsPerSecond)}/s with a quarter's headroom) at the declared ${PRODUCER_UPDATE_SECONDS * 1000} ms`,
    `  cost a location a month: ${cents(r.costPerLocationMonth.total)} (${Object.entries(r.costPerLocationMonth.parts)
      .map(([part, v]) => `${part} ${cents(v)}`)
      .join(
        ', ',
      )}); $${n(r.monthlyCost)} a month for ${n(PRODUCER_LOCATIONS)} (us-east-1 list prices, bench/cost.ts; each delivery at the measured delivery's cost; the dispatcher's page per event not counted)`,
    '',
    `  each stage with the producers at ${n(PRODUCER_LOCATIONS)} locations and its customers at its capacity (the read side's model: reads, their counter claims, a delivery for every ten reads):`,
    row([
      'stage',
      'customers req/s',
      'producer updates/s ÷ PRODUCER_RATE_LIMIT',
      'concurrency ÷ reservation',
      'account req/s ÷ throttle quota',
      'table W/s ÷ warm ÷ quota',
      'table R/s ÷ warm ÷ quota',
      'group key W/s, R/s (before a split)',
      'deliverer attempts/s ÷ capacity',
      'over a limit',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    ...stages.map((stage) => {
      const s = writeModel(measured.feeds, scenario, stage, prices);
      const c = (name: string) => s.checks.find((x) => x.name.startsWith(name))!;
      const broken = s.checks.filter((x) => x.used > x.limit).map((x) => `${over(x)}${x.onset ? ', at a sudden step only' : ''}`);
      return row([
        stage.name,
        n(stage.others.requestsPerSecond),
        `${n(s.requestsPerSecond)} ÷ ${n(stage.producerRateLimit)}`,
        `${n(s.concurrency, 1)} ÷ ${stage.producerConcurrency}`,
        `${n(c('API Gateway account').used)} ÷ ${n(stage.quotas.apiThrottleQuota)}`,
        `${n(c('table write units (on-demand').used)} ÷ ${n(stage.warmWriteUnits)} ÷ ${n(stage.quotas.tableWriteQuota)}`,
        `${n(c('table read units (on-demand').used)} ÷ ${n(stage.warmReadUnits)} ÷ ${n(stage.quotas.tableReadQuota)}`,
        `${n(c("the largest group's key writes").used)}, ${n(c("the largest group's key reads").used)}`,
        `${n(c('deliverer').used)} ÷ ${n(stage.delivererCapacityPerSecond)}`,
        broken.length ? broken.join('; ') : 'none',
      ]);
    }),
    `  the quota guard (synth): throttles, the producer route's among them, add up to ${guard.map((g) => `${g.stage} ${n(g.throttleSum)}`).join(', ')} of the account's ${n(prod.quotas.apiThrottleQuota)}; reserved and provisioned concurrency ${guard.map((g) => `${g.stage} ${g.reserved}`).join(', ')} of ${n(prod.quotas.lambdaConcurrencyQuota)}, at least ${AWS_QUOTAS.lambdaUnreservedMinimum.default} left unreserved`,
    ...breakLines(measured, scenario, prod, prices),
    '',
    ...localLines(measured, prod),
  ];
  return lines;
}

/** The largest group's key and the customers' path beside it. */
function keyLines(r: WriteResult, groupKeyReadsPerRead: number, prod: WriteStage): string[] {
  const group = r.byKey.find((k) => k.audience === 'group');
  if (!group) return [];
  const writeLimit = AWS_QUOTAS.dynamoPartitionWriteUnits.default;
  const readLimit = AWS_QUOTAS.dynamoPartitionReadUnits.default;
  const everyUpdate = r.byKey.filter((k) => k.writers.length === r.byFeed.length);
  const writing = r.byFeed.filter((f) => group.writers.includes(f.feed.name));
  const writingShare = writing.reduce((s, f) => s + f.requestsPerSecond, 0) / r.requestsPerSecond;
  const customers = prod.others.groupKeyReadUnits;
  const reads =
    customers >= readLimit
      ? `its ${n(readLimit)} read units are passed by the customers alone at prod's capacity in one step (${n(customers)})`
      : `its ${n(readLimit)} read units, beside the customers' at prod's capacity (${n(customers)}), at ${n(groupBreaksAt(r.groupKeyPerLocation.readUnits, readLimit, customers))} locations`;
  const alone = groupKeyReadsPerRead > 0 ? readLimit / groupKeyReadsPerRead : Infinity;
  const beside = groupKeyReadsPerRead > 0 ? Math.max(0, readLimit - group.readUnits) / groupKeyReadsPerRead : Infinity;
  return [
    `  a key every update writes: ${everyUpdate.length ? everyUpdate.map((k) => k.key).join(', ') : 'none'}. ${group.key} is each group's own: ${writing.length} of ${r.byFeed.length} feeds (${n(writingShare * 100)} % of the updates: menus, device state, sports, locations, campaigns; ${group.producers.length} classes) write their locations' items there, and every update but the schedule's reads its location item there (consistent); shiftq data is each location's own key (LOC#<location>); the one shared key (SPORTS_SCHEDULE) is written by the schedule feed alone`,
    `  ${group.key}, the largest group's key: ${n(r.groupKeyPerLocation.writeUnits, 4)} W/s and ${n(r.groupKeyPerLocation.readUnits, 4)} R/s a location; a group passes one partition's ${n(writeLimit)} write units a second at ${n(groupBreaksAt(r.groupKeyPerLocation.writeUnits, writeLimit))} locations until DynamoDB splits the key (held, one item takes at most ${n(r.hottestItemWrite.units, 3)} W/s: ${r.hottestItemWrite.key}); ${reads}`,
    `  the customers' path: the producers write each item at most every few minutes, so a held load meets no item's limit; in one sudden step the hot group's key passes ${n(readLimit)} read units at ${n(alone)} customer reads/s alone, ${n(beside)} beside the producers' ${n(group.readUnits)} (the key's budget, not its items', until the split)`,
  ];
}

function breakLines(measured: IngestMeasured, s: WriteScenario, prod: WriteStage, prices: WritePrices): string[] {
  const say = (what: string, b: ReturnType<typeof firstWriteBreak>) => {
    const theirs = b.withoutProducers.length
      ? ` (the customers at prod's capacity pass alone: ${b.withoutProducers.map(over).join('; ')})`
      : '';
    return b.check
      ? `  first breaking point of prod, ${what}: ${n(b.locations)} locations: ${over(b.check)}; ${b.check.sees}${theirs}`
      : `  first breaking point of prod, ${what}: none below ${n(b.locations)} locations${theirs}`;
  };
  return [
    say('locations growing, held', firstWriteBreak(measured.feeds, s, prod, prices)),
    say('reached in one sudden step', firstWriteBreak(measured.feeds, s, prod, prices, { onset: true })),
  ];
}

function localLines({ local, feeds }: IngestMeasured, prod: WriteStage): string[] {
  const billed = feeds.find((f) => f.feed.name === 'sales')!.applied.billedMs;
  const outcomes = Object.entries(local.outcomes)
    .map(([o, count]) => `${n(count)} ${o}`)
    .join(', ');
  return [
    `Local ingest throughput (sales updates over HTTP through the local gateway and the producer function, ${local.concurrency} at a time over ${local.locations} locations, each location's source times increasing; engines, runtime and clients in one process):`,
    `  ${n(local.requests)} updates in ${local.seconds.toFixed(1)} s: **${n(local.requests / local.seconds)} updates/s**, p50 ${n(local.p50Ms, 1)} ms, p99 ${n(local.p99Ms, 1)} ms (${outcomes}); ${local.cpuMs.toFixed(1)} ms of CPU an update here, so ${n(1000 / local.cpuMs)} updates/s per core at most on this machine`,
    `  the model's AWS estimate for the same mix at the same concurrency: ${local.concurrency} × 1,000 ÷ ${billed} ms billed = ${n(updatesPerSecondAt(local.concurrency, billed))} updates/s; prod's producer function at its reservation of ${prod.producerConcurrency}: ${n(updatesPerSecondAt(prod.producerConcurrency, billed))} sales updates/s, held to PRODUCER_RATE_LIMIT's ${PRODUCER_RATE_LIMIT}/s of all feeds`,
  ];
}
