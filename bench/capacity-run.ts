import { activeBusinessDate, formatIsoDate, parseCompactDate } from '#contract/business-date';
import { DELIVERY_POLICY } from '#lambdas/webhooks/delivery-policy';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { SCOPES } from '#contract/scopes';
import { AWS_DEFAULT_QUOTAS, AWS_QUOTAS } from '#lib/aws-quotas';
import { edgeRateLimit } from '#lib/constructs/edge';
import { FUNCTIONS } from '#lib/functions';
import { mixShare, PRODUCER_ROUTE_KEY, routeKeyOf, throttleSum } from '#lib/route-throttles';
import { reservedConcurrencyOf, STAGE_TABLE, STAGES, throttlesOf, type Stage } from '#lib/stages';
import { startEngines } from '../local/engines.js';
import { startLocalRuntime } from '../local/runtime.js';
import { benchAuthHeaders } from './bench-app.js';
import { itemKeys, meterKeys } from './capacity.js';
import {
  audienceOf,
  AWS_DYNAMODB_MS,
  EVENT_SOURCE_GAP_MS,
  firstBreak,
  isCounterKey,
  itemName,
  keyName,
  model,
  type DeliveryFigures,
  type ItemUse,
  type KeyUse,
  type Prices,
  type Result,
  type RouteFigures,
  type Scenario,
  type StageInputs,
} from './capacity-model.js';
import { ingestLines } from './capacity-ingest.js';
import { groupKeyReadsPerRead, type WritePrices, type WriteStage } from './capacity-writes.js';
import { measureIngest } from './ingest-run.js';
import { costPerMillion, countServiceLogs, dollars, gatewayAccessLogBytes, platformLogBytes, PRICES } from './cost.js';
import { measureDeliveries, RECEIVER_ERROR_RATE, RECEIVER_MS, type DeliveryRun } from './delivery-throughput.js';
import { getWire, median } from './load.js';
import { billedMsAt } from './roundtrips.js';
import { locationId, seedGroup } from './scale.js';

/**
 * `--only capacity`: the capacity model (bench/capacity-model.ts) fed with this run's own figures. Every
 * GET route of the route table measured on a group of GROUP_SIZE locations (a list reads its bounded page, as it
 * would at 10,000), each delivery measured through the real deliverer (bench/delivery-throughput.ts), then each
 * stage at growing loads and its first breaking point; then the producers' updates (bench/ingest-run.ts) and the
 * write side at 10,000 locations (bench/capacity-ingest.ts). docs/capacity.md explains the model.
 */
const GROUP_SIZE = Number(process.env.BENCH_CAPACITY_GROUP ?? 1000);
/** The other tenants' groups: ten locations each. */
const TYPICAL_GROUP_SIZE = 10;
const REQUESTS = Number(process.env.BENCH_CAPACITY_REQUESTS ?? 5);
const LOADS: [number, number][] = [
  [100, 10],
  [1_000, 100],
  [10_000, 1_000],
  [100_000, 10_000],
];
const SKEW = { hotTenantShare: 0.2, hotGroupLocations: 10_000 };

type Measured = { routes: RouteFigures[]; left: string[] };

