import { withOutcome } from '../fixtures/delivery-record.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DELIVERY_POLICY, scaledTimings } from '#lambdas/webhooks/delivery-policy';
import { holdKeys } from '#lambdas/webhooks/holds';
import { addDestination, removeDestination, sendTest, showDestination } from '#lambdas/webhooks/destination-operations';
import { deliveryHistory } from '#lambdas/webhooks/delivery-history';
import { listDeadLetters } from '#lambdas/webhooks/dead-letter-operations';
import { deliveryIdOf } from '#lambdas/webhooks/messages';
import { createSweeper } from '#lambdas/upkeep/upkeep';
import { RELEASE_PAGE } from '#lambdas/webhooks/pause';
import { createMetrics, Logger } from '#platform/observability';
import { lambdaContext } from '#local/gateway';
import type { LocalRuntime } from '#local/runtime';
import { publishFor } from '../fixtures/menu-event.js';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, manualClock, newApp, scanTable, startTestRuntime } from '../support/runtime.js';

/**
 * A destination that keeps failing is paused as a whole: its new deliveries
 * are recorded and held, not queued, until an attempt shows it healthy again
 * (a probe, a test, a redrive); only probes go out meanwhile. Those held past
 * the hold bound end FAILED with hold_expired (contract 3 keeps DEAD_LETTER
 * for the fifth retryable failure): in the history, counted and logged.
 */
const timings = scaledTimings(SEQUENCE_SCALE);
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
    config: { webhookAllowLoopback: true, webhookTimeScale: SEQUENCE_SCALE },
    // The tests run the sweeper themselves, at the injected clock's moments; a scheduled run would race them.
    sweepEveryMs: 3_600_000,
  });
  receiver = await startReceiver({ secret: (path) => secrets.get(path) ?? '', behave: () => answer });
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
});

/** A destination of its own at the receiver, covering the test location. */
async function destination(name: string): Promise<string> {
  const app = await newApp(runtime, { scopes: ['bevq:read'] });
  const path = `/hook/${secrets.size}`;
  const url = new URL(receiver.url);
  url.pathname = path;
  const created = await addDestination(runtime.deps, { clientId: app.clientId, name, url: url.href, locationIds: [LOCATION] });
  secrets.set(path, created.signingSecret);
  const id = created.destination.destinationId;
  paths.set(id, path);
  return id;
}

/** A destination of its own, paused by as many failed attempts as the policy allows before a pause. */
async function pausedDestination(): Promise<string> {
  const id = await destination('Often down');
  for (let i = 0; i < DELIVERY_POLICY.pauseAfterFailures; i++) {
    await runtime.store.destinations.recordAttempt(id, false, new Date(clock.now()).toISOString());
  }
  expect((await showDestination(runtime.deps, id)).destination).toMatchObject({ health: 'FAILING', paused: true });
  return id;
}

const publish = (destinationId: string) => publishFor(runtime.deps, destinationId, LOCATION, price++);

const paths = new Map<string, string>();
/** The requests one destination's path received for an event. */
const heard = ({ eventId }: { eventId: string }, destinationId: string) =>
  receiver.received.filter((r) => r.body?.eventId === eventId && r.path === paths.get(destinationId));
const held = (destinationId: string) => runtime.store.holds.oldest(destinationId, 1000);
const heldIds = async (destinationId: string) => (await held(destinationId)).map((h) => h.deliveryId).sort();

/** The sweeper's handler as its schedule runs it, with metrics on: what it writes to stdout (logs and EMF) as JSON lines. */
async function sweepLines(): Promise<Record<string, any>[]> {
  const previous = process.env.METRICS_DISABLED;
  process.env.METRICS_DISABLED = 'false';
  const deps = { ...runtime.deps, logger: new Logger({ serviceName: 'customer-api', logLevel: 'INFO' }), metrics: createMetrics('local') };
  if (previous === undefined) delete process.env.METRICS_DISABLED;
  else process.env.METRICS_DISABLED = previous;
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await createSweeper(deps)(undefined, lambdaContext('webhook-sweeper', 'pause-test'));
  } finally {
    write.mockRestore();
  }
  return chunks
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

beforeEach(() => {
  answer = 200;
});
afterEach(async () => {
  // Each test's destination goes: later publishes reach only the next test's.
  for (const id of paths.keys()) await removeDestination(runtime.deps, id).catch(() => undefined);
});

