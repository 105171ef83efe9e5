import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DISPATCH_PAGE, FAN_OUT_WRITES, continueDispatch, dispatchMenuEvent, writePace, type Pace } from '#lambdas/webhooks/fan-out';
import { parseDeliveryMessage, parseFanOutMessage } from '#lambdas/webhooks/messages';
import { writeMenu } from '#lambdas/webhooks/publish';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { storedDestination } from '../fixtures/stored-destination.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, manualClock, newApp, scanTable, startTestRuntime, watchingDynamo } from '../support/runtime.js';

/**
 * A fan-out's record creation kept within its write budget (FAN_OUT_WRITES): each page's records are created in
 * waves of conditional puts, each wave waiting its turn on the budget, observed on a clock the test keeps (no
 * timing is asserted); every record is created once and every message queued, and a fan-out cut mid-page
 * resumes from the outbox without a record created twice or a receiver hearing an event twice.
 */
const DESTINATIONS = DISPATCH_PAGE + 30;
const LOCATION = 'london-soho';
const secretOf = (path: string) => `secret-for-${path}`.padEnd(43, '.');

let clock = manualClock();
let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver({ secret: secretOf });
});
afterEach(async () => {
  await runtime?.stop();
});
afterAll(async () => {
  await receiver?.stop();
});

/** A runtime of its own with `count` destinations at the receiver, a path and a secret each. */
async function start(count: number, deliverWebhooks: boolean): Promise<void> {
  clock = manualClock();
  runtime = await startTestRuntime({
    clock,
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    // 1: the policy's own 10 s attempt; no wait here is scaled on purpose, and a loaded machine must not time an attempt
    // out and make a receiver hear an event twice.
    config: { webhookAllowLoopback: true, webhookTimeScale: 1 },
    deliverWebhooks,
    sweepEveryMs: 3_600_000,
  });
  const app = await newApp(runtime, { scopes: ['bevq:read'] });
  const at = new Date(clock.now()).toISOString();
  const port = new URL(receiver.url).port;
  await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const path = `/pace/${runtime.tableName}/${i}`;
      const destination = storedDestination(
        {
          destinationId: `dst_pace_${String(i).padStart(4, '0')}`,
          clientId: app.clientId,
          groupId: 'demo-group',
          url: `https://hooks.example.test:${port}${path}`,
          signingSecret: secretOf(path),
        },
        at,
      );
      return runtime.store.destinations.put(destination, { mustExist: false });
    }),
  );
}

/** Time the test keeps: a sleep moves it on at once, and is noted. */
function keptTime() {
  let now = 0;
  const sleeps: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (sleeps.push(ms), (now += ms)), sleeps };
}

const recordsOf = async (eventId: string) =>
  (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('DELIVERY#') && i.eventId === eventId);

/** Every message in a queue, received (nothing consumes them in that test). */
async function drainQueue(QueueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const { Messages = [] } = await runtime.sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
    );
    if (Messages.length === 0) return bodies;
    bodies.push(...Messages.map((m) => m.Body ?? ''));
  }
}

