import { Agent, request } from 'node:http';
import { activeBusinessDate, formatIsoDate, parseCompactDate } from '#contract/business-date';
import { MODULES } from '#contract/scopes';
import { itemBytes, plainItemBytes } from '#data/limits';
import type { Location } from '#data/locations';
import { demoKitchenDay } from '#ingest/shiftq-demo-data';
import { PRODUCER_ROUTE_KEY } from '#lib/route-throttles';
import { CAMPAIGN_LOCATIONS, PRODUCER_FEEDS, producerOf } from '#lib/producer-load';
import { FUNCTIONS } from '#lib/functions';
import { outboxKeys } from '#lambdas/webhooks/outbox';
import type { Producer } from '#lambdas/producers/routes';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { sampleMenu } from '../local/demo-menu.js';
import { startEngines } from '../local/engines.js';
import { startLocalRuntime, type LocalRuntime } from '../local/runtime.js';
import { demoMatriqFile, demoSportsFile } from '../local/seed-venue-modules.js';
import { itemKeys, meterKeys, type KeyCapacity, type KeyLoad } from './capacity.js';
import { audienceOf, itemName, keyName, type ItemUse, type KeyUse } from './capacity-model.js';
import type { FeedFigures, UpdateFigures } from './capacity-writes.js';
import { countServiceLogs, gatewayAccessLogBytes, platformLogBytes } from './cost.js';
import { median, percentile } from './load.js';
import { billedMsAt } from './roundtrips.js';

/**
 * The producers' updates measured through the real producer function on the local runtime (engines in this
 * process): for every feed of lib/producer-load.ts, its updates' units by partition key and by item (a refused
 * conditional write counted at the units DynamoDB still charges for it), sequential round trips, log bytes and menu
 * events, and billed ms on AWS (`billedMsAt` of the update's CPU time here, the engines' and the gateway's in it: an
 * upper bound, and one a shared machine's neighbours do not stretch as they stretch wall time); then a closed-loop
 * run of sales updates over HTTP. The capacity model's write side (bench/capacity-writes.ts) takes the figures;
 * bench/capacity-run.ts prints both.
 */

/** CPU ms this process spent since `start`: engines, gateway, function and client alike. */
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Assumed: a busy kitchen's tickets a business day; measured at the day's end, the largest its item gets. */
export const KITCHEN_TICKETS_PER_DAY = 1_000;
export const INGEST_REPEATS = 5;
/** Updates sent before any is measured, so the first feed's figures are not the runtime's warm-up. */
const WARM_UP = 20;
const GROUP = 'demo-group';
const LOCATION = 'nyc-midtown';
const CAMPAIGN_GROUP = 'ingest-campaigns';
const LOAD_GROUP = 'ingest-load';
const LOAD_LOCATIONS = 100;
const LOAD_REQUESTS = Number(process.env.BENCH_INGEST_REQUESTS ?? 2_000);
const LOAD_CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 16);

/** The local closed-loop run of sales updates. */
type LocalIngest = {
  requests: number;
  concurrency: number;
  locations: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  outcomes: Record<string, number>;
  cpuMs: number;
};

export type IngestMeasured = {
  feeds: FeedFigures[];
  /** The largest item each feed writes (by feed name), bytes as DynamoDB counts them. */
  itemBytes: Map<string, number>;
  local: LocalIngest;
};

const isAttribute = (v: unknown) =>
  !!v && typeof v === 'object' && Object.keys(v).length === 1 && /^(S|N|B|SS|NS|BS|M|L|NULL|BOOL)$/.test(Object.keys(v)[0]!);
/** An item's size as DynamoDB counts it, whether the document client marshalled it yet or not. */
const sizeOf = (item: Record<string, unknown>) =>
  Object.values(item).every(isAttribute) ? itemBytes(item as Record<string, AttributeValue>) : plainItemBytes(item);
const text = (value: unknown): string => (typeof value === 'string' ? value : String((value as { S?: string }).S ?? ''));

/**
 * Beside meterKeys: a conditional write DynamoDB refuses still consumes its units, the larger of the stored item's and
 * the sent one's in KB rounded up (docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html),
 * which the local engine does not report: a put's taken at the sent item's (a replay or an older version is the same
 * size), an update's or a delete's at 1; the largest item a put writes; and the events a put of the outbox announces.
 */