describe(`pausing a failing destination (${ENGINE_NAME})`, () => {
  it('while paused its new deliveries are recorded and held, never sent; a success (here a test) sends them all', async () => {
    const id = await pausedDestination();
    // A healthy destination of the same location gets each event from the same fan-out: its delivery must arrive first.
    const healthy = await destination('Always up');
    const events = [await publish(id), await publish(id), await publish(id)];
    for (const { deliveryId } of events) expect((await runtime.store.deliveries.get(deliveryId))?.status).toBe('PENDING');
    expect(await heldIds(id)).toEqual(events.map((e) => e.deliveryId).sort());
    for (const e of events) await waitForStatus(runtime, deliveryIdOf(e.eventId, healthy), ['SUCCEEDED']);
    for (const e of events) expect(heard(e, id)).toEqual([]);
    for (const e of events)
      expect(await runtime.store.deliveries.get(e.deliveryId)).toMatchObject({ status: 'PENDING', attempts: 0, carrier: null });
    await removeDestination(runtime.deps, healthy);

    // A test delivery is not held: its success ends the pause, and the held deliveries follow.
    const test = await sendTest(runtime.deps, id, LOCATION);
    await waitForStatus(runtime, test.deliveryId, ['SUCCEEDED']);
    for (const e of events) {
      // Their attempts start at the release (0 before it, above); on a loaded machine one may time out and be retried.
      expect((await waitForStatus(runtime, e.deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).status).toBe('SUCCEEDED');
      expect(heard(e, id).filter((r) => r.verified).length).toBeGreaterThanOrEqual(1);
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
    // The first probe is due a probe interval after the pause began: a sweep before it sends nothing (a probe leaves the held list).
    clock.advance(timings.probeEveryMs - 1);
    await runtime.sweep();
    expect(await heldIds(id)).toEqual([first.deliveryId, second.deliveryId].sort());
    clock.advance(1);
    await runtime.sweep();
    expect(await waitForStatus(runtime, first.deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED' });
    expect(await waitForStatus(runtime, second.deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({ status: 'SUCCEEDED' });
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
    expect(heard(probe!, id).length).toBeGreaterThanOrEqual(1);
    // The probe was heard, the rest not: only probes go out.
    expect(heard(rest!, id)).toEqual([]);
    // Still within the interval: no second probe, the rest stays held.
    await runtime.sweep();
    expect(await heldIds(id)).toEqual([rest!.deliveryId]);
    // A marker that stays goes to the back of its shard, so a bounded sweep reaches every paused destination in turn.
    const marker = (await scanTable(runtime)).find((i) => i.PK === holdKeys.marker(id).PK);
    expect(marker?.GSI1SK).toBe(`${new Date(clock.now()).toISOString()}#${id}`);
    expect((await showDestination(runtime.deps, id)).destination).toMatchObject({ health: 'FAILING', paused: true });
  });

  it('held past the hold bound: FAILED hold_expired with no attempt, in the history, counted and logged, never a dead letter', async () => {
    const id = await pausedDestination();
    // An older held delivery takes the probes (always the oldest held), so the one under test stays held to the bound.
    const older = await publish(id);
    clock.advance(1);
    const event = await publish(id);
    const { deliveryId } = event;
    answer = 503;
    clock.advance(timings.retrySpanMs - 3);
    await runtime.sweep();
    expect(await heldIds(id)).toEqual([deliveryId]);
    await waitForStatus(runtime, older.deliveryId, ['RETRY_PENDING', 'DEAD_LETTER']);

    // At the bound less a millisecond it is still held (and no probe is due); at the bound the sweeper ends it.
    clock.advance(2);
    await runtime.sweep();
    expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(await heldIds(id)).toEqual([deliveryId]);
    clock.advance(1);
    const lines = await sweepLines();

    const expired = (await runtime.store.deliveries.get(deliveryId))!;
    expect(withOutcome(expired)).toMatchObject({
      status: 'FAILED',
      lastErrorCode: 'hold_expired',
      attempts: 0,
      lastAttemptAt: null,
      deadLetterReason: null,
      completedAt: new Date(clock.now()).toISOString(),
    });
    expect(await heldIds(id)).toEqual([]);
    // Ops: a warning with the safe code, and the DeliveryFailed count, from the sweeper's own output.
    expect(lines.filter((l) => l.message === 'webhook hold expired')).toEqual([
      expect.objectContaining({ level: 'WARN', deliveryId, destinationId: id, status: 'FAILED', code: 'hold_expired' }),
    ]);
    expect(lines.filter((l) => l._aws).reduce((n, l) => n + (l.DeliveryFailed ?? 0), 0)).toBe(1);
    // The destination's history shows it with that code (the console's and the admin API's list, and destinations show).
    const history = await deliveryHistory(runtime.deps, id, { status: 'FAILED' });
    expect(history.deliveries.find((d) => d.deliveryId === deliveryId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'hold_expired',
      attempts: 0,
    });
    expect((await showDestination(runtime.deps, id)).recentDeliveries.find((d) => d.deliveryId === deliveryId)).toMatchObject({
      errorCode: 'hold_expired',
    });
    // Not a dead letter: nothing listed, nothing in the DLQ to redrive.
    expect((await listDeadLetters(runtime.deps, { limit: 1000 })).deadLetters.map((d) => d.deliveryId)).not.toContain(deliveryId);

    // A success now releases what is still held, never what has ended: a test goes out and is heard, the ended one is not.
    answer = 200;
    const test = await sendTest(runtime.deps, id, LOCATION);
    await waitForStatus(runtime, test.deliveryId, ['SUCCEEDED']);
    expect((await showDestination(runtime.deps, id)).destination).toMatchObject({ paused: false });
    expect(heard(event, id)).toEqual([]);
    expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({ status: 'FAILED', attempts: 0 });
  });

  it(`releases what was held in pages of ${RELEASE_PAGE}, each destination's own`, async () => {
    const id = await pausedDestination();
    const events: { eventId: string; deliveryId: string }[] = [];
    for (let i = 0; i < RELEASE_PAGE + 5; i++) events.push(await publish(id));
    expect(await held(id)).toHaveLength(RELEASE_PAGE + 5);
    const test = await sendTest(runtime.deps, id, LOCATION);
    await waitForStatus(runtime, test.deliveryId, ['SUCCEEDED']);
    for (const { deliveryId } of events)
      expect((await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).status).toBe('SUCCEEDED');
    expect(await held(id)).toEqual([]);
  });
});
