import { jsonFromChild } from './processes.js';
import { fileURLToPath } from 'node:url';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { scaledTimings } from '#lambdas/webhooks/delivery-policy';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { publishMenu } from '../lambdas/webhooks/publish.js';
import { createApp } from '../lambdas/admin/apps.js';
import { startDeliveryPoller, startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '../local/runtime.js';
import { createDeliverer } from '#lambdas/webhooks/deliver';
import { FUNCTIONS } from '#lib/functions';
import { consumedUnits } from './capacity.js';
import { costLines, dollars, isEmfLine, platformLogBytes, PRICES, tracedShare } from './cost.js';
import { sampleMenu } from '../local/demo-menu.js';
import { FAULTS, runFault, type Tally } from '../test/fixtures/webhook-faults.js';
import { controlledResolver, startReceiver, type Received } from '../test/fixtures/webhook-receiver.js';

/**
 * End-to-end webhook throughput and latency on this machine: menu publishes
 * → outbox → SQS (fauxqs) → local poller → deliverer → HTTPS receiver on
 * loopback that verifies every signature. Then every injected fault of
 * test/integration/webhook-faults.test.ts at a larger size, counting per
 * fault what was published, delivered, dead-lettered (listed by `dlq list`
 * and in the DLQ) and lost. Bounded: fixed sizes and deadlines. Runs in a
 * child process so the receiver's test CA can be trusted the standard way
 * (NODE_EXTRA_CA_CERTS).
 *
 *   NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem npx tsx bench/webhooks.ts
 */

const LOCATIONS = ['nyc-midtown', 'denver-union', 'london-soho', 'sydney-harbour'];
const REVISIONS_PER_LOCATION = Number(process.env.BENCH_WEBHOOK_REVISIONS ?? 40);
const DESTINATIONS = 2;
const DEADLINE_MS = 90_000;
/** Per fault: menu revisions × receivers, on the tests' time scale. */
const FAULT_EVENTS = Number(process.env.BENCH_FAULT_EVENTS ?? 10);
const FAULT_DESTINATIONS = 3;
const FAULT_SCALE = 0.02;

type Figures = {
  publishes: number;
  expected: number;
  verified: number;
  unverified: number;
  seconds: number;
  p50: number;
  p99: number;
  /** DynamoDB calls of the whole run by what they were for, and the units they consumed. */
  calls: Record<CallKind, number>;
  units: Record<CallKind, { readUnits: number; writeUnits: number }>;
  /** SQS requests of the whole run by command; receives counted only when they returned messages. */
  sqs: Record<string, number>;
  /** Empty long polls of the local event source (Lambda's pollers make them too, a fixed cost however few deliveries). */
  emptyReceives: number;
  /** Deliverer invocations: how many, and their billed ms (each rounded up to 1 ms) summed. */
  invocations: number;
  billedMs: number;
  /** Bytes the deliverer wrote to its log: application lines, EMF lines. */
  delivererLogBytes: number;
  delivererEmfBytes: number;
  /** Bytes of the verified POSTs as the receivers got them (request line, headers, body; TLS not counted), summed. */
  sentBytes: number;
};

/** What a DynamoDB call of the webhook path was for, told by its command and the item it names. */
type CallKind = 'create' | 'read' | 'attempt start and outcome' | 'health' | 'publish and dispatch';
const DELIVERY_KINDS: CallKind[] = ['create', 'read', 'attempt start and outcome', 'health'];

function kindOf(command: string, input: Record<string, any>): CallKind {
  const keyOf = (k: Record<string, any> | undefined) => String(k?.PK?.S ?? k?.PK ?? '');
  const batch = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: Record<string, any>[] }>)[0]?.Keys?.[0];
  const pk = keyOf(input.Key ?? input.Item ?? batch);
  const strong = input.ConsistentRead === true || batch !== undefined;
  if (pk.startsWith('DELIVERY#')) {
    if (/^(Get|BatchGet)/.test(command)) return 'read';
    return command === 'PutItem' && input.ConditionExpression === 'attribute_not_exists(PK)' ? 'create' : 'attempt start and outcome';
  }
  // The deliverer reads the destination and its application strongly; the dispatcher's lists and app checks are the publish's.
  if ((pk.startsWith('DEST#') || pk.startsWith('APP#')) && command === 'GetItem' && strong) return 'read';
  if (pk.startsWith('DEST#') && command === 'UpdateItem') return 'health';
  return 'publish and dispatch';
}
/** One publish to many receivers. */
type Fanout = {
  destinations: number;
  delivered: number;
  duplicates: number;
  /** Delivery records of the event, and how many destinations had other than exactly one. */
  records: number;
  notOne: number;
  publishSeconds: number;
  seconds: number;
  p50: number;
  p99: number;
};
type Measured = { throughput: Figures; fanout: Fanout; faults: (Tally & { seconds: number })[] };
const FANOUT_DESTINATIONS = Number(process.env.BENCH_FANOUT_DESTINATIONS ?? 1000);
const FANOUT_DEADLINE_MS = 60_000;

