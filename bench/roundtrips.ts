import { createServer, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { benchAuthHeaders } from './bench-app.js';
import { get, getWire } from './load.js';
import { activeBusinessDate, formatIsoDate, parseCompactDate } from '#contract/business-date';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { SCOPES } from '#contract/scopes';
import { locationKeys } from '#data/locations';
import { seedDemoMenu } from '../local/demo-menu.js';
import { localEndpoint } from '../local/endpoints.js';
import { startEngines } from '../local/engines.js';
import { startLocalRuntime } from '../local/runtime.js';
import { FUNCTIONS } from '#lib/functions';
import { consumedUnits, meterCapacity, perRequest } from './capacity.js';
import {
  costLines,
  costPerMillion,
  dollars,
  totalPerMillion,
  gatewayAccessLogBytes,
  countServiceLogs,
  platformLogBytes,
  PRICES,
  provisionedLine,
  tracedShare,
  type PerRequest,
} from './cost.js';
import { startDelayProxy, type DelayProxy } from './delay-proxy.js';
import { median } from './load.js';

/**
 * Sequential DynamoDB round trips per request, for every authenticated GET
 * route of the route table. The runtime's DynamoDB engine sits behind a TCP
 * proxy (bench/delay-proxy.ts) that holds each request to the engine for D
 * ms: calls a handler makes in parallel wait side by side, calls it makes
 * one after another each wait in turn. One client, sequential requests:
 * round trips ≈ (median latency with the delay − median without) ÷ D′,
 * where D′ is what one round trip gains in the same run: the one-GetItem
 * baseline's increase (a little over D: timers run late, never early).
 * DynamoDB calls per request are counted on the runtime's client (a middleware).
 * Baselines, measured the same way in the same run: a bare node:http handler
 * doing one GetItem (1 call, 1 round trip) and two GetItems in parallel
 * (2 calls, 1 round trip), which shows the method tells the two apart.
 */
const DELAY_MS = Number(process.env.BENCH_RT_DELAY_MS ?? 20);
const REQUESTS = Number(process.env.BENCH_RT_REQUESTS ?? 10);
const GROUP = 'demo-group';
const LOCATION = 'nyc-midtown';

type Measured = { status: number; calls: number; fastMs: number; slowMs: number };
/** Consumed capacity (ReturnConsumedCapacity on every call), response and log bytes (application lines, EMF line) of one request, averaged. */
type Footprint = { readUnits: number; writeUnits: number; responseBytes: number; logBytes: number; emfBytes: number };

/** DynamoDB's round trip in the same Region as the function: single-digit milliseconds; the estimate takes 5. */
const AWS_DYNAMODB_MS = 5;
/** Lambda gives a function CPU in proportion to its memory, one vCPU at 1,769 MB (docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). */
const FULL_VCPU_MB = 1769;

/**
 * Billed ms of one request at `memoryMb`: the local handling time, CPU on a
 * full core here (an upper bound: the embedded engine's work is in it),
 * stretched by the share of a vCPU that memory gets, plus each sequential
 * round trip at AWS's latency (a wait, which memory does not shorten).
 */
export const billedMsAt = (handlingMs: number, trips: number, memoryMb: number) =>
  Math.ceil(handlingMs * Math.max(1, FULL_VCPU_MB / memoryMb) + Math.max(1, Math.round(trips)) * AWS_DYNAMODB_MS);
const FOOTPRINT_REQUESTS = 5;

/** Median latency of `requests` sequential requests (after two warm-ups) without and with the delay, and the calls `counter` saw per request. */
async function measure(
  url: string,
  headers: Record<string, string>,
  proxy: DelayProxy,
  counter: () => number,
  requests = REQUESTS,
): Promise<Measured> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const phase = async (delayMs: number) => {
      proxy.delayMs = delayMs;
      for (let i = 0; i < 2; i++) await get(url, headers, agent);
      const before = counter();
      const latencies: number[] = [];
      let status = 0;
      for (let i = 0; i < requests; i++) {
        const t0 = performance.now();
        status = await get(url, headers, agent);
        latencies.push(performance.now() - t0);
      }
      return { status, calls: (counter() - before) / requests, ms: median(latencies) };
    };
    const fast = await phase(0);
    const slow = await phase(DELAY_MS);
    proxy.delayMs = 0;
    return { status: fast.status, calls: fast.calls, fastMs: fast.ms, slowMs: slow.ms };
  } finally {
    agent.destroy();
  }
}

