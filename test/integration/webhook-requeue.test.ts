import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand, PurgeQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DELIVERY_POLICY, scaledTimings } from '#lambdas/webhooks/delivery-policy';
import { deliveryKeys, newDelivery, type Delivery } from '#lambdas/webhooks/deliveries';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { createDeliverer } from '#lambdas/webhooks/deliver';
import { parseDeliveryMessage } from '#lambdas/webhooks/messages';
import { REQUEUE_PAGE, requeueVanished } from '#lambdas/webhooks/requeue';
import { startDeliveryPoller, type LocalRuntime } from '#local/runtime';
import { publishFor } from '../fixtures/menu-event.js';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver, type Received } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, manualClock, newApp, scanTable, startTestRuntime } from '../support/runtime.js';
import { eventually } from '../support/eventually.js';

/**
 * A delivery whose message vanished (purged, or past the queue's retention) is found by the sweeper through the
 * due index once it has waited past the requeue bound, queued again with a message that becomes its carrier, and
 * delivered exactly once; a delivery inside the bound, one held for a paused destination and one that ended are
 * left alone. No deliverer polls until a test starts one, so a message can be made to vanish before it is received;
 * each test has a runtime of its own (a stopped poller's long poll may still take a message for a while).
 */
const SCALE = 0.02;
const timings = scaledTimings(SCALE);
const LOCATION = 'london-soho';
let clock = manualClock();
let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let queueArn: string;
const secrets = new Map<string, string>();
let answer: (request: Received) => number = () => 200;
let price = 500;
let poller: { stop(): Promise<void> } | null = null;

beforeAll(async () => {
  receiver = await startReceiver({ secret: (path) => secrets.get(path) ?? '', behave: (_n, request) => answer(request) });
});
beforeEach(async () => {
  clock = manualClock();
  runtime = await startTestRuntime({
    clock,
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: SCALE },
    deliverWebhooks: false,
    // The tests run the sweeper themselves, at the injected clock's moments.
    sweepEveryMs: 3_600_000,
  });
  const { Attributes } = await runtime.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: runtime.queues.webhookQueueUrl, AttributeNames: ['QueueArn'] }),
  );
  queueArn = Attributes!.QueueArn!;
});
afterEach(async () => {
  await poller?.stop();
  poller = null;
  answer = () => 200;
  await runtime?.stop();
});
afterAll(async () => {
  await receiver?.stop();
});

/** The deliverer's event source, as the runtime would run it, from now on. */
function startDelivering(): void {
  const deps = runtime.functionDeps('webhook-deliverer');
  poller = startDeliveryPoller(deps, runtime.sqs, queueArn, createDeliverer(deps));
}

async function destination(): Promise<string> {
  const app = await newApp(runtime, { scopes: ['bevq:read'] });
  const path = `/requeue/${secrets.size}`;
  const url = new URL(receiver.url);
  url.pathname = path;
  const created = await addDestination(runtime.deps, {
    clientId: app.clientId,
    name: path,
    url: url.href,
    locationIds: [LOCATION],
  });
  secrets.set(path, created.signingSecret);
  return created.destination.destinationId;
}

const publish = (destinationId: string) => publishFor(runtime.deps, destinationId, LOCATION, price++);

/** The messages in the webhook queue now, received and handed back (a receive counts, as SQS counts it). */
async function queued(): Promise<{ deliveryId: string; requeue: number; messageId: string }[]> {
  const found: { deliveryId: string; requeue: number; messageId: string }[] = [];
  const handles: string[] = [];
  for (;;) {
    const { Messages = [] } = await runtime.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: runtime.queues.webhookQueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }),
    );
    if (Messages.length === 0) break;
    for (const m of Messages) {
      handles.push(m.ReceiptHandle!);
      const message = parseDeliveryMessage(m.Body ?? '');
      if (message) found.push({ deliveryId: message.deliveryId, requeue: message.requeue, messageId: m.MessageId! });
    }
  }
  for (const handle of handles) {
    await runtime.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: runtime.queues.webhookQueueUrl, ReceiptHandle: handle, VisibilityTimeout: 0 }),
    );
  }
  return found;
}