export async function benchWebhooks(): Promise<string[]> {
  const {
    throughput: figures,
    fanout,
    faults,
  } = await jsonFromChild<Measured>(
    'bench/webhooks.ts',
    'BENCH_WEBHOOKS_CHILD',
    DEADLINE_MS + FANOUT_DEADLINE_MS + 90_000 + FAULTS.length * 90_000,
    'webhook benchmark',
  );
  const column = (text: string | number, width: number) => String(text).padStart(width);
  return [
    `webhooks: ${figures.publishes} menu publishes × ${DESTINATIONS} destinations → ${figures.verified}/${figures.expected} verified deliveries` +
      `${figures.unverified ? ` (${figures.unverified} failed verification)` : ''} in ${figures.seconds.toFixed(2)} s`,
    `  throughput ${(figures.verified / figures.seconds).toFixed(1)} deliveries/s; publish→delivery p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms (goal p50 ≤ 300 ms)`,
    `  DynamoDB calls per delivered webhook: ${DELIVERY_KINDS.map((k) => `${k} ${(figures.calls[k] / figures.verified).toFixed(2)}`).join(', ')}; ` +
      `total ${(DELIVERY_KINDS.reduce((n, k) => n + figures.calls[k], 0) / figures.verified).toFixed(2)} (goal ≤ 5); ` +
      `besides, per publish (menu write, outbox, the dispatcher's lists): ${(figures.calls['publish and dispatch'] / figures.publishes).toFixed(1)}`,
    '',
    ...(await deliveryCost(figures)),
    '',
    `fan-out: one publish to ${fanout.destinations.toLocaleString('en-US')} destinations (HTTPS, one loopback receiver, a secret per destination): ` +
      `${fanout.delivered.toLocaleString('en-US')} delivered and verified in ${fanout.seconds.toFixed(1)} s (goal: all within 60 s), ` +
      `publish→delivery p50 ${fanout.p50.toFixed(0)} ms, p99 ${fanout.p99.toFixed(0)} ms; lost ${fanout.destinations - fanout.delivered}; ` +
      `${fanout.records.toLocaleString('en-US')} delivery records, ${fanout.notOne} destinations with other than exactly one; ${fanout.duplicates} repeated POSTs (same event id); ` +
      `the publish with its inline dispatch took ${fanout.publishSeconds.toFixed(1)} s of the dispatcher's 10 s timeout`,
    `faults: ${FAULT_EVENTS} revisions × ${FAULT_DESTINATIONS} receivers each, time scale ${FAULT_SCALE} (attempt timeout ${scaledTimings(FAULT_SCALE).attemptTimeoutMs} ms)`,
    `  ${'fault'.padEnd(22)}${['published', 'delivered', 'dead-lettered', 'lost', 'invisible', 'duplicates', 'seconds'].map((h) => column(h, 14)).join('')}`,
    ...faults.map(
      (t) =>
        `  ${t.fault.padEnd(22)}${[t.published, t.delivered, t.deadLettered, t.lost, t.invisible, t.duplicates, t.seconds.toFixed(1)].map((v) => column(v, 14)).join('')}`,
    ),
  ];
}