/** Per route: the keys it touched (units by partition key), round trips, billed ms, log and response bytes. */
async function measureReads(): Promise<Measured> {
  const engines = await startEngines({ dataDir: null });
  // INFO and metrics on, as deployed: the log bytes are what a function writes; counted, not shown.
  const logs = countServiceLogs();
  const runtime = await startLocalRuntime({ port: 0, dataDir: null, seed: false, logLevel: 'INFO', engines });
  try {
    // A typical group, and the hot tenant's large one (a list reads its bounded page there, as it would at 10,000).
    const groups = { typical: `capacity-${TYPICAL_GROUP_SIZE}`, hot: `capacity-${GROUP_SIZE}` };
    await seedGroup(runtime, groups.typical, TYPICAL_GROUP_SIZE);
    await seedGroup(runtime, groups.hot, GROUP_SIZE);
    const headers = {
      typical: await benchAuthHeaders(runtime, groups.typical, 'Capacity bench', SCOPES),
      hot: await benchAuthHeaders(runtime, groups.hot, 'Capacity bench (hot tenant)', SCOPES),
    };
    const today = formatIsoDate(parseCompactDate(activeBusinessDate('America/Chicago', runtime.deps.clock.now()))!);
    const metered = meterKeys(runtime.dynamo);
    const platform = platformLogBytes().bytes;

    /** REQUESTS requests of one URL after a warm-up: keys by the model's names, round trips, median time, bytes. */
    const sample = async (url: string, auth: Record<string, string>, pathLocation: string | null) => {
      await getWire(url, auth); // warm: the token's key versions, the schedule's minute, the location's zone
      const before = { trips: metered.trips, byKey: new Map(metered.byKey), byItem: new Map(metered.byItem), logBytes: logs.bytes.log };
      const times: number[] = [];
      let bytes = 0;
      let status = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        const reply = await getWire(url, auth);
        times.push(performance.now() - t0);
        bytes += reply.bytes;
        status = reply.status;
      }
      const keys = new Map<string, KeyUse>();
      for (const [key, load] of metered.byKey) {
        if (isCounterKey(key)) continue;
        const was = before.byKey.get(key) ?? { readUnits: 0, writeUnits: 0 };
        const name = keyName(key);
        const sum = keys.get(name) ?? { key: name, audience: audienceOf(key), readUnits: 0, writeUnits: 0 };
        sum.readUnits += (load.readUnits - was.readUnits) / REQUESTS;
        sum.writeUnits += (load.writeUnits - was.writeUnits) / REQUESTS;
        keys.set(name, sum);
      }
      const items: ItemUse[] = [];
      for (const [id, load] of metered.byItem) {
        const [pk, sk] = itemKeys(id);
        if (isCounterKey(pk)) continue;
        const was = before.byItem.get(id) ?? { readUnits: 0, writeUnits: 0 };
        const readUnits = (load.readUnits - was.readUnits) / REQUESTS;
        const writeUnits = (load.writeUnits - was.writeUnits) / REQUESTS;
        // The path's location's own items are read at that location's rate; the rest at their partition key's audience's.
        const audience = pathLocation && `${pk}#${sk}#`.includes(`#${pathLocation}#`) ? 'location' : audienceOf(pk);
        if (readUnits || writeUnits) items.push({ id, key: itemName(pk, sk), audience, readUnits, writeUnits });
      }
      return {
        items,
        keys: [...keys.values()].filter((k) => k.readUnits || k.writeUnits),
        trips: (metered.trips - before.trips) / REQUESTS,
        ms: median(times),
        responseBytes: bytes / REQUESTS,
        logBytes: (logs.bytes.log - before.logBytes) / REQUESTS,
        status,
      };
    };

    const routes: RouteFigures[] = [];
    for (const route of ROUTES.filter((r) => r.method === 'GET')) {
      const url = (groupId: string) =>
        `${runtime.url}${route.path.replace('{group_id}', groupId).replace('{location_id}', locationId(0)).replace('{date}', today).replace('{name}', 'nfl.svg')}`;
      const pathLocation = route.path.includes('{location_id}') ? locationId(0) : null;
      const typical = await sample(url(groups.typical), headers.typical, pathLocation);
      const hot = await sample(url(groups.hot), headers.hot, pathLocation);
      const memoryMb = FUNCTIONS[route.family].memorySize;
      const gateway = await gatewayAccessLogBytes({
        method: route.method,
        routeKey: routeKeyOf(route),
        status: typical.status,
        responseBytes: typical.responseBytes,
        latencyMs: typical.ms,
      });
      routes.push({
        routeKey: routeKeyOf(route),
        share: mixShare(route),
        billedMs: billedMsAt(typical.ms, typical.trips, memoryMb),
        memoryMb,
        logBytes: typical.logBytes + platform + gateway,
        responseBytes: typical.responseBytes,
        keys: typical.keys,
        hotKeys: hot.keys,
        items: typical.items,
        hotItems: hot.items,
      });
    }
    // The routes not measured here (POSTs) leave the mix; the others' shares grow to fill it.
    const measuredShare = routes.reduce((n, r) => n + r.share, 0);
    for (const r of routes) r.share /= measuredShare;
    const left = ROUTES.filter((r) => r.method !== 'GET').map((r) => `${routeKeyOf(r)} (${(mixShare(r) * 100).toFixed(2)} %)`);
    return { routes, left };
  } finally {
    logs.restore();
    await runtime.stop();
    await engines.stop();
  }
}