describe(`fan-out within its write budget (${ENGINE_NAME})`, () => {
  it(`creates ${DESTINATIONS} records once each, in paced waves of ${FAN_OUT_WRITES.wave}, and queues every message`, async () => {
    await start(DESTINATIONS, false);
    const { event } = await writeMenu(runtime.deps, { groupId: 'demo-group', locationId: LOCATION, menu: sampleMenu({ price: 31 }) });
    const time = keptTime();
    const pace = writePace(time);
    // When (on the kept time) each record's conditional create was sent.
    const creates: number[] = [];
    const page = () => dispatchMenuEvent(runtime.deps, event!, null, pace);
    const seen = (input: Record<string, any>) => {
      if (String(input.Item?.PK).startsWith('DELIVERY#') && input.ConditionExpression) creates.push(time.now());
    };
    expect(await watchingDynamo(runtime, seen, page)).toBe(DISPATCH_PAGE);

    // The first page: waves of 25, each started one wave's budget after the one before, never sooner.
    const waveMs = (FAN_OUT_WRITES.wave * FAN_OUT_WRITES.unitsPerRecord * 1000) / FAN_OUT_WRITES.unitsPerSecond;
    const waves = DISPATCH_PAGE / FAN_OUT_WRITES.wave;
    expect(creates).toHaveLength(DISPATCH_PAGE);
    // To the microsecond: a wave's time is a fraction of a millisecond when its units do not divide the budget evenly.
    const us = (times: number[]) => times.map((t) => Math.round(t * 1000) / 1000);
    expect(us([...new Set(creates)])).toEqual(us(Array.from({ length: waves }, (_, i) => i * waveMs)));
    for (const at of new Set(creates)) expect(creates.filter((t) => t === at)).toHaveLength(FAN_OUT_WRITES.wave);
    expect(us(time.sleeps)).toEqual(us(Array.from({ length: waves - 1 }, () => waveMs)));
    // No second of the kept time holds more than the budget.
    for (const from of creates) {
      const units = creates.filter((t) => t >= from && t < from + 1000).length * FAN_OUT_WRITES.unitsPerRecord;
      expect(units).toBeLessThanOrEqual(FAN_OUT_WRITES.unitsPerSecond);
    }

    // The next page is the wake-up's, on the same invocation's budget: it waits behind the first page's waves.
    // The wake-up on the fan-out queue, alone there; the page's deliveries on the delivery queue.
    const wakeUps = (await drainQueue(runtime.queues.fanOutQueueUrl)).map(parseFanOutMessage);
    expect(wakeUps).toEqual([{ dispatch: event!.eventId, cursor: expect.any(String) }]);
    const { cursor } = wakeUps[0] as { cursor: string };
    await watchingDynamo(runtime, seen, () => continueDispatch(runtime.deps, event!.eventId, cursor, pace));
    expect(us(creates.slice(DISPATCH_PAGE))).toEqual(
      us([...Array(FAN_OUT_WRITES.wave).fill(waves * waveMs), ...Array(5).fill((waves + 1) * waveMs)]),
    );
    expect(await runtime.store.outbox.get(event!.eventId)).toBeNull();

    // Every record once, every message queued once (10 a SendMessageBatch), none for anyone else.
    const records = await recordsOf(event!.eventId);
    expect(records).toHaveLength(DESTINATIONS);
    expect(new Set(records.map((r) => r.destinationId)).size).toBe(DESTINATIONS);
    expect(records.every((r) => r.version === 0 && r.status === 'PENDING')).toBe(true);
    const delivered = (await drainQueue(runtime.queues.webhookQueueUrl)).map((body) => parseDeliveryMessage(body)?.deliveryId);
    expect(delivered.sort()).toEqual(records.map((r) => r.deliveryId).sort());
    expect(pace.seconds()).toBe((DESTINATIONS * FAN_OUT_WRITES.unitsPerRecord) / FAN_OUT_WRITES.unitsPerSecond);
  });

  it('resumes a fan-out cut mid-page from the outbox: no record created twice, every receiver hears the event once', async () => {
    await start(DESTINATIONS, true);
    const { event } = await writeMenu(runtime.deps, { groupId: 'demo-group', locationId: LOCATION, menu: sampleMenu({ price: 32 }) });
    // The invocation ends while its third wave waits for the budget: two waves written, nothing sent yet.
    let takes = 0;
    const cut: Pace = {
      take: async () => {
        if (++takes === 3) throw new Error('the invocation ended');
      },
      seconds: () => 0,
    };
    await expect(dispatchMenuEvent(runtime.deps, event!, null, cut)).rejects.toThrow('the invocation ended');
    const cutAt = new Date(clock.now()).toISOString();
    expect(await recordsOf(event!.eventId)).toHaveLength(2 * FAN_OUT_WRITES.wave);
    expect(await runtime.store.outbox.get(event!.eventId)).toMatchObject({ cursor: null });

    // Past the outbox's grace the sweeper takes the fan-out on from the entry: the first page again, then the rest.
    clock.advance(61_000);
    await runtime.sweep();
    await receiver.waitUntil(
      (all) => new Set(all.filter((r) => r.body?.eventId === event!.eventId).map((r) => r.path)).size === DESTINATIONS,
      'every destination to hear the event',
    );
    const records = await recordsOf(event!.eventId);
    expect(records).toHaveLength(DESTINATIONS);
    // The records the cut run wrote were kept, not written again; the others were created once by the resumed run.
    expect(records.filter((r) => r.createdAt === cutAt)).toHaveLength(2 * FAN_OUT_WRITES.wave);
    expect(records.filter((r) => r.createdAt !== cutAt)).toHaveLength(DESTINATIONS - 2 * FAN_OUT_WRITES.wave);
    const heard = receiver.received.filter((r) => r.body?.eventId === event!.eventId);
    expect(heard).toHaveLength(DESTINATIONS);
    expect(heard.every((r) => r.verified)).toBe(true);
    for (const r of records)
      expect(await runtime.store.deliveries.get(String(r.deliveryId))).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
    expect(await runtime.store.outbox.get(event!.eventId)).toBeNull();
  });
});
