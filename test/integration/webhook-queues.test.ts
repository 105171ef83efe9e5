import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { newDelivery } from '#lambdas/webhooks/deliveries';
import { deliveryIdOf, menuEventId } from '#lambdas/webhooks/messages';
import { MENU_UPDATED } from '#lambdas/webhooks/events';
import type { LocalRuntime } from '#local/runtime';
import { eventually } from '../support/eventually.js';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, manualClock, newApp, startTestRuntime } from '../support/runtime.js';

/**
 * Each webhook queue carries its own kind and its consumer runs no other: a delivery's message on the fan-out
 * queue, or a fan-out page's on the delivery queue, is refused (never run) and reaches that queue's DLQ within
 * its redrive policy's receives; the same message on its own queue runs.
 */
const LOCATION = 'london-soho';
const clock = manualClock();
let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets = new Map<string, string>();
const destinations: string[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({
    clock,
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: 0.02 },
    // The DLQs are read here: no sweeper pass may take their messages meanwhile.
    sweepEveryMs: 3_600_000,
  });
  receiver = await startReceiver({ secret: (path) => secrets.get(path) ?? '' });
  // Two destinations of the group at the receiver, covering the location: a page can start after the first.
  const app = await newApp(runtime, { scopes: ['bevq:read'] });
  for (const name of ['first', 'second']) {
    const url = new URL(receiver.url);
    url.pathname = `/queues/${name}`;
    const created = await addDestination(runtime.deps, { clientId: app.clientId, name, url: url.href, locationIds: [LOCATION] });
    secrets.set(url.pathname, created.signingSecret);
    destinations.push(created.destination.destinationId);
  }
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
});

const send = (QueueUrl: string, body: string) => runtime.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));

/** Waits until `body` sits in the DLQ at `QueueUrl` (looked at, left there). */
async function inDlq(QueueUrl: string, body: string): Promise<void> {
  await eventually(
    async () => {
      const { Messages = [] } = await runtime.sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
      );
      return Messages.some((m) => m.Body === body) ? true : undefined;
    },
    () => `the message in ${QueueUrl}`,
  );
}

describe(`each webhook queue runs its own kind only (${ENGINE_NAME})`, () => {
  it("refuses a delivery's message on the fan-out queue: dead-lettered there, never attempted; on the delivery queue it goes out", async () => {
    const destination = (await runtime.store.destinations.get(destinations[0]!))!;
    const event = {
      eventId: menuEventId('demo-group', LOCATION, 'a'.repeat(32)),
      eventType: MENU_UPDATED,
      occurredAt: new Date(clock.now()).toISOString(),
      groupId: 'demo-group',
      locationId: LOCATION,
      revision: 'a'.repeat(32),
    };
    const delivery = newDelivery(event, destination, clock.now());
    await runtime.store.deliveries.create(delivery);
    const body = JSON.stringify({
      deliveryId: delivery.deliveryId,
      redrive: 0,
      requeue: 0,
      destinationId: destination.destinationId,
      clientId: destination.clientId,
    });

    await send(runtime.queues.fanOutQueueUrl, body);
    await inDlq(runtime.queues.fanOutDlqUrl, body);
    expect(await runtime.store.deliveries.get(delivery.deliveryId)).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(receiver.received.filter((r) => r.body?.eventId === event.eventId)).toEqual([]);

    await send(runtime.queues.webhookQueueUrl, body);
    await waitForStatus(runtime, delivery.deliveryId, ['SUCCEEDED']);
    expect(receiver.received.filter((r) => r.body?.eventId === event.eventId && r.verified)).toHaveLength(1);
  });

  it("refuses a fan-out page's message on the delivery queue: dead-lettered there, the page not run; on the fan-out queue it runs", async () => {
    const revision = 'b'.repeat(32);
    const event = {
      eventId: menuEventId('demo-group', LOCATION, revision),
      eventType: MENU_UPDATED,
      occurredAt: new Date(clock.now()).toISOString(),
      groupId: 'demo-group',
      locationId: LOCATION,
      revision,
    };
    // The fan-out stands after its first page (the group's first destination), waiting on the page that starts after it.
    const { lastKey } = await runtime.store.destinations.page({ scope: { groupId: 'demo-group' }, limit: 1 });
    const cursor = JSON.stringify(lastKey);
    const [first] = (await runtime.store.destinations.page({ scope: { groupId: 'demo-group' }, limit: 1 })).destinations;
    await runtime.store.outbox.add(event, true);
    expect(await runtime.store.outbox.advance(event.eventId, null, cursor, event.occurredAt)).toBe(true);
    const body = JSON.stringify({ dispatch: event.eventId, cursor });
    const recordsAfterFirst = async () => {
      const rest = destinations.filter((d) => d !== first!.destinationId);
      return (await runtime.store.deliveries.many(rest.map((d) => deliveryIdOf(event.eventId, d)))).filter((d) => d !== null);
    };

    await send(runtime.queues.webhookQueueUrl, body);
    await inDlq(runtime.queues.webhookDlqUrl, body);
    expect(await runtime.store.outbox.get(event.eventId)).toMatchObject({ cursor });
    expect(await recordsAfterFirst()).toEqual([]);

    await send(runtime.queues.fanOutQueueUrl, body);
    await eventually(
      async () => ((await runtime.store.outbox.get(event.eventId)) === null ? true : undefined),
      () => 'the page to run and finish the fan-out',
    );
    expect((await recordsAfterFirst()).length).toBeGreaterThan(0);
    for (const d of await recordsAfterFirst()) await waitForStatus(runtime, d.deliveryId, ['SUCCEEDED']);
  });
});