/** One delivery as the model takes it, from the local run's per-attempt figures. */
function deliveryFigures(run: DeliveryRun): DeliveryFigures {
  return {
    keys: Object.entries(run.keys).map(([key, load]) => ({ key, ...load })),
    sqsRequests: run.sqsRequests,
    trips: run.trips,
    logBytes: run.logBytes,
    sentBytes: run.sentBytes,
    memoryMb: FUNCTIONS['webhook-deliverer'].memorySize,
  };
}

/** What a read and a delivery cost besides their table units (the model prices the table from its units). */
function pricesOf(routes: readonly RouteFigures[], delivery: DeliveryFigures): Prices {
  const mean = (pick: (r: RouteFigures) => number) => routes.reduce((n, r) => n + r.share * pick(r), 0);
  const read = costPerMillion({
    readUnits: 0,
    writeUnits: 0,
    billedMs: mean((r) => r.billedMs),
    memoryMb: mean((r) => r.memoryMb),
    logBytes: mean((r) => r.logBytes),
    tracedShare: 0,
    responseBytes: mean((r) => r.responseBytes),
  });
  const cycleMs = RECEIVER_MS + delivery.trips * AWS_DYNAMODB_MS;
  const deliver = costPerMillion({
    readUnits: 0,
    writeUnits: 0,
    // An invocation lasts as long as its batch's slowest attempt: the receiver's answer and the deliverer's DynamoDB waits.
    billedMs: cycleMs / DELIVERY_POLICY.batchSize,
    invocations: 1 / DELIVERY_POLICY.batchSize,
    memoryMb: delivery.memoryMb,
    logBytes: delivery.logBytes,
    tracedShare: 0,
    responseBytes: delivery.sentBytes,
    sqsRequests: delivery.sqsRequests,
  });
  const sum = (parts: Record<string, number>) => Object.values(parts).reduce((a, b) => a + b, 0);
  return {
    perMillionReads: sum(read) + PRICES.httpApiRequest * 1e6,
    perMillionDeliveries: sum(deliver),
    readUnit: PRICES.dynamoReadUnit,
    writeUnit: PRICES.dynamoWriteUnit,
  };
}

/** A stage as the model sees it, at AWS's default quotas (what every stage is sized within: lib/stages.ts). */
function stageInputs(stage: Stage): StageInputs {
  const row = STAGE_TABLE[stage];
  return {
    name: `${stage} (AWS's default quotas)`,
    quotas: AWS_DEFAULT_QUOTAS,
    routeThrottles: throttlesOf(row).routes,
    perRouteFloor: row.capacity.perRouteFloor,
    delivererConcurrency: row.delivererConcurrency,
    reservedConcurrency: reservedConcurrencyOf(row),
    warmThroughput: 'warmThroughput' in row ? row.warmThroughput : undefined,
    edgeLimitPer5Minutes: row.edge.enabled ? edgeRateLimit(row.capacity) : undefined,
  };
}

/** A stage as the write side sees it: the producer route's limits, and its customers at its capacity beside them. */
function writeStage(stage: Stage, routes: RouteFigures[], delivery: DeliveryFigures, prices: Prices): WriteStage {
  const inputs = stageInputs(stage);
  const reads = STAGE_TABLE[stage].capacity.requestsPerSecond;
  // A delivery for every ten reads, as the loads above.
  const deliveries = reads / 10;
  const customers = model(
    { readsPerSecond: reads, deliveriesPerSecond: deliveries, ...SKEW, receiverMs: RECEIVER_MS, receiverErrorRate: RECEIVER_ERROR_RATE },
    inputs,
    routes,
    delivery,
    prices,
  );
  return {
    name: stage,
    quotas: inputs.quotas,
    producerRateLimit: inputs.routeThrottles[PRODUCER_ROUTE_KEY]!.rateLimit,
    producerConcurrency: FUNCTIONS['producer-api'].reservedConcurrency,
    warmWriteUnits: inputs.warmThroughput?.writeUnitsPerSecond ?? AWS_QUOTAS.dynamoNewTableWriteUnits.default,
    warmReadUnits: inputs.warmThroughput?.readUnitsPerSecond ?? AWS_QUOTAS.dynamoNewTableReadUnits.default,
    delivererCapacityPerSecond: customers.deliveries.capacityPerSecond,
    receiverErrorRate: RECEIVER_ERROR_RATE,
    others: {
      requestsPerSecond: reads,
      tableReadUnits: customers.table.readUnits,
      tableWriteUnits: customers.table.writeUnits,
      groupKeyReadUnits: groupKeyReadsPerRead(routes, SKEW.hotTenantShare) * reads,
      deliveriesPerSecond: deliveries,
    },
  };
}