function meterWrites(client: DynamoDBClient, metered: KeyCapacity) {
  const seen = { events: 0, largest: 0 };
  const outbox = outboxKeys.event('x').PK.replace(/x$/, '');
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Item?: Record<string, unknown>; Key?: Record<string, unknown> };
      const command = String(context.commandName);
      const item = input.Item ?? input.Key;
      const pk = item ? text(item.PK) : '';
      const sk = item ? text(item.SK) : '';
      const bytes = input.Item ? sizeOf(input.Item) : 0;
      if (command.startsWith('Put')) seen.largest = Math.max(seen.largest, bytes);
      try {
        const result = await next(args);
        if (command.startsWith('Put') && pk.startsWith(outbox)) seen.events++;
        return result;
      } catch (err) {
        if ((err as Error).name === 'ConditionalCheckFailedException' && item) {
          const units = command.startsWith('Put') ? Math.ceil(bytes / 1024) : 1;
          metered.writeUnits += units;
          const add = (map: Map<string, KeyLoad>, key: string) => {
            const was = map.get(key) ?? { readUnits: 0, writeUnits: 0 };
            map.set(key, { ...was, writeUnits: was.writeUnits + units });
          };
          add(metered.byKey, pk);
          add(metered.byItem, `${pk}\n${sk}`);
        }
        throw err;
      }
    },
    { step: 'initialize', name: 'benchRefusedWrites' },
  );
  return seen;
}

type Send = { path: string; method?: 'PUT' | 'PATCH'; data: unknown };

