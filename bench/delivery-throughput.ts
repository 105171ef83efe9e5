import { jsonFromChild } from './processes.js';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { DESTINATIONS_PER_APPLICATION } from '#lambdas/webhooks/destination-limit';
import { createApp } from '../lambdas/admin/apps.js';
import { publishMenu } from '../lambdas/webhooks/publish.js';
import { createDeliverer } from '#lambdas/webhooks/deliver';
import { STAGE_TABLE } from '#lib/stages';
import { sampleMenu } from '../local/demo-menu.js';
import { startDeliveryPoller, startLocalRuntime } from '../local/runtime.js';
import { controlledResolver, startReceiver } from '../test/fixtures/webhook-receiver.js';
import { meterKeys, type KeyLoad } from './capacity.js';
import { isEmfLine } from './cost.js';
import { DELIVERER_MESSAGES, DELIVERER_METRICS, requestBytes } from './webhooks.js';
import { audienceOf, keyName, type Audience } from './capacity-model.js';

/**
 * Deliveries a second through the real deliverer on this machine: the local event source (the poller, at the
 * concurrency it plays: dev's delivererConcurrency) over fauxqs, the deliverer as deployed, real HTTPS receivers on
 * loopback that answer 2xx after `RECEIVER_MS` and 5xx to one attempt in a hundred. Bounded: a fixed number of
 * deliveries and a deadline. Also measures what one delivery costs the table, key by key, and its SQS requests
 * (the capacity model's inputs). Runs in a child process so the receivers' test CA is trusted the standard way.
 */
export const RECEIVER_MS = 200;
export const RECEIVER_ERROR_RATE = 0.01;
const DESTINATIONS = Number(process.env.BENCH_DELIVERY_DESTINATIONS ?? 50);
const PUBLISHES = Number(process.env.BENCH_DELIVERY_PUBLISHES ?? 40);
const DEADLINE_MS = 45_000;

export type DeliveryRun = {
  /** The local event source's concurrency (instances at once, each a batch in parallel). */
  concurrency: number;
  deliveries: number;
  /** Attempts the receivers answered, and how many of them 5xx. */
  answered: number;
  failed: number;
  seconds: number;
  /** CPU of this process (engines, deliverer, receivers, TLS on both ends) per answered attempt, ms. */
  cpuMs: number;
  /** Per delivery: units by partition key, SQS requests, sequential round trips of one attempt alone. */
  keys: Record<string, KeyLoad & { audience: Audience }>;
  sqsRequests: number;
  trips: number;
  /** Per delivery: the deliverer's log lines (application and EMF) at INFO, and the bytes of the POST sent. */
  logBytes: number;
  sentBytes: number;
};

export async function measureDeliveries(): Promise<DeliveryRun> {
  return jsonFromChild<DeliveryRun>('bench/delivery-throughput.ts', 'BENCH_DELIVERY_CHILD', DEADLINE_MS + 90_000, 'delivery throughput');
}

