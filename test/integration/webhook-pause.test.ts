import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDestination, removeDestination, sendTest } from '#lambdas/admin/destinations';
import { publishMenu } from '#lambdas/webhooks/menu-publish';
import { enqueueDeliveries } from '#lambdas/webhooks/queue';
import type { Delivery } from '#data/deliveries';
import { DELIVERY_POLICY } from '#contract/delivery-policy';
import type { LocalRuntime } from '#lib/local/runtime';
import { sampleMenu } from '#lib/local/demo-menu';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver, type Behaviour } from '../fixtures/webhook-receiver.js';
import { manualClock, newApp, scanTable, startTestRuntime } from '../support/runtime.js';

/**
 * A receiver that keeps failing pauses its destination: what follows waits
 * unqueued (nothing in flight for it), a probe now and then tests it, and
 * its recovery sends everything that waited. Real SQS engine, real HTTPS
 * receiver; the policy's waits scaled by 0.02; the probe's schedule follows
 * the runtime's clock, moved by hand.
 */
const SCALE = 0.02;
const clock = manualClock(Date.now());
let runtime: LocalRuntime;
const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'] });
let answer: Behaviour = 503;
let secret = '';
const receiver = await startReceiver({ secret: () => secret, behave: () => answer });

beforeAll(async () => {
  runtime = await startTestRuntime({ clock, resolver: dns.resolver, config: { webhookAllowLoopback: true, webhookTimeScale: SCALE } });
});
afterAll(async () => {
  await receiver.stop();
  await runtime?.stop();
});

const deliveriesOf = async (destinationId: string) =>
  (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('DELIVERY#') && i.destinationId === destinationId);
