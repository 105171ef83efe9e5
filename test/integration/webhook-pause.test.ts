import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DELIVERY_POLICY, scaledTimings } from '#contract/delivery-policy';
import { holdKeys } from '#data/holds';
import { addDestination, removeDestination, sendTest, showDestination } from '#lambdas/admin/destinations';
import { listDeadLetters, redrive } from '#lambdas/admin/dlq';
import { deliveryIdOf } from '#lambdas/webhooks/events';
import { publishMenu } from '#lambdas/webhooks/menu-publish';
import { RELEASE_PAGE } from '#lambdas/webhooks/pause';
import type { LocalRuntime } from '#lib/local/runtime';
import { sampleMenu } from '#lib/local/demo-menu';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, manualClock, newApp, scanTable, startTestRuntime } from '../support/runtime.js';

/**
 * A destination that keeps failing is paused as a whole: its new deliveries
 * are recorded and held, not queued, until an attempt shows it healthy again
 * (a probe, a test, a redrive); those held as long as their attempts could
 * have taken are dead-lettered, listed and redrivable.
 */
const SCALE = 0.02;
const timings = scaledTimings(SCALE);
const LOCATION = 'london-soho';
const clock = manualClock();
let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Each test's destination has a path and a secret of its own at the one receiver. */
const secrets = new Map<string, string>();
let answer = 200;
let price = 100;

beforeAll(async () => {
  runtime = await startTestRuntime({
    clock,
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: SCALE },
  });
  receiver = await startReceiver({ secret: (path) => secrets.get(path) ?? '', behave: () => answer });
}, 30_000);
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
});

/** A destination of its own, paused by as many failed attempts as the policy allows before a pause. */
async function pausedDestination(): Promise<string> {
  const app = await newApp(runtime, { scopes: ['bevq:read'] });
  const path = `/hook/${secrets.size}`;
  const url = new URL(receiver.url);
  url.pathname = path;
  const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Often down', url: url.href, locationIds: [LOCATION] });
  secrets.set(path, created.signingSecret);
  const id = created.destination.destinationId;
  paths.set(id, path);
  for (let i = 0; i < DELIVERY_POLICY.pauseAfterFailures; i++) {
    await runtime.store.destinations.recordAttempt(id, false, new Date(clock.now()).toISOString());
  }
  expect((await showDestination(runtime.deps, id)).destination).toMatchObject({ health: 'FAILING', paused: true });
  return id;
}

async function publish(destinationId: string): Promise<{ eventId: string; deliveryId: string }> {
  const { eventId } = await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: LOCATION, menu: sampleMenu({ price: price++ }) });
  return { eventId: eventId!, deliveryId: deliveryIdOf(eventId!, destinationId) };
}

const paths = new Map<string, string>();
/** The requests one destination's path received for an event. */
const heard = ({ eventId }: { eventId: string }, destinationId: string) =>
  receiver.received.filter((r) => r.body?.eventId === eventId && r.path === paths.get(destinationId));
const held = (destinationId: string) => runtime.store.holds.oldest(destinationId, 1000);
const settled = () => new Promise((r) => setTimeout(r, timings.attemptTimeoutMs));

beforeEach(() => {
  answer = 200;
});
afterEach(async () => {
  // Each test's destination goes: later publishes reach only the next test's.
  for (const id of paths.keys()) await removeDestination(runtime.deps, id).catch(() => undefined);
});