/** SQS requests a delivery makes: its send (a batch counts once), the receive that hands it over, its delete; plus any visibility change. */
const DELIVERY_SQS =
  /^(SendMessage|SendMessageBatch|ReceiveMessage|DeleteMessage|DeleteMessageBatch|ChangeMessageVisibility|ChangeMessageVisibilityBatch)$/;

/** Cost per million deliveries from the throughput run: the delivery's DynamoDB units, the deliverer's Lambda time, SQS, its logs. */
async function deliveryCost(f: Figures): Promise<string[]> {
  const per = (n: number) => n / f.verified;
  const sum = (pick: (u: { readUnits: number; writeUnits: number }) => number) => DELIVERY_KINDS.reduce((n, k) => n + pick(f.units[k]), 0);
  const sqs = Object.entries(f.sqs).filter(([command]) => DELIVERY_SQS.test(command));
  const traced = await tracedShare();
  const platform = platformLogBytes();
  const invocations = per(f.invocations);
  const memoryMb = FUNCTIONS['webhook-deliverer'].memorySize;
  return costLines(
    'webhook deliveries (the throughput run above; the deliverer, its queue and the delivery record)',
    {
      readUnits: per(sum((u) => u.readUnits)),
      writeUnits: per(sum((u) => u.writeUnits)),
      billedMs: per(f.billedMs),
      invocations,
      memoryMb,
      logBytes: per(f.delivererLogBytes + f.delivererEmfBytes) + invocations * platform.bytes,
      tracedShare: traced.share * invocations,
      responseBytes: per(f.sentBytes),
      sqsRequests: per(sqs.reduce((n, [, count]) => n + count, 0)),
    },
    null,
    [
      `  DynamoDB units per delivery by purpose: ${DELIVERY_KINDS.map((k) => `${k} ${per(f.units[k].readUnits).toFixed(2)} R / ${per(f.units[k].writeUnits).toFixed(2)} W`).join(', ')}; ` +
        `the publish's own units (menu write, outbox, the dispatcher's lists) are the publish's, not counted here.`,
      `  Lambda: ${f.invocations} deliverer invocations for ${f.verified} deliveries (SQS batches), billed their wall time here, each rounded up to 1 ms, at ${memoryMb} MB ` +
        `(its memory in lib/functions.ts). Here the receiver answers at once on loopback; a real receiver's answer time is billed too, ${memoryMb} MB × its duration.`,
      `  SQS requests per delivery: ${sqs.map(([command, count]) => `${command} ${per(count).toFixed(2)}`).join(', ')} at ${dollars(PRICES.sqsRequest * 1e6)} per million; ` +
        `besides, ${f.emptyReceives} empty long polls in ${f.seconds.toFixed(0)} s: the event source polls whether or not there is work, a fixed cost, not per delivery.`,
      `  Log bytes per delivery: ${Math.round(per(f.delivererLogBytes))} of the deliverer's application lines, ${Math.round(per(f.delivererEmfBytes))} of its EMF lines, ` +
        `${Math.round(invocations * platform.bytes)} of Lambda's own lines (${platform.note}). Traced: ${traced.note}. Sent bytes: the POSTs to receivers, transfer out.`,
    ],
    'delivery',
  );
}

const startQuiet = (options: Partial<LocalRuntimeOptions>) =>
  startLocalRuntime({ port: 0, dataDir: null, seed: true, logLevel: 'SILENT', ...options });

/** Each fault on a runtime of its own, one after the other (so they do not slow each other down). */
async function measureFaults(): Promise<Measured['faults']> {
  const tallies: Measured['faults'] = [];
  for (const fault of FAULTS) {
    const start = Date.now();
    const { tally } = await runFault(fault, {
      start: startQuiet,
      events: FAULT_EVENTS,
      destinations: FAULT_DESTINATIONS,
      scale: FAULT_SCALE,
    });
    tallies.push({ ...tally, seconds: (Date.now() - start) / 1000 });
  }
  return tallies;
}

/** Bytes of a POST as the receiver got it: request line, headers, body (TLS not counted). */
export const requestBytes = (r: Received) =>
  Buffer.byteLength(
    `POST ${r.path} HTTP/1.1\r\n${Object.entries(r.headers)
      .map(([k, v]) => `${k}: ${String(v)}\r\n`)
      .join('')}\r\n${r.rawBody}`,
  );