/** The write side's prices: the table's, the gateway's and Lambda's list prices, and one delivery all in (as measured). */
function writePrices(delivery: DeliveryFigures, prices: Prices): WritePrices {
  const units = (pick: (k: KeyUse) => number) => delivery.keys.reduce((s, k) => s + pick(k), 0);
  return {
    writeUnit: PRICES.dynamoWriteUnit,
    readUnit: PRICES.dynamoReadUnit,
    httpApiRequest: PRICES.httpApiRequest,
    lambdaGbSecond: PRICES.lambdaGbSecond,
    lambdaRequest: PRICES.lambdaRequest,
    logsGb: PRICES.logsGb,
    delivery:
      prices.perMillionDeliveries / 1e6 + units((k) => k.readUnits) * prices.readUnit + units((k) => k.writeUnits) * prices.writeUnit,
    memoryMb: FUNCTIONS['producer-api'].memorySize,
  };
}

const n = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '∞';

function table(stage: StageInputs, results: Result[]): string[] {
  const row = (cells: (string | number)[]) => `  | ${cells.join(' | ')} |`;
  return [
    `${stage.name}: delivererConcurrency ${stage.delivererConcurrency}, per-route floor ${stage.perRouteFloor}/s` +
      (stage.warmThroughput
        ? `, warm throughput ${n(stage.warmThroughput.readUnitsPerSecond)} R / ${n(stage.warmThroughput.writeUnitsPerSecond)} W`
        : ''),
    row([
      'reads/s',
      'deliveries/s',
      'Lambda concurrency',
      'table R/s',
      'table W/s',
      'hottest item read (R/s)',
      'hottest item write (W/s)',
      'hottest key read, before a split (R/s)',
      'hottest key write, before a split (W/s)',
      'deliverer attempts/s ÷ capacity/s',
      'lag',
      'in flight (of ~120,000)',
      'owner mails/s, worst',
      '$/month',
      'over a limit',
    ]),
    row(Array.from({ length: 15 }, (_, i) => (i < 5 || (i > 8 && i !== 10) ? '---:' : '---'))),
    ...results.map((r) => {
      const over = r.checks
        .filter((c) => c.used > c.limit)
        .map((c) => `${c.name} (${n(c.used)} > ${n(c.limit)})${c.onset ? ', at a sudden step only' : ''}`);
      return row([
        n(r.scenario.readsPerSecond),
        n(r.scenario.deliveriesPerSecond),
        n(r.lambdaConcurrency),
        n(r.table.readUnits),
        n(r.table.writeUnits),
        `${r.hottestItem.read.key} (${n(r.hottestItem.read.units)})`,
        `${r.hottestItem.write.key} (${n(r.hottestItem.write.units)})`,
        `${r.hottest.read.key} (${n(r.hottest.read.units)})`,
        `${r.hottest.write.key} (${n(r.hottest.write.units)})`,
        `${n(r.deliveries.attemptsPerSecond)} ÷ ${n(r.deliveries.capacityPerSecond)}`,
        r.deliveries.backlogGrowthPerSecond > 0
          ? `grows ${n(r.deliveries.backlogGrowthPerSecond)}/s`
          : `${n(r.deliveries.lagSeconds, 2)} s`,
        n(r.deliveries.inFlight),
        n(r.mailsPerSecond, 1),
        dollars(r.monthlyCost),
        over.length ? over.join('; ') : 'none',
      ]);
    }),
  ];
}