async function run(): Promise<DeliveryRun> {
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir: null,
    seed: true,
    // INFO and metrics on, as deployed: the deliverer's log bytes are counted (not shown).
    logLevel: 'INFO',
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true },
    deliverWebhooks: false,
  });
  const secrets = new Map<string, string>();
  let n = 0;
  const receiver = await startReceiver({
    secret: (path) => secrets.get(path) ?? '',
    // Every hundredth attempt fails: 1 %, spread evenly rather than drawn.
    behave: () => ({ status: ++n % Math.round(1 / RECEIVER_ERROR_RATE) === 0 ? 503 : 200, afterMs: RECEIVER_MS }),
  });
  const metered = meterKeys(runtime.dynamo, 'benchDeliveryKeys');
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  let logBytes = 0;
  process.stdout.write = (chunk: string | Uint8Array) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      if (isEmfLine(line) ? DELIVERER_METRICS.test(line) : DELIVERER_MESSAGES.test(line)) logBytes += Buffer.byteLength(line) + 1;
    }
    return true;
  };
  let sqsRequests = 0;
  runtime.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const empty = context.commandName === 'ReceiveMessageCommand' && !(result.output as { Messages?: unknown[] }).Messages?.length;
      if (!empty) sqsRequests++;
      return result;
    },
    { step: 'initialize', name: 'benchDeliverySqs' },
  );
  const { Attributes } = await runtime.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: runtime.queues.webhookQueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const deliver = createDeliverer(runtime.deps);
  let poller: ReturnType<typeof startDeliveryPoller> | null = null;
  const startPoller = () => startDeliveryPoller(runtime.deps, runtime.sqs, Attributes?.QueueArn ?? '', deliver);
  try {
    // As many applications as the destinations take (an application has at most DESTINATIONS_PER_APPLICATION).
    const apps: string[] = [];
    for (let i = 0; i < DESTINATIONS; i++) {
      if (i % DESTINATIONS_PER_APPLICATION === 0) {
        const { app } = await createApp(
          runtime.store,
          { groupId: 'demo-group', name: `Delivery bench ${i}`, scopes: ['bevq:read'] },
          Date.now(),
        );
        apps.push(app.clientId);
      }
      const url = `https://hooks.example.test:${new URL(receiver.url).port}/d/${i}`;
      const created = await addDestination(runtime.deps, { clientId: apps.at(-1)!, name: `load-${i}`, url, locationIds: ['london-soho'] });
      secrets.set(new URL(url).pathname, created.signingSecret);
    }
    const publish = (price: number, locationId = 'london-soho') =>
      publishMenu(runtime.deps, { groupId: 'demo-group', locationId, menu: sampleMenu({ price }) });

    // One delivery alone first (a destination of its own location): its sequential round trips, no other call in flight to hide them.
    const single = `https://hooks.example.test:${new URL(receiver.url).port}/single`;
    // An application of its own: the load's takes as many destinations as an application may have.
    const { app: aloneApp } = await createApp(
      runtime.store,
      { groupId: 'demo-group', name: 'Delivery bench, alone', scopes: ['bevq:read'] },
      Date.now(),
    );
    const alone = await addDestination(runtime.deps, {
      clientId: aloneApp.clientId,
      name: 'alone',
      url: single,
      locationIds: ['nyc-midtown'],
    });
    secrets.set('/single', alone.signingSecret);
    await publish(1, 'nyc-midtown');
    const tripsBefore = metered.trips;
    poller = startPoller();
    while (receiver.received.length < 1) await new Promise((r) => setTimeout(r, 20));
    await poller.stop();
    const tripsPerDelivery = metered.trips - tripsBefore;

    // Then the load: every publish queued first, so the deliverer's phase is measured alone.
    for (let p = 0; p < PUBLISHES; p++) await publish(2 + p);
    const before = { byKey: new Map(metered.byKey), sqs: sqsRequests, answered: receiver.received.length, logBytes };
    const deliveries = PUBLISHES * DESTINATIONS;
    const start = Date.now();
    const cpu = process.cpuUsage();
    poller = startPoller();
    // Every delivery's first attempt answered (the 1 % retried come back after their 30 s backoff, in or after the window).
    while (receiver.received.length - before.answered < deliveries && Date.now() < start + DEADLINE_MS) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (Date.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    await poller.stop();
    poller = null;
    const done = receiver.received.slice(before.answered);
    // Per attempt, by the model's key names: a delivery's own record, one destination, one application.
    const keys: DeliveryRun['keys'] = {};
    for (const [key, load] of metered.byKey) {
      const was = before.byKey.get(key) ?? { readUnits: 0, writeUnits: 0 };
      const sum = keys[keyName(key)] ?? { readUnits: 0, writeUnits: 0 };
      keys[keyName(key)] = {
        audience: audienceOf(key),
        readUnits: sum.readUnits + (load.readUnits - was.readUnits) / done.length,
        writeUnits: sum.writeUnits + (load.writeUnits - was.writeUnits) / done.length,
      };
    }
    return {
      concurrency: STAGE_TABLE.dev.delivererConcurrency,
      deliveries,
      answered: done.length,
      failed: done.filter((r) => typeof r.answer === 'object' && r.answer.status >= 500).length,
      seconds,
      cpuMs: (used.user + used.system) / 1000 / done.length,
      keys,
      sqsRequests: (sqsRequests - before.sqs) / done.length,
      trips: tripsPerDelivery,
      logBytes: (logBytes - before.logBytes) / done.length,
      sentBytes: done.reduce((sum, r) => sum + requestBytes(r), 0) / done.length,
    };
  } finally {
    process.stdout.write = stdoutWrite;
    await poller?.stop();
    await receiver.stop();
    await runtime.stop();
  }
}

if (process.env.BENCH_DELIVERY_CHILD === '1') process.stdout.write(`${JSON.stringify(await run())}\n`);