/** The deliverer's metrics (lambdas/webhooks/deliver.ts) and log messages; the rest of what this process writes is the publish side's. */
export const DELIVERER_METRICS = /"(DeliverySucceeded|DeliveryFailed|DeliveryRetried|DeliveryDeadLettered)":/;
export const DELIVERER_MESSAGES =
  /^\{.*"message":"(webhook attempt|webhook attempt refused|webhook outcome superseded|unreadable webhook message dropped)"/;

async function measureThroughput(): Promise<Figures> {
  // Metrics on and INFO, as deployed, so the deliverer's log bytes are what it would write; the lines are counted, not shown.
  process.env.METRICS_DISABLED = 'false';
  const runtime = await startQuiet({
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true },
    logLevel: 'INFO',
    deliverWebhooks: false,
  });
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const logs = { delivererLogBytes: 0, delivererEmfBytes: 0 };
  process.stdout.write = (chunk: string | Uint8Array) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      const bytes = Buffer.byteLength(line) + 1;
      if (isEmfLine(line)) logs.delivererEmfBytes += DELIVERER_METRICS.test(line) ? bytes : 0;
      else if (DELIVERER_MESSAGES.test(line)) logs.delivererLogBytes += bytes;
    }
    return true;
  };
  const calls = Object.fromEntries([...DELIVERY_KINDS, 'publish and dispatch'].map((k) => [k, 0])) as Record<CallKind, number>;
  const units = Object.fromEntries(
    [...DELIVERY_KINDS, 'publish and dispatch'].map((k) => [k, { readUnits: 0, writeUnits: 0 }]),
  ) as Figures['units'];
  runtime.dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      const kind = kindOf(command, args.input as Record<string, any>);
      calls[kind]++;
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const used = consumedUnits(command, result.output);
      units[kind].readUnits += used.readUnits;
      units[kind].writeUnits += used.writeUnits;
      return result;
    },
    { step: 'initialize', name: 'benchWebhookCalls' },
  );
  const sqs: Record<string, number> = {};
  let emptyReceives = 0;
  runtime.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const command = String(context.commandName).replace(/Command$/, '');
      if (command === 'ReceiveMessage' && !((result.output as { Messages?: unknown[] }).Messages?.length ?? 0)) emptyReceives++;
      else sqs[command] = (sqs[command] ?? 0) + 1;
      return result;
    },
    { step: 'initialize', name: 'benchWebhookSqs' },
  );
  // The event source as the runtime plays it, around the deliverer as deployed, timing each invocation.
  const { Attributes } = await runtime.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: runtime.queues.webhookQueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const deliver = createDeliverer(runtime.deps);
  const billed = { invocations: 0, billedMs: 0 };
  const poller = startDeliveryPoller(runtime.deps, runtime.sqs, Attributes?.QueueArn ?? '', async (event, context) => {
    const started = performance.now();
    try {
      return await deliver(event, context);
    } finally {
      billed.invocations++;
      billed.billedMs += Math.ceil(performance.now() - started);
    }
  });
  const secrets: string[] = [];
  const receivers = await Promise.all(Array.from({ length: DESTINATIONS }, (_, i) => startReceiver({ secret: () => secrets[i]! })));
  try {
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Bench', scopes: ['bevq:read'] }, Date.now());
    for (const [i, receiver] of receivers.entries()) {
      secrets[i] = (await addDestination(runtime.deps, { clientId: app.clientId, name: `bench-${i}`, url: receiver.url })).signingSecret;
    }
    const publishedAt = new Map<string, number>();
    const start = Date.now();
    // One publisher per location (publishes of one location are serialised by the menu's conditional write).
    await Promise.all(
      LOCATIONS.map(async (locationId) => {
        for (let r = 0; r < REVISIONS_PER_LOCATION; r++) {
          const at = Date.now();
          const result = await publishMenu(runtime.deps, { groupId: 'demo-group', locationId, menu: sampleMenu({ price: 100 + r }) });
          publishedAt.set(result.eventId!, at);
        }
      }),
    );
    const publishes = LOCATIONS.length * REVISIONS_PER_LOCATION;
    const expected = publishes * DESTINATIONS;
    const deadline = start + DEADLINE_MS;
    const total = () => receivers.reduce((n, r) => n + r.received.length, 0);
    while (total() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const all = receivers.flatMap((r) => r.received);
    const latencies = all.map((r) => r.at - (publishedAt.get(r.body?.eventId) ?? r.at)).sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
    const last = Math.max(...all.map((r) => r.at), start + 1);
    return {
      publishes,
      expected,
      verified: all.filter((r) => r.verified).length,
      unverified: all.filter((r) => !r.verified).length,
      seconds: (last - start) / 1000,
      p50: pct(50),
      p99: pct(99),
      calls,
      units,
      sqs,
      emptyReceives,
      ...billed,
      ...logs,
      sentBytes: all.filter((r) => r.verified).reduce((n, r) => n + requestBytes(r), 0),
    };
  } finally {
    await poller.stop();
    process.stdout.write = stdoutWrite;
    for (const r of receivers) await r.stop();
    await runtime.stop();
    delete process.env.METRICS_DISABLED;
  }
}