describe(`pausing a failing destination (${ENGINE_NAME})`, { timeout: 60_000 }, () => {
  it('while paused its new deliveries are recorded and held, never sent; a success (here a test) sends them all', async () => {
    const id = await pausedDestination();
    const events = [await publish(id), await publish(id), await publish(id)];
    for (const { deliveryId } of events) expect((await runtime.store.deliveries.get(deliveryId))?.status).toBe('PENDING');
    expect((await held(id)).map((h) => h.deliveryId).sort()).toEqual(events.map((e) => e.deliveryId).sort());
    await settled();
    for (const e of events) expect(heard(e, id)).toEqual([]);

    // A test delivery is not held: its success ends the pause, and the held deliveries follow.
    const test = await sendTest(runtime.deps, id, LOCATION);
    await waitForStatus(runtime, test.deliveryId, ['SUCCEEDED']);
    for (const e of events) {
      expect(await waitForStatus(runtime, e.deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
      expect(heard(e, id).filter((r) => r.verified)).toHaveLength(1);
    }
    expect(await held(id)).toEqual([]);
    expect((await showDestination(runtime.deps, id)).destination).toMatchObject({ health: 'HEALTHY', paused: false });
    // Nothing held and no longer paused: the sweeper drops the destination's marker.
    expect((await runtime.store.holds.paused(holdKeys.shard(id), 100)).map((m) => m.destinationId)).toContain(id);
    await runtime.sweep();
    expect((await runtime.store.holds.paused(holdKeys.shard(id), 100)).map((m) => m.destinationId)).not.toContain(id);
  });

  it('the sweeper probes with the oldest held delivery once per probe interval; its success releases the rest', async () => {
    const id = await pausedDestination();
    const [first, second] = [await publish(id), await publish(id)];
    // The first probe is due a probe interval after the pause began.
    await runtime.sweep();
    await settled();
    expect(heard(first!, id)).toEqual([]);
    clock.advance(timings.probeEveryMs);
    await runtime.sweep();
    expect(await waitForStatus(runtime, first!.deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED' });
    expect(await waitForStatus(runtime, second!.deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED' });
    expect(await held(id)).toEqual([]);
  });

  it('a probe that fails keeps the pause: only the probe was sent, the rest stay held', async () => {
    const id = await pausedDestination();
    const events = [await publish(id), await publish(id)];
    // The oldest held goes first (these two were held in the same millisecond: then by id).
    const [probe, rest] = (await held(id)).map((h) => events.find((e) => e.deliveryId === h.deliveryId)!);
    answer = 503;
    clock.advance(timings.probeEveryMs);
    await runtime.sweep();
    // Sent, and failing (its retries follow the policy, a backoff apart).
    expect((await waitForStatus(runtime, probe!.deliveryId, ['RETRY_PENDING', 'DEAD_LETTER'])).attempts).toBeGreaterThanOrEqual(1);
    // Still within the interval: no second probe.
    await runtime.sweep();
    await settled();
    expect(heard(rest!, id)).toEqual([]);
    expect((await held(id)).map((h) => h.deliveryId)).toEqual([rest!.deliveryId]);
    // A marker that stays goes to the back of its shard, so a bounded sweep reaches every paused destination in turn.
    const marker = (await scanTable(runtime)).find((i) => i.PK === holdKeys.marker(id).PK);
    expect(marker?.GSI1SK).toBe(`${new Date(clock.now()).toISOString()}#${id}`);
    expect((await showDestination(runtime.deps, id)).destination).toMatchObject({ health: 'FAILING', paused: true });
  });

  it('held as long as its attempts could have taken: dead-lettered (never sent), listed, and redrivable', async () => {
    const id = await pausedDestination();
    const event = await publish(id);
    const { deliveryId } = event;
    clock.advance(timings.retrySpanMs);
    answer = 503;
    await runtime.sweep();
    expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({ status: 'DEAD_LETTER', deadLetterReason: 'destination_paused', attempts: 0 });
    expect(heard(event, id)).toEqual([]);
    expect(await held(id)).toEqual([]);
    const listed = (await listDeadLetters(runtime.deps, { limit: 1000 })).deadLetters.find((d) => d.deliveryId === deliveryId);
    expect(listed).toMatchObject({ reason: 'destination_paused', attempts: 0, lastErrorCode: 'destination_paused' });

    // An operator's redrive sends it even while paused (it is a probe too).
    answer = 200;
    await redrive(runtime.deps, { deliveryId });
    expect(await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED', redrives: 1 });
    expect((await showDestination(runtime.deps, id)).destination).toMatchObject({ paused: false });
  });

  it(`releases what was held in pages of ${RELEASE_PAGE}, each destination's own`, async () => {
    const id = await pausedDestination();
    const events: { eventId: string; deliveryId: string }[] = [];
    for (let i = 0; i < RELEASE_PAGE + 5; i++) events.push(await publish(id));
    expect(await held(id)).toHaveLength(RELEASE_PAGE + 5);
    const test = await sendTest(runtime.deps, id, LOCATION);
    await waitForStatus(runtime, test.deliveryId, ['SUCCEEDED']);
    for (const { deliveryId } of events) expect((await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).status).toBe('SUCCEEDED');
    expect(await held(id)).toEqual([]);
  });
});