async function producerCall(runtime: LocalRuntime, producer: Producer, send: Send, sourceMs: number) {
  const response = await fetch(`${runtime.url}/producer/v1${send.path}`, {
    method: send.method ?? 'PUT',
    headers: { Authorization: `Bearer ${runtime.producerKeys[producer]}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ sourceTime: new Date(sourceMs).toISOString(), data: send.data }),
  });
  const body = (await response.json()) as { outcome?: string; error?: { message: string } };
  if (response.status !== 200) throw new Error(`ingest bench: ${send.path} answered ${response.status}: ${JSON.stringify(body)}`);
  return { outcome: body.outcome ?? '', bytes: Number(response.headers.get('content-length') ?? 0) };
}

/** Locations of a group written straight to the store (no menus: the campaign and the load need only the locations). */
async function seedLocations(runtime: LocalRuntime, groupId: string, count: number, timezone: string): Promise<string[]> {
  const at = new Date(runtime.deps.clock.now()).toISOString();
  await runtime.store.groups.put({ groupId, name: groupId, createdAt: at });
  const modulesEnabled = Object.fromEntries(MODULES.map((m) => [m, true])) as Location['modulesEnabled'];
  const ids = Array.from({ length: count }, (_, i) => `site-${String(i).padStart(5, '0')}`);
  for (let i = 0; i < ids.length; i += 25) {
    await Promise.all(
      ids.slice(i, i + 25).map((id) =>
        runtime.store.locations.put({
          groupId,
          id,
          name: `Venue ${id}`,
          locationShortName: id,
          timezone,
          slug: id,
          status: 'active',
          modulesEnabled,
          createdAt: at,
        }),
      ),
    );
  }
  return ids;
}

/** What each feed sends, built from the demo's own data (the seeded location, its menu, sports and devices). */
async function updatesOf(runtime: LocalRuntime, campaignLocations: string[]): Promise<Record<string, (k: number) => Send | Promise<Send>>> {
  const now = runtime.deps.clock.now();
  const location = (await runtime.store.locations.get(GROUP, LOCATION))!;
  const zone = location.timezone;
  const today = activeBusinessDate(zone, now);
  const todayIso = formatIsoDate(parseCompactDate(today)!);
  const at = `${GROUP}/${LOCATION}`;
  const dated = async (kind: 'sales' | 'labor' | 'clockIns') =>
    (await runtime.store.shiftq.getDated(GROUP, LOCATION, kind, today, now))!.data;
  const current = async (kind: 'posMenu' | 'employees' | 'reservations') =>
    (await runtime.store.shiftq.getCurrent(GROUP, LOCATION, kind))!.data;
  const [sales, labor, clockIns, posMenu, employees, reservations] = await Promise.all([
    dated('sales'),
    dated('labor'),
    dated('clockIns'),
    current('posMenu'),
    current('employees'),
    current('reservations'),
  ]);
  const kitchen = demoKitchenDay(zone, today, KITCHEN_TICKETS_PER_DAY, now);
  const sports = demoSportsFile(now);
  const { groupId: _g, locationId: _l, ...environment } = sports.environments!.find((e) => e.locationId === LOCATION)!;
  const {
    groupId: _vg,
    locationId: _vl,
    date: _vd,
    ...viewing
  } = sports.viewing!.find((v) => v.locationId === LOCATION && v.date === todayIso)!;
  const schedule = sports.schedules!.find((s) => s.date === todayIso)!;
  const { groupId: _mg, locationId: _ml, ...state } = demoMatriqFile(now).locations.find((l) => l.locationId === LOCATION)!;
  const menuItem = sampleMenu().sections[0]!.items[0]!;
  const { groupId: _lg, id: _li, createdAt: _lc, ...place } = location;
  const review = (k: number) => ({
    id: `bench-review-${k}`,
    provider: 'google',
    rating: 1 + (k % 5),
    reviewerName: 'Dana K.',
    text: 'Great food and friendly staff; the burger was excellent and the game was on every screen.',
    createdAt: new Date(now - k * 60_000).toISOString(),
    updatedAt: new Date(now - k * 60_000).toISOString(),
    reviewUrl: `https://reviews.example.com/google/${LOCATION}/${k}`,
  });
  return {
    sales: () => ({ path: `/shiftq/${at}/sales/${today}`, data: sales }),
    labor: () => ({ path: `/shiftq/${at}/labor/${today}`, data: labor }),
    'kitchen tickets': () => ({ path: `/shiftq/${at}/kitchen/${today}`, data: kitchen }),
    'clock-ins': () => ({ path: `/shiftq/${at}/clockIns/${today}`, data: clockIns }),
    'POS menu and stock': () => ({ path: `/shiftq/${at}/posMenu`, data: posMenu }),
    'employees and shifts': () => ({ path: `/shiftq/${at}/employees`, data: employees }),
    'reservations digest': () => ({ path: `/shiftq/${at}/reservations`, data: reservations }),
    reviews: (k) => ({ path: `/shiftq/${at}/reviews`, data: { reviews: [review(k)] } }),
    // Each patch prices a size anew, so each makes a new revision (the worst: every patch does).
    'menu stock overlay': (k) => ({
      path: `/menus/${at}`,
      method: 'PATCH',
      data: { items: [{ id: menuItem.id, sizes: [{ id: menuItem.sizes[0]!.id, price: 5 + (k % 10_000) / 100 }] }] },
    }),
    'menu reconciliation report': () => ({ path: `/menus/${at}/reconciliation`, data: { result: 'succeeded' } }),
    'menu rebuild': () => ({ path: `/menus/${at}`, data: { sections: sampleMenu().sections } }),
    'sports environment': () => ({ path: `/sports/${at}/environment`, data: environment }),
    "sports viewing, today's": () => ({ path: `/sports/${at}/viewing/${todayIso}`, data: viewing }),
    'sports schedules': () => ({ path: `/sports/schedules/${todayIso}`, data: { events: schedule.events } }),
    'device state': () => ({ path: `/matriq/${at}/state`, data: state }),
    'provider availability': () => ({
      path: `/matriq/${at}/providers`,
      data: { providers: [{ id: 'directv', available: true, availabilityState: 'ACTIVE' }] },
    }),
    // Each result completes a command of its own, queued just before (not counted).
    'emergency-stop results': async (k) => {
      const commandId = `cmd_${k.toString(16).padStart(32, '0')}`;
      await runtime.store.matriq.createCommand({
        commandId,
        groupId: GROUP,
        locationId: LOCATION,
        deviceId: state.devices[0]!.id,
        reason: 'bench',
        requestedAt: new Date(now - 60_000).toISOString(),
        status: 'queued',
        completedAt: null,
        clientId: 'bench',
        requestFingerprint: 'bench',
      });
      return { path: `/matriq/commands/${commandId}/result`, data: { status: 'applied' } };
    },
    locations: () => ({ path: `/groups/${GROUP}/locations/${LOCATION}`, data: place }),
    campaigns: () => ({
      path: `/campaigns/${CAMPAIGN_GROUP}/bench-campaign`,
      data: {
        name: 'Bench campaign',
        locationIds: campaignLocations,
        startsAt: new Date(now - 86_400_000).toISOString(),
        endsAt: new Date(now + 7 * 86_400_000).toISOString(),
      },
    }),
  };
}

/** Units by key and by item, round trips and events between two readings of the meters. */
function figuresBetween(
  metered: KeyCapacity,
  before: { byKey: Map<string, KeyLoad>; byItem: Map<string, KeyLoad>; trips: number; events: number; logBytes: number },
  events: number,
  logBytes: number,
  count: number,
) {
  const keys = new Map<string, KeyUse>();
  for (const [key, load] of metered.byKey) {
    const was = before.byKey.get(key) ?? { readUnits: 0, writeUnits: 0 };
    const [readUnits, writeUnits] = [(load.readUnits - was.readUnits) / count, (load.writeUnits - was.writeUnits) / count];
    if (!readUnits && !writeUnits) continue;
    const name = keyName(key);
    const sum = keys.get(name) ?? { key: name, audience: audienceOf(key), readUnits: 0, writeUnits: 0 };
    sum.readUnits += readUnits;
    sum.writeUnits += writeUnits;
    keys.set(name, sum);
  }
  const items: ItemUse[] = [];
  for (const [id, load] of metered.byItem) {
    const was = before.byItem.get(id) ?? { readUnits: 0, writeUnits: 0 };
    const [readUnits, writeUnits] = [(load.readUnits - was.readUnits) / count, (load.writeUnits - was.writeUnits) / count];
    const [pk, sk] = itemKeys(id);
    if (readUnits || writeUnits) items.push({ id, key: itemName(pk, sk), audience: audienceOf(pk), readUnits, writeUnits });
  }
  return {
    keys: [...keys.values()],
    items,
    trips: (metered.trips - before.trips) / count,
    events: (events - before.events) / count,
    logBytes: (logBytes - before.logBytes) / count,
  };
}

/** Closed-loop sales updates over keep-alive HTTP, each location's source times increasing. */
async function loadRun(runtime: LocalRuntime, locations: string[], data: unknown, businessDate: string): Promise<LocalIngest> {
  const agent = new Agent({ keepAlive: true, maxSockets: LOAD_CONCURRENCY });
  const key = runtime.producerKeys['pos-sync'];
  const base = Date.now() - 60_000;
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  const put = (i: number) =>
    new Promise<string>((resolve, reject) => {
      const body = JSON.stringify({ sourceTime: new Date(base + i).toISOString(), data });
      const req = request(
        `${runtime.url}/producer/v1/shiftq/${LOAD_GROUP}/${locations[i % locations.length]}/sales/${businessDate}`,
        {
          method: 'PUT',
          agent,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            resolve(res.statusCode === 200 ? (JSON.parse(text) as { outcome: string }).outcome : `HTTP ${res.statusCode}`),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: LOAD_CONCURRENCY }, async () => {
      while (next < LOAD_REQUESTS) {
        const i = next++;
        const t0 = performance.now();
        const outcome = await put(i);
        latencies.push(performance.now() - t0);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    concurrency: LOAD_CONCURRENCY,
    locations: locations.length,
    seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    outcomes,
    cpuMs: (used.user + used.system) / 1000 / latencies.length,
  };
}

export async function measureIngest(): Promise<IngestMeasured> {
  const engines = await startEngines({ dataDir: null });
  // INFO and metrics on, as deployed: the log bytes are what a function writes; counted, not shown.
  const logs = countServiceLogs();
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir: null,
    seed: true,
    logLevel: 'INFO',
    engines,
    // No event source: a menu event's fan-out is the dispatcher's, counted as deliveries, not in the update.
    deliverWebhooks: false,
    sweepEveryMs: 3_600_000,
    throttle: { rateLimit: 100_000, burstLimit: 100_000 },
  });
  try {
    const campaignLocations = await seedLocations(runtime, CAMPAIGN_GROUP, CAMPAIGN_LOCATIONS, 'America/New_York');
    const loadLocations = await seedLocations(runtime, LOAD_GROUP, LOAD_LOCATIONS, 'America/New_York');
    const updates = await updatesOf(runtime, campaignLocations);
    // The location's first menu, which the patches and reports apply to.
    await producerCall(runtime, 'pos-sync', await updates['menu rebuild']!(0), Date.now());
    const metered = meterKeys(runtime.dynamo, 'benchIngestKeys');
    const writes = meterWrites(runtime.dynamo, metered);
    const memoryMb = FUNCTIONS['producer-api'].memorySize;
    const platform = platformLogBytes().bytes;
    // After the seed's own source time (its loads ran at start), each update later than the last.
    let clock = Date.now();
    const nextSourceMs = () => (clock = Math.max(clock + 1, Date.now()));
    let k = 0;
    const feeds: FeedFigures[] = [];
    const itemBytes = new Map<string, number>();
    const warm = await updates.sales!(0);
    for (let i = 0; i < WARM_UP; i++) await producerCall(runtime, 'pos-sync', warm, nextSourceMs());
    for (const feed of PRODUCER_FEEDS) {
      const build = updates[feed.name];
      if (!build) throw new Error(`ingest bench: no update built for feed ${feed.name}`);
      const producer = producerOf(feed);
      const snapshot = () => ({
        byKey: new Map(metered.byKey),
        byItem: new Map(metered.byItem),
        trips: metered.trips,
        events: writes.events,
        logBytes: logs.bytes.log,
      });
      const measure = async (count: number, sourceOf: () => number, expect: string) => {
        const sends = await Promise.all(Array.from({ length: count }, async () => build(++k)));
        const before = snapshot();
        const times: number[] = [];
        const cpus: number[] = [];
        let bytes = 0;
        let last = 0;
        for (const send of sends) {
          const t0 = performance.now();
          const c0 = process.cpuUsage();
          last = sourceOf();
          const answer = await producerCall(runtime, producer, send, last);
          times.push(performance.now() - t0);
          cpus.push(cpuMsSince(c0));
          bytes += answer.bytes;
          if (answer.outcome !== expect) throw new Error(`ingest bench: ${feed.name} was ${answer.outcome}, not ${expect}`);
        }
        const f = figuresBetween(metered, before, writes.events, logs.bytes.log, count);
        const ms = median(times);
        const gateway = await gatewayAccessLogBytes({
          method: sends[0]!.method ?? 'PUT',
          routeKey: PRODUCER_ROUTE_KEY,
          status: 200,
          responseBytes: bytes / count,
          latencyMs: ms,
        });
        const figures: UpdateFigures = {
          keys: f.keys,
          items: f.items,
          billedMs: billedMsAt(median(cpus), f.trips, memoryMb),
          logBytes: f.logBytes + platform + gateway,
          events: f.events,
        };
        return { figures, last, sends };
      };
      // A warm-up, the updates measured, then the last one again: a replay, refused ("duplicate").
      await producerCall(runtime, producer, await build(++k), nextSourceMs());
      writes.largest = 0;
      const applied = await measure(INGEST_REPEATS, nextSourceMs, 'applied');
      const replay = applied.sends.at(-1)!;
      const before = snapshot();
      const c0 = process.cpuUsage();
      await producerCall(runtime, producer, replay, applied.last);
      const cpuMs = cpuMsSince(c0);
      const f = figuresBetween(metered, before, writes.events, logs.bytes.log, 1);
      const refused: UpdateFigures = {
        keys: f.keys,
        items: f.items,
        billedMs: billedMsAt(cpuMs, f.trips, memoryMb),
        logBytes: applied.figures.logBytes,
        events: f.events,
      };
      feeds.push({ feed, applied: applied.figures, refused });
      itemBytes.set(feed.name, writes.largest);
    }

    const loadZone = 'America/New_York';
    const salesData = (await runtime.store.shiftq.getDated(GROUP, LOCATION, 'sales', activeBusinessDate(loadZone, Date.now()), Date.now()))!
      .data;
    const local = await loadRun(runtime, loadLocations, salesData, activeBusinessDate(loadZone, Date.now()));
    return { feeds, itemBytes, local };
  } finally {
    logs.restore();
    await runtime.stop();
    await engines.stop();
  }
}