async function measureFanout(): Promise<Fanout> {
  const runtime = await startQuiet({
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true },
  });
  const secrets = new Map<string, string>();
  const receiver = await startReceiver({ secret: (path) => secrets.get(path) ?? '' });
  try {
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Fan-out bench', scopes: ['bevq:read'] }, Date.now());
    for (let i = 0; i < FANOUT_DESTINATIONS; i++) {
      const url = `${receiver.url}/${i}`;
      const created = await addDestination(runtime.deps, { clientId: app.clientId, name: `fan-${i}`, url, locationIds: ['london-soho'] });
      secrets.set(new URL(url).pathname, created.signingSecret);
    }
    const start = Date.now();
    const published = await publishMenu(runtime.deps, {
      groupId: 'demo-group',
      locationId: 'london-soho',
      menu: sampleMenu({ price: 99 }),
    });
    const publishSeconds = (Date.now() - start) / 1000;
    const ofEvent = () => receiver.received.filter((r) => r.verified && r.body?.eventId === published.eventId);
    while (new Set(ofEvent().map((r) => r.path)).size < FANOUT_DESTINATIONS && Date.now() < start + FANOUT_DEADLINE_MS) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const got = ofEvent();
    const firstAt = new Map<string, number>();
    for (const r of got) if (!firstAt.has(r.path)) firstAt.set(r.path, r.at);
    const latencies = [...firstAt.values()].map((at) => at - start).sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
    const records = await deliveriesOf(runtime, published.eventId!);
    const perDestination = new Map<string, number>();
    for (const item of records) perDestination.set(String(item.destinationId), (perDestination.get(String(item.destinationId)) ?? 0) + 1);
    return {
      destinations: FANOUT_DESTINATIONS,
      delivered: firstAt.size,
      duplicates: got.length - firstAt.size,
      records: records.length,
      notOne: FANOUT_DESTINATIONS - [...perDestination.values()].filter((n) => n === 1).length,
      publishSeconds,
      seconds: (Math.max(...firstAt.values(), start) - start) / 1000,
      p50: pct(50),
      p99: pct(99),
    };
  } finally {
    await receiver.stop();
    await runtime.stop();
  }
}

/** The event's delivery records, by a paged scan of the table (a bench's census, never a service path). */
async function deliveriesOf(runtime: LocalRuntime, eventId: string): Promise<Record<string, unknown>[]> {
  const doc = DynamoDBDocumentClient.from(runtime.dynamo);
  const found: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: runtime.tableName,
        FilterExpression: 'eventId = :e AND begins_with(PK, :p)',
        ExpressionAttributeValues: { ':e': eventId, ':p': 'DELIVERY#' },
        ExclusiveStartKey,
      }),
    );
    found.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}

if (process.env.BENCH_WEBHOOKS_CHILD === '1') {
  const measured: Measured = { throughput: await measureThroughput(), fanout: await measureFanout(), faults: await measureFaults() };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const line of await benchWebhooks()) console.log(line);
}