const inFlight = async () =>
  Number(
    (
      await runtime.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: runtime.queues.webhookQueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      )
    ).Attributes!.ApproximateNumberOfMessagesNotVisible,
  );
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  const last = await read();
  const shown = Array.isArray(last) ? last.map((d) => [d.status, d.attempts, d.heldSince ?? '-', d.eventType]) : last;
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(shown)}`);
}

describe('a destination that keeps failing', () => {
  it('is paused after the policy’s failures in a row; its deliveries then wait unqueued until a probe succeeds, then all are sent', async () => {
    const app = await newApp(runtime, { scopes: ['bevq:read'] });
    const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Dead', url: receiver.url, locationIds: ['london-soho'] });
    secret = created.signingSecret;
    const id = created.destination.destinationId;

    // One new revision per publish, one delivery each: as many as the failures that pause. Their messages go
    // out together, so every first attempt fails before any retry comes back, however slow the publishes.
    const publish = async (price: number, deps = runtime.deps) =>
      (await publishMenu(deps, { groupId: 'demo-group', locationId: 'london-soho', menu: sampleMenu({ price }) })).eventId!;
    const unsent = { ...runtime.deps, queue: { ...runtime.deps.queue, sendAll: async (b: readonly string[]) => b.map(() => 'unsent') } };
    for (let i = 0; i < DELIVERY_POLICY.pauseAfterFailures; i++) await publish(100 + i, unsent);
    await enqueueDeliveries(runtime.deps, (await deliveriesOf(id)).map((d) => ({ delivery: d as Delivery, redrive: 0 })));
    const paused = await until(() => runtime.store.destinations.get(id), (d) => d?.pausedSince !== undefined, 'the pause');
    expect(paused!.health).toBe('NOT_TESTED'); // the destination item is written only on the pause itself; health lives apart
    // Every message of the paused destination leaves the queue: retries coming back are held, not re-queued.
    await until(inFlight, (n) => n === 0, 'an empty queue');
    const held = await until(() => deliveriesOf(id), (ds) => ds.every((d) => d.heldSince), 'every delivery held');
    expect(held).toHaveLength(DELIVERY_POLICY.pauseAfterFailures);
    // Each failed at least once; none spent its attempts (a held delivery's retries wait with it).
    expect(held.every((d) => d.status === 'RETRY_PENDING' && d.attempts === 1)).toBe(true);
    const requestsBefore = receiver.received.length;

    // A new event for it is recorded held and never queued.
    let sent = 0;
    const counting = { ...runtime.deps, queue: { ...runtime.deps.queue, sendAll: (b: readonly string[]) => ((sent += b.length), runtime.deps.queue.sendAll(b)) } };
    const later = await publish(200, counting);
    expect(sent).toBe(0);
    expect((await deliveriesOf(id)).find((d) => d.eventId === later)).toMatchObject({ status: 'PENDING', attempts: 0, heldSince: expect.any(String) });
    const pauseItem = () => scanTable(runtime).then((items) => items.find((i) => i.PK === `PAUSE#${id}`));
    expect(await pauseItem()).toMatchObject({ probeSeconds: DELIVERY_POLICY.firstProbeSeconds });

    // Before the probe is due, a sweep sends nothing.
    await runtime.sweep();
    expect(receiver.received.length).toBe(requestsBefore);
    // A due probe that fails: one request, still paused, the next probe waits twice as long.
    clock.set(Date.parse((await pauseItem())!.probeAt));
    await runtime.sweep();
    await until(async () => receiver.received.length, (n) => n === requestsBefore + 1, 'the failed probe');
    await until(inFlight, (n) => n === 0, 'the probe held again');
    expect((await runtime.store.destinations.get(id))!.pausedSince).toBeDefined();
    expect(await pauseItem()).toMatchObject({ probeSeconds: 2 * DELIVERY_POLICY.firstProbeSeconds });

    // The receiver recovers: the next probe succeeds and resumes the destination; the sweep after it sends what waited.
    answer = 200;
    clock.set(Date.parse((await pauseItem())!.probeAt));
    await runtime.sweep();
    await until(() => runtime.store.destinations.get(id), (d) => d?.pausedSince === undefined, 'the resume');
    await runtime.sweep();
    const done = await until(() => deliveriesOf(id), (ds) => ds.every((d) => d.status === 'SUCCEEDED'), 'every delivery sent');
    expect(done).toHaveLength(DELIVERY_POLICY.pauseAfterFailures + 1);
    expect(done.every((d) => !d.heldSince)).toBe(true);
    // Each event reached the receiver; its pause item and markers are gone.
    const events = new Set(receiver.received.filter((r) => r.verified && r.answer === 200).map((r) => r.body.eventId));
    expect(events.size).toBe(DELIVERY_POLICY.pauseAfterFailures + 1);
    const left = await scanTable(runtime);
    expect(left.filter((i) => i.PK === `PAUSE#${id}` || i.PK === `HELD#${id}`)).toEqual([]);
    await removeDestination(runtime.deps, id);
  });

  it('lets a Send test through while paused, and its success resumes the destination', async () => {
    answer = 503;
    const app = await newApp(runtime, { scopes: ['bevq:read'] });
    const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Flaky', url: receiver.url, locationIds: ['nyc-midtown'] });
    secret = created.signingSecret;
    const id = created.destination.destinationId;
    for (let i = 0; i < DELIVERY_POLICY.pauseAfterFailures; i++) {
      const { deliveryId } = await sendTest(runtime.deps, id, 'nyc-midtown');
      await waitForStatus(runtime, deliveryId, ['RETRY_PENDING', 'FAILED', 'DEAD_LETTER']);
    }
    await until(() => runtime.store.destinations.get(id), (d) => d?.pausedSince !== undefined, 'the pause');
    answer = 200;
    const { deliveryId } = await sendTest(runtime.deps, id, 'nyc-midtown');
    expect((await waitForStatus(runtime, deliveryId, ['SUCCEEDED'])).status).toBe('SUCCEEDED');
    expect((await runtime.store.destinations.get(id))!.pausedSince).toBeUndefined();
    await removeDestination(runtime.deps, id);
  });
});