function breaks(stage: StageInputs, routes: RouteFigures[], delivery: DeliveryFigures, prices: Prices): string[] {
  const scenario = (reads: number, deliveries: number): Scenario => ({
    readsPerSecond: reads,
    deliveriesPerSecond: deliveries,
    ...SKEW,
    receiverMs: RECEIVER_MS,
    receiverErrorRate: RECEIVER_ERROR_RATE,
  });
  const say = (what: string, b: ReturnType<typeof firstBreak>, unit: (x: typeof b) => string) =>
    b.check
      ? `  first breaking point, ${what}: ${unit(b)}: ${b.check.name} (${n(b.check.used)} > ${n(b.check.limit)}); a client sees ${b.check.sees}`
      : `  first breaking point, ${what}: none below ${unit(b)}`;
  const cases: [string, Scenario, (b: ReturnType<typeof firstBreak>) => string][] = [
    ['reads alone', scenario(1_000, 0), (b) => `${n(b.readsPerSecond)} reads/s`],
    [
      'reads alone, no tenant over the others (every group typical)',
      { ...scenario(1_000, 0), hotTenantShare: 0 },
      (b) => `${n(b.readsPerSecond)} reads/s`,
    ],
    ['deliveries alone', scenario(0, 100), (b) => `${n(b.deliveriesPerSecond)} deliveries/s`],
    [
      'both, ten reads a delivery',
      scenario(1_000, 100),
      (b) => `${n(b.readsPerSecond)} reads/s with ${n(b.deliveriesPerSecond)} deliveries/s`,
    ],
  ];
  return [
    ...cases.map(([what, s, unit]) => say(`${what}, held`, firstBreak(s, stage, routes, delivery, prices), unit)),
    ...cases.map(([what, s, unit]) =>
      say(`${what}, reached in one sudden step`, firstBreak(s, stage, routes, delivery, prices, { onset: true }), unit),
    ),
  ];
}

/** Per load, each GSI's bounded units a second and whether it needs pre-warming (capacity-model.ts, `indexLoads`). */
function indexLines(results: Result[]): string[] {
  return results.map(
    (r) =>
      `  GSIs at ${n(r.scenario.readsPerSecond)} reads/s and ${n(r.scenario.deliveriesPerSecond)} deliveries/s (at most): ` +
      r.indexes
        .map((i) => `${i.name} ${n(i.readUnits)} R / ${n(i.writeUnits)} W, ${i.needsPrewarming ? 'needs pre-warming' : 'no pre-warming'}`)
        .join('; '),
  );
}

/** Where the hottest read key's units come from at a load: the routes that read it most, for the hot tenant. */
function whyHot(result: Result, routes: readonly RouteFigures[]): string[] {
  const { key } = result.hottest.read;
  const tenant = result.hotTenant.readsPerSecond;
  const parts = routes
    .map((r) => ({ route: r.routeKey, units: r.hotKeys.find((k) => k.key === key)?.readUnits ?? 0, share: r.share }))
    .map((p) => ({ ...p, perSecond: p.units * p.share * tenant }))
    .sort((a, b) => b.perSecond - a.perSecond);
  return [
    `  why ${key} is hot at ${n(result.scenario.readsPerSecond)} reads/s (the hot tenant's ${n(tenant)}/s; units a request there × the route's share):`,
    ...parts
      .slice(0, 6)
      .map((p) => `    ${p.route}: ${p.units.toFixed(1)} read units × ${(p.share * 100).toFixed(1)} % → ${n(p.perSecond)}/s`),
    `    all other routes together: ${n(parts.slice(6).reduce((sum, p) => sum + p.perSecond, 0))}/s`,
  ];
}