const purge = () => runtime.sqs.send(new PurgeQueueCommand({ QueueUrl: runtime.queues.webhookQueueUrl }));
const heardFor = (eventId: string) => receiver.received.filter((r) => r.body?.eventId === eventId);
const indexed = async (deliveryId: string) =>
  (await scanTable(runtime)).find((i) => i.PK === deliveryKeys.delivery(deliveryId).PK && i.GSI2PK !== undefined);

describe(`a delivery whose message vanished (${ENGINE_NAME})`, () => {
  it('is left alone within the bound, queued again past it, and delivered exactly once', async () => {
    const id = await destination();
    const { eventId, deliveryId } = await publish(id);
    expect(await queued()).toEqual([expect.objectContaining({ deliveryId, requeue: 0 })]);
    await purge();
    expect(await indexed(deliveryId)).toMatchObject({ GSI2PK: deliveryKeys.due.shard(deliveryId) });

    // One millisecond inside the bound: nothing sent, nothing written.
    clock.advance(timings.requeueAfterMs - 1);
    expect(await requeueVanished(runtime.deps)).toBe(0);
    expect(await queued()).toEqual([]);
    expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({ status: 'PENDING', requeues: 0, carrier: null, version: 0 });

    // At the bound: a new message carries it.
    clock.advance(1);
    expect(await requeueVanished(runtime.deps)).toBe(1);
    const [message] = await queued();
    expect(message).toMatchObject({ deliveryId, requeue: 1 });
    expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({
      status: 'PENDING',
      attempts: 0,
      requeues: 1,
      carrier: message!.messageId,
      updatedAt: new Date(clock.now()).toISOString(),
    });
    // Requeued just now: the next sweep leaves it for another bound.
    expect(await requeueVanished(runtime.deps)).toBe(0);

    startDelivering();
    expect(await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 1,
    });
    expect(heardFor(eventId).filter((r) => r.verified)).toHaveLength(1);
    // Ended: out of the index, and never queued again however long it waits.
    expect(await indexed(deliveryId)).toBeUndefined();
    clock.advance(10 * timings.requeueAfterMs);
    expect(await requeueVanished(runtime.deps)).toBe(0);
  });

  it('waiting on its backoff when its message was deleted: queued again, the attempts go on where they were', async () => {
    const id = await destination();
    // The event's first request fails retryably, the next succeeds.
    answer = (request) => (heardFor(String(request.body?.eventId)).length === 1 ? 503 : 200);
    const { eventId, deliveryId } = await publish(id);
    startDelivering();
    const retrying = await waitForStatus(runtime, deliveryId, ['RETRY_PENDING']);
    await poller!.stop();
    poller = null;
    // The message waits out its backoff in flight; gone, as if past the queue's retention.
    await purge();
    clock.advance(timings.requeueAfterMs);
    expect(await requeueVanished(runtime.deps)).toBe(1);
    expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({
      status: 'RETRY_PENDING',
      attempts: 1,
      requeues: 1,
      backoffHistory: retrying.backoffHistory,
    });
    startDelivering();
    expect(await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 2,
    });
    const answered = heardFor(eventId).filter((r) => r.verified);
    expect(answered).toHaveLength(2);
    expect(answered.map((r) => r.answer)).toEqual([503, 200]);
  });

  it('makes the new message the carrier: the old one, turning up late, is the duplicate', async () => {
    const id = await destination();
    const { eventId, deliveryId } = await publish(id);
    // The old message is held out of sight (in flight, past the bound), not deleted.
    const { Messages = [] } = await runtime.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: runtime.queues.webhookQueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 3_600 }),
    );
    expect(Messages).toHaveLength(1);
    clock.advance(timings.requeueAfterMs);
    expect(await requeueVanished(runtime.deps)).toBe(1);
    const carrier = (await runtime.store.deliveries.get(deliveryId))!.carrier;
    expect(carrier).not.toBe(Messages[0]!.MessageId);
    // Both in the queue when the deliverer starts: the old one first.
    await runtime.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: runtime.queues.webhookQueueUrl,
        ReceiptHandle: Messages[0]!.ReceiptHandle!,
        VisibilityTimeout: 0,
      }),
    );
    startDelivering();
    expect(await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 1,
      carrier,
    });
    // Both messages are consumed (the old one as a duplicate), and the receiver heard the event once.
    await waitUntil(async () => (await queueDepth()) === 0);
    expect(heardFor(eventId)).toHaveLength(1);
  });

  it("leaves a paused destination's held delivery to the pause, whatever its age", async () => {
    const id = await destination();
    for (let i = 0; i < DELIVERY_POLICY.pauseAfterFailures; i++) {
      await runtime.store.destinations.recordAttempt(id, false, new Date(clock.now()).toISOString());
    }
    const { deliveryId } = await publish(id);
    expect((await runtime.store.holds.oldest(id, 10)).map((h) => h.deliveryId)).toEqual([deliveryId]);
    clock.advance(2 * timings.requeueAfterMs);
    expect(await requeueVanished(runtime.deps)).toBe(0);
    expect(await queued()).toEqual([]);
    expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({ status: 'PENDING', requeues: 0, carrier: null });
  });

  it('never queues one that ended: FAILED and DEAD_LETTER leave the index with the write that ends them', async () => {
    const id = await destination();
    const failed = await publish(id);
    const dead = await publish(id);
    answer = (request) => (request.body?.eventId === failed.eventId ? 410 : 503);
    startDelivering();
    await waitForStatus(runtime, failed.deliveryId, ['FAILED']);
    // Each retry's backoff passes on the scaled clock; the record's nominal times do not matter here.
    await waitForStatus(runtime, dead.deliveryId, ['DEAD_LETTER']);
    await poller!.stop();
    poller = null;
    await purge();
    for (const { deliveryId } of [failed, dead]) expect(await indexed(deliveryId)).toBeUndefined();
    clock.advance(10 * timings.requeueAfterMs);
    expect(await requeueVanished(runtime.deps)).toBe(0);
    expect(await queued()).toEqual([]);
  });

  it(`reads a bounded page of ${REQUEUE_PAGE} a partition per sweep, going on from where the last one stopped`, async () => {
    const id = await destination();
    const destination_ = (await runtime.store.destinations.get(id))!;
    // Records of one due partition (ids ending in the same digit), as a publish writes them, whose messages are gone.
    const event = {
      eventId: `evt_${'c'.repeat(32)}`,
      eventType: 'bevq.menu.updated' as const,
      occurredAt: '',
      groupId: 'demo-group',
      locationId: LOCATION,
      revision: 'r',
    };
    const records: Delivery[] = Array.from({ length: REQUEUE_PAGE + 5 }, (_, i) => ({
      ...newDelivery(event, destination_, clock.now() + i),
      deliveryId: `dlv_${i.toString(16).padStart(31, '0')}7`,
    }));
    for (const d of records) expect(await runtime.store.deliveries.create(d)).toBe(true);
    clock.advance(timings.requeueAfterMs + REQUEUE_PAGE + 5);
    expect(await requeueVanished(runtime.deps)).toBe(REQUEUE_PAGE);
    // The next sweep goes on from the cursor: the rest; the one after from the oldest, where nothing is due any more.
    expect(await requeueVanished(runtime.deps)).toBe(5);
    expect(await requeueVanished(runtime.deps)).toBe(0);
    const requeued = await Promise.all(records.map((d) => runtime.store.deliveries.get(d.deliveryId)));
    expect(requeued.every((d) => d?.requeues === 1)).toBe(true);
    expect(new Set((await queued()).map((m) => m.deliveryId))).toEqual(new Set(records.map((d) => d.deliveryId)));
  });
});

async function queueDepth(): Promise<number> {
  const { Attributes = {} } = await runtime.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: runtime.queues.webhookQueueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  await eventually(
    async () => ((await check()) ? true : undefined),
    () => 'the awaited state',
  );
}