/** Fills a route's path parameters: the demo group and location, today's business date there for dates. */
function concretePath(path: string, today: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'group_id') return GROUP;
    if (name === 'location_id') return LOCATION;
    if (name === 'date') return today;
    throw new Error(`roundtrips: no value for path parameter {${name}} in ${path}`);
  });
}

export async function benchRoundTrips(): Promise<string[]> {
  const engines = await startEngines({ dataDir: null });
  const proxy = await startDelayProxy(engines.dynamoEndpoint);
  // INFO and metrics on, as deployed: the log bytes are what a function writes; counted, not shown.
  const logs = countServiceLogs();
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir: null,
    seed: true,
    logLevel: 'INFO',
    engines: { ...engines, dynamoEndpoint: proxy.url },
  });
  const metered = meterCapacity(runtime.dynamo);
  /** One request's consumed units, response and log bytes, over a few sequential requests. */
  const footprint = async (url: string, headers: Record<string, string>): Promise<Footprint> => {
    const before = { ...metered, logBytes: logs.bytes.log, emfBytes: logs.bytes.emf };
    let responseBytes = 0;
    for (let i = 0; i < FOOTPRINT_REQUESTS; i++) {
      responseBytes += (await getWire(url, headers)).bytes;
    }
    const per = (n: number) => n / FOOTPRINT_REQUESTS;
    const { readUnits, writeUnits } = perRequest(before, metered, FOOTPRINT_REQUESTS);
    return {
      readUnits,
      writeUnits,
      responseBytes: per(responseBytes),
      logBytes: per(logs.bytes.log - before.logBytes),
      emfBytes: per(logs.bytes.emf - before.emfBytes),
    };
  };
  let baseline: Server | null = null;
  try {
    // Baselines: one GetItem, and two in parallel, through the same proxy, on a client of their own.
    let baselineCalls = 0;
    const client = new DynamoDBClient(localEndpoint(proxy.url, process.env.AWS_REGION ?? 'us-east-1', engines.credentials));
    client.middlewareStack.add(
      (next) => async (args) => {
        baselineCalls++;
        return next(args);
      },
      { step: 'initialize', name: 'benchCallCounter' },
    );
    const doc = DynamoDBDocumentClient.from(client);
    const getLocation = (id: string) => doc.send(new GetCommand({ TableName: runtime.tableName, Key: locationKeys.location(GROUP, id) }));
    baseline = createServer((req, res) => {
      const reads = req.url === '/two' ? [getLocation(LOCATION), getLocation('denver-union')] : [getLocation(LOCATION)];
      Promise.all(reads).then(
        (items) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(items.map((i) => i.Item))),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve) => baseline!.listen(0, '127.0.0.1', resolve));
    const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}`;

    const now = runtime.deps.clock.now();
    const headers = await benchAuthHeaders(runtime, GROUP, 'Round-trip bench', SCOPES);
    await seedDemoMenu(runtime.deps); // as npm start does, so the menu routes answer 200
    const location = (await runtime.store.locations.get(GROUP, LOCATION))!;
    const today = formatIsoDate(parseCompactDate(activeBusinessDate(location.timezone, now))!);

    // The yardstick: more samples than a route gets, since every row is divided by it.
    const one = await measure(`${baselineUrl}/one`, {}, proxy, () => baselineCalls, REQUESTS * 4);
    const perTrip = one.slowMs - one.fastMs;
    const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
    const figures = (m: Measured) => [
      m.status,
      m.calls.toFixed(1),
      ((m.slowMs - m.fastMs) / perTrip).toFixed(1),
      m.fastMs.toFixed(1),
      m.slowMs.toFixed(1),
    ];
    const lines = [
      `Every authenticated GET route, 1 client, ${REQUESTS} sequential requests per route and delay (median); D = ${DELAY_MS} ms added to each request to the DynamoDB engine by a proxy.`,
      `Path parameters: group ${GROUP}, location ${LOCATION}, date ${today} (today there). Round trips = (p50 with D − p50 without) ÷ D′,`,
      `D′ = ${perTrip.toFixed(1)} ms: what one round trip gained in this run (the 1-GetItem baseline, 1 by construction).`,
      row([
        'route',
        'status',
        'DynamoDB calls',
        'sequential round trips',
        `p50 ms`,
        `p50 ms, D = ${DELAY_MS} ms`,
        'read units',
        'write units',
        'bytes on the wire (gzip)',
      ]),
      row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
      row(['baseline: node:http, 1 GetItem', ...figures(one)]),
      row(['baseline: node:http, 2 GetItems in parallel', ...figures(await measure(`${baselineUrl}/two`, {}, proxy, () => baselineCalls))]),
    ];
    const routes: (Measured & Footprint & { memoryMb: number; gatewayLogBytes: number })[] = [];
    for (const route of ROUTES.filter((r) => r.method === 'GET' && r.scope !== null)) {
      const url = `${runtime.url}${concretePath(route.path, today)}`;
      const measured = { ...(await measure(url, headers, proxy, () => metered.calls)), ...(await footprint(url, headers)) };
      const gatewayLogBytes = await gatewayAccessLogBytes({
        method: route.method,
        routeKey: `${route.method} ${route.path}`,
        status: measured.status,
        responseBytes: measured.responseBytes,
        latencyMs: measured.fastMs,
      });
      const m = { ...measured, memoryMb: FUNCTIONS[route.family].memorySize, gatewayLogBytes };
      routes.push(m);
      lines.push(row([`GET ${route.path}`, ...figures(m), m.readUnits.toFixed(1), m.writeUnits.toFixed(1), Math.round(m.responseBytes)]));
    }
    const steady = await counterWrites(`${runtime.url}${concretePath('/v1/{group_id}/locations', today)}`, headers, runtime);
    const trips = routes.map((m) => (m.slowMs - m.fastMs) / perTrip);
    const mean = (f: (m: (typeof routes)[number], i: number) => number) => routes.reduce((sum, m, i) => sum + f(m, i), 0) / routes.length;
    const traced = await tracedShare();
    const platform = platformLogBytes();
    const appLog = mean((m) => m.logBytes);
    const emfLog = mean((m) => m.emfBytes);
    const gatewayLog = mean((m) => m.gatewayLogBytes);
    const perRead = (memoryMb: number): PerRequest => ({
      readUnits: mean((m) => m.readUnits),
      // The counter's claims at a steady rate, not the few requests of each row (a row may or may not fall on a claim).
      writeUnits: steady.writeUnitsPerRequest,
      billedMs: mean((m, i) => billedMsAt(m.fastMs, trips[i]!, memoryMb)),
      memoryMb,
      logBytes: appLog + emfLog + platform.bytes + gatewayLog,
      tracedShare: traced.share,
      responseBytes: mean((m) => m.responseBytes),
    });
    const memoryMb = mean((m) => m.memoryMb);
    const atMemory = (mb: number) => {
      const r = perRead(mb);
      return `${mb} MB ${Math.ceil(r.billedMs)} ms ${dollars(costPerMillion(r).lambda)}`;
    };
    lines.push(
      `Mean over ${routes.length} routes: ${(routes.reduce((sum, m) => sum + m.calls, 0) / routes.length).toFixed(2)} DynamoDB calls per read (goal ≤ 3.5); ` +
        `most round trips ${Math.max(...trips).toFixed(1)} (goal ≤ 2; 1 for reads keyed by the path).`,
      steady.line,
      '',
      ...costLines(`authenticated reads (the mean of the ${routes.length} routes above)`, perRead(memoryMb), 1.5, [
        `  Billed ms: the local handling time (${mean((m) => m.fastMs).toFixed(1)} ms mean, CPU on a full core, an upper bound) × ${FULL_VCPU_MB} ÷ memory ` +
          `(Lambda's share of a vCPU), plus ${AWS_DYNAMODB_MS} ms per sequential round trip. Lambda per million at ${[512, 1024, FULL_VCPU_MB].map(atMemory).join('; ')}.`,
        `  Log bytes per request: ${Math.round(appLog)} of the function's lines at INFO (its access line; the HTTP counts are metric filters on it), ` +
          `${Math.round(emfLog)} of EMF lines of their own, ${platform.bytes} of Lambda's own lines (${platform.note}), ` +
          `${Math.round(gatewayLog)} of the HTTP API's access line (its fields in lib/constructs/api.ts, typical values).`,
        `  Traced: ${traced.note}.`,
        floorLine(perRead(memoryMb)),
        await provisionedLine(),
        `  The gateway's own price beside it: HTTP API ${dollars(PRICES.httpApiRequest * 1e6)} per million requests (the stage's API type; a REST API would be $3.50).`,
      ]),
    );
    client.destroy();
    return lines;
  } finally {
    await new Promise((resolve) => (baseline ? baseline.close(resolve) : resolve(null)));
    await runtime.stop();
    await proxy.close();
    await engines.stop();
    logs.restore();
  }
}