export async function benchCapacity(): Promise<string[]> {
  const { routes, left } = await measureReads();
  const run = await measureDeliveries();
  const ingest = await measureIngest();
  const delivery = deliveryFigures(run);
  const prices = pricesOf(routes, delivery);
  const mean = (pick: (r: RouteFigures) => number) => routes.reduce((s, r) => s + r.share * pick(r), 0);
  const unitsOf = (keys: readonly KeyUse[], pick: (k: KeyUse) => number) => keys.reduce((s, k) => s + pick(k), 0);
  const lines = [
    `Measured in this run: ${routes.length} GET routes on a group of ${TYPICAL_GROUP_SIZE} locations and on the hot tenant's of ${n(GROUP_SIZE)} (its lists read the page they would at 10,000), ${REQUESTS} requests each after a warm-up, weighted by the mix (lib/route-throttles.ts; left out, not measured: ${left.join(', ')}):`,
    `  per read ${mean((r) => unitsOf(r.keys, (k) => k.readUnits)).toFixed(2)} read units in a typical group, ${mean((r) => unitsOf(r.hotKeys, (k) => k.readUnits)).toFixed(2)} in the hot tenant's; ` +
      `${mean((r) => unitsOf(r.keys, (k) => k.writeUnits)).toFixed(3)} write units besides the rate counter's (modelled from leaseSize), ` +
      `${mean((r) => r.billedMs).toFixed(1)} ms billed, ${n(mean((r) => r.logBytes))} log bytes, ${n(mean((r) => r.responseBytes))} response bytes; ${dollars(prices.perMillionReads)} a million besides the table (HTTP API included, the edge's $1.71 apart)`,
    `  per delivery ${unitsOf(delivery.keys, (k) => k.readUnits).toFixed(2)} read units, ${unitsOf(delivery.keys, (k) => k.writeUnits).toFixed(2)} write units, ${delivery.sqsRequests.toFixed(2)} SQS requests, ` +
      `${delivery.trips} sequential DynamoDB round trips an attempt, ${n(delivery.logBytes)} log bytes, ${n(delivery.sentBytes)} bytes sent; ${dollars(prices.perMillionDeliveries)} a million besides the table`,
    `  skew: one tenant at ${SKEW.hotTenantShare * 100} % of reads (and of deliveries, one destination for all its locations), one group of ${n(SKEW.hotGroupLocations)} locations; ` +
      `receivers answer 2xx in ${RECEIVER_MS} ms, 5xx to ${RECEIVER_ERROR_RATE * 100} % of attempts; a batch takes ${RECEIVER_MS} ms + ${delivery.trips} × ${AWS_DYNAMODB_MS} ms + ${EVENT_SOURCE_GAP_MS} ms between batches (assumed)`,
    '',
  ];
  for (const stage of STAGES) {
    {
      const inputs = stageInputs(stage);
      const results = LOADS.map(([reads, deliveries]) =>
        model(
          {
            readsPerSecond: reads,
            deliveriesPerSecond: deliveries,
            ...SKEW,
            receiverMs: RECEIVER_MS,
            receiverErrorRate: RECEIVER_ERROR_RATE,
          },
          inputs,
          routes,
          delivery,
          prices,
        ),
      );
      lines.push(...table(inputs, results), ...breaks(inputs, routes, delivery, prices), ...indexLines(results));
      if (stage === 'prod') lines.push(...whyHot(results[2]!, routes));
      if (inputs.edgeLimitPer5Minutes) {
        const tenant = results[2]!.hotTenant;
        lines.push(
          `  the edge: WAF lets one address ${n(inputs.edgeLimitPer5Minutes / 300)} requests/s (5-minute window); at 10,000 reads/s the hot tenant sends ${n(tenant.readsPerSecond)}/s over ${tenant.applications} applications of ${n(tenant.perApplication)}/s: from one address it would meet WAF's 429 (Retry-After 300)`,
        );
      }
      lines.push('');
    }
  }
  const local = model(
    { readsPerSecond: 0, deliveriesPerSecond: 1, ...SKEW, receiverMs: RECEIVER_MS, receiverErrorRate: RECEIVER_ERROR_RATE },
    { ...stageInputs('dev'), delivererConcurrency: run.concurrency },
    routes,
    delivery,
    prices,
  );
  lines.push(
    `Local delivery throughput (real deliverer, local event source at concurrency ${run.concurrency} × batch ${DELIVERY_POLICY.batchSize}, fauxqs, HTTPS receivers on loopback answering 2xx after ${RECEIVER_MS} ms, 5xx to 1 attempt in ${Math.round(1 / RECEIVER_ERROR_RATE)}):`,
    `  ${n(run.answered)} of ${n(run.deliveries)} deliveries' first attempts answered in ${run.seconds.toFixed(1)} s: ${n(run.answered / run.seconds, 1)} attempts/s (${run.failed} answered 5xx, retried after their backoff); ` +
      `the model's AWS estimate at the same concurrency: ${n(local.deliveries.capacityPerSecond, 1)}/s. Here one process runs the engines, the deliverer, the receivers and both ends of TLS: ${run.cpuMs.toFixed(1)} ms of CPU per attempt, so ${n(1000 / run.cpuMs)} attempts/s per core at most on this machine.`,
    '',
    ...ingestLines({
      measured: ingest,
      prices: writePrices(delivery, prices),
      stages: STAGES.map((stage) => writeStage(stage, routes, delivery, prices)),
      groupKeyReadsPerRead: groupKeyReadsPerRead(routes, SKEW.hotTenantShare),
      groupLocations: SKEW.hotGroupLocations,
      guard: STAGES.map((stage) => ({
        stage,
        throttleSum: throttleSum(throttlesOf(STAGE_TABLE[stage]).routes),
        reserved: reservedConcurrencyOf(STAGE_TABLE[stage]),
      })),
    }),
  );
  return lines;
}