/** Requests of the steady phase: a few lease lives at the pace one sequential client sets. */
const STEADY_REQUESTS = Number(process.env.BENCH_STEADY_REQUESTS ?? 2000);

/**
 * Counter writes per 1,000 admitted requests at a steady rate: one client, sequential requests of one route
 * (one function, one lease book), every UpdateItem of an API counter counted on the runtime's own client, with
 * the write units they consumed.
 */
async function counterWrites(url: string, headers: Record<string, string>, runtime: Awaited<ReturnType<typeof startLocalRuntime>>) {
  let writes = 0;
  let writeUnits = 0;
  runtime.dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      // The document client's input (a string) or the marshalled one (an attribute value), whichever this step sees.
      const pk = (args.input as { Key?: { PK?: string | { S?: string } } }).Key?.PK;
      const key = typeof pk === 'string' ? pk : (pk?.S ?? '');
      if (/^Update(Item)?Command$/.test(String(context.commandName)) && key.startsWith('RATE#API#')) {
        writes++;
        writeUnits += consumedUnits('UpdateItem', result.output).writeUnits;
      }
      return result;
    },
    { step: 'initialize', name: 'benchCounterWrites' },
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const t0 = performance.now();
  let admitted = 0;
  try {
    for (let i = 0; i < STEADY_REQUESTS; i++) if ((await get(url, headers, agent)) === 200) admitted++;
  } finally {
    agent.destroy();
    runtime.dynamo.middlewareStack.remove('benchCounterWrites');
  }
  const rate = admitted / ((performance.now() - t0) / 1000);
  const perThousand = (writes / admitted) * 1000;
  return {
    writeUnitsPerRequest: writeUnits / admitted,
    line:
      `Counter writes per 1,000 admitted requests at a steady rate: ${perThousand.toFixed(1)} (goal ≤ 100; a write per request before leases: 1,000), ` +
      `${writes} claims for ${admitted} requests of GET /v1/{group_id}/locations at ${rate.toFixed(0)} req/s from one client; ${(writeUnits / admitted).toFixed(3)} write units per request.`,
  };
}

/** Read units authorization reads on every route: the credential and the application, strongly consistent, each under 4 KB. */
const AUTHORIZATION_READ_UNITS = 2;

/**
 * What no route can cost less than in this design: the measured read with
 * only authorization's reads left (no location, no data), everything else as
 * measured (the counter's write, Lambda, both access lines, the bytes sent).
 * docs/decisions/cost-floor.md says what each way below it gives up.
 */
function floorLine(read: PerRequest): string {
  const floor = { ...read, readUnits: AUTHORIZATION_READ_UNITS };
  const parts = costPerMillion(floor);
  return (
    `  Floor of this design (a read of nothing but authorization's ${AUTHORIZATION_READ_UNITS} strongly consistent units, the rest as measured): ${dollars(totalPerMillion(floor))} — ` +
    `DynamoDB ${dollars(parts.dynamodb)}, Lambda ${dollars(parts.lambda)}, logs ${dollars(parts.logs)}, transfer ${dollars(parts.transfer)}; ` +
    'below it only by giving something up (docs/decisions/cost-floor.md).'
  );
}
